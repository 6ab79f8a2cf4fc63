/*
 * test_plan_hide.c - sbx__plan_hide: other sandboxes' scratch directories
 * become carve-outs where the plan would expose them, and nothing else of
 * the plan changes (docs/backends.md "Scratch and /tmp").
 *
 * Roots are below "/nonexistent-sbx-golden": canonical without existing.
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

static sbx_plan *plan_for(int32_t mode, int real_home, int host_read)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *p = NULL, *q = NULL;
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(mode, WS, &p, &e) != SBX_OK ||
            sbx_profile_config_get(p, &cfg, &e) != SBX_OK)
                fail_msg("profile: %s", e.message);
        if (real_home)
                cfg.home = SBX_HOME_REAL;
        if (!host_read)
                cfg.host_read = SBX_ACCESS_DENY;
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

static void test_plan_hide__carve_outs_where_exposed(void **state)
{
        const char *const paths[] = {
                G "/var/lib/agent/sbx-set-aaaaaa",      /* under the host rule */
                WS "/.scratch/sbx-set-bbbbbb",          /* under the writable workspace */
                WS,                                     /* has a rule of its own: kept */
        };
        static const uint32_t origins[] = { SBX__ORIGIN_SCRATCH, SBX__ORIGIN_SCRATCH,
                                            SBX__ORIGIN_SECRET };
        sbx_plan *in = plan_for(SBX_MODE_WORKSPACE_WRITE, 1, 1), *out = NULL;
        const struct sbx_plan_fs_rule *r;
        (void) state;

        assert_int_equal(in->required & SBX_G_READ_BOUNDARY, 0);   /* real HOME, host read */
        assert_int_equal(sbx__plan_hide(in, paths, origins, 3, &out), 0);
        assert_non_null(out);
        assert_int_equal(out->n_rules, in->n_rules + 2);
        r = rule_at(out, paths[0]);
        assert_non_null(r);
        assert_int_equal(r->access, 0);
        assert_int_equal(r->scope, SBX__FS_TREE);
        assert_int_equal(r->origin, SBX__ORIGIN_SCRATCH);
        r = sbx__plan_rule_for(out, WS "/.scratch/sbx-set-bbbbbb/0/home/k");
        assert_non_null(r);
        assert_int_equal(r->access, 0);
        /* the workspace keeps its own rule and stays writable */
        r = rule_at(out, WS);
        assert_non_null(r);
        assert_true(r->access & SBX__FS_WRITE);
        assert_int_equal(out->n_writable, in->n_writable);
        assert_string_equal(out->writable[0], WS);
        /* a read carve-out is enforced by the read boundary */
        assert_int_equal(out->required, in->required | SBX_G_READ_BOUNDARY);
        /* the input is untouched */
        assert_null(rule_at(in, paths[0]));
        sbx_plan_free(out);
        sbx_plan_free(in);
}

static void test_plan_hide__nothing_granted_nothing_added(void **state)
{
        const char *const paths[] = { G "/elsewhere/sbx-set-cccccc" };
        sbx_plan *in = plan_for(SBX_MODE_READ_ONLY, 0, 0), *out = NULL;
        char *a = NULL, *b = NULL;
        (void) state;

        /* without host read nothing exposes the path: the plan is a copy */
        assert_int_equal(sbx__plan_hide(in, paths, NULL, 1, &out), 0);
        assert_int_equal(sbx_plan_describe(in, &a, NULL), SBX_OK);
        assert_int_equal(sbx_plan_describe(out, &b, NULL), SBX_OK);
        assert_string_equal(a, b);
        assert_true(sbx__plan_same(in, out));
        sbx_free(a);
        sbx_free(b);
        sbx_plan_free(out);
        out = NULL;
        assert_int_equal(sbx__plan_hide(in, NULL, NULL, 0, &out), 0);
        assert_true(sbx__plan_same(in, out));
        sbx_plan_free(out);
        sbx_plan_free(in);
}

static void test_plan_hide__direct_plan_is_refused(void **state)
{
        const char *const paths[] = { G "/x/sbx-set-dddddd" };
        sbx_profile *p = NULL;
        sbx_plan *plan = NULL, *out = (sbx_plan *) 1;
        sbx_error e = { 0, 0, { 0 } };
        (void) state;

        assert_int_equal(sbx_profile_from_mode(SBX_MODE_DANGER_FULL_ACCESS, WS, &p, &e), SBX_OK);
        assert_int_equal(sbx_plan_compile(p, &plan, &e), SBX_OK);
        assert_int_equal(sbx__plan_hide(plan, paths, NULL, 1, &out), -EINVAL);
        assert_null(out);
        sbx_plan_free(plan);
        sbx_profile_free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan_hide__carve_outs_where_exposed),
                cmocka_unit_test(test_plan_hide__nothing_granted_nothing_added),
                cmocka_unit_test(test_plan_hide__direct_plan_is_refused),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
