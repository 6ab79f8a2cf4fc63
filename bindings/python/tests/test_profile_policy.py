"""Profiles, presets, policy resolution, the session log, escalation.
SPDX-License-Identifier: Apache-2.0
"""
import os
import unittest

import libsandbox as sbx

import support


class TestProfiles(support.TestCase):
    def setUp(self):
        self.ws = support.scratch_dir(self)

    def test_mode_profiles(self):
        ro = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws)
        ww = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws)
        self.assertEqual(ro.workspace_root, self.ws)
        self.assertEqual(ro.access_for("filesystem.write", self.ws + "/f"), sbx.Access.DENY)
        self.assertEqual(ww.access_for("filesystem.write", self.ws + "/f"), sbx.Access.ALLOW)
        self.assertEqual(ww.access_for("filesystem.write", "host"), sbx.Access.DENY)
        self.assertEqual(ww.access_for("network", "example.com:443"), sbx.Access.DENY)
        self.assertEqual(ww.access_for("command.execute", "make test"), sbx.Access.ALLOW)
        self.assertSandboxError(sbx.Code.E_INVALID, ww.access_for, "no.such.kind", "x")
        self.assertSandboxError(sbx.Code.E_INVALID, ww.access_for, "command.execute", " ls")

    def test_config_round_trip_and_custom_profile(self):
        base = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws)
        cfg = base.config()
        self.assertEqual(cfg.workspace_root, self.ws)
        self.assertEqual(cfg.workspace_read, sbx.Access.ALLOW)
        self.assertEqual(cfg.workspace_write, sbx.Access.DENY)
        extra = support.scratch_dir(self)
        cfg.command = sbx.Access.GATED
        cfg.additional_roots = [sbx.RootAccess(extra, sbx.Access.ALLOW, sbx.Access.GATED)]
        p = sbx.Profile(cfg)
        got = p.config()
        self.assertEqual(got.command, sbx.Access.GATED)
        self.assertEqual(got.additional_roots, cfg.additional_roots)
        self.assertEqual(p.access_for("filesystem.write", "tree:" + extra), sbx.Access.GATED)
        self.assertEqual(p.access_for("command.execute", "ls"), sbx.Access.GATED)
        self.assertNotEqual(p.fingerprint(), base.fingerprint())
        self.assertEqual(sbx.Profile(cfg).fingerprint(), p.fingerprint())
        self.assertEqual(len(p.fingerprint()), 64)

    def test_zeroed_config_is_the_most_restrictive(self):
        p = sbx.Profile(sbx.ProfileConfig(self.ws))
        for kind, scope in (("filesystem.read", self.ws), ("filesystem.write", self.ws),
                            ("network", "*"), ("command.execute", "true")):
            self.assertEqual(p.access_for(kind, scope), sbx.Access.DENY, kind)

    def test_bad_config_names_the_field(self):
        cfg = sbx.ProfileConfig(self.ws, workspace_read=sbx.Access.DENY,
                                workspace_write=sbx.Access.ALLOW)
        e = self.assertSandboxError(sbx.Code.E_INVALID, sbx.Profile, cfg)
        self.assertIn("workspace", e.message)

    def test_unix_sockets_and_v2_fields_reach_the_library(self):
        cfg = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws).config()
        cfg.unix_sockets = [self.ws + "/agent.sock"]
        cfg.accept_unprotected_git = True
        got = sbx.Profile(cfg).config()
        self.assertEqual(got.unix_sockets, cfg.unix_sockets)
        self.assertTrue(got.accept_unprotected_git)

    def test_restrict(self):
        ww = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws)
        ro = sbx.Profile.from_mode(sbx.Mode.READ_ONLY, self.ws)
        both = ww.restrict(ro)
        self.assertEqual(both.access_for("filesystem.write", self.ws + "/x"), sbx.Access.DENY)

    def test_presets(self):
        safe = sbx.resolve_preset("safe")
        self.assertEqual((safe.id, safe.sandbox_mode, safe.approval),
                         (sbx.PresetId.SAFE, sbx.Mode.READ_ONLY, sbx.Approval.ASK_DANGEROUS))
        custom = sbx.custom_preset(sbx.PresetId.REVIEW, approval_override=sbx.Approval.ALLOW)
        self.assertEqual(custom.id, sbx.PresetId.CUSTOM)
        self.assertEqual(sbx.derive_preset(sbx.Mode.WORKSPACE_WRITE, sbx.Approval.ASK),
                         sbx.PresetId.REVIEW)
        p = sbx.Profile.from_preset("review", self.ws)
        self.assertEqual(p.access_for("filesystem.write", self.ws + "/f"), sbx.Access.ALLOW)
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.resolve_preset, "custom")

    def test_names_and_parsers(self):
        self.assertEqual(sbx.parse_mode("workspace-write"), sbx.Mode.WORKSPACE_WRITE)
        self.assertEqual(sbx.mode_name(sbx.Mode.READ_ONLY), "read-only")
        self.assertEqual(sbx.parse_backend("landlock"), sbx.Backend.LANDLOCK)
        self.assertEqual(sbx.parse_approval("ask"), sbx.Approval.ASK)
        self.assertEqual(sbx.access_name(sbx.Access.GATED), "gated")
        self.assertEqual(sbx.guarantee_name(sbx.Guarantee.READ_BOUNDARY), "read-boundary")
        self.assertEqual(sbx.guarantee_name(3), "invalid")
        self.assertEqual(sbx.guarantee_names(sbx.Guarantee.ENV_SCRUB | sbx.Guarantee.NO_NEW_PRIVS),
                         ["env-scrub", "no-new-privs"])

    def test_plan(self):
        plan = sbx.Profile.from_mode(sbx.Mode.WORKSPACE_WRITE, self.ws).compile()
        g = plan.guarantees()
        self.assertTrue(g.required & sbx.Guarantee.WRITE_BOUNDARY)
        self.assertEqual(g.achieved, 0)
        self.assertEqual(g.enforcement, sbx.Enforcement.NONE)
        self.assertIn(self.ws, plan.describe())
        self.assertIsInstance(plan.discover(), sbx.Plan)
        self.assertEqual(plan.denial(1, b"touch: cannot touch '/etc/x': Read-only file system"),
                         sbx.DenialClass.FILE_WRITE)
        self.assertEqual(plan.denial(0, b""), sbx.DenialClass.NONE)


class TestPolicy(support.TestCase):
    def setUp(self):
        self.root = support.scratch_dir(self)
        self.svc = sbx.PolicyService(sbx.Mode.READ_ONLY, self.root)

    def test_default_override_events_and_cwd(self):
        p = self.svc.resolve()
        self.assertEqual((p.mode, p.workspace_root, p.session_id), (sbx.Mode.READ_ONLY,
                                                                    self.root, None))
        cwd = support.scratch_dir(self)
        ev = [sbx.ModeEvent(sbx.Mode.WORKSPACE_WRITE, sbx.ModeSource.USER, 1),
              sbx.ModeEvent(sbx.Mode.DANGER_FULL_ACCESS, sbx.ModeSource.DELEGATION, 2),
              sbx.ModeEvent(sbx.Mode.WORKSPACE_WRITE, sbx.ModeSource.ESCALATION, 3)]
        p = self.svc.resolve(session_id="s-1", session_cwd=cwd, events=ev)
        self.assertEqual((p.mode, p.workspace_root, p.session_id),
                         (sbx.Mode.WORKSPACE_WRITE, cwd, "s-1"))
        self.assertEqual(sbx.effective_mode(ev), sbx.Mode.WORKSPACE_WRITE)
        p = self.svc.resolve(mode_override=sbx.Mode.READ_ONLY, events=ev)
        self.assertEqual(p.mode, sbx.Mode.READ_ONLY)
        self.assertSandboxError(sbx.Code.E_INVALID, self.svc.resolve, session_id="")
        self.assertSandboxError(sbx.Code.E_INVALID, self.svc.resolve, session_cwd="rel")

    def test_confined_policy_and_writable_roots(self):
        c = self.svc.resolve(mode_override=sbx.Mode.WORKSPACE_WRITE).to_confined()
        self.assertEqual(c.mode, sbx.ConfinedMode.WORKSPACE_WRITE)
        self.assertEqual(c.workspace_root, self.root)
        extra = support.scratch_dir(self)
        roots = c.writable_roots([extra, self.root + "/nested"])
        self.assertEqual(roots, sorted([self.root, extra]))
        self.assertTrue(sbx.path_is_within(self.root + "/a/b", roots))
        self.assertFalse(sbx.path_is_within("/etc/passwd", roots))
        ro = self.svc.resolve().to_confined()
        self.assertEqual(ro.writable_roots(), [])

    def test_session_log_replays(self):
        path = os.path.join(support.scratch_dir(self), "session.jsonl")
        with sbx.SessionLog(path) as log:
            self.assertEqual(log.report.records, 0)
            log.append(sbx.ModeEvent(sbx.Mode.WORKSPACE_WRITE, sbx.ModeSource.USER, 5))
            self.assertSandboxError(sbx.Code.E_INVALID, log.append,
                                    sbx.ModeEvent(sbx.Mode.NONE, sbx.ModeSource.USER, 6))
        with sbx.SessionLog(path) as log:
            self.assertEqual(log.report.records, 1)
            self.assertEqual(log.events(),
                             [sbx.ModeEvent(sbx.Mode.WORKSPACE_WRITE, sbx.ModeSource.USER, 5)])
            p = self.svc.resolve(events=log.events())
            self.assertEqual(p.mode, sbx.Mode.WORKSPACE_WRITE)
            self.assertSandboxError(sbx.Code.E_IO, sbx.SessionLog, path)   # flock'ed

    def test_escalation_callback(self):
        seen = []

        def approver(req):
            seen.append(req)
            return sbx.EscalationOutcome.APPROVED_ONCE

        got = sbx.approve_escalation(sbx.Mode.READ_ONLY, sbx.Mode.WORKSPACE_WRITE,
                                     "needs to write the build dir", approver,
                                     session_id="s", command="make")
        self.assertEqual(got, sbx.Mode.WORKSPACE_WRITE)
        self.assertEqual((seen[0].justification, seen[0].command, seen[0].target_mode),
                         ("needs to write the build dir", "make", sbx.Mode.WORKSPACE_WRITE))
        self.assertSandboxError(sbx.Code.E_ESCALATION_DENIED, sbx.approve_escalation,
                                sbx.Mode.READ_ONLY, sbx.Mode.WORKSPACE_WRITE, "why",
                                lambda r: sbx.EscalationOutcome.DENIED)
        self.assertSandboxError(sbx.Code.E_ESCALATION_NO_APPROVER, sbx.approve_escalation,
                                sbx.Mode.READ_ONLY, sbx.Mode.WORKSPACE_WRITE, "why", None)

        def broken(req):
            raise KeyError("approver bug")
        with self.assertRaises(KeyError):       # counts as denied, then re-raised
            sbx.approve_escalation(sbx.Mode.READ_ONLY, sbx.Mode.WORKSPACE_WRITE, "why", broken)
        self.assertTrue(sbx.mode_can_escalate_to(sbx.Mode.READ_ONLY, sbx.Mode.WORKSPACE_WRITE))
        self.assertEqual(sbx.validate_escalation_args(None, None), sbx.Mode.NONE)


class TestPolicyFile(support.TestCase):
    def setUp(self):
        self.ws, self.extra = support.workspace_and_outside(self)
        self.doc = ('{\n'
                    '  "version": 1,\n'
                    '  "mode": "workspace-write",\n'
                    '  "write_roots": ["%s"],\n'
                    '  "env": {"pass": ["SBX_PY_PASS"], "set": {"SBX_PY_SET": "1"}},\n'
                    '  "limits": {"pids": 64, "timeout": 600}\n'
                    '}\n' % self.extra)

    def test_parse_settings_lines_env(self):
        pf = sbx.PolicyFile.parse(self.doc, "project.json")
        self.assertEqual(pf.name, "project.json")
        st = pf.settings()
        self.assertEqual(st.set, sbx.PolicySet.MODE | sbx.PolicySet.PIDS | sbx.PolicySet.TIMEOUT)
        self.assertEqual((st.mode, st.pids_max, st.timeout_ms), (sbx.Mode.WORKSPACE_WRITE, 64,
                                                                 600000))
        self.assertEqual(st.write_roots, [self.extra])
        self.assertEqual((st.env_pass, st.env_set), (["SBX_PY_PASS"], ["SBX_PY_SET=1"]))
        self.assertEqual((pf.line("mode"), pf.line("write_roots[0]"), pf.line("nope")), (3, 4, 0))
        self.assertEqual(pf.env({"SBX_PY_PASS": "x", "OTHER": "y"}),
                         ["SBX_PY_PASS=x", "SBX_PY_SET=1"])
        kw = pf.spawn_options({})
        self.assertEqual(kw, {"env_set": ["SBX_PY_SET=1"], "pids_max": 64, "timeout": 600.0})

    def test_profile_from_a_file_confines_a_spawn(self):
        path = os.path.join(support.scratch_dir(self), "policy.json")
        with open(path, "w") as f:
            f.write(self.doc)
        pf = sbx.PolicyFile.load(path)
        p = pf.profile(self.ws)
        self.assertEqual(p.access_for("filesystem.write", self.extra + "/f"), sbx.Access.ALLOW)
        self.assertEqual(sbx.Profile.from_file(path, self.ws).fingerprint(), p.fingerprint())
        done = sbx.run(p, ["sh", "-c", 'echo "$SBX_PY_SET" > "%s/made"' % self.extra],
                       **pf.spawn_options())
        self.assertEqual(done.returncode, 0)
        with open(os.path.join(self.extra, "made")) as f:
            self.assertEqual(f.read(), "1\n")

    def test_errors_name_file_line_and_key(self):
        e = self.assertSandboxError(sbx.Code.E_INVALID, sbx.PolicyFile.parse,
                                    '{"version": 1,\n "bogus": true}', "bad.json")
        self.assertTrue(e.message.startswith("bad.json:2: bogus: "), e.message)
        self.assertSandboxError(sbx.Code.E_UNSUPPORTED, sbx.Profile.from_string,
                                '{"version": 2}', None, self.ws)
        self.assertSandboxError(sbx.Code.E_NOT_FOUND, sbx.PolicyFile.load,
                                self.ws + "/no-such.json")
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.Profile.from_string,
                                '{"version": 1}')     # no workspace anywhere


class TestText(support.TestCase):
    def test_text_helpers(self):
        self.assertEqual(sbx.strip_ansi(b"\x1b[31mred\x1b[0m\x00!"), b"red\x00!")
        self.assertEqual(sbx.normalize_text(b"a\r\nb\rc\x07"), b"a\nb\nc")
        self.assertEqual(sbx.sanitize_text(b"\x1b]0;title\x07x\r\n"), b"x\n")
        self.assertEqual(sbx.sanitize_text(b""), b"")

    def test_markers(self):
        self.assertEqual(sbx.denial_marker(sbx.Mode.READ_ONLY),
                         "[sandbox: file access denied under read-only mode]")
        self.assertEqual(sbx.denial_class_marker(sbx.DenialClass.NETWORK,
                                                 sbx.Mode.WORKSPACE_WRITE),
                         "[sandbox: network access denied under workspace-write mode]")
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.denial_class_marker,
                                sbx.DenialClass.NONE, sbx.Mode.READ_ONLY)
        self.assertEqual(sbx.denied_by_sandbox(1, b"x: Operation not permitted\n",
                                               ["operation not permitted"]),
                         "operation not permitted")
        self.assertIsNone(sbx.denied_by_sandbox(0, b"Operation not permitted", ["operation"]))

    def test_paths(self):
        d = support.scratch_dir(self)
        os.symlink(d, d + "-link")
        self.addCleanup(os.unlink, d + "-link")
        self.assertEqual(sbx.canonical_path(d + "-link/a/../b"), d + "/b")
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.canonical_path, "relative")
        home = support.scratch_dir(self)
        os.makedirs(home + "/.cargo/bin")
        os.makedirs(home + "/.cargo/registry/src")
        with open(home + "/.cargo/credentials.toml", "w") as f:
            f.write("token\n")
        self.assertEqual(sbx.toolchain_roots(home),
                         [home + "/.cargo/bin", home + "/.cargo/registry/src"])

    def test_parse_size(self):
        self.assertEqual(sbx.parse_size("512M"), 512 << 20)
        self.assertEqual(sbx.parse_size("4096"), 4096)
        self.assertSandboxError(sbx.Code.E_INVALID, sbx.parse_size, "1KB")
        self.assertSandboxError(sbx.Code.E_RANGE, sbx.parse_size, "16777216T")


if __name__ == "__main__":
    unittest.main()
