#!/usr/bin/env python3
"""confine_command.py - run one command confined to a workspace and show
what the sandbox enforced (bindings/python/README.md, "Quick start").

    confine_command.py [WORKSPACE [COMMAND...]]
    confine_command.py . make test

SPDX-License-Identifier: Apache-2.0
"""
import os
import sys

import libsandbox as sbx

ws = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else ".")
argv = sys.argv[2:] or ["sh", "-c", "echo hi > hello.txt; echo hi > /etc/hello.txt"]

profile = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, ws)   # write the workspace only
try:
    done = sbx.run(profile, argv, capture_output=True, timeout=600)
except sbx.SandboxError as e:       # nothing ran: e.code, e.name, e.message
    sys.exit("confine_command: %s" % e)
sys.stdout.buffer.write(done.stdout)
sys.stderr.buffer.write(done.stderr)
print("exit code %d, enforcement %s: %s" % (done.returncode, done.report.enforcement.name,
                                            " ".join(done.report.achieved_names)))
sys.exit(done.returncode)
