#include "unit/sbx_test.h"

static void test_mode__parse_and_name_round_trip(void **state)
{
        static const char *names[] = { "read-only", "workspace-write", "danger-full-access" };
        int32_t m = 0;
        size_t i;
        (void) state;

        for (i = 0; i < 3; i++) {
                assert_int_equal(sbx_mode_parse(names[i], &m, NULL), SBX_OK);
                assert_int_equal(m, (int32_t) i + 1);
                assert_string_equal(sbx_mode_name(m), names[i]);
                assert_true(sbx_mode_is_valid(m));
        }
}

static void test_mode__parse_rejects_bad_input(void **state)
{
        static const char *bad[] = { "", "READ-ONLY", "read_only", " read-only", "read-only ",
                                     "danger", "workspace-write\n" };
        int32_t m = 77;
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_sbx_fails(sbx_mode_parse(bad[i], &m, err), SBX_E_INVALID, "unknown value");
                assert_int_equal(m, 77); /* out untouched */
        }
        assert_sbx_fails(sbx_mode_parse(NULL, &m, err), SBX_E_INVALID, "sbx_mode_parse");
        assert_sbx_fails(sbx_mode_parse("read-only", NULL, err), SBX_E_INVALID, "NULL");
        assert_int_equal(sbx_mode_parse("nope", &m, NULL), SBX_E_INVALID); /* err optional */
}

static void test_mode__overlong_input_is_invalid_not_truncated(void **state)
{
        char buf[8192];
        int32_t m = 0;
        (void) state;

        memset(buf, 'a', sizeof(buf) - 1);
        buf[sizeof(buf) - 1] = '\0';
        memcpy(buf, "read-only", 9);
        assert_sbx_fails(sbx_mode_parse(buf, &m, err), SBX_E_INVALID, "unknown value");
}

static void test_mode__invalid_values_have_names(void **state)
{
        (void) state;
        assert_string_equal(sbx_mode_name(0), "invalid");
        assert_string_equal(sbx_mode_name(4), "invalid");
        assert_string_equal(sbx_mode_name(-1), "invalid");
        assert_string_equal(sbx_mode_name(INT32_MAX), "invalid");
        assert_false(sbx_mode_is_valid(SBX_MODE_NONE));
        assert_false(sbx_mode_is_valid(INT32_MIN));
}

static void test_mode__sources(void **state)
{
        int32_t s = 0;
        (void) state;

        assert_int_equal(sbx_mode_source_parse("user", &s, NULL), SBX_OK);
        assert_int_equal(s, SBX_MODE_SOURCE_USER);
        assert_int_equal(sbx_mode_source_parse("delegation", &s, NULL), SBX_OK);
        assert_int_equal(s, SBX_MODE_SOURCE_DELEGATION);
        assert_int_equal(sbx_mode_source_parse("escalation", &s, NULL), SBX_OK);
        assert_int_equal(s, SBX_MODE_SOURCE_ESCALATION);
        assert_string_equal(sbx_mode_source_name(SBX_MODE_SOURCE_DELEGATION), "delegation");
        assert_string_equal(sbx_mode_source_name(0), "invalid");
        assert_string_equal(sbx_mode_source_name(4), "invalid");
        assert_sbx_fails(sbx_mode_source_parse("User", &s, err), SBX_E_INVALID, "unknown");
        assert_sbx_fails(sbx_mode_source_parse(NULL, &s, err), SBX_E_INVALID, "NULL");
}

static sbx_mode_event ev(int32_t mode, int32_t source, int64_t ts)
{
        sbx_mode_event e = SBX_MODE_EVENT_INIT;

        e.mode = mode;
        e.source = source;
        e.timestamp_ms = ts;
        return e;
}

static void test_mode__fold_last_event_wins(void **state)
{
        sbx_mode_event evs[3];
        int32_t m = 0;
        (void) state;

        evs[0] = ev(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_SOURCE_USER, 1);
        evs[1] = ev(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_SOURCE_DELEGATION, 2);
        evs[2] = ev(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 3);
        assert_int_equal(sbx_mode_events_effective(evs, 3, &m, NULL), SBX_OK);
        assert_int_equal(m, SBX_MODE_READ_ONLY);
        assert_int_equal(sbx_mode_events_effective(evs, 2, &m, NULL), SBX_OK);
        assert_int_equal(m, SBX_MODE_DANGER_FULL_ACCESS);
        assert_int_equal(sbx_mode_events_effective(evs, 1, &m, NULL), SBX_OK);
        assert_int_equal(m, SBX_MODE_WORKSPACE_WRITE);
}

static void test_mode__fold_empty_is_not_found(void **state)
{
        int32_t m = 42;
        (void) state;

        assert_sbx_fails(sbx_mode_events_effective(NULL, 0, &m, err), SBX_E_NOT_FOUND, "no sandbox/mode");
        assert_int_equal(m, 42);
}

static void test_mode__fold_rejects_malformed_events_anywhere(void **state)
{
        sbx_mode_event evs[2];
        int32_t m = 42;
        (void) state;

        evs[0] = ev(9, SBX_MODE_SOURCE_USER, 1);          /* bad, but not last */
        evs[1] = ev(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 2);
        assert_sbx_fails(sbx_mode_events_effective(evs, 2, &m, err), SBX_E_INVALID, "event 0");
        evs[0] = ev(SBX_MODE_READ_ONLY, 0, 1);
        assert_sbx_fails(sbx_mode_events_effective(evs, 2, &m, err), SBX_E_INVALID, "source");
        evs[0] = ev(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, -5);
        assert_sbx_fails(sbx_mode_events_effective(evs, 2, &m, err), SBX_E_INVALID, "timestamp");
        evs[0] = ev(SBX_MODE_READ_ONLY, SBX_MODE_SOURCE_USER, 1);
        evs[0].version = 2;
        assert_sbx_fails(sbx_mode_events_effective(evs, 2, &m, err), SBX_E_INVALID, "version");
        assert_sbx_fails(sbx_mode_events_effective(NULL, 1, &m, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx_mode_events_effective(evs, 1, NULL, err), SBX_E_INVALID, "NULL");
        assert_int_equal(m, 42);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mode__parse_and_name_round_trip),
                cmocka_unit_test(test_mode__parse_rejects_bad_input),
                cmocka_unit_test(test_mode__overlong_input_is_invalid_not_truncated),
                cmocka_unit_test(test_mode__invalid_values_have_names),
                cmocka_unit_test(test_mode__sources),
                cmocka_unit_test(test_mode__fold_last_event_wins),
                cmocka_unit_test(test_mode__fold_empty_is_not_found),
                cmocka_unit_test(test_mode__fold_rejects_malformed_events_anywhere),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
