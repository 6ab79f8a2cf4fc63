"""Errors: every failing call raises SandboxError carrying the sbx_code.
SPDX-License-Identifier: Apache-2.0
"""
import pickle
import unittest

import libsandbox as sbx

import support


class TestErrors(support.TestCase):
    def test_code_names_come_from_the_library(self):
        for c in sbx.Code:
            self.assertEqual(sbx.code_name(c), "SBX_" + c.name)
            self.assertTrue(sbx.strerror(c))
        self.assertEqual(sbx.code_name(10000), "SBX_E_UNKNOWN")
        self.assertEqual(sbx.strerror(10000), "unknown error")

    def test_invalid_argument_is_a_value_error_with_code_and_message(self):
        e = self.assertSandboxError(sbx.Code.E_INVALID, sbx.Profile.from_mode,
                                    sbx.Mode.WORKSPACE_WRITE, "relative/path")
        self.assertIsInstance(e, sbx.InvalidArgument)
        self.assertIsInstance(e, ValueError)
        self.assertIn("sbx_profile_from_mode", e.message)      # names the function
        self.assertIn("SBX_E_INVALID", str(e))
        self.assertEqual(e.sys_errno, 0)

    def test_bad_enum_value_is_rejected_not_clamped(self):
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.Profile.from_mode, 42, "/tmp")
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.parse_mode, "Read-Only")

    def test_not_found(self):
        self.assertSandboxError(sbx.Code.E_NOT_FOUND, sbx.effective_mode, [])

    def test_danger_is_not_confinable(self):
        svc = sbx.PolicyService(sbx.Mode.DANGER_FULL_ACCESS, "/tmp")
        pol = svc.resolve()
        self.assertTrue(pol.is_danger)
        e = self.assertSandboxError(sbx.Code.E_DANGER_NOT_CONFINABLE, pol.to_confined)
        self.assertIs(type(e), sbx.SandboxError)

    def test_escalation_errors_are_escalation_errors(self):
        e = self.assertSandboxError(sbx.Code.E_ESCALATION_INVALID_ARGS,
                                    sbx.validate_escalation_args, "workspace-write", None)
        self.assertIsInstance(e, sbx.EscalationError)
        e = self.assertSandboxError(sbx.Code.E_ESCALATION_NOT_WIDER, sbx.approve_escalation,
                                    sbx.Mode.WORKSPACE_WRITE, sbx.Mode.READ_ONLY, "why",
                                    lambda req: sbx.EscalationOutcome.APPROVED_ONCE)
        self.assertIsInstance(e, sbx.EscalationError)

    def test_gated_spawn_is_a_grant_error(self):
        ws = support.scratch_dir(self)
        cfg = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, ws).config()
        cfg.command = sbx.Access.GATED
        plan = sbx.Profile(cfg).compile()
        e = self.assertSandboxError(sbx.Code.E_GRANT_REQUIRED, sbx.spawn, plan, ["true"])
        self.assertIsInstance(e, sbx.GrantError)
        cfg.command = sbx.Access.DENY
        plan = sbx.Profile(cfg).compile()
        self.assertSandboxError(sbx.Code.E_GRANT_DENIED, sbx.spawn, plan, ["true"])

    def test_missing_command_is_not_found(self):
        ws = support.scratch_dir(self)
        plan = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, ws).compile()
        self.assertSandboxError(sbx.Code.E_NOT_FOUND, sbx.spawn, plan,
                                ["sbx-no-such-command-here"])

    def test_io_error_carries_errno(self):
        d = support.scratch_dir(self)
        # A session log below a regular file: the OS refuses (ENOTDIR).
        open(d + "/file", "w").close()
        with self.assertRaises(sbx.SandboxError) as cm:
            sbx.SessionLog(d + "/file/log.jsonl")
        self.assertIn(cm.exception.code, (sbx.Code.E_IO, sbx.Code.E_INVALID))
        if cm.exception.code == sbx.Code.E_IO:
            self.assertNotEqual(cm.exception.sys_errno, 0)

    def test_windows_tier_is_unsupported_here(self):
        self.assertSandboxError(sbx.Code.E_UNSUPPORTED, sbx.windows_inspect, "sbx-1",
                                "C:\\ProgramData\\sbx", proxy_ports=[8080])
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.windows_remove, "bad id!",
                                "C:\\ProgramData\\sbx")

    def test_unknown_code_stays_an_int(self):
        e = sbx.SandboxError(999, "from a newer library")
        self.assertEqual(e.code, 999)
        self.assertEqual(e.name, "SBX_E_UNKNOWN")

    def test_exceptions_pickle(self):
        e = sbx.GrantError(sbx.Code.E_GRANT_REPLAY, "grant already used", 0)
        f = pickle.loads(pickle.dumps(e))
        self.assertIs(type(f), sbx.GrantError)
        self.assertEqual((f.code, f.name, f.message), (e.code, e.name, e.message))

    def test_closed_handles_raise_in_python(self):
        p = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, "/tmp")
        p.close()
        p.close()                                   # idempotent
        with self.assertRaises(ValueError):
            p.compile()


if __name__ == "__main__":
    unittest.main()
