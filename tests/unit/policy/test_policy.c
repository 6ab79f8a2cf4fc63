#include <stdlib.h>

#include "unit/sbx_test.h"

static sbx_policy_service *svc_new(int32_t mode, const char *root)
{
        sbx_policy_service *svc = NULL;

        assert_int_equal(sbx_policy_service_new(mode, root, &svc, NULL), SBX_OK);
        assert_non_null(svc);
        return svc;
}

static sbx_mode_event ev(int32_t mode)
{
        sbx_mode_event e = SBX_MODE_EVENT_INIT;

        e.mode = mode;
        e.source = SBX_MODE_SOURCE_USER;
        e.timestamp_ms = 1700000000000LL;
        return e;
}

static void test_policy__service_rejects_bad_arguments(void **state)
{
        sbx_policy_service *svc = NULL;
        char longpath[SBX_PATH_MAX + 8];
        (void) state;

        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_NONE, "/w", &svc, err), SBX_E_INVALID, "default_mode");
        assert_sbx_fails(sbx_policy_service_new(7, "/w", &svc, err), SBX_E_INVALID, "default_mode");
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, NULL, &svc, err), SBX_E_INVALID, "fallback_root is missing");
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, "", &svc, err), SBX_E_INVALID, "fallback_root is missing");
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, "rel/dir", &svc, err), SBX_E_INVALID, "not absolute");
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, "/a/../etc", &svc, err), SBX_E_INVALID, "..");
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, "/w", NULL, err), SBX_E_INVALID, "out");
        memset(longpath, 'a', sizeof(longpath) - 1);
        longpath[0] = '/';
        longpath[sizeof(longpath) - 1] = '\0';
        assert_sbx_fails(sbx_policy_service_new(SBX_MODE_READ_ONLY, longpath, &svc, err), SBX_E_RANGE, "longer");
        assert_null(svc);
        sbx_policy_service_free(NULL);
}

static void test_policy__agentless_uses_default_and_fallback(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_READ_ONLY, "/fallback//root/./");
        sbx_exec_policy *p = NULL;
        (void) state;

        assert_int_equal(sbx_policy_service_resolve(svc, NULL, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_mode(p), SBX_MODE_READ_ONLY);
        assert_string_equal(sbx_exec_policy_workspace_root(p), "/fallback/root");
        assert_null(sbx_exec_policy_session_id(p));
        assert_false(sbx_exec_policy_is_danger(p));
        sbx_exec_policy_free(p);
        sbx_policy_service_free(svc);
}

static void test_policy__session_event_beats_default(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_READ_ONLY, "/fallback");
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_mode_event evs[2];
        sbx_exec_policy *p = NULL;
        (void) state;

        evs[0] = ev(SBX_MODE_DANGER_FULL_ACCESS);
        evs[1] = ev(SBX_MODE_WORKSPACE_WRITE);
        req.session_id = "sess-1";
        req.session_cwd = "/home/u/proj";
        req.events = evs;
        req.n_events = 2;
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_mode(p), SBX_MODE_WORKSPACE_WRITE);
        assert_string_equal(sbx_exec_policy_workspace_root(p), "/home/u/proj");
        assert_string_equal(sbx_exec_policy_session_id(p), "sess-1");
        sbx_exec_policy_free(p);
        sbx_policy_service_free(svc);
}

static void test_policy__override_beats_session_event(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_READ_ONLY, "/fallback");
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_mode_event e1 = ev(SBX_MODE_WORKSPACE_WRITE);
        sbx_exec_policy *p = NULL;
        (void) state;

        req.events = &e1;
        req.n_events = 1;
        req.mode_override = SBX_MODE_DANGER_FULL_ACCESS;
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_mode(p), SBX_MODE_DANGER_FULL_ACCESS);
        assert_true(sbx_exec_policy_is_danger(p));
        assert_string_equal(sbx_exec_policy_workspace_root(p), "/fallback");
        sbx_exec_policy_free(p);

        /* A narrower override wins too: it is explicit. */
        req.mode_override = SBX_MODE_READ_ONLY;
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_mode(p), SBX_MODE_READ_ONLY);
        sbx_exec_policy_free(p);
        sbx_policy_service_free(svc);
}

static void test_policy__resolve_rejects_bad_requests(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_READ_ONLY, "/fallback");
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_mode_event bad = ev(SBX_MODE_WORKSPACE_WRITE);
        sbx_exec_policy *p = NULL;
        char longid[2000];
        (void) state;

        req.mode_override = 4;
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "mode_override");
        req.mode_override = SBX_MODE_NONE;
        req.session_cwd = "relative";
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "session_cwd");
        req.session_cwd = "";
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "session_cwd");
        req.session_cwd = "/a/b/../../etc";
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "..");
        req.session_cwd = NULL;
        req.session_id = "";
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "session_id");
        memset(longid, 'x', sizeof(longid) - 1);
        longid[sizeof(longid) - 1] = '\0';
        req.session_id = longid;
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_RANGE, "session_id");
        req.session_id = NULL;
        /* A corrupt event is an error even under an override. */
        bad.mode = 0;
        req.events = &bad;
        req.n_events = 1;
        req.mode_override = SBX_MODE_READ_ONLY;
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "event 0");
        req.events = NULL;
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "NULL");
        req.n_events = 0;
        req.version = 99;
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, &p, err), SBX_E_INVALID, "version");
        req.version = SBX_POLICY_REQUEST_VERSION;
        assert_sbx_fails(sbx_policy_service_resolve(NULL, &req, &p, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx_policy_service_resolve(svc, &req, NULL, err), SBX_E_INVALID, "NULL");
        assert_null(p);
        sbx_policy_service_free(svc);
}

static void test_policy__to_confined(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_WORKSPACE_WRITE, "/w");
        sbx_policy_request req = SBX_POLICY_REQUEST_INIT;
        sbx_exec_policy *p = NULL;
        sbx_confined_policy *c = NULL;
        (void) state;

        req.session_id = "s";
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_to_confined(p, &c, NULL), SBX_OK);
        assert_int_equal(sbx_confined_policy_mode(c), SBX_CONFINED_WORKSPACE_WRITE);
        assert_string_equal(sbx_exec_policy_workspace_root(sbx_confined_policy_exec(c)), "/w");
        assert_string_equal(sbx_exec_policy_session_id(sbx_confined_policy_exec(c)), "s");
        sbx_exec_policy_free(p); /* the confined policy owns its own copy */
        assert_string_equal(sbx_exec_policy_workspace_root(sbx_confined_policy_exec(c)), "/w");
        sbx_confined_policy_free(c);

        req.mode_override = SBX_MODE_READ_ONLY;
        assert_int_equal(sbx_policy_service_resolve(svc, &req, &p, NULL), SBX_OK);
        assert_int_equal(sbx_exec_policy_to_confined(p, &c, NULL), SBX_OK);
        assert_int_equal(sbx_confined_policy_mode(c), SBX_CONFINED_READ_ONLY);
        sbx_confined_policy_free(c);
        sbx_exec_policy_free(p);
        sbx_policy_service_free(svc);
}

static void test_policy__danger_is_never_confinable(void **state)
{
        sbx_policy_service *svc = svc_new(SBX_MODE_DANGER_FULL_ACCESS, "/w");
        sbx_exec_policy *p = NULL;
        sbx_confined_policy *c = NULL;
        (void) state;

        assert_int_equal(sbx_policy_service_resolve(svc, NULL, &p, NULL), SBX_OK);
        assert_true(sbx_exec_policy_is_danger(p));
        assert_sbx_fails(sbx_exec_policy_to_confined(p, &c, err), SBX_E_DANGER_NOT_CONFINABLE, "bypass");
        assert_null(c);
        assert_sbx_fails(sbx_exec_policy_to_confined(NULL, &c, err), SBX_E_INVALID, "NULL");
        sbx_exec_policy_free(p);
        sbx_policy_service_free(svc);
}

static void test_policy__getters_are_null_safe(void **state)
{
        (void) state;
        assert_int_equal(sbx_exec_policy_mode(NULL), SBX_MODE_NONE);
        assert_null(sbx_exec_policy_workspace_root(NULL));
        assert_null(sbx_exec_policy_session_id(NULL));
        assert_false(sbx_exec_policy_is_danger(NULL));
        assert_int_equal(sbx_confined_policy_mode(NULL), 0);
        assert_null(sbx_confined_policy_exec(NULL));
        sbx_exec_policy_free(NULL);
        sbx_confined_policy_free(NULL);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_policy__service_rejects_bad_arguments),
                cmocka_unit_test(test_policy__agentless_uses_default_and_fallback),
                cmocka_unit_test(test_policy__session_event_beats_default),
                cmocka_unit_test(test_policy__override_beats_session_event),
                cmocka_unit_test(test_policy__resolve_rejects_bad_requests),
                cmocka_unit_test(test_policy__to_confined),
                cmocka_unit_test(test_policy__danger_is_never_confinable),
                cmocka_unit_test(test_policy__getters_are_null_safe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
