# The version of this binding, which is the version of the libsandbox it
# mirrors: its structs are the layouts of that release's include/sandbox.h.
# A literal, so setuptools reads it without importing the package (and so
# without loading the library).  SPDX-License-Identifier: Apache-2.0
__version__ = "0.1.0"
