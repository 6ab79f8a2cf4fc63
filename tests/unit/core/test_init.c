/*
 * test_init.c - every sbx_*_init() function gives the struct its SBX_*_INIT
 * macro gives.
 *
 * Two comparisons per struct:
 *   - field by field against an automatic object initialised with the
 *     macro (padding plays no part);
 *   - byte for byte against a static object initialised with the macro,
 *     whose padding is zero (C11 6.7.9p10), after filling the function's
 *     target with 0xAA: init.c copies such a static object, so no byte of
 *     the fill may survive, padding included.  (Comparing two 0xAA-filled
 *     objects instead would rely on what initialisation does to padding,
 *     which C leaves unspecified.)
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include <sandbox.h>

#define SAME(got, want, field) assert_true((got).field == (want).field)

/* got filled with 0xAA, then fn(&got); compared with want_static byte for byte. */
#define INIT_BYTES(type, fn, macro, got) \
        do { \
                static const type want_static_ = macro; \
                memset(&(got), 0xAA, sizeof(got)); \
                fn(&(got)); \
                assert_memory_equal(&(got), &want_static_, sizeof(got)); \
                fn(NULL); /* ignored */ \
        } while (0)

static void test_init__mode_event(void **state)
{
        const sbx_mode_event want = SBX_MODE_EVENT_INIT;
        sbx_mode_event got;
        (void) state;

        INIT_BYTES(sbx_mode_event, sbx_mode_event_init, SBX_MODE_EVENT_INIT, got);
        SAME(got, want, version);
        SAME(got, want, mode);
        SAME(got, want, source);
        SAME(got, want, timestamp_ms);
        assert_int_equal(got.version, SBX_MODE_EVENT_VERSION);
}

static void test_init__session_log_report(void **state)
{
        const sbx_session_log_report want = SBX_SESSION_LOG_REPORT_INIT;
        sbx_session_log_report got;
        (void) state;

        INIT_BYTES(sbx_session_log_report, sbx_session_log_report_init,
                   SBX_SESSION_LOG_REPORT_INIT, got);
        SAME(got, want, version);
        SAME(got, want, torn_tail);
        SAME(got, want, records);
        SAME(got, want, torn_bytes);
        assert_int_equal(got.version, SBX_SESSION_LOG_REPORT_VERSION);
}

static void test_init__policy_request(void **state)
{
        const sbx_policy_request want = SBX_POLICY_REQUEST_INIT;
        sbx_policy_request got;
        (void) state;

        INIT_BYTES(sbx_policy_request, sbx_policy_request_init, SBX_POLICY_REQUEST_INIT, got);
        SAME(got, want, version);
        SAME(got, want, mode_override);
        SAME(got, want, session_id);
        SAME(got, want, session_cwd);
        SAME(got, want, events);
        SAME(got, want, n_events);
        assert_int_equal(got.version, SBX_POLICY_REQUEST_VERSION);
}

static void test_init__escalation_request(void **state)
{
        const sbx_escalation_request want = SBX_ESCALATION_REQUEST_INIT;
        sbx_escalation_request got;
        (void) state;

        INIT_BYTES(sbx_escalation_request, sbx_escalation_request_init,
                   SBX_ESCALATION_REQUEST_INIT, got);
        SAME(got, want, version);
        SAME(got, want, current_mode);
        SAME(got, want, target_mode);
        SAME(got, want, justification);
        SAME(got, want, session_id);
        SAME(got, want, command);
        SAME(got, want, deadline_ms);
        assert_int_equal(got.version, SBX_ESCALATION_REQUEST_VERSION);
}

static void test_init__runner_rule(void **state)
{
        const sbx_runner_rule want = SBX_RUNNER_RULE_INIT;
        sbx_runner_rule got;
        (void) state;

        INIT_BYTES(sbx_runner_rule, sbx_runner_rule_init, SBX_RUNNER_RULE_INIT, got);
        SAME(got, want, version);
        SAME(got, want, allowed_exit_codes);
        SAME(got, want, n_allowed_exit_codes);
        SAME(got, want, fatal_signatures);
        SAME(got, want, n_fatal_signatures);
        SAME(got, want, informational_lines);
        SAME(got, want, n_informational_lines);
        assert_int_equal(got.version, SBX_RUNNER_RULE_VERSION);
}

static void test_init__preset(void **state)
{
        const sbx_preset want = SBX_PRESET_INIT;
        sbx_preset got;
        (void) state;

        INIT_BYTES(sbx_preset, sbx_preset_init, SBX_PRESET_INIT, got);
        SAME(got, want, version);
        SAME(got, want, id);
        SAME(got, want, sandbox_mode);
        SAME(got, want, approval);
        assert_int_equal(got.version, SBX_PRESET_VERSION);
}

static void test_init__profile_config(void **state)
{
        const sbx_profile_config want = SBX_PROFILE_CONFIG_INIT;
        sbx_profile_config got;
        (void) state;

        INIT_BYTES(sbx_profile_config, sbx_profile_config_init, SBX_PROFILE_CONFIG_INIT, got);
        SAME(got, want, version);
        SAME(got, want, workspace_root);
        SAME(got, want, workspace_read);
        SAME(got, want, workspace_write);
        SAME(got, want, host_read);
        SAME(got, want, host_write);
        SAME(got, want, network);
        SAME(got, want, command);
        SAME(got, want, home);
        SAME(got, want, isolation);
        SAME(got, want, additional_roots);
        SAME(got, want, n_additional_roots);
        SAME(got, want, ack_unconfined);
        assert_int_equal(got.version, SBX_PROFILE_CONFIG_VERSION);
}

static void test_init__guarantee_report(void **state)
{
        const sbx_guarantee_report want = SBX_GUARANTEE_REPORT_INIT;
        sbx_guarantee_report got;
        (void) state;

        INIT_BYTES(sbx_guarantee_report, sbx_guarantee_report_init, SBX_GUARANTEE_REPORT_INIT,
                   got);
        SAME(got, want, version);
        SAME(got, want, required);
        SAME(got, want, achieved);
        SAME(got, want, enforcement);
        assert_int_equal(got.version, SBX_GUARANTEE_REPORT_VERSION);
}

static void test_init__local_config(void **state)
{
        const sbx_local_config want = SBX_LOCAL_CONFIG_INIT;
        sbx_local_config got;
        (void) state;

        INIT_BYTES(sbx_local_config, sbx_local_config_init, SBX_LOCAL_CONFIG_INIT, got);
        SAME(got, want, version);
        SAME(got, want, backend);
        SAME(got, want, runner_command);
        assert_int_equal(got.version, SBX_LOCAL_CONFIG_VERSION);
}

/* A function filled struct works where the macro's does: a profile built
 * from sbx_profile_config_init() plus a workspace root is the most
 * restrictive profile, as docs/profiles.md says of the zeroed config. */
static void test_init__profile_config_from_init_builds(void **state)
{
        sbx_profile_config cfg;
        sbx_profile *p = NULL;
        sbx_error e = { 0, 0, { 0 } };
        int32_t access = -1;
        (void) state;

        memset(&cfg, 0xAA, sizeof(cfg));
        sbx_profile_config_init(&cfg);
        cfg.workspace_root = "/";
        assert_int_equal(sbx_profile_new(&cfg, &p, &e), SBX_OK);
        assert_int_equal(sbx_profile_access_for(p, SBX_PROFILE_ACCESS_VERSION, "network", "*",
                                                &access, &e),
                         SBX_OK);
        assert_int_equal(access, SBX_ACCESS_DENY);
        sbx_profile_free(p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_init__mode_event),
                cmocka_unit_test(test_init__session_log_report),
                cmocka_unit_test(test_init__policy_request),
                cmocka_unit_test(test_init__escalation_request),
                cmocka_unit_test(test_init__runner_rule),
                cmocka_unit_test(test_init__preset),
                cmocka_unit_test(test_init__profile_config),
                cmocka_unit_test(test_init__guarantee_report),
                cmocka_unit_test(test_init__local_config),
                cmocka_unit_test(test_init__profile_config_from_init_builds),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
