"""Denial events and resource accounting (docs/events.md): real confined
spawns with the observer, checked from outside the sandbox.
SPDX-License-Identifier: Apache-2.0
"""
import os
import unittest

import libsandbox as sbx

import support

DENIED = "/etc/sbx-py-denied"


class TestChildEvents(support.TestCase):
    def setUp(self):
        self.ws = support.scratch_dir(self)
        # A name new to the host, so the denial is a create (not a write).
        self.assertFalse(os.path.lexists(DENIED), "%s exists on the host already" % DENIED)

    def plan(self, mode=sbx.Mode.READ_ONLY):
        return sbx.Profile.from_mode(mode, self.ws).compile()

    def test_observed_create_outside_the_workspace_is_an_event(self):
        with sbx.spawn(self.plan(), ["sh", "-c", "echo x > %s" % DENIED], observe=True,
                       stdout=sbx.DEVNULL, stderr=sbx.DEVNULL) as child:
            rc = child.wait()
            events = child.events()
            usage = child.usage()
        self.assertNotEqual(rc, 0)
        self.assertFalse(os.path.lexists(DENIED))
        hits = [e for e in events if e.op_name == "create" and e.target == DENIED]
        self.assertTrue(hits, "no create event for %s in %r" % (DENIED, events))
        ev = hits[0]
        self.assertEqual(ev.op, sbx.EventOp.CREATE)
        self.assertEqual(ev.source, sbx.EventSource.OBSERVER)
        self.assertEqual(ev.denial_class, sbx.DenialClass.FILE_WRITE)
        self.assertNotEqual(ev.err, 0)
        self.assertFalse(ev.truncated)
        self.assertGreater(ev.time_ms, 0)
        self.assertEqual(events.dropped, 0)
        self.assertTrue(usage.known & sbx.UsageKnown.WALL)
        self.assertGreater(usage.wall_us, 0)
        self.assertEqual(usage.limits_hit, 0)

    def test_run_carries_events_and_usage(self):
        done = sbx.run(self.plan(), ["sh", "-c", "echo x > %s" % DENIED], observe=True,
                       capture_output=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertFalse(os.path.lexists(DENIED))
        self.assertIn(("create", DENIED), [(e.op_name, e.target) for e in done.events])
        self.assertIsNotNone(done.usage)

    def test_without_observe_no_file_events(self):
        done = sbx.run(self.plan(), ["sh", "-c", "echo x > %s" % DENIED], capture_output=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertFalse(os.path.lexists(DENIED))
        self.assertEqual([e for e in done.events if e.source == sbx.EventSource.OBSERVER], [])

    def test_an_allowed_write_is_no_event(self):
        inside = os.path.join(self.ws, "inside")
        done = sbx.run(self.plan(sbx.Mode.WORKSPACE_WRITE),
                       ["sh", "-c", "echo x > '%s'" % inside], observe=True)
        self.assertEqual(done.returncode, 0)
        self.assertTrue(os.path.exists(inside))
        self.assertEqual(list(done.events), [])

    def test_timeout_is_a_limit_event(self):
        with sbx.spawn(self.plan(), ["sleep", "600"], timeout=0.2) as child:
            child.wait()
            self.assertTrue(child.timed_out)
            self.assertIn((sbx.EventOp.LIMIT, "timeout", sbx.EventSource.LIMITS),
                          [(e.op, e.target, e.source) for e in child.events()])
            self.assertTrue(child.usage().limits_hit & sbx.LimitHit.TIMEOUT)

    def test_usage_needs_a_reaped_child(self):
        with sbx.spawn(self.plan(), ["sleep", "600"]) as child:
            self.assertSandboxError(sbx.Code.E_INVALID, child.usage)
            child.kill()
            child.wait()
            self.assertTrue(child.usage().known & sbx.UsageKnown.WALL)

    def test_names(self):
        self.assertEqual(sbx.event_op_name(sbx.EventOp.CREATE), "create")
        self.assertEqual(sbx.event_op_name(sbx.EventOp.UNIX_CONNECT), "unix-connect")
        self.assertEqual(sbx.event_op_name(0), "unknown")
        self.assertEqual(sbx.event_op_name(999), "unknown")


class TestExecutorRunEvents(support.TestCase):
    def setUp(self):
        self.ws = support.scratch_dir(self)
        self.assertFalse(os.path.lexists(DENIED), "%s exists on the host already" % DENIED)
        s = sbx.ExecutorSet(sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws),
                            os.path.join(support.scratch_dir(self), "scratch"))
        self.addCleanup(s.close)
        self.ex = s.get("session-1")

    def test_observed_run_reports_the_create(self):
        r = self.ex.run("echo x > %s" % DENIED, observe=True)
        self.assertNotEqual(r.exit_code, 0)
        self.assertFalse(os.path.lexists(DENIED))
        self.assertIn(("create", DENIED), [(e.op_name, e.target) for e in r.events])
        self.assertEqual(r.denial, sbx.DenialClass.FILE_WRITE)
        self.assertIn("file write denied", r.marker)
        self.assertIsNotNone(r.usage)
        self.assertTrue(r.usage.known & sbx.UsageKnown.WALL)

    def test_unobserved_run_still_has_usage(self):
        r = self.ex.run("true")
        self.assertEqual(r.exit_code, 0)
        self.assertEqual(list(r.events), [])
        self.assertIsNotNone(r.usage)


if __name__ == "__main__":
    unittest.main()
