"""Shared helpers of the binding's tests.  SPDX-License-Identifier: Apache-2.0

The tests run against whatever libsandbox the package finds (README.md,
"Finding the library") and never skip: a missing library, header or C
compiler is a failure.  $LIBSANDBOX_EXPECT_PREFIX, when set, is where the
loaded library must live (scripts/ci-python sets it to the install prefix).
"""
import os
import shutil
import subprocess
import tempfile
import unittest

import libsandbox as sbx


def scratch_dir(test, prefix="sbx-py-"):
    """A canonical fresh directory, removed after the test."""
    base = "/var/tmp" if os.access("/var/tmp", os.W_OK) else None
    d = os.path.realpath(tempfile.mkdtemp(prefix=prefix, dir=base))
    test.addCleanup(shutil.rmtree, d, True)
    return d


def workspace_and_outside(test):
    """(workspace, outside): two sibling directories of one fresh parent."""
    parent = scratch_dir(test)
    ws = os.path.join(parent, "workspace")
    outside = os.path.join(parent, "outside")
    os.mkdir(ws)
    os.mkdir(outside)
    return ws, outside


def pkg_config(*args):
    exe = shutil.which("pkg-config")
    if exe is None:
        return None
    r = subprocess.run([exe, *args, "sandbox"], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    out = r.stdout.decode().strip()
    return out if r.returncode == 0 and out else None


def include_dir():
    """The directory of the sandbox.h the loaded library was installed with."""
    cands = [os.environ.get("LIBSANDBOX_INCLUDE"), pkg_config("--variable=includedir"),
             os.path.join(os.path.dirname(os.path.dirname(sbx.library_path())), "include")]
    for d in cands:
        if d and os.path.isfile(os.path.join(d, "sandbox.h")):
            return d
    raise AssertionError("sandbox.h not found (tried %s): set LIBSANDBOX_INCLUDE or "
                         "PKG_CONFIG_PATH" % [c for c in cands if c])


def runner():
    """The stage-2 runner confine() names: $SBX_RUNNER, else sandbox-run next
    to the library's prefix, else on PATH."""
    cands = [os.environ.get("SBX_RUNNER"),
             os.path.join(os.path.dirname(os.path.dirname(sbx.library_path())), "bin",
                          "sandbox-run"),
             shutil.which("sandbox-run")]
    for c in cands:
        if c and os.access(c, os.X_OK):
            return c
    raise AssertionError("sandbox-run not found (tried %s): set SBX_RUNNER"
                         % [c for c in cands if c])


class TestCase(unittest.TestCase):
    def assertSandboxError(self, code, fn, *args, **kwargs):
        """fn raises SandboxError with this code; returns the exception."""
        with self.assertRaises(sbx.SandboxError) as cm:
            fn(*args, **kwargs)
        e = cm.exception
        self.assertEqual(e.code, code, str(e))
        self.assertEqual(e.name, "SBX_" + sbx.Code(code).name)
        self.assertTrue(e.message)
        return e
