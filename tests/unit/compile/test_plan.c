/*
 * test_plan.c - sbx_plan_compile / _describe / _guarantees, sbx_guarantee_name
 * and the plan's internal helpers.
 *
 * The golden texts use roots below "/nonexistent-sbx-golden", which is
 * canonical without existing (nothing below "/" of that name exists), so
 * the output is the same on every machine and every run.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "compile/plan_internal.h"
#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

#define G "/nonexistent-sbx-golden"
#define WS G "/ws"

#define ENV_LINE "env PATH LANG LANGUAGE LC_* TERM TZ COLORTERM NO_COLOR USER LOGNAME SHELL\n"
#define SANDBOXED_HEAD(command, network, home) \
        "plan v1\n" \
        "isolation sandboxed\n" \
        "command " command "\n" \
        "network " network "\n" \
        "home " home "\n" \
        "tmpdir scratch\n" \
        ENV_LINE
#define DEV_RULES \
        "fs /dev/full exact rw- runtime\n" \
        "fs /dev/null exact rw- runtime\n" \
        "fs /dev/random exact r-- runtime\n" \
        "fs /dev/urandom exact r-- runtime\n" \
        "fs /dev/zero exact rw- runtime\n"

/* ------------------------------------------------------------ helpers */

static sbx_profile *profile_of(const sbx_profile_config *cfg)
{
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_new(cfg, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_new: %s", e.message);
        return p;
}

static sbx_plan *plan_of_profile(const sbx_profile *p)
{
        sbx_plan *plan = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_plan_compile(p, &plan, &e) != SBX_OK)
                fail_msg("sbx_plan_compile: %s", e.message);
        assert_non_null(plan);
        return plan;
}

static sbx_plan *plan_of(const sbx_profile_config *cfg)
{
        sbx_profile *p = profile_of(cfg);
        sbx_plan *plan = plan_of_profile(p);

        sbx_profile_free(p);
        return plan;
}

static sbx_plan *plan_of_mode(int32_t mode)
{
        sbx_profile *p = NULL;
        sbx_plan *plan;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_profile_from_mode(mode, WS, &p, &e) != SBX_OK)
                fail_msg("sbx_profile_from_mode: %s", e.message);
        plan = plan_of_profile(p);
        sbx_profile_free(p);
        return plan;
}

/* Compare describe output byte for byte; on a mismatch print both. */
static void assert_describe(const sbx_plan *plan, const char *want)
{
        char *text = NULL;
        sbx_error e = { 0, 0, { 0 } };

        if (sbx_plan_describe(plan, &text, &e) != SBX_OK)
                fail_msg("sbx_plan_describe: %s", e.message);
        if (strcmp(text, want) != 0) {
                print_message("--- want\n%s--- got\n%s---\n", want, text);
                sbx_free(text);
                fail_msg("describe output differs from the golden text");
        }
        sbx_free(text);
}

static uint32_t required_of(const sbx_plan *plan)
{
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;

        assert_int_equal(sbx_plan_guarantees(plan, &rep, NULL), SBX_OK);
        assert_int_equal(rep.achieved, 0);
        assert_int_equal(rep.enforcement, SBX_ENFORCEMENT_NONE);
        return rep.required;
}

/* A sandboxed config: workspace rw, host r, no network, isolated HOME. */
static sbx_profile_config base_config(void)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;

        cfg.workspace_root = WS;
        cfg.workspace_read = SBX_ACCESS_ALLOW;
        cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = SBX_ACCESS_ALLOW;
        cfg.host_write = SBX_ACCESS_DENY;
        cfg.network = SBX_ACCESS_DENY;
        cfg.command = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_ISOLATED;
        cfg.isolation = SBX_ISOLATION_SANDBOXED;
        return cfg;
}

/* ------------------------------------------------------------- golden */

static void test_plan__golden_read_only(void **state)
{
        sbx_plan *plan;
        (void) state;

        plan = plan_of_mode(SBX_MODE_READ_ONLY);
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "deny", "scratch")
                "fs / tree r-x host\n"
                DEV_RULES
                "fs " WS " tree r-x workspace\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_workspace_write(void **state)
{
        sbx_plan *plan;
        (void) state;

        plan = plan_of_mode(SBX_MODE_WORKSPACE_WRITE);
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "deny", "scratch")
                "fs / tree r-x host\n"
                DEV_RULES
                "fs " WS " tree rwx workspace\n"
                "fs " WS "/.git tree r-x protected\n"
                "writable " WS "\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation protected-paths\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_danger_is_direct(void **state)
{
        sbx_plan *plan;
        (void) state;

        plan = plan_of_mode(SBX_MODE_DANGER_FULL_ACCESS);
        assert_int_equal(plan->direct, 1);
        assert_int_equal(plan->n_rules, 0);
        assert_non_null(plan->writable);
        assert_null(plan->writable[0]);
        assert_describe(plan,
                "plan v1\n"
                "isolation unconfined\n"
                "command allow\n"
                "network allow\n"
                "home caller\n"
                "tmpdir caller\n"
                "env passthrough\n"
                "requires none\n");
        assert_int_equal(required_of(plan), 0);
        sbx_plan_free(plan);
}

static void test_plan__golden_zeroed_config(void **state)
{
        sbx_profile_config cfg;
        sbx_plan *plan;
        (void) state;

        memset(&cfg, 0, sizeof(cfg));
        cfg.workspace_root = WS;
        plan = plan_of(&cfg);
        assert_int_equal(plan->direct, 0);
        assert_describe(plan,
                SANDBOXED_HEAD("deny", "deny", "scratch")
                "fs /bin tree r-x runtime\n"
                DEV_RULES
                "fs /etc/alternatives tree r-x runtime\n"
                "fs /etc/ld.so.cache exact r-x runtime\n"
                "fs /etc/ld.so.conf exact r-x runtime\n"
                "fs /etc/ld.so.conf.d tree r-x runtime\n"
                "fs /etc/localtime exact r-x runtime\n"
                "fs /lib tree r-x runtime\n"
                "fs /lib32 tree r-x runtime\n"
                "fs /lib64 tree r-x runtime\n"
                "fs /libx32 tree r-x runtime\n"
                "fs " WS " tree --- workspace\n"
                "fs /sbin tree r-x runtime\n"
                "fs /usr tree r-x runtime\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_additional_roots(void **state)
{
        const sbx_root_access roots[] = {
                { G "/out", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },       /* writable, outside */
                { WS "/vendor", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },    /* read-only carve-out */
                { G "/secret", SBX_ACCESS_DENY, SBX_ACCESS_DENY },      /* denied */
        };
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = SBX__ARRAY_SIZE(roots);
        plan = plan_of(&cfg);
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "deny", "scratch")
                "fs / tree r-x host\n"
                DEV_RULES
                "fs " G "/out tree rwx additional\n"
                "fs " G "/out/.git tree r-x protected\n"
                "fs " G "/secret tree --- additional\n"
                "fs " WS " tree rwx workspace\n"
                "fs " WS "/.git tree r-x protected\n"
                "fs " WS "/vendor tree r-x additional\n"
                "writable " G "/out\n"
                "writable " WS "\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation protected-paths\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_listed_hooks_root_replaces_protected(void **state)
{
        const sbx_root_access roots[] = {
                { WS "/.git/hooks", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },
        };
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = SBX__ARRAY_SIZE(roots);
        plan = plan_of(&cfg);
        /* The listed root's own access (rwx) replaces the protected rule;
         * .git/config stays protected; the listed root is itself writable,
         * so it gets protected names of its own. */
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "deny", "scratch")
                "fs / tree r-x host\n"
                DEV_RULES
                "fs " WS " tree rwx workspace\n"
                "fs " WS "/.git tree r-x protected\n"
                "fs " WS "/.git/hooks tree rwx additional\n"
                "fs " WS "/.git/hooks/.git tree r-x protected\n"
                "writable " WS "\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation protected-paths\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_gated_is_closed(void **state)
{
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        (void) state;

        cfg.network = SBX_ACCESS_GATED;
        cfg.workspace_write = SBX_ACCESS_GATED;
        cfg.command = SBX_ACCESS_GATED;
        plan = plan_of(&cfg);
        assert_describe(plan,
                SANDBOXED_HEAD("gated", "deny-unless-grant", "scratch")
                "fs / tree r-x host\n"
                DEV_RULES
                "fs " WS " tree r-x workspace\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation\n");
        sbx_plan_free(plan);
}

static void test_plan__golden_real_home_host_writable(void **state)
{
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        (void) state;

        cfg.host_write = SBX_ACCESS_ALLOW;
        cfg.network = SBX_ACCESS_ALLOW;
        cfg.home = SBX_HOME_REAL;
        plan = plan_of(&cfg);
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "allow", "caller")
                "fs / tree rwx host\n"
                DEV_RULES
                "fs " WS " tree rwx workspace\n"
                "fs " WS "/.git tree r-x protected\n"
                "writable /\n"
                "requires env-scrub protected-paths\n");
        sbx_plan_free(plan);
}

static void test_plan__describe_is_stable(void **state)
{
        sbx_plan *a, *b;
        char *ta = NULL, *tb = NULL;
        (void) state;

        a = plan_of_mode(SBX_MODE_WORKSPACE_WRITE);
        b = plan_of_mode(SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(sbx_plan_describe(a, &ta, NULL), SBX_OK);
        assert_int_equal(sbx_plan_describe(b, &tb, NULL), SBX_OK);
        assert_string_equal(ta, tb);
        sbx_free(ta);
        sbx_free(tb);
        sbx_plan_free(a);
        sbx_plan_free(b);
}

/* --------------------------------------------------------- guarantees */

static void test_plan__guarantee_names(void **state)
{
        static const struct {
                uint32_t bit;
                const char *name;
        } want[] = {
                { SBX_G_READ_BOUNDARY, "read-boundary" },
                { SBX_G_WRITE_BOUNDARY, "write-boundary" },
                { SBX_G_ENV_SCRUB, "env-scrub" },
                { SBX_G_PROCESS_ISOLATION, "process-isolation" },
                { SBX_G_NETWORK_DENY, "network-deny" },
                { SBX_G_TARGET_NETWORK, "target-network" },
                { SBX_G_ADDRESS_NETWORK, "address-network" },
                { SBX_G_RESOURCE_LIMITS, "resource-limits" },
                { SBX_G_HOME_ISOLATION, "home-isolation" },
                { SBX_G_PROTECTED_PATHS, "protected-paths" },
                { SBX_G_SYSCALL_FILTER, "syscall-filter" },
                { SBX_G_NO_NEW_PRIVS, "no-new-privs" },
                { SBX_G_TTY_ISOLATION, "tty-isolation" },
                { SBX_G_FD_ISOLATION, "fd-isolation" },
        };
        uint32_t all = 0;
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(want); i++) {
                assert_string_equal(sbx_guarantee_name(want[i].bit), want[i].name);
                all |= want[i].bit;
        }
        assert_int_equal(all, SBX_G_ALL);       /* every bit is named */
}

static void test_plan__guarantee_name_invalid(void **state)
{
        (void) state;
        assert_string_equal(sbx_guarantee_name(0), "invalid");
        assert_string_equal(sbx_guarantee_name(SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY),
                            "invalid");
        assert_string_equal(sbx_guarantee_name(SBX_G_ALL), "invalid");
        assert_string_equal(sbx_guarantee_name(1u << 14), "invalid");
        assert_string_equal(sbx_guarantee_name(1u << 31), "invalid");
        assert_string_equal(sbx_guarantee_name(UINT32_MAX), "invalid");
}

#define HARDENING (SBX_G_PROCESS_ISOLATION | SBX_G_SYSCALL_FILTER | SBX_G_NO_NEW_PRIVS | \
                   SBX_G_TTY_ISOLATION | SBX_G_FD_ISOLATION | SBX_G_RESOURCE_LIMITS | \
                   SBX_G_TARGET_NETWORK | SBX_G_ADDRESS_NETWORK)

static void test_plan__required_guarantees_table(void **state)
{
        const sbx_root_access denied[] = { { G "/secret", SBX_ACCESS_DENY, SBX_ACCESS_DENY } };
        const sbx_root_access gated[] = { { G "/secret", SBX_ACCESS_GATED, SBX_ACCESS_DENY } };
        const sbx_root_access ro[] = { { WS "/ro", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY } };
        sbx_profile_config open = base_config(), cfg, zero;
        sbx_plan *plan;
        uint32_t req;
        (void) state;

        /* The modes. */
        plan = plan_of_mode(SBX_MODE_READ_ONLY);
        assert_int_equal(required_of(plan), SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY |
                         SBX_G_ENV_SCRUB | SBX_G_NETWORK_DENY | SBX_G_HOME_ISOLATION);
        sbx_plan_free(plan);
        plan = plan_of_mode(SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(required_of(plan), SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY |
                         SBX_G_ENV_SCRUB | SBX_G_NETWORK_DENY | SBX_G_HOME_ISOLATION |
                         SBX_G_PROTECTED_PATHS);
        sbx_plan_free(plan);
        plan = plan_of_mode(SBX_MODE_DANGER_FULL_ACCESS);
        assert_int_equal(required_of(plan), 0);
        sbx_plan_free(plan);

        /* The most open sandboxed profile: host rw, network, real HOME and
         * a writable workspace need only env-scrub and protected paths... */
        open.host_write = SBX_ACCESS_ALLOW;
        open.network = SBX_ACCESS_ALLOW;
        open.home = SBX_HOME_REAL;
        open.workspace_write = SBX_ACCESS_ALLOW;
        plan = plan_of(&open);
        assert_int_equal(required_of(plan), SBX_G_ENV_SCRUB | SBX_G_PROTECTED_PATHS);
        sbx_plan_free(plan);

        /* ... a workspace that is not writable under a writable host is a
         * write carve-out: WRITE_BOUNDARY. */
        cfg = open;
        cfg.workspace_write = SBX_ACCESS_DENY;
        plan = plan_of(&cfg);
        assert_int_equal(required_of(plan), SBX_G_ENV_SCRUB | SBX_G_WRITE_BOUNDARY);
        sbx_plan_free(plan);

        /* A read-only root inside a writable workspace under a writable
         * host: a write carve-out too. */
        cfg = open;
        cfg.additional_roots = ro;
        cfg.n_additional_roots = 1;
        plan = plan_of(&cfg);
        assert_int_equal(required_of(plan),
                         SBX_G_ENV_SCRUB | SBX_G_WRITE_BOUNDARY | SBX_G_PROTECTED_PATHS);
        sbx_plan_free(plan);

        /* A denied or gated root under a readable host is a read carve-out. */
        cfg = open;
        cfg.additional_roots = denied;
        cfg.n_additional_roots = 1;
        plan = plan_of(&cfg);
        req = required_of(plan);
        assert_true(req & SBX_G_READ_BOUNDARY);
        assert_true(req & SBX_G_WRITE_BOUNDARY);
        sbx_plan_free(plan);
        cfg.additional_roots = gated;
        plan = plan_of(&cfg);
        assert_true(required_of(plan) & SBX_G_READ_BOUNDARY);
        sbx_plan_free(plan);

        /* A denied workspace under a readable host: read carve-out. */
        cfg = open;
        cfg.workspace_read = SBX_ACCESS_DENY;
        cfg.workspace_write = SBX_ACCESS_DENY;
        plan = plan_of(&cfg);
        assert_int_equal(required_of(plan),
                         SBX_G_ENV_SCRUB | SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY);
        sbx_plan_free(plan);

        /* An isolated HOME hides the caller's home: READ_BOUNDARY too. */
        cfg = open;
        cfg.home = SBX_HOME_ISOLATED;
        plan = plan_of(&cfg);
        assert_int_equal(required_of(plan), SBX_G_ENV_SCRUB | SBX_G_READ_BOUNDARY |
                         SBX_G_HOME_ISOLATION | SBX_G_PROTECTED_PATHS);
        sbx_plan_free(plan);

        /* Gated network is closed: NETWORK_DENY. */
        cfg = open;
        cfg.network = SBX_ACCESS_GATED;
        plan = plan_of(&cfg);
        assert_true(required_of(plan) & SBX_G_NETWORK_DENY);
        assert_int_equal(plan->network, SBX__NET_DENY_UNLESS_GRANT);
        sbx_plan_free(plan);

        /* Gated host read/write are "not granted": both boundaries. */
        cfg = open;
        cfg.host_read = SBX_ACCESS_GATED;
        cfg.host_write = SBX_ACCESS_GATED;
        plan = plan_of(&cfg);
        req = required_of(plan);
        assert_true(req & SBX_G_READ_BOUNDARY);
        assert_true(req & SBX_G_WRITE_BOUNDARY);
        sbx_plan_free(plan);

        /* The zeroed config needs everything a profile can require except
         * protected paths (nothing is writable). */
        memset(&zero, 0, sizeof(zero));
        zero.workspace_root = WS;
        plan = plan_of(&zero);
        req = required_of(plan);
        assert_int_equal(req, SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY | SBX_G_ENV_SCRUB |
                         SBX_G_NETWORK_DENY | SBX_G_HOME_ISOLATION);
        assert_int_equal(req & HARDENING, 0);   /* never required by a profile */
        sbx_plan_free(plan);
}

static void test_plan__guarantees_argument_checks(void **state)
{
        sbx_plan *plan;
        sbx_guarantee_report rep = SBX_GUARANTEE_REPORT_INIT;
        sbx_guarantee_report bad = SBX_GUARANTEE_REPORT_INIT;
        (void) state;

        plan = plan_of_mode(SBX_MODE_READ_ONLY);
        assert_sbx_fails(sbx_plan_guarantees(NULL, &rep, err), SBX_E_INVALID, "plan is NULL");
        assert_sbx_fails(sbx_plan_guarantees(plan, NULL, err), SBX_E_INVALID, "out is NULL");
        bad.version = 0;
        bad.required = 77;
        assert_sbx_fails(sbx_plan_guarantees(plan, &bad, err), SBX_E_INVALID, "version");
        assert_int_equal(bad.required, 77);     /* untouched on failure */
        bad.version = SBX_GUARANTEE_REPORT_VERSION + 1;
        assert_sbx_fails(sbx_plan_guarantees(plan, &bad, err), SBX_E_INVALID,
                         "SBX_GUARANTEE_REPORT_INIT");
        rep.achieved = 5;
        rep.enforcement = SBX_ENFORCEMENT_FULL;
        assert_int_equal(sbx_plan_guarantees(plan, &rep, NULL), SBX_OK);
        assert_int_equal(rep.version, SBX_GUARANTEE_REPORT_VERSION);
        assert_int_equal(rep.achieved, 0);
        assert_int_equal(rep.enforcement, SBX_ENFORCEMENT_NONE);
        sbx_plan_free(plan);
}

/* ----------------------------------------------------- argument checks */

static void test_plan__compile_argument_checks(void **state)
{
        sbx_profile *p = NULL;
        sbx_plan *plan = (sbx_plan *) (uintptr_t) 1;
        (void) state;

        assert_int_equal(sbx_profile_from_mode(SBX_MODE_READ_ONLY, WS, &p, NULL), SBX_OK);
        assert_sbx_fails(sbx_plan_compile(NULL, &plan, err), SBX_E_INVALID, "profile is NULL");
        assert_true(plan == (sbx_plan *) (uintptr_t) 1);        /* untouched */
        assert_sbx_fails(sbx_plan_compile(p, NULL, err), SBX_E_INVALID, "out is NULL");
        assert_int_equal(sbx_plan_compile(NULL, NULL, NULL), SBX_E_INVALID);
        sbx_profile_free(p);
        sbx_plan_free(NULL);
}

static void test_plan__describe_argument_checks(void **state)
{
        sbx_plan *plan;
        char *text = (char *) (uintptr_t) 1;
        (void) state;

        plan = plan_of_mode(SBX_MODE_READ_ONLY);
        assert_sbx_fails(sbx_plan_describe(NULL, &text, err), SBX_E_INVALID, "plan is NULL");
        assert_true(text == (char *) (uintptr_t) 1);
        assert_sbx_fails(sbx_plan_describe(plan, NULL, err), SBX_E_INVALID,
                         "text_out is NULL");
        sbx_plan_free(plan);
}

/* ------------------------------------------------------ writable roots */

static void test_plan__writable_roots_collapse(void **state)
{
        const sbx_root_access roots[] = {
                { WS "/build", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },    /* nested: collapsed */
                { WS "-sibling", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },  /* not below WS */
                { G "/a", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },
                { G "/a/b/c", SBX_ACCESS_ALLOW, SBX_ACCESS_ALLOW },     /* nested in /a */
                { G "/ro", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },         /* not writable */
        };
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = SBX__ARRAY_SIZE(roots);
        plan = plan_of(&cfg);
        assert_int_equal(plan->n_writable, 3);
        assert_string_equal(plan->writable[0], G "/a");
        assert_string_equal(plan->writable[1], WS);
        assert_string_equal(plan->writable[2], WS "-sibling");
        assert_null(plan->writable[3]);
        sbx_plan_free(plan);

        /* A read-only profile has none, and the vector is still there. */
        plan = plan_of_mode(SBX_MODE_READ_ONLY);
        assert_int_equal(plan->n_writable, 0);
        assert_non_null(plan->writable);
        assert_null(plan->writable[0]);
        sbx_plan_free(plan);
}

static char **strv(const char *const *src, size_t n)
{
        char **v = calloc(n + 1, sizeof(*v));
        size_t i;

        assert_non_null(v);
        for (i = 0; i < n; i++) {
                v[i] = strdup(src[i]);
                assert_non_null(v[i]);
        }
        return v;
}

static void test_plan__roots_collapse_shared_helper(void **state)
{
        const char *in[] = { "/b", "/a/b/c", "/a/bc", "/a/b", "/b", "/a/b-x" };
        const char *root[] = { "/x", "/", "/y/z" };
        const char *bad[] = { "/ok", "relative" };
        char **v;
        size_t n = 99, i;
        (void) state;

        v = strv(in, SBX__ARRAY_SIZE(in));
        assert_int_equal(sbx__roots_collapse(v, SBX__ARRAY_SIZE(in), &n), SBX_OK);
        assert_int_equal(n, 4);
        assert_string_equal(v[0], "/a/b");
        assert_string_equal(v[1], "/a/b-x");
        assert_string_equal(v[2], "/a/bc");
        assert_string_equal(v[3], "/b");
        assert_null(v[4]);
        assert_null(v[5]);
        sbx_strv_free(v);

        v = strv(root, SBX__ARRAY_SIZE(root));
        assert_int_equal(sbx__roots_collapse(v, SBX__ARRAY_SIZE(root), &n), SBX_OK);
        assert_int_equal(n, 1);
        assert_string_equal(v[0], "/");
        sbx_strv_free(v);

        v = strv(bad, SBX__ARRAY_SIZE(bad));
        n = 99;
        assert_int_equal(sbx__roots_collapse(v, SBX__ARRAY_SIZE(bad), &n), SBX_E_INVALID);
        assert_int_equal(n, 99);
        assert_string_equal(v[0], "/ok");       /* untouched */
        assert_string_equal(v[1], "relative");
        for (i = 0; i < SBX__ARRAY_SIZE(bad); i++)
                free(v[i]);
        free(v);

        assert_int_equal(sbx__roots_collapse(NULL, 0, &n), SBX_OK);
        assert_int_equal(n, 0);
        assert_int_equal(sbx__roots_collapse(NULL, 1, &n), SBX_E_INVALID);
        assert_int_equal(sbx__roots_collapse(NULL, 0, NULL), SBX_E_INVALID);
}

/* ------------------------------------------------------------ escaping */

static void test_plan__escape_control_bytes(void **state)
{
        static const struct {
                const char *in, *want;
        } cases[] = {
                { "/plain", "/plain" },
                { "", "" },
                { "/a\nb", "/a\\nb" },
                { "/back\\slash", "/back\\\\slash" },
                { "/\\n", "/\\\\n" },                   /* a literal backslash-n */
                { "/tab\there", "/tab\\x09here" },
                { "/cr\r", "/cr\\x0d" },
                { "/esc\x1b[31m", "/esc\\x1b[31m" },
                { "/del\x7f", "/del\\x7f" },
                { "/\x01\x1f", "/\\x01\\x1f" },
                { "/utf8-\xc3\xa9", "/utf8-\xc3\xa9" },   /* bytes >= 0x80 pass */
                { "/sp ace", "/sp ace" },
        };
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(cases); i++) {
                char *got = sbx__plan_escape(cases[i].in);

                assert_non_null(got);
                assert_string_equal(got, cases[i].want);
                free(got);
        }
        assert_null(sbx__plan_escape(NULL));
}

static void test_plan__describe_escapes_newline_path(void **state)
{
        /* A path that tries to forge a host-writable rule line. */
        const sbx_root_access roots[] = {
                { G "/evil\nfs / tree rwx host", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },
                { G "/back\\slash", SBX_ACCESS_DENY, SBX_ACCESS_DENY },
        };
        sbx_profile_config cfg = base_config();
        sbx_profile *p = NULL;
        sbx_plan *plan;
        char *text = NULL, *line;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = SBX__ARRAY_SIZE(roots);
        /* The profile layer accepts any byte but NUL in a canonical path. */
        assert_int_equal(sbx_profile_new(&cfg, &p, NULL), SBX_OK);
        plan = plan_of_profile(p);
        sbx_profile_free(p);
        assert_int_equal(sbx_plan_describe(plan, &text, NULL), SBX_OK);
        assert_non_null(strstr(text, "\nfs " G "/evil\\nfs / tree rwx host tree r-x "
                                     "additional\n"));
        assert_non_null(strstr(text, "\nfs " G "/back\\\\slash tree --- additional\n"));
        /* Every line is one of the known kinds, and no rule line grants
         * write on "/". */
        for (line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
                assert_true(strncmp(line, "fs / tree rwx", 13) != 0);
                assert_true(strncmp(line, "plan ", 5) == 0 || strncmp(line, "isolation ", 10) == 0 ||
                            strncmp(line, "command ", 8) == 0 ||
                            strncmp(line, "network ", 8) == 0 ||
                            strncmp(line, "home ", 5) == 0 || strncmp(line, "tmpdir ", 7) == 0 ||
                            strncmp(line, "env ", 4) == 0 || strncmp(line, "fs ", 3) == 0 ||
                            strncmp(line, "writable ", 9) == 0 ||
                            strncmp(line, "requires", 8) == 0);
        }
        sbx_free(text);
        sbx_plan_free(plan);
}

/* ----------------------------------------------------------- internals */

static void test_plan__rule_for_deepest_wins(void **state)
{
        const sbx_root_access roots[] = {
                { WS "/vendor", SBX_ACCESS_ALLOW, SBX_ACCESS_DENY },
                { G "/secret", SBX_ACCESS_DENY, SBX_ACCESS_DENY },
        };
        sbx_profile_config cfg = base_config();
        const struct sbx_plan_fs_rule *r;
        sbx_plan *plan;
        (void) state;

        cfg.additional_roots = roots;
        cfg.n_additional_roots = SBX__ARRAY_SIZE(roots);
        plan = plan_of(&cfg);
        r = sbx__plan_rule_for(plan, "/etc/passwd");
        assert_non_null(r);
        assert_string_equal(r->path, "/");
        assert_int_equal(r->access, SBX__FS_READ | SBX__FS_EXEC);
        r = sbx__plan_rule_for(plan, WS "/src/main.c");
        assert_string_equal(r->path, WS);
        assert_int_equal(r->origin, SBX__ORIGIN_WORKSPACE);
        r = sbx__plan_rule_for(plan, WS "/vendor/x");
        assert_int_equal(r->access, SBX__FS_READ | SBX__FS_EXEC);
        r = sbx__plan_rule_for(plan, WS "/.git/hooks/pre-commit");
        assert_int_equal(r->origin, SBX__ORIGIN_PROTECTED);
        assert_int_equal(r->access & SBX__FS_WRITE, 0);
        r = sbx__plan_rule_for(plan, WS "/.git/config.lock");      /* the whole .git */
        assert_int_equal(r->origin, SBX__ORIGIN_PROTECTED);
        assert_int_equal(r->scope, SBX__FS_TREE);
        r = sbx__plan_rule_for(plan, WS "/.gitignore");            /* not .git itself */
        assert_int_equal(r->origin, SBX__ORIGIN_WORKSPACE);
        r = sbx__plan_rule_for(plan, G "/secret/key");
        assert_int_equal(r->access, 0);
        r = sbx__plan_rule_for(plan, "/dev/null");
        assert_int_equal(r->origin, SBX__ORIGIN_RUNTIME);
        assert_int_equal(r->access, SBX__FS_READ | SBX__FS_WRITE);
        sbx_plan_free(plan);

        /* Host not readable: anything outside the rules is denied. */
        memset(&cfg, 0, sizeof(cfg));
        cfg.workspace_root = WS;
        plan = plan_of(&cfg);
        assert_null(sbx__plan_rule_for(plan, "/etc/passwd"));
        assert_null(sbx__plan_rule_for(plan, "/home/u/.ssh/id_rsa"));
        r = sbx__plan_rule_for(plan, "/usr/bin/env");
        assert_int_equal(r->origin, SBX__ORIGIN_RUNTIME);
        r = sbx__plan_rule_for(plan, "/etc/ld.so.cache");
        assert_non_null(r);
        assert_null(sbx__plan_rule_for(plan, "/etc/ld.so.cache.d"));
        sbx_plan_free(plan);
}

static void test_plan__configured_root_beats_runtime_path(void **state)
{
        const sbx_root_access roots[] = {
                { "/usr", SBX_ACCESS_DENY, SBX_ACCESS_DENY },
        };
        sbx_profile_config cfg;
        const struct sbx_plan_fs_rule *r;
        sbx_plan *plan;
        size_t i, seen = 0;
        (void) state;

        memset(&cfg, 0, sizeof(cfg));
        cfg.workspace_root = WS;
        cfg.additional_roots = roots;
        cfg.n_additional_roots = 1;
        plan = plan_of(&cfg);
        for (i = 0; i < plan->n_rules; i++) {
                if (strcmp(plan->rules[i].path, "/usr") == 0)
                        seen++;
                if (i > 0)      /* sorted, one rule per path */
                        assert_true(strcmp(plan->rules[i - 1].path, plan->rules[i].path) < 0);
        }
        assert_int_equal(seen, 1);
        r = sbx__plan_rule_for(plan, "/usr/bin/sh");
        assert_int_equal(r->origin, SBX__ORIGIN_ADDITIONAL);
        assert_int_equal(r->access, 0);
        sbx_plan_free(plan);
}

static void test_plan__env_allow_list(void **state)
{
        static const char *const pass[] = {
                "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "COLORTERM",
                "NO_COLOR", "USER", "LOGNAME", "SHELL",
        };
        static const char *const drop[] = {
                "HOME", "TMPDIR", "LD_PRELOAD", "LD_LIBRARY_PATH", "SSH_AUTH_SOCK",
                "AWS_SECRET_ACCESS_KEY", "LC_", "LC", "PATHX", "path", "PATH=", "", "TERMINFO",
        };
        sbx_plan *plan, *direct;
        size_t i;
        (void) state;

        plan = plan_of_mode(SBX_MODE_WORKSPACE_WRITE);
        direct = plan_of_mode(SBX_MODE_DANGER_FULL_ACCESS);
        for (i = 0; i < SBX__ARRAY_SIZE(pass); i++) {
                assert_true(sbx__plan_env_allowed(plan, pass[i]));
                assert_true(sbx__plan_env_allowed(direct, pass[i]));
        }
        for (i = 0; i < SBX__ARRAY_SIZE(drop); i++)
                if (sbx__plan_env_allowed(plan, drop[i]))
                        fail_msg("\"%s\" must be dropped", drop[i]);
        assert_true(sbx__plan_env_allowed(direct, "LD_PRELOAD"));       /* passthrough */
        assert_false(sbx__plan_env_allowed(direct, "A=B"));
        assert_false(sbx__plan_env_allowed(plan, NULL));
        assert_false(sbx__plan_env_allowed(NULL, "PATH"));
        assert_int_equal(plan->home, SBX__ENV_DIR_SCRATCH);
        assert_int_equal(plan->tmpdir, SBX__ENV_DIR_SCRATCH);
        assert_int_equal(direct->home, SBX__ENV_DIR_CALLER);
        sbx_plan_free(plan);
        sbx_plan_free(direct);
}

static void test_plan__unconfined_gated_command(void **state)
{
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_plan *plan;
        (void) state;

        cfg.workspace_root = WS;
        cfg.workspace_read = cfg.workspace_write = SBX_ACCESS_ALLOW;
        cfg.host_read = cfg.host_write = SBX_ACCESS_ALLOW;
        cfg.network = SBX_ACCESS_ALLOW;
        cfg.command = SBX_ACCESS_GATED;
        cfg.home = SBX_HOME_REAL;
        cfg.isolation = SBX_ISOLATION_UNCONFINED;
        cfg.ack_unconfined = 1;
        plan = plan_of(&cfg);
        assert_int_equal(plan->direct, 1);
        assert_int_equal(plan->command, SBX_ACCESS_GATED);
        assert_describe(plan,
                "plan v1\n"
                "isolation unconfined\n"
                "command gated\n"
                "network allow\n"
                "home caller\n"
                "tmpdir caller\n"
                "env passthrough\n"
                "requires none\n");
        sbx_plan_free(plan);
}

static void test_plan__root_workspace_replaces_host_rule(void **state)
{
        sbx_profile_config cfg = base_config();
        sbx_plan *plan;
        sbx_profile *p = NULL;
        (void) state;

        /* "/" needs force_workspace; with no home directories given, the
         * plan has no secret rules (every host home is below "/"). */
        cfg.workspace_root = "/";
        cfg.force_workspace = 1;
        assert_int_equal(sbx__profile_new_with_homes(&cfg, NULL, 0, &p, NULL), SBX_OK);
        plan = plan_of_profile(p);
        sbx_profile_free(p);
        assert_describe(plan,
                SANDBOXED_HEAD("allow", "deny", "scratch")
                "fs / tree rwx workspace\n"
                "fs /.git tree r-x protected\n"
                DEV_RULES
                "writable /\n"
                "requires read-boundary write-boundary env-scrub network-deny "
                "home-isolation protected-paths\n");
        sbx_plan_free(plan);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_plan__golden_read_only),
                cmocka_unit_test(test_plan__golden_workspace_write),
                cmocka_unit_test(test_plan__golden_danger_is_direct),
                cmocka_unit_test(test_plan__golden_zeroed_config),
                cmocka_unit_test(test_plan__golden_additional_roots),
                cmocka_unit_test(test_plan__golden_listed_hooks_root_replaces_protected),
                cmocka_unit_test(test_plan__golden_gated_is_closed),
                cmocka_unit_test(test_plan__golden_real_home_host_writable),
                cmocka_unit_test(test_plan__describe_is_stable),
                cmocka_unit_test(test_plan__guarantee_names),
                cmocka_unit_test(test_plan__guarantee_name_invalid),
                cmocka_unit_test(test_plan__required_guarantees_table),
                cmocka_unit_test(test_plan__guarantees_argument_checks),
                cmocka_unit_test(test_plan__compile_argument_checks),
                cmocka_unit_test(test_plan__describe_argument_checks),
                cmocka_unit_test(test_plan__writable_roots_collapse),
                cmocka_unit_test(test_plan__roots_collapse_shared_helper),
                cmocka_unit_test(test_plan__escape_control_bytes),
                cmocka_unit_test(test_plan__describe_escapes_newline_path),
                cmocka_unit_test(test_plan__rule_for_deepest_wins),
                cmocka_unit_test(test_plan__configured_root_beats_runtime_path),
                cmocka_unit_test(test_plan__env_allow_list),
                cmocka_unit_test(test_plan__unconfined_gated_command),
                cmocka_unit_test(test_plan__root_workspace_replaces_host_rule),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
