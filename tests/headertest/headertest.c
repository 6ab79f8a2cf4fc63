/* The public header must compile alone with -std=c99 -pedantic -Werror. */
#include <sandbox.h>

int sbx_headertest_c(void);
int sbx_headertest_c(void)
{
        sbx_error e = { 0, 0, { 0 } };
        sbx_policy_request r = SBX_POLICY_REQUEST_INIT;
        sbx_mode_event ev = SBX_MODE_EVENT_INIT;
        sbx_runner_rule rule = SBX_RUNNER_RULE_INIT;
        sbx_preset p = SBX_PRESET_INIT;
        sbx_escalation_request q = SBX_ESCALATION_REQUEST_INIT;
        sbx_session_log_report lr = SBX_SESSION_LOG_REPORT_INIT;
        sbx_limits_report lim = SBX_LIMITS_REPORT_INIT;
        sbx_policy_settings ps = SBX_POLICY_SETTINGS_INIT;

        (void) r; (void) ev; (void) rule; (void) p; (void) q; (void) lr; (void) lim; (void) ps;
        return e.code + SBX_VERSION_AT_LEAST(0, 1, 0);
}
