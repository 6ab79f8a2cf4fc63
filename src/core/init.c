/*
 * init.c - sbx_*_init(): the SBX_*_INIT macros of the transparent option
 * and report structs as functions, for binding generators (cffi, bindgen)
 * that cannot expand a macro.
 *
 * Each copies a static object initialised with the macro itself, so the
 * values can never drift from the header, and every byte is written: the
 * padding of a static object is zero (C11 6.7.9p10) and memcpy copies it,
 * so a binding that compares or hashes the raw bytes sees the same struct
 * every time.  (sbx_spawn_options_init lives with the spawn options.)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define SBX__DEFINE_INIT(type, macro) \
        void type##_init(type *x) \
        { \
                static const type init = macro; \
                \
                if (x != NULL) \
                        memcpy(x, &init, sizeof(*x)); \
        }

SBX__DEFINE_INIT(sbx_mode_event, SBX_MODE_EVENT_INIT)
SBX__DEFINE_INIT(sbx_session_log_report, SBX_SESSION_LOG_REPORT_INIT)
SBX__DEFINE_INIT(sbx_policy_request, SBX_POLICY_REQUEST_INIT)
SBX__DEFINE_INIT(sbx_escalation_request, SBX_ESCALATION_REQUEST_INIT)
SBX__DEFINE_INIT(sbx_runner_rule, SBX_RUNNER_RULE_INIT)
SBX__DEFINE_INIT(sbx_preset, SBX_PRESET_INIT)
SBX__DEFINE_INIT(sbx_profile_config, SBX_PROFILE_CONFIG_INIT)
SBX__DEFINE_INIT(sbx_guarantee_report, SBX_GUARANTEE_REPORT_INIT)
SBX__DEFINE_INIT(sbx_local_config, SBX_LOCAL_CONFIG_INIT)
SBX__DEFINE_INIT(sbx_policy_settings, SBX_POLICY_SETTINGS_INIT)
SBX__DEFINE_INIT(sbx_executor_set_options, SBX_EXECUTOR_SET_OPTIONS_INIT)
SBX__DEFINE_INIT(sbx_run_options, SBX_RUN_OPTIONS_INIT)

/* The one transparent result that owns memory (the executor's), freed
 * here so every build has the same definition (a copy kept for Windows
 * had drifted: it left the events and the lengths behind). */
void sbx_run_result_free(sbx_run_result *res)
{
        if (res == NULL)
                return;
        free(res->out);
        free(res->err);
        res->out = res->err = NULL;
        res->out_len = res->err_len = 0;
        if (res->version >= 2) {        /* a version-1 result has no events */
                free(res->events);
                res->events = NULL;
                res->n_events = 0;
        }
}
