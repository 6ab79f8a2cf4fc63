#include <time.h>

#include "unit/sbx_test.h"

static void test_escalation__ladder_is_strictly_wider(void **state)
{
        (void) state;
        assert_true(sbx_mode_can_escalate_to(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE));
        assert_true(sbx_mode_can_escalate_to(SBX_MODE_READ_ONLY, SBX_MODE_DANGER_FULL_ACCESS));
        assert_true(sbx_mode_can_escalate_to(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_DANGER_FULL_ACCESS));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_READ_ONLY, SBX_MODE_READ_ONLY));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_WORKSPACE_WRITE));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_READ_ONLY));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_DANGER_FULL_ACCESS));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_READ_ONLY));
        assert_false(sbx_mode_can_escalate_to(SBX_MODE_READ_ONLY, 4));
        assert_false(sbx_mode_can_escalate_to(0, SBX_MODE_WORKSPACE_WRITE));
        assert_false(sbx_mode_can_escalate_to(-3, 2));
}

static void test_escalation__args_both_or_neither(void **state)
{
        int32_t t = 99;
        (void) state;

        assert_int_equal(sbx_escalation_validate_args(NULL, NULL, &t, NULL), SBX_OK);
        assert_int_equal(t, SBX_MODE_NONE);
        assert_int_equal(sbx_escalation_validate_args("workspace-write", "need to write build/", &t, NULL), SBX_OK);
        assert_int_equal(t, SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(sbx_escalation_validate_args("danger-full-access", "x", &t, NULL), SBX_OK);
        assert_int_equal(t, SBX_MODE_DANGER_FULL_ACCESS);
        t = 99;
        assert_sbx_fails(sbx_escalation_validate_args("workspace-write", NULL, &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "without a justification");
        assert_sbx_fails(sbx_escalation_validate_args(NULL, "because", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "without sandbox_permissions");
        assert_sbx_fails(sbx_escalation_validate_args("workspace-write", "", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "blank");
        assert_sbx_fails(sbx_escalation_validate_args("workspace-write", " \t\n ", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "blank");
        assert_sbx_fails(sbx_escalation_validate_args("read-only", "safer", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "never an escalation target");
        assert_sbx_fails(sbx_escalation_validate_args("root", "please", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "unknown");
        assert_sbx_fails(sbx_escalation_validate_args("", "please", &t, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "unknown");
        assert_sbx_fails(sbx_escalation_validate_args(NULL, NULL, NULL, err), SBX_E_INVALID, "target_out");
        assert_int_equal(t, 99);
}

struct approver_state {
        int32_t answer;
        int calls;
        const sbx_escalation_request *seen;
        void *userdata_seen;
};

static int32_t approver(const sbx_escalation_request *req, void *userdata)
{
        struct approver_state *st = userdata;

        st->calls++;
        st->seen = req;
        st->userdata_seen = userdata;
        return st->answer;
}

static sbx_escalation_request request(int32_t cur, int32_t target)
{
        sbx_escalation_request r = SBX_ESCALATION_REQUEST_INIT;

        r.current_mode = cur;
        r.target_mode = target;
        r.justification = "write the build output";
        r.command = "make";
        r.session_id = "s1";
        return r;
}

static void test_escalation__approved_once(void **state)
{
        struct approver_state st = { SBX_ESCALATION_APPROVED_ONCE, 0, NULL, NULL };
        sbx_escalation_request r = request(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE);
        int32_t granted = 0;
        (void) state;

        assert_int_equal(sbx_escalation_approve(&r, approver, &st, &granted, NULL), SBX_OK);
        assert_int_equal(granted, SBX_MODE_WORKSPACE_WRITE);
        assert_int_equal(st.calls, 1);
        assert_ptr_equal(st.seen, &r);
        assert_ptr_equal(st.userdata_seen, &st);
}

static void test_escalation__outcomes_are_distinct_codes(void **state)
{
        static const struct { int32_t answer; sbx_code code; const char *msg; } cases[] = {
                { SBX_ESCALATION_DENIED, SBX_E_ESCALATION_DENIED, "denied" },
                { SBX_ESCALATION_TIMED_OUT, SBX_E_ESCALATION_TIMED_OUT, "timed out" },
                { SBX_ESCALATION_CANCELLED, SBX_E_ESCALATION_CANCELLED, "cancelled" },
                { 0, SBX_E_ESCALATION_DENIED, "unknown outcome" },
                { 42, SBX_E_ESCALATION_DENIED, "unknown outcome" },
                { -1, SBX_E_ESCALATION_DENIED, "unknown outcome" },
        };
        sbx_escalation_request r = request(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_DANGER_FULL_ACCESS);
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct approver_state st = { cases[i].answer, 0, NULL, NULL };
                int32_t granted = 77;

                assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                                 cases[i].code, cases[i].msg);
                assert_int_equal(granted, 77);
                assert_int_equal(st.calls, 1);
        }
}

static void test_escalation__no_approver_fails_closed(void **state)
{
        sbx_escalation_request r = request(SBX_MODE_READ_ONLY, SBX_MODE_DANGER_FULL_ACCESS);
        int32_t granted = 77;
        (void) state;

        assert_sbx_fails(sbx_escalation_approve(&r, NULL, NULL, &granted, err),
                         SBX_E_ESCALATION_NO_APPROVER, "no approver");
        assert_int_equal(granted, 77);
}

static void test_escalation__not_wider_is_rejected_before_asking(void **state)
{
        struct approver_state st = { SBX_ESCALATION_APPROVED_ONCE, 0, NULL, NULL };
        sbx_escalation_request r = request(SBX_MODE_WORKSPACE_WRITE, SBX_MODE_WORKSPACE_WRITE);
        int32_t granted = 77;
        (void) state;

        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_NOT_WIDER, "not strictly wider");
        r = request(SBX_MODE_DANGER_FULL_ACCESS, SBX_MODE_READ_ONLY);
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_NOT_WIDER, "not strictly wider");
        r = request(SBX_MODE_READ_ONLY, 0);
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_NOT_WIDER, "not strictly wider");
        assert_int_equal(st.calls, 0);
        assert_int_equal(granted, 77);
}

static void test_escalation__blank_justification_rejected_before_asking(void **state)
{
        struct approver_state st = { SBX_ESCALATION_APPROVED_ONCE, 0, NULL, NULL };
        sbx_escalation_request r = request(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE);
        int32_t granted = 77;
        (void) state;

        r.justification = "   ";
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "blank");
        r.justification = NULL;
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_INVALID_ARGS, "justification");
        assert_int_equal(st.calls, 0);
}

static void test_escalation__approval_after_deadline_is_timeout(void **state)
{
        struct approver_state st = { SBX_ESCALATION_APPROVED_ONCE, 0, NULL, NULL };
        sbx_escalation_request r = request(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE);
        int32_t granted = 77;
        (void) state;

        r.deadline_ms = 1000; /* 1970: long past */
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err),
                         SBX_E_ESCALATION_TIMED_OUT, "after the deadline");
        assert_int_equal(granted, 77);
        r.deadline_ms = (int64_t) time(NULL) * 1000 + 3600 * 1000; /* an hour ahead */
        assert_int_equal(sbx_escalation_approve(&r, approver, &st, &granted, NULL), SBX_OK);
        assert_int_equal(granted, SBX_MODE_WORKSPACE_WRITE);
}

static void test_escalation__bad_requests(void **state)
{
        struct approver_state st = { SBX_ESCALATION_APPROVED_ONCE, 0, NULL, NULL };
        sbx_escalation_request r = request(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE);
        int32_t granted = 77;
        (void) state;

        assert_sbx_fails(sbx_escalation_approve(NULL, approver, &st, &granted, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, NULL, err), SBX_E_INVALID, "NULL");
        r.version = 0;
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err), SBX_E_INVALID, "version");
        r = request(9, SBX_MODE_WORKSPACE_WRITE);
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err), SBX_E_INVALID, "current_mode");
        r = request(SBX_MODE_READ_ONLY, SBX_MODE_WORKSPACE_WRITE);
        r.deadline_ms = -1;
        assert_sbx_fails(sbx_escalation_approve(&r, approver, &st, &granted, err), SBX_E_INVALID, "deadline");
        assert_int_equal(st.calls, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escalation__ladder_is_strictly_wider),
                cmocka_unit_test(test_escalation__args_both_or_neither),
                cmocka_unit_test(test_escalation__approved_once),
                cmocka_unit_test(test_escalation__outcomes_are_distinct_codes),
                cmocka_unit_test(test_escalation__no_approver_fails_closed),
                cmocka_unit_test(test_escalation__not_wider_is_rejected_before_asking),
                cmocka_unit_test(test_escalation__blank_justification_rejected_before_asking),
                cmocka_unit_test(test_escalation__approval_after_deadline_is_timeout),
                cmocka_unit_test(test_escalation__bad_requests),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
