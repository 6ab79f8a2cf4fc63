/*
 * test_winacl.c - the Windows ACL plan (compile/winacl.c), on Linux.
 *
 * Plans are compiled from real profiles whose roots are spelled the way
 * the portable layers spell Windows paths ("/c/ws" for C:\ws); none of
 * them exists here, so they are canonical as written.  HOME is set to
 * "/c/Users/sbx" so the caller's home (and its secret locations) has a
 * drive spelling too.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "compile/plan_internal.h"
#include "compile/windows.h"

#define WS "/c/sbx-acl-test/ws"
#define TEMP "C:\\Users\\sbx\\AppData\\Local\\Temp\\sbx-1-abc"

static sbx_plan *plan_of(const sbx_profile_config *cfg)
{
        sbx_profile *p = NULL;
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_new(cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        if (sbx_plan_compile(p, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        sbx_profile_free(p);
        return plan;
}

static sbx_profile_config base(int write)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        cfg.workspace_root = WS;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = write ? SBX_ACCESS_ALLOW : SBX_ACCESS_DENY;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = SBX_ACCESS_DENY;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        cfg.isolation = SBX_ISOLATION_SANDBOXED;
        return cfg;
}

static char *describe(const sbx_plan *plan, const char *temp)
{
        struct sbx__winacl_plan acl;
        sbx_error e = { 0, 0, { 0 } };
        char *s;

        if (sbx__winacl_plan(plan, temp, "/c/Users/sbx", &acl, &e) != SBX_OK)
                fail_msg("sbx__winacl_plan: %s", e.message);
        s = sbx__winacl_describe(&acl);
        assert_non_null(s);
        sbx__winacl_plan_free(&acl);
        return s;
}

static void expect_lines(const char *got, const char *want)
{
        if (strcmp(got, want) != 0)
                fail_msg("ACL plan:\n%s\nwanted:\n%s", got, want);
}

static int setup(void **state)
{
        (void) state;
        return setenv("HOME", "/c/Users/sbx", 1);
}

/* ---------------------------------------------------------------- cases */

static void test_winacl__workspace_write(void **state)
{
        sbx_profile_config cfg = base(1);
        sbx_plan *plan = plan_of(&cfg);
        char *s = describe(plan, TEMP);
        (void) state;

        /* The workspace opens for the spawn SID; its .git stays closed to
         * writes (a DENY carve-out); the temp dir opens.  The host is
         * not writable: the user's SID is not in the restricting set. */
        expect_lines(s,
                     "allow rwx tree C:\\Users\\sbx\\AppData\\Local\\Temp\\sbx-1-abc\n"
                     "allow rwx tree C:\\sbx-acl-test\\ws\n"
                     "allow r-x tree C:\\sbx-acl-test\\ws\\.git\n"
                     "deny -w- tree C:\\sbx-acl-test\\ws\\.git\n"
                     "restricting: spawn everyone users logon\n");
        free(s);
        sbx_plan_free(plan);
}

static void test_winacl__read_only(void **state)
{
        sbx_profile_config cfg = base(0);
        sbx_plan *plan = plan_of(&cfg);
        char *s = describe(plan, NULL);
        (void) state;

        expect_lines(s, "allow r-x tree C:\\sbx-acl-test\\ws\n"
                        "restricting: spawn everyone users logon\n");
        free(s);
        sbx_plan_free(plan);
}

static void test_winacl__host_writable_adds_the_user(void **state)
{
        sbx_profile_config cfg = base(1);
        sbx_plan *plan;
        char *s;
        (void) state;

        cfg.host_write = SBX_ACCESS_ALLOW;
        cfg.network = SBX_ACCESS_ALLOW;
        cfg.accept_unprotected_git = 1;
        plan = plan_of(&cfg);
        s = describe(plan, TEMP);
        assert_non_null(strstr(s, "restricting: spawn everyone users logon user\n"));
        /* No entry for the host: "/" cannot be an ACL. */
        assert_null(strstr(s, " C:\\\n"));
        free(s);
        sbx_plan_free(plan);
}

static void test_winacl__read_only_root_under_workspace_is_a_deny(void **state)
{
        sbx_profile_config cfg = base(1);
        sbx_root_access ro = { WS "/vendor", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY };
        sbx_plan *plan;
        char *s;
        (void) state;

        cfg.additional_roots = &ro;
        cfg.n_additional_roots = 1;
        plan = plan_of(&cfg);
        s = describe(plan, NULL);
        assert_non_null(strstr(s, "allow r-x tree C:\\sbx-acl-test\\ws\\vendor\n"
                                  "deny -w- tree C:\\sbx-acl-test\\ws\\vendor\n"));
        free(s);
        sbx_plan_free(plan);
}

static void test_winacl__isolated_home_hides_the_callers(void **state)
{
        sbx_profile_config cfg = base(1);
        sbx_plan *plan;
        char *s;
        (void) state;

        cfg.home = SBX_HOME_ISOLATED;
        plan = plan_of(&cfg);
        s = describe(plan, TEMP);
        /* The caller's home is closed to everything the host rule opened;
         * the temp dir below it is opened again by its own, deeper entry
         * (an explicit ALLOW comes before an inherited DENY). */
        expect_lines(s,
                     "deny r-x tree C:\\Users\\sbx\n"
                     "allow rwx tree C:\\Users\\sbx\\AppData\\Local\\Temp\\sbx-1-abc\n"
                     "allow rwx tree C:\\sbx-acl-test\\ws\n"
                     "allow r-x tree C:\\sbx-acl-test\\ws\\.git\n"
                     "deny -w- tree C:\\sbx-acl-test\\ws\\.git\n"
                     "restricting: spawn everyone users logon\n");
        free(s);
        sbx_plan_free(plan);
}

static void test_winacl__sorted_and_deterministic(void **state)
{
        sbx_profile_config cfg = base(1);
        sbx_root_access roots[2] = {
                { "/d/data", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },
                { "/c/aaa", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },
        };
        struct sbx__winacl_plan acl;
        sbx_error e = { 0, 0, { 0 } };
        sbx_plan *plan;
        char *a, *b;
        size_t i;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = 2;
        plan = plan_of(&cfg);
        a = describe(plan, TEMP);
        b = describe(plan, TEMP);
        assert_string_equal(a, b);
        assert_int_equal(sbx__winacl_plan(plan, TEMP, "/c/Users/sbx", &acl, &e), SBX_OK);
        for (i = 1; i < acl.n; i++) {
                int c = strcmp(acl.v[i - 1].path, acl.v[i].path);

                assert_true(c < 0 || (c == 0 && acl.v[i - 1].kind < acl.v[i].kind));
        }
        assert_non_null(strstr(a, "allow rwx tree D:\\data\n"));
        assert_non_null(strstr(a, "allow r-x tree C:\\aaa\n"));
        sbx__winacl_plan_free(&acl);
        free(a);
        free(b);
        sbx_plan_free(plan);
}

static void test_winacl__non_drive_path_fails_closed(void **state)
{
        sbx_profile_config cfg = base(1);
        struct sbx__winacl_plan acl = { NULL, 0, 0 };
        sbx_plan *plan;
        (void) state;

        cfg.workspace_root = "/nonexistent-sbx-acl/ws";
        plan = plan_of(&cfg);
        assert_sbx_fails(sbx__winacl_plan(plan, TEMP, "/c/Users/sbx", &acl, err), SBX_E_INVALID,
                         "does not name a drive");
        assert_null(acl.v);
        sbx_plan_free(plan);
}

static void test_winacl__bad_tempdir_fails(void **state)
{
        sbx_profile_config cfg = base(1);
        struct sbx__winacl_plan acl = { NULL, 0, 0 };
        sbx_plan *plan = plan_of(&cfg);
        (void) state;

        assert_sbx_fails(sbx__winacl_plan(plan, "\\\\server\\share\\t", NULL, &acl, err),
                         SBX_E_INVALID, "windows path refused");
        assert_sbx_fails(sbx__winacl_plan(plan, "C:\\t\\x:stream", NULL, &acl, err),
                         SBX_E_INVALID, "windows path refused");
        assert_null(acl.v);
        sbx_plan_free(plan);
}

static void test_winacl__arguments(void **state)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        struct sbx__winacl_plan acl = { NULL, 0, 0 };
        sbx_plan *plan;
        (void) state;

        assert_sbx_fails(sbx__winacl_plan(NULL, NULL, NULL, &acl, err), SBX_E_INVALID, "NULL");
        cfg.workspace_root = WS;
        cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = cfg.host_write = cfg.network = cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        cfg.isolation = SBX_ISOLATION_UNCONFINED;
        cfg.ack_unconfined = 1;
        plan = plan_of(&cfg);
        assert_sbx_fails(sbx__winacl_plan(plan, NULL, NULL, &acl, err), SBX_E_INVALID, "direct");
        assert_sbx_fails(sbx__winacl_plan(plan, NULL, NULL, NULL, err), SBX_E_INVALID, "NULL");
        sbx_plan_free(plan);
        sbx__winacl_plan_free(NULL);
        assert_null(sbx__winacl_describe(NULL));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_winacl__workspace_write),
                cmocka_unit_test(test_winacl__read_only),
                cmocka_unit_test(test_winacl__host_writable_adds_the_user),
                cmocka_unit_test(test_winacl__read_only_root_under_workspace_is_a_deny),
                cmocka_unit_test(test_winacl__isolated_home_hides_the_callers),
                cmocka_unit_test(test_winacl__sorted_and_deterministic),
                cmocka_unit_test(test_winacl__non_drive_path_fails_closed),
                cmocka_unit_test(test_winacl__bad_tempdir_fails),
                cmocka_unit_test(test_winacl__arguments),
        };
        return cmocka_run_group_tests(tests, setup, NULL);
}
