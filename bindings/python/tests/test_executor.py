"""Executors and single-spawn grants (docs/executors.md).
SPDX-License-Identifier: Apache-2.0
"""
import os
import threading
import unittest

import libsandbox as sbx

import support


class ExecutorTestCase(support.TestCase):
    def setUp(self):
        self.ws, self.outside = support.workspace_and_outside(self)
        self.scratch = os.path.join(support.scratch_dir(self), "scratch")

    def executor(self, profile, max_executors=1):
        s = sbx.ExecutorSet(profile, self.scratch, max_executors)
        self.addCleanup(s.close)
        return s, s.get("session-1")

    def gated(self, **changes):
        cfg = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws).config()
        for k, v in changes.items():
            setattr(cfg, k, v)
        return sbx.Profile(cfg)


class TestExecutorRun(ExecutorTestCase):
    def test_run_captures_output_and_reports(self):
        _, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws))
        r = ex.run("cat; echo err >&2; exit 3", input=b"from stdin\x00\n")
        self.assertTrue(r.exited)
        self.assertEqual((r.exit_code, r.returncode), (3, 3))
        self.assertEqual(r.stdout, b"from stdin\x00\n")
        self.assertEqual(r.stderr, b"err\n")
        self.assertFalse(r.stdout_truncated or r.stderr_truncated or r.timed_out)
        self.assertEqual(r.guarantees.enforcement, sbx.Enforcement.FULL)
        self.assertEqual(r.denial, sbx.DenialClass.NONE)
        self.assertEqual(r.marker, "")

    def test_argv_form_and_truncation(self):
        _, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws))
        r = ex.run(argv=["sh", "-c", "printf 1234567890"], output_cap=4)
        self.assertEqual(r.stdout, b"1234")
        self.assertTrue(r.stdout_truncated)
        with self.assertRaises(ValueError):
            ex.run("true", argv=["true"])

    def test_writes_checked_from_outside_and_denial_marker(self):
        _, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws))
        inside = os.path.join(self.ws, "in")
        outside = os.path.join(self.outside, "out")
        r = ex.run("touch '%s' && touch '%s'" % (inside, outside))
        self.assertNotEqual(r.exit_code, 0)
        self.assertTrue(os.path.exists(inside))
        self.assertFalse(os.path.exists(outside))
        self.assertEqual(r.denial, sbx.DenialClass.FILE_WRITE)
        self.assertIn("file write denied", r.marker)

    def test_timeout_and_cancel(self):
        _, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws))
        r = ex.run("sleep 600", timeout=0.2)
        self.assertTrue(r.timed_out)
        self.assertFalse(r.exited)
        results = []
        t = threading.Thread(target=lambda: results.append(
            ex.run("sleep 600", execution_id="call-9")))
        t.start()
        while t.is_alive():                     # until the run has started and been killed
            ex.cancel("call-9")
            t.join(0.05)
        self.assertTrue(results[0].cancelled)
        ex.cancel()                             # nothing runs: not an error

    def test_close(self):
        s, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws))
        self.assertEqual(ex.run("true").exit_code, 0)
        self.assertIs(s.get("session-1"), ex)
        s.close()
        s.close()                               # idempotent
        self.assertSandboxError(sbx.Code.E_CLOSED, ex.run, "true")
        self.assertSandboxError(sbx.Code.E_CLOSED, s.get, "session-2")

    def test_too_many_keys(self):
        s, _ = self.executor(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws))
        self.assertSandboxError(sbx.Code.E_RANGE, s.get, "session-2")

    def test_bad_options(self):
        p = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws)
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.ExecutorSet, p, "relative", 1)
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.ExecutorSet, p, self.scratch, 0)


class TestGrants(ExecutorTestCase):
    def test_command_grant_round_trip(self):
        p = self.gated(command=sbx.Access.GATED)
        _, ex = self.executor(p)
        cmd = "echo granted"
        self.assertEqual(p.access_for("command.execute", cmd), sbx.Access.GATED)
        e = self.assertSandboxError(sbx.Code.E_GRANT_REQUIRED, ex.run, cmd)
        self.assertIsInstance(e, sbx.GrantError)
        tok = ex.grant_command("call-1", cmd)
        self.assertRegex(tok, r"^sbxg1-[0-9a-f]{32}$")
        self.assertSandboxError(sbx.Code.E_GRANT_WRONG_EXECUTION, ex.run, cmd,
                                execution_id="call-2", tokens=[tok])
        self.assertSandboxError(sbx.Code.E_GRANT_WRONG_COMMAND, ex.run, "echo other",
                                execution_id="call-1", tokens=[tok])
        r = ex.run(cmd, execution_id="call-1", tokens=[tok])
        self.assertEqual(r.stdout, b"granted\n")
        self.assertSandboxError(sbx.Code.E_GRANT_REPLAY, ex.run, cmd, execution_id="call-1",
                                tokens=[tok])
        self.assertSandboxError(sbx.Code.E_GRANT_UNKNOWN, ex.run, cmd, execution_id="call-1",
                                tokens=["sbxg1-" + "0" * 32])

    def test_argv_grant_binds_the_normalized_command(self):
        _, ex = self.executor(self.gated(command=sbx.Access.GATED))
        argv = ["printf", "%s|%s\\n", "it's", "a b"]
        self.assertEqual(sbx.normalize_argv(argv), "'printf' '%s|%s\\n' 'it'\\''s' 'a b'")
        tok = ex.grant_command("call-1", sbx.normalize_argv(argv))
        r = ex.run(argv=argv, execution_id="call-1", tokens=[tok])
        self.assertEqual(r.stdout, b"it's|a b\n", r.stderr)

    def test_tree_write_grant_checked_from_outside(self):
        p = self.gated(workspace_write=sbx.Access.GATED)
        _, ex = self.executor(p)
        target = os.path.join(self.ws, "made-by-grant")
        cmd = "touch '%s'" % target
        r = ex.run(cmd)                         # no grant: the workspace is read-only
        self.assertNotEqual(r.exit_code, 0)
        self.assertFalse(os.path.exists(target))
        tok = ex.issue_grant(execution_id="call-1", command=cmd,
                             kind="filesystem.write", scope="tree:" + self.ws,
                             grant_class=sbx.GrantClass.FS_TREE_WRITE, target=self.ws)
        r = ex.run(cmd, execution_id="call-1", tokens=[tok])
        self.assertEqual(r.exit_code, 0, r.stderr)
        self.assertTrue(os.path.exists(target))
        os.unlink(target)
        r = ex.run(cmd)                         # the next run is back to the profile
        self.assertNotEqual(r.exit_code, 0)
        self.assertFalse(os.path.exists(target))

    def test_grant_refusals(self):
        _, ex = self.executor(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws))
        # Allow needs no grant; Deny can never be granted.
        self.assertSandboxError(sbx.Code.E_GRANT_UNSUPPORTED, ex.grant_command, "c", "true")
        self.assertSandboxError(
            sbx.Code.E_GRANT_DENIED, ex.issue_grant, execution_id="c", command="true",
            kind="filesystem.write", scope="host", grant_class=sbx.GrantClass.FS_HOST_WRITE,
            target="/")
        self.assertSandboxError(
            sbx.Code.E_INVALID, ex.issue_grant, execution_id="c", command="true",
            kind="network", scope="*", grant_class=sbx.GrantClass.COMMAND_START, target="*")


if __name__ == "__main__":
    unittest.main()
