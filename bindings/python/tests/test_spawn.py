"""Real confined spawns, checked from outside the sandbox.
SPDX-License-Identifier: Apache-2.0
"""
import os
import signal
import unittest

import libsandbox as sbx

import support


class TestSpawn(support.TestCase):
    def setUp(self):
        self.ws, self.outside = support.workspace_and_outside(self)

    def plan(self, mode=sbx.Mode.WORKSPACE_WRITE):
        return sbx.Profile.from_mode(mode, self.ws).compile()

    def test_write_inside_lands_write_outside_does_not(self):
        inside = os.path.join(self.ws, "inside.txt")
        outside = os.path.join(self.outside, "outside.txt")
        # Exit 0 only if the inside write worked and the outside one failed,
        # so the command is known to have run as well.
        script = ("echo in > '%s' || exit 10; if echo out > '%s'; then exit 11; fi; exit 0"
                  % (inside, outside))
        done = sbx.run(self.plan(), ["sh", "-c", script], capture_output=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(inside) as f:
            self.assertEqual(f.read(), "in\n")
        self.assertFalse(os.path.exists(outside))
        self.assertEqual(os.listdir(self.outside), [])
        self.assertEqual(done.report.enforcement, sbx.Enforcement.FULL)
        self.assertEqual(done.report.missing, 0)
        self.assertTrue(done.report.achieved & sbx.Guarantee.WRITE_BOUNDARY)
        self.assertIn("write-boundary", done.report.achieved_names)

    def test_read_only_refuses_the_workspace_too(self):
        inside = os.path.join(self.ws, "inside.txt")
        done = sbx.run(self.plan(sbx.Mode.READ_ONLY), ["sh", "-c", "echo x > '%s'" % inside],
                       capture_output=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertFalse(os.path.exists(inside))
        self.assertEqual(self.plan(sbx.Mode.READ_ONLY).denial(done.returncode, done.stderr),
                         sbx.DenialClass.FILE_WRITE)

    def test_a_profile_is_compiled_for_you(self):
        p = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws)
        self.assertEqual(sbx.run(p, ["true"]).returncode, 0)

    def test_pipes(self):
        child = sbx.spawn(self.plan(), ["sh", "-c", "cat; echo oops >&2; exit 7"],
                          stdin=sbx.PIPE, stdout=sbx.PIPE, stderr=sbx.PIPE)
        with child:
            self.assertGreater(child.pid, 0)
            out, err = child.communicate(b"hello\x00world\n" * 5000)
            self.assertEqual(out, b"hello\x00world\n" * 5000)
            self.assertEqual(err, b"oops\n")
            self.assertEqual(child.returncode, 7)
            self.assertEqual(child.wait(), 7)
            self.assertTrue(os.WIFEXITED(child.wait_status))

    def test_stderr_to_stdout_and_devnull(self):
        done = sbx.run(self.plan(), ["sh", "-c", "echo a; echo b >&2"], stdout=sbx.PIPE,
                       stderr=sbx.STDOUT, stdin=sbx.DEVNULL)
        self.assertEqual(sorted(done.stdout.split()), [b"a", b"b"])
        self.assertIsNone(done.stderr)

    def test_file_objects_as_stdio(self):
        path = os.path.join(self.outside, "captured")
        with open(path, "wb") as f:
            done = sbx.run(self.plan(), ["echo", "to a file"], stdout=f)
        self.assertEqual(done.returncode, 0)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"to a file\n")

    def test_environment_is_filtered_and_env_set_added(self):
        done = sbx.run(self.plan(), ["sh", "-c", 'echo "$SBX_PY_SECRET|$SBX_PY_SET"'],
                       capture_output=True, env={"PATH": os.environ["PATH"],
                                                 "SBX_PY_SECRET": "leak"},
                       env_set={"SBX_PY_SET": "given"})
        secret, given = done.stdout.decode().strip().split("|")
        self.assertEqual(given, "given")
        self.assertEqual(secret, "")
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.spawn, self.plan(), ["true"],
                                env_set=["HOME=/x"])

    def test_cwd(self):
        sub = os.path.join(self.ws, "sub")
        os.mkdir(sub)
        done = sbx.run(self.plan(), ["pwd"], capture_output=True, cwd=sub)
        self.assertEqual(done.stdout.decode().strip(), sub)

    def test_kill_and_poll(self):
        child = sbx.spawn(self.plan(), ["sleep", "600"], stdout=sbx.DEVNULL)
        with child:
            self.assertIsNone(child.poll())
            with self.assertRaises(sbx.TimeoutExpired):
                child.wait(timeout=0.05)
            child.kill()
            rc = child.wait()
            # -SIGKILL, or 128 + SIGKILL as the native rung's init reports it
            self.assertIn(rc, (-signal.SIGKILL, 128 + signal.SIGKILL))
            self.assertFalse(child.timed_out)
            child.kill()                            # reaped already: not an error
            self.assertEqual(child.report().enforcement, sbx.Enforcement.FULL)

    def test_timeout_kills_the_tree(self):
        with sbx.spawn(self.plan(), ["sh", "-c", "sleep 600 & sleep 600"],
                       timeout=0.2) as child:
            rc = child.wait()
            self.assertTrue(child.timed_out)
            self.assertNotEqual(rc, 0)

    def test_limits_report(self):
        with sbx.spawn(self.plan(), ["true"], pids_max=64) as child:
            child.wait()
            lim = child.limits()
            self.assertEqual(lim.pids_max, 64)
            self.assertNotEqual(lim.pids_kind, sbx.LimitKind.NONE)
            self.assertEqual(lim.memory_kind, sbx.LimitKind.NONE)

    def test_pass_fds(self):
        r, w = os.pipe()
        try:
            done = sbx.run(self.plan(), ["sh", "-c", "echo passed >&3"], pass_fds=[w])
            os.close(w)
            w = -1
            self.assertEqual(done.returncode, 0)
            self.assertEqual(os.read(r, 100), b"passed\n")
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)

    def test_failed_spawn_closes_its_pipes(self):
        before = set(os.listdir("/proc/self/fd"))
        with self.assertRaises(sbx.SandboxError):
            sbx.spawn(self.plan(), ["sbx-no-such-command"], stdin=sbx.PIPE, stdout=sbx.PIPE,
                      stderr=sbx.PIPE)
        self.assertEqual(set(os.listdir("/proc/self/fd")), before)

    def test_backend(self):
        b = sbx.detect_backend()
        self.assertIn(b, (sbx.Backend.NATIVE, sbx.Backend.LANDLOCK, sbx.Backend.BWRAP))
        achieved, enf = sbx.backend_guarantees(self.plan())
        self.assertEqual(enf, sbx.Enforcement.FULL)
        self.assertTrue(achieved & sbx.Guarantee.READ_BOUNDARY)
        self.assertSandboxError(sbx.Code.E_TOO_LATE, sbx.set_local_config, sbx.Backend.NATIVE)


class TestConfine(support.TestCase):
    """confine(): the argv a host runs itself (through the stage-2 runner)."""

    def setUp(self):
        os.environ["SBX_RUNNER"] = support.runner()
        self.ws, self.outside = support.workspace_and_outside(self)

    def test_confined_argv_runs_confined(self):
        import subprocess
        inside = os.path.join(self.ws, "in")
        outside = os.path.join(self.outside, "out")
        c = sbx.confine(["sh", "-c", "touch '%s'; touch '%s'; exit 0" % (inside, outside)],
                        sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws))
        self.assertEqual(c.argv[0], os.environ["SBX_RUNNER"])
        self.assertIn("--", c.argv)
        self.assertEqual(c.enforcement, sbx.Enforcement.FULL)
        self.assertTrue(c.denial_signatures)
        self.assertTrue(c.runner_rules)
        r = subprocess.run(c.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=self.ws)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(inside))
        self.assertFalse(os.path.exists(outside))
        self.assertIsNone(c.runner_rules[0].matches(1, b"make: *** [all] Error 1"))

    def test_confine_a_policy(self):
        svc = sbx.PolicyService(sbx.Mode.READ_ONLY, self.ws)
        c = sbx.confine(["true"], svc.resolve().to_confined())
        self.assertEqual(c.argv[-1], "true")
        self.assertEqual(sbx.RunnerRule((125,), ("cannot start sandbox runner",)).matches(
            125, b"sandbox-run: cannot start sandbox runner: x"), "cannot start sandbox runner")


if __name__ == "__main__":
    unittest.main()
