/*
 * test_runner_args.c - the stage-2 runner grammar: what Confine writes for
 * the native and landlock backends round-trips through the parser that
 * sbx_init uses into a profile with the same fingerprint; malformed
 * stage-2 argv is refused, never guessed at.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "compile/runner_args.h"
#include "linux/linux_internal.h"
#include "backend/backend.h"
#include "paths/paths_internal.h"

static char base[64];

static int setup(void **state)
{
        (void) state;
        strcpy(base, "/var/tmp/sbx-runner-XXXXXX");
        if (mkdtemp(base) == NULL) {
                strcpy(base, "/tmp/sbx-runner-XXXXXX");
                if (mkdtemp(base) == NULL)
                        return -1;
        }
        return 0;
}

static int teardown(void **state)
{
        char cmd[128];

        (void) state;
        (void) snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
        return system(cmd) == 0 ? 0 : -1;
}

/* The canonical spelling of base + suffix (base may sit below a symlink). */
static char *path_in(const char *suffix)
{
        char raw[256], *out = NULL;

        (void) snprintf(raw, sizeof(raw), "%s%s", base, suffix);
        assert_int_equal(sbx_path_canonical(raw, &out, NULL), SBX_OK);
        return out;
}

static size_t strv_len(char **v)
{
        size_t n = 0;

        while (v[n] != NULL)
                n++;
        return n;
}

/* Format p's flags, parse them back, rebuild: the fingerprints agree. */
static void round_trip(const sbx_profile *p, int32_t backend, uint64_t mem, uint64_t pids)
{
        const char *const cmd[] = { "sh", "-c", "echo -- \"$@\"", "--", "x", NULL };
        struct sbx__runner_limits lim = { mem, pids };
        struct sbx__runner_args a;
        char fp1[SBX_FINGERPRINT_SIZE], fp2[SBX_FINGERPRINT_SIZE];
        sbx_profile *q = NULL;
        sbx_error e = { 0, 0, { 0 } };
        char **argv = NULL;
        size_t n, i;

        assert_int_equal(sbx__runner_format(p, backend, &lim, "/opt/sbx/sandbox-run", cmd, &argv,
                                            &e), SBX_OK);
        n = strv_len(argv);
        assert_string_equal(argv[0], "/opt/sbx/sandbox-run");
        assert_string_equal(argv[1], SBX__STAGE2_FLAG);
        /* The original argv follows the first "--" untouched, even when it
         * contains a "--" of its own. */
        for (i = 2; i < n && strcmp(argv[i], "--") != 0; i += 2)
                ;
        assert_true(i + 5 < n + 1);
        assert_string_equal(argv[i + 1], "sh");
        assert_string_equal(argv[i + 4], "--");
        assert_string_equal(argv[i + 5], "x");

        memset(&a, 0, sizeof(a));
        if (sbx__runner_parse((int) n, (const char *const *) argv, &a, &e) != SBX_OK)
                fail_msg("parse: %s", e.message);
        assert_int_equal(a.backend, backend);
        assert_true(a.limits.memory_max == mem);
        assert_true(a.limits.pids_max == pids);
        assert_int_equal(a.n_command, 5);
        assert_string_equal(a.command[0], "sh");
        assert_string_equal(a.command[4], "x");
        if (sbx_profile_new(&a.cfg, &q, &e) != SBX_OK)
                fail_msg("profile: %s", e.message);
        assert_int_equal(sbx_profile_fingerprint(p, fp1, sizeof(fp1), NULL), SBX_OK);
        assert_int_equal(sbx_profile_fingerprint(q, fp2, sizeof(fp2), NULL), SBX_OK);
        assert_string_equal(fp1, fp2);
        sbx_profile_free(q);
        sbx__runner_args_free(&a);
        sbx_strv_free(argv);
}

static void test_runner_args__mode_profiles_round_trip(void **state)
{
        char *ws = path_in("");
        sbx_profile *p = NULL;
        (void) state;

        assert_int_equal(sbx_profile_from_mode(SBX_MODE_READ_ONLY, ws, &p, NULL), SBX_OK);
        round_trip(p, SBX_BACKEND_NATIVE, 0, 0);
        sbx_profile_free(p);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, ws, &p, NULL), SBX_OK);
        round_trip(p, SBX_BACKEND_LANDLOCK, 1u << 30, 64);
        sbx_profile_free(p);
        sbx_free(ws);
}

static void test_runner_args__every_field_round_trips(void **state)
{
        char *ws = path_in("/ws"), *r1 = path_in("/a:b:c"), *r2 = path_in("/data"),
             *r3 = path_in("/ws/secret"), *s1 = path_in("/run:x.sock"), *s2 = path_in("/a.sock");
        const char *socks[2];
        sbx_root_access roots[3];
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        roots[0] = (sbx_root_access){ r1, SBX_ACCESS_ALLOW, SBX_ACCESS_GATED };
        roots[1] = (sbx_root_access){ r2, SBX_ACCESS_GATED, SBX_ACCESS_DENY };
        roots[2] = (sbx_root_access){ r3, SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        cfg.workspace_root = ws;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_GATED;
        cfg.host_read = SBX_ACCESS_GATED;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = SBX_ACCESS_GATED;
        cfg.command = SBX_ACCESS_GATED;
        cfg.home = SBX_HOME_REAL;
        cfg.isolation = SBX_ISOLATION_SANDBOXED;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 3;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                fail_msg("%s", e.message);
        round_trip(p, SBX_BACKEND_NATIVE, 123456789, 7);
        round_trip(p, SBX_BACKEND_LANDLOCK, 0, 1);
        sbx_profile_free(p);

        /* The version-2 fields (each changes the fingerprint). */
        socks[0] = s1;
        socks[1] = s2;
        cfg.force_workspace = 1;
        cfg.accept_unprotected_git = 1;
        cfg.unix_sockets = socks;
        cfg.n_unix_sockets = 2;
        if (sbx_profile_new(&cfg, &p, &e) != SBX_OK)
                fail_msg("%s", e.message);
        round_trip(p, SBX_BACKEND_NATIVE, 0, 0);
        sbx_profile_free(p);

        /* The most restrictive profile: everything deny. */
        memset(&cfg, 0, sizeof(cfg));
        cfg.workspace_root = ws;
        assert_int_equal(sbx_profile_new(&cfg, &p, NULL), SBX_OK);
        round_trip(p, SBX_BACKEND_NATIVE, 0, 0);
        sbx_profile_free(p);
        sbx_free(ws);
        sbx_free(r1);
        sbx_free(r2);
        sbx_free(r3);
        sbx_free(s1);
        sbx_free(s2);
}

static void test_runner_args__format_refuses_what_has_no_runner(void **state)
{
        const char *const cmd[] = { "true", NULL };
        char *ws = path_in("");
        sbx_profile *p = NULL, *d = NULL;
        char **argv = NULL;
        (void) state;

        assert_int_equal(sbx_profile_from_mode(SBX_MODE_READ_ONLY, ws, &p, NULL), SBX_OK);
        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, ws, &d, NULL), SBX_OK);
        assert_sbx_fails(sbx__runner_format(p, SBX_BACKEND_BWRAP, NULL, "/r", cmd, &argv, err),
                         SBX_E_INVALID, "no stage-2 runner");
        assert_sbx_fails(sbx__runner_format(p, SBX_BACKEND_UNAVAILABLE, NULL, "/r", cmd, &argv,
                                            err), SBX_E_INVALID, "no stage-2 runner");
        assert_sbx_fails(sbx__runner_format(d, SBX_BACKEND_NATIVE, NULL, "/r", cmd, &argv, err),
                         SBX_E_DANGER_NOT_CONFINABLE, "unconfined");
        assert_null(argv);
        sbx_profile_free(p);
        sbx_profile_free(d);
        sbx_free(ws);
}

/* A valid stage-2 argv with one slot replaced / removed / added. */
static sbx_code parse_variant(const char *flag, const char *value, int drop, const char *extra1,
                              const char *extra2, const char *const *cmd, sbx_error *e)
{
        static const char *const base_argv[] = {
                "/r", SBX__STAGE2_FLAG, "--backend", "native", "--workspace", "/",
                "--workspace-read", "allow", "--workspace-write", "deny", "--host-read", "allow",
                "--host-write", "deny", "--network", "deny", "--command", "allow", "--home",
                "isolated", "--isolation", "sandboxed",
        };
        const char *v[64];
        struct sbx__runner_args a;
        size_t n = 0, i;
        sbx_code r;

        for (i = 0; i < sizeof(base_argv) / sizeof(base_argv[0]); i++) {
                if (flag != NULL && i >= 2 && i % 2 == 0 && strcmp(base_argv[i], flag) == 0) {
                        if (drop) {
                                i++;
                                continue;
                        }
                        v[n++] = base_argv[i];
                        v[n++] = value;
                        i++;
                        continue;
                }
                v[n++] = base_argv[i];
        }
        if (extra1 != NULL)
                v[n++] = extra1;
        if (extra2 != NULL)
                v[n++] = extra2;
        for (i = 0; cmd != NULL && cmd[i] != NULL; i++)
                v[n++] = cmd[i];
        v[n] = NULL;
        memset(&a, 0, sizeof(a));
        r = sbx__runner_parse((int) n, v, &a, e);
        if (r == SBX_OK)
                sbx__runner_args_free(&a);
        return r;
}

static void test_runner_args__parse_refuses_malformed(void **state)
{
        const char *const ok_cmd[] = { "--", "true", NULL };
        const char *const no_sep[] = { "true", NULL };
        const char *const empty_cmd[] = { "--", NULL };
        const char *const blank_cmd[] = { "--", "", NULL };
        const char *const argv1[] = { "/r", "--not-stage2", "--", "true", NULL };
        struct sbx__runner_args a;
        (void) state;

        assert_int_equal(parse_variant(NULL, NULL, 0, NULL, NULL, ok_cmd, NULL), SBX_OK);
        assert_int_equal(parse_variant(NULL, NULL, 0, "--memory", "4096", ok_cmd, NULL), SBX_OK);
        assert_int_equal(parse_variant(NULL, NULL, 0, "--root", "/x:allow:deny", ok_cmd, NULL),
                         SBX_OK);

        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--bogus", "1", ok_cmd, err), SBX_E_INVALID,
                         "unknown flag");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--network", "allow", ok_cmd, err),
                         SBX_E_INVALID, "given twice");
        assert_sbx_fails(parse_variant("--network", NULL, 1, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--network is missing");
        assert_sbx_fails(parse_variant("--backend", NULL, 1, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--backend is missing");
        assert_sbx_fails(parse_variant("--home", "shared", 0, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--home");
        assert_sbx_fails(parse_variant("--network", "ALLOW", 0, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--network");
        /* The runner never runs anything unconfined, nor under a backend
         * that has no stage 2. */
        assert_sbx_fails(parse_variant("--isolation", "unconfined", 0, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--isolation");
        assert_sbx_fails(parse_variant("--backend", "bwrap", 0, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--backend");
        assert_sbx_fails(parse_variant("--backend", "auto", 0, NULL, NULL, ok_cmd, err),
                         SBX_E_INVALID, "--backend");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--memory", "0", ok_cmd, err),
                         SBX_E_INVALID, "--memory");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--pids", "-1", ok_cmd, err),
                         SBX_E_INVALID, "--pids");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--memory", "99999999999999999999", ok_cmd,
                                       err), SBX_E_INVALID, "--memory");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--root", "/x:allow", ok_cmd, err),
                         SBX_E_INVALID, "--root");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--root", "/x:allow:maybe", ok_cmd, err),
                         SBX_E_INVALID, "--root");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--root", ":allow:deny", ok_cmd, err),
                         SBX_E_INVALID, "--root");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, NULL, NULL, no_sep, err), SBX_E_INVALID,
                         "");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, NULL, NULL, empty_cmd, err), SBX_E_INVALID,
                         "no command");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, NULL, NULL, blank_cmd, err), SBX_E_INVALID,
                         "no command");
        assert_sbx_fails(parse_variant(NULL, NULL, 0, "--memory", NULL, NULL, err), SBX_E_INVALID,
                         "needs a value");
        memset(&a, 0, sizeof(a));
        assert_sbx_fails(sbx__runner_parse(4, argv1, &a, err), SBX_E_INVALID, "--sbx-stage2");
}

/* A path with ':' survives: the value splits at its last two colons. */
static void test_runner_args__root_path_with_colons(void **state)
{
        const char *const v[] = {
                "/r", SBX__STAGE2_FLAG, "--backend", "landlock", "--workspace", "/",
                "--workspace-read", "allow", "--workspace-write", "deny", "--host-read", "allow",
                "--host-write", "deny", "--network", "deny", "--command", "allow", "--home",
                "real", "--isolation", "sandboxed", "--root", "/a:b::c:gated:deny", "--", "id",
                NULL,
        };
        struct sbx__runner_args a;
        (void) state;

        memset(&a, 0, sizeof(a));
        assert_int_equal(sbx__runner_parse(26, v, &a, NULL), SBX_OK);
        assert_int_equal(a.cfg.n_additional_roots, 1);
        assert_string_equal(a.cfg.additional_roots[0].path, "/a:b::c");
        assert_int_equal(a.cfg.additional_roots[0].read, SBX_ACCESS_GATED);
        assert_int_equal(a.cfg.additional_roots[0].write, SBX_ACCESS_DENY);
        assert_int_equal(a.cfg.home, SBX_HOME_REAL);
        assert_int_equal(a.backend, SBX_BACKEND_LANDLOCK);
        sbx__runner_args_free(&a);
}

/* sbx_init is a no-op unless argv[1] is the stage-2 flag. */
static void test_runner_args__init_is_a_noop_otherwise(void **state)
{
        char a0[] = "prog", a1[] = "--sbx-stage", a2[] = "x";
        char *v[] = { a0, a1, a2, NULL };
        (void) state;

        assert_int_equal(sbx_init(0, NULL), SBX_OK);
        assert_int_equal(sbx_init(1, v), SBX_OK);
        assert_int_equal(sbx_init(3, v), SBX_OK);
        assert_int_equal(sbx_init(3, v), SBX_OK);       /* idempotent */
}

static void test_runner_args__strv_builder(void **state)
{
        struct sbx__strv s = SBX__STRV_INIT;
        char **v;
        size_t n = 99, i;
        char buf[16];
        (void) state;

        v = sbx__strv_finish(&s, &n);
        assert_non_null(v);
        assert_int_equal(n, 0);
        assert_null(v[0]);
        sbx_strv_free(v);
        for (i = 0; i < 100; i++) {
                (void) snprintf(buf, sizeof(buf), "%zu", i);
                sbx__strv_push(&s, buf);
        }
        sbx__strv_push2(&s, "a", "b");
        v = sbx__strv_finish(&s, &n);
        assert_int_equal(n, 101);
        assert_string_equal(v[42], "42");
        assert_string_equal(v[100], "ab");
        assert_null(v[101]);
        sbx_strv_free(v);
}

static void test_runner_args__which(void **state)
{
        char *out = NULL;
        (void) state;

        assert_int_equal(sbx__which("sh", "/nonexistent:/bin:/usr/bin", &out), 0);
        assert_non_null(out);
        assert_true(out[0] == '/');
        free(out);
        out = NULL;
        assert_int_equal(sbx__which("no-such-program-sbx", "/bin:/usr/bin", &out), -ENOENT);
        assert_int_equal(sbx__which("./sh", NULL, &out), -EINVAL);
        /* A directory is not a program. */
        assert_int_equal(sbx__which("/", NULL, &out), -EACCES);
        /* Relative PATH entries are ignored. */
        assert_int_equal(sbx__which("sh", ".:bin", &out), -ENOENT);
        assert_null(out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_runner_args__mode_profiles_round_trip),
                cmocka_unit_test(test_runner_args__every_field_round_trips),
                cmocka_unit_test(test_runner_args__format_refuses_what_has_no_runner),
                cmocka_unit_test(test_runner_args__parse_refuses_malformed),
                cmocka_unit_test(test_runner_args__root_path_with_colons),
                cmocka_unit_test(test_runner_args__init_is_a_noop_otherwise),
                cmocka_unit_test(test_runner_args__strv_builder),
                cmocka_unit_test(test_runner_args__which),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
