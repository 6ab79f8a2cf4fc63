/*
 * test_plan_widen.c - sbx__plan_widen with the host Gated (issue 21, item
 * 9): a host grant gives the rules the same profile compiles to with the
 * host Allow (the host rule with exec, no loader runtime rules), a runtime
 * rule below a configured root stays, and tree and path grants carry exec
 * as a readable root does.  Pure: roots are below "/nonexistent-sbx-golden".
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "compile/plan_internal.h"

#define G "/nonexistent-sbx-golden"
#define WS G "/ws"
#define R SBX__FS_READ
#define W SBX__FS_WRITE
#define X SBX__FS_EXEC

/* The workspace-write plan with host read and write set, and optionally
 * one additional root. */
static sbx_plan *plan_for(int32_t host_read, int32_t host_write, const sbx_root_access *root)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL, *q = NULL;
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, WS, &p, &e) != SBX_OK ||
            sbx_profile_config_get(p, &cfg, &e) != SBX_OK)
                fail_msg("profile: %s", e.message);
        cfg.host_read = host_read;
        cfg.host_write = host_write;
        cfg.home = SBX_HOME_REAL;       /* no secrets of the test host's homes */
        cfg.additional_roots = root;
        cfg.n_additional_roots = root != NULL ? 1 : 0;
        if (sbx_profile_new(&cfg, &q, &e) != SBX_OK || sbx_plan_compile(q, &plan, &e) != SBX_OK)
                fail_msg("plan: %s", e.message);
        sbx_profile_free(q);
        sbx_profile_free(p);
        return plan;
}

static const struct sbx_plan_fs_rule *rule_at(const sbx_plan *plan, const char *path)
{
        size_t i;

        for (i = 0; i < plan->n_rules; i++)
                if (strcmp(plan->rules[i].path, path) == 0)
                        return &plan->rules[i];
        return NULL;
}

static char *describe(const sbx_plan *plan)
{
        char *t = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_plan_describe(plan, &t, &e) != SBX_OK)
                fail_msg("describe: %s", e.message);
        return t;
}

/* The rule lines of a description ("fs ..."), each one. */
static void same_rules(const sbx_plan *a, const sbx_plan *b)
{
        char *ta = describe(a), *tb = describe(b);
        char *fa = strstr(ta, "\nfs "), *fb = strstr(tb, "\nfs ");
        char *ea, *eb;

        assert_non_null(fa);
        assert_non_null(fb);
        ea = strstr(fa, "\nwritable ");
        eb = strstr(fb, "\nwritable ");
        assert_non_null(ea);
        assert_non_null(eb);
        *ea = *eb = '\0';
        assert_string_equal(fa, fb);
        free(ta);
        free(tb);
}

static void test_plan_widen__host_grant_is_the_ungated_host(void **state)
{
        static const struct {
                uint32_t access;
                int32_t  read, write;
        } cases[] = {
                { R | X, SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },           /* host.read */
                { R | W | X, SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },      /* host.write */
        };
        size_t c;

        (void) state;
        for (c = 0; c < SBX__ARRAY_SIZE(cases); c++) {
                sbx_plan *gated = plan_for(SBX_ACCESS_GATED, cases[c].write == SBX_ACCESS_ALLOW
                                           ? SBX_ACCESS_GATED : SBX_ACCESS_DENY, NULL);
                sbx_plan *allow = plan_for(cases[c].read, cases[c].write, NULL);
                sbx_plan *wide = NULL;
                struct sbx__widen w = { NULL, cases[c].access, SBX__FS_TREE };
                const struct sbx_plan_fs_rule *host;

                assert_non_null(rule_at(gated, "/usr"));        /* the loader's, for now */
                assert_null(rule_at(gated, "/"));
                assert_int_equal(sbx__plan_widen(gated, &w, 1, 0, 0, NULL, &wide), 0);
                host = rule_at(wide, "/");
                assert_non_null(host);
                assert_int_equal(host->access, cases[c].access);
                assert_int_equal(host->origin, SBX__ORIGIN_HOST);
                assert_null(rule_at(wide, "/usr"));
                assert_null(rule_at(wide, "/etc/ld.so.cache"));
                assert_non_null(rule_at(wide, "/dev/null"));    /* not the loader's */
                if (cases[c].access & W) {
                        /* a host made writable keeps its .git read-only */
                        assert_non_null(rule_at(wide, "/.git"));
                        assert_int_equal(rule_at(wide, "/.git")->access & W, 0);
                } else {
                        same_rules(wide, allow);
                }
                sbx_plan_free(wide);
                sbx_plan_free(allow);
                sbx_plan_free(gated);
        }
}

static void test_plan_widen__runtime_rule_below_a_root_stays(void **state)
{
        const sbx_root_access etc = { "/etc", SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        const sbx_root_access usr = { "/usr", SBX_ACCESS_DENY, SBX_ACCESS_DENY };
        struct sbx__widen w = { NULL, R | W | X, SBX__FS_TREE };
        sbx_plan *plan, *wide = NULL;

        (void) state;
        /* a denied /etc: the host does not decide below it, so the
         * loader's /etc/ld.so.cache keeps its runtime rule */
        plan = plan_for(SBX_ACCESS_GATED, SBX_ACCESS_GATED, &etc);
        assert_non_null(rule_at(plan, "/etc/ld.so.cache"));
        assert_int_equal(sbx__plan_widen(plan, &w, 1, 0, 0, NULL, &wide), 0);
        assert_non_null(rule_at(wide, "/etc/ld.so.cache"));
        assert_int_equal(rule_at(wide, "/etc/ld.so.cache")->origin, SBX__ORIGIN_RUNTIME);
        assert_int_equal(rule_at(wide, "/etc")->access, 0);
        assert_null(rule_at(wide, "/usr"));
        sbx_plan_free(wide);
        sbx_plan_free(plan);
        /* a denied /usr replaces the runtime rule: the root decides */
        plan = plan_for(SBX_ACCESS_GATED, SBX_ACCESS_GATED, &usr);
        wide = NULL;
        assert_int_equal(sbx__plan_widen(plan, &w, 1, 0, 0, NULL, &wide), 0);
        assert_non_null(rule_at(wide, "/usr"));
        assert_int_equal(rule_at(wide, "/usr")->access, 0);
        assert_int_equal(rule_at(wide, "/usr")->origin, SBX__ORIGIN_ADDITIONAL);
        sbx_plan_free(wide);
        sbx_plan_free(plan);
}

static void test_plan_widen__tree_and_path_grants_carry_exec(void **state)
{
        const sbx_root_access gated = { G "/tools", SBX_ACCESS_GATED, SBX_ACCESS_GATED };
        sbx_plan *plan = plan_for(SBX_ACCESS_GATED, SBX_ACCESS_GATED, &gated);
        struct sbx__widen w[2] = {
                { G "/tools", R | X, SBX__FS_TREE },
                { G "/tools/bin/x", R | W | X, SBX__FS_EXACT },
        };
        sbx_plan *wide = NULL;

        (void) state;
        assert_int_equal(rule_at(plan, G "/tools")->access, 0);
        assert_int_equal(sbx__plan_widen(plan, w, 2, 0, 0, NULL, &wide), 0);
        assert_int_equal(rule_at(wide, G "/tools")->access, R | X);
        assert_int_equal(rule_at(wide, G "/tools/bin/x")->access, R | W | X);
        /* the host is still Gated: the loader's rules stay */
        assert_non_null(rule_at(wide, "/usr"));
        assert_null(rule_at(wide, "/"));
        sbx_plan_free(wide);
        sbx_plan_free(plan);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_widen__host_grant_is_the_ungated_host),
                cmocka_unit_test(test_plan_widen__runtime_rule_below_a_root_stays),
                cmocka_unit_test(test_plan_widen__tree_and_path_grants_carry_exec),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
