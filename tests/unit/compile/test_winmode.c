/*
 * test_winmode.c - the Windows tier selection, tier claims and the
 * enforcement level (compile/winmode.c), on Linux.  The whole table of
 * mode x required x setup state is checked against the rules of seed 003:
 * RestrictedToken always restricted; Elevated only when ready, never a
 * fallback; Auto restricted when that suffices, else elevated when ready,
 * refused when setup is stale, restricted when setup is absent.
 * SPDX-License-Identifier: Apache-2.0
 */
#include "unit/sbx_test.h"

#include "compile/windows.h"

static const struct sbx__win_setup_state absent = { 0, 0 };
static const struct sbx__win_setup_state stale = { 1, 0 };
static const struct sbx__win_setup_state ready = { 1, 1 };

struct select_case {
        int32_t mode;
        uint32_t required;
        const struct sbx__win_setup_state *setup;
        sbx_code want;
        int32_t tier;
};

#define ENV SBX_G_ENV_SCRUB
#define WRITE (SBX_G_ENV_SCRUB | SBX_G_WRITE_BOUNDARY)
#define R SBX__WIN_TIER_RESTRICTED
#define E SBX__WIN_TIER_ELEVATED

static const struct select_case cases[] = {
        { SBX_WINDOWS_RESTRICTED_TOKEN, ENV, NULL, SBX_OK, R },
        { SBX_WINDOWS_RESTRICTED_TOKEN, WRITE, &ready, SBX_OK, R },
        { SBX_WINDOWS_RESTRICTED_TOKEN, WRITE, &stale, SBX_OK, R },
        { SBX_WINDOWS_ELEVATED, ENV, NULL, SBX_E_SANDBOX_UNAVAILABLE, 0 },
        { SBX_WINDOWS_ELEVATED, ENV, &absent, SBX_E_SANDBOX_UNAVAILABLE, 0 },
        { SBX_WINDOWS_ELEVATED, ENV, &stale, SBX_E_SANDBOX_UNAVAILABLE, 0 },
        { SBX_WINDOWS_ELEVATED, WRITE, &ready, SBX_OK, E },
        { SBX_WINDOWS_AUTO, ENV, NULL, SBX_OK, R },
        { SBX_WINDOWS_AUTO, ENV, &stale, SBX_OK, R },
        { SBX_WINDOWS_AUTO, ENV, &ready, SBX_OK, R },
        { SBX_WINDOWS_AUTO, WRITE, NULL, SBX_OK, R },
        { SBX_WINDOWS_AUTO, WRITE, &absent, SBX_OK, R },
        { SBX_WINDOWS_AUTO, WRITE, &stale, SBX_E_SANDBOX_UNAVAILABLE, 0 },
        { SBX_WINDOWS_AUTO, WRITE, &ready, SBX_OK, E },
        { 3, ENV, NULL, SBX_E_INVALID, 0 },
        { -1, ENV, NULL, SBX_E_INVALID, 0 },
};

static void test_winmode__select_table(void **state)
{
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(cases); i++) {
                const struct select_case *c = &cases[i];
                sbx_error e = { 0, 0, { 0 } };
                int32_t tier = -7;
                sbx_code r = sbx__win_select(c->mode, c->required, c->setup, &tier, &e);

                if (r != c->want)
                        fail_msg("case %zu: got %s, want %s (%s)", i, sbx_code_name(r),
                                 sbx_code_name(c->want), e.message);
                if (r == SBX_OK)
                        assert_int_equal(tier, c->tier);
                else
                        assert_int_equal(tier, -7);     /* untouched */
        }
}

static void test_winmode__elevated_never_falls_back(void **state)
{
        int32_t tier = 0;
        (void) state;

        assert_sbx_fails(sbx__win_select(SBX_WINDOWS_ELEVATED, ENV, &stale, &tier, err),
                         SBX_E_SANDBOX_UNAVAILABLE, "never falls back");
        assert_sbx_fails(sbx__win_select(SBX_WINDOWS_AUTO, WRITE, &stale, &tier, err),
                         SBX_E_SANDBOX_UNAVAILABLE, "stale");
        assert_sbx_fails(sbx__win_select(SBX_WINDOWS_AUTO, ENV, NULL, NULL, err),
                         SBX_E_INVALID, "tier_out");
}

static void test_winmode__claims(void **state)
{
        (void) state;
        /* The restricted tier claims what our code builds, nothing the
         * token or the ACLs would need real Windows to show. */
        assert_int_equal(sbx__win_tier_guarantees(R), SBX_G_ENV_SCRUB);
        assert_int_equal(sbx__win_tier_guarantees(E), 0);
        assert_int_equal(sbx__win_tier_guarantees(0), 0);
}

static void test_winmode__partial_when_a_layer_is_missing(void **state)
{
        (void) state;
        assert_int_equal(sbx__win_enforcement(R, SBX__WIN_LAYERS_ALL, ENV), SBX_ENFORCEMENT_FULL);
        /* The seed's partial level: no restricted token (the command ran
         * with the caller's token). */
        assert_int_equal(sbx__win_enforcement(R, SBX__WIN_LAYERS_ALL & ~SBX__WIN_LAYER_TOKEN, ENV),
                         SBX_ENFORCEMENT_PARTIAL);
        assert_int_equal(sbx__win_enforcement(R, 0, ENV), SBX_ENFORCEMENT_PARTIAL);
        /* A required guarantee the tier does not claim. */
        assert_int_equal(sbx__win_enforcement(R, SBX__WIN_LAYERS_ALL, WRITE),
                         SBX_ENFORCEMENT_PARTIAL);
        assert_int_equal(sbx__win_enforcement(E, SBX__WIN_LAYERS_ALL, ENV), SBX_ENFORCEMENT_NONE);
}

/* The public lifecycle: the config is checked on every OS; off Windows
 * each call is then SBX_E_UNSUPPORTED and writes nothing. */
static void test_winmode__setup_config_checked(void **state)
{
        sbx_windows_setup_config cfg;
        sbx_windows_status st;
        static const uint16_t ports[1] = { 0 };
        (void) state;

        sbx_windows_setup_config_init(&cfg);
        sbx_windows_status_init(&st);
        assert_int_equal(cfg.version, SBX_WINDOWS_SETUP_CONFIG_VERSION);
        assert_int_equal(st.version, SBX_WINDOWS_STATUS_VERSION);
        sbx_windows_setup_config_init(NULL);
        sbx_windows_status_init(NULL);

        assert_sbx_fails(sbx_windows_inspect(NULL, &st, err), SBX_E_INVALID, "cfg is NULL");
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_INVALID, "installation_id");
        cfg.installation_id = "my product";
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_INVALID, "A-Z");
        cfg.installation_id = "..";
        assert_sbx_fails(sbx_windows_remove(&cfg, err), SBX_E_INVALID, "\"..\"");
        cfg.installation_id = "my-product";
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_INVALID, "state_root");
        cfg.state_root = "\\\\server\\share\\state";
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_INVALID,
                         "windows path refused");
        cfg.state_root = "C:\\ProgramData\\MyProduct\\Sandbox";
        /* Setup needs the host binary and the runtime evidence. */
        assert_sbx_fails(sbx_windows_setup(&cfg, err), SBX_E_INVALID, "host_binary");
        cfg.host_binary = "C:\\build\\sandbox-host.exe";
        assert_sbx_fails(sbx_windows_setup(&cfg, err), SBX_E_INVALID, "runtime_evidence_path");
        cfg.runtime_evidence_path = "C:\\build\\evidence.json";
        cfg.proxy_ports = ports;
        cfg.n_proxy_ports = 1;
        assert_sbx_fails(sbx_windows_setup(&cfg, err), SBX_E_INVALID, "proxy_ports[0]");
        cfg.n_proxy_ports = 0;
        st.version = 0;
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_INVALID, "out->version");
        st.version = SBX_WINDOWS_STATUS_VERSION;
        st.ready = 7;
#if !defined(_WIN32)
        assert_sbx_fails(sbx_windows_setup(&cfg, err), SBX_E_UNSUPPORTED, "Windows builds");
        assert_sbx_fails(sbx_windows_inspect(&cfg, &st, err), SBX_E_UNSUPPORTED, "Windows");
        assert_sbx_fails(sbx_windows_remove(&cfg, err), SBX_E_UNSUPPORTED, "Windows");
        assert_int_equal(st.ready, 7);          /* untouched */
#endif
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_winmode__select_table),
                cmocka_unit_test(test_winmode__elevated_never_falls_back),
                cmocka_unit_test(test_winmode__claims),
                cmocka_unit_test(test_winmode__partial_when_a_layer_is_missing),
                cmocka_unit_test(test_winmode__setup_config_checked),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
