/*
 * escalation.c - the strictly-wider escalation ladder, argument validation
 * and the fail-closed approval flow.  An approved escalation widens ONE
 * call; it never changes the session's mode.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <time.h>

#include "policy/policy_internal.h"

int sbx_mode_can_escalate_to(int32_t current, int32_t target)
{
        /* The ladder is the numeric order of the modes: read-only (1) <
         * workspace-write (2) < danger-full-access (3). */
        return sbx_mode_is_valid(current) && sbx_mode_is_valid(target) && target > current;
}

sbx_code sbx_escalation_validate_args(const char *target_text, const char *justification,
                                      int32_t *target_out, sbx_error *err)
{
        const char *fn = "sbx_escalation_validate_args";
        int32_t target;

        if (target_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: target_out is NULL", fn);
        if (target_text == NULL && justification == NULL) {
                *target_out = SBX_MODE_NONE;
                return SBX_OK;
        }
        if (target_text == NULL)
                return sbx__fail(err, SBX_E_ESCALATION_INVALID_ARGS, 0,
                                 "%s: justification given without sandbox_permissions", fn);
        if (justification == NULL)
                return sbx__fail(err, SBX_E_ESCALATION_INVALID_ARGS, 0,
                                 "%s: sandbox_permissions given without a justification", fn);
        if (sbx__is_blank(justification))
                return sbx__fail(err, SBX_E_ESCALATION_INVALID_ARGS, 0,
                                 "%s: justification is blank", fn);
        if (sbx_mode_parse(target_text, &target, NULL) != SBX_OK)
                return sbx__fail(err, SBX_E_ESCALATION_INVALID_ARGS, 0,
                                 "%s: unknown sandbox_permissions \"%.64s\" (want "
                                 "workspace-write or danger-full-access)", fn, target_text);
        if (target == SBX_MODE_READ_ONLY)
                return sbx__fail(err, SBX_E_ESCALATION_INVALID_ARGS, 0,
                                 "%s: read-only is never an escalation target", fn);
        *target_out = target;
        return SBX_OK;
}

static int64_t now_ms(void)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
                return INT64_MAX;       /* unknown time: treat every deadline as passed */
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

sbx_code sbx_escalation_approve(const sbx_escalation_request *req,
                                sbx_escalation_approver_fn approver, void *userdata,
                                int32_t *granted_mode_out, sbx_error *err)
{
        const char *fn = "sbx_escalation_approve";
        int32_t target, outcome;
        sbx_code r;

        if (req == NULL || granted_mode_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: req and granted_mode_out must not be NULL", fn);
        if (req->version != SBX_ESCALATION_REQUEST_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: unsupported request version %u", fn,
                                 (unsigned) req->version);
        if (!sbx_mode_is_valid(req->current_mode))
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: invalid current_mode %d", fn,
                                 (int) req->current_mode);
        if (req->deadline_ms < 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: negative deadline_ms", fn);

        /* Step 1: strictly wider, checked before anyone is asked. */
        if (!sbx_mode_can_escalate_to(req->current_mode, req->target_mode))
                return sbx__fail(err, SBX_E_ESCALATION_NOT_WIDER, 0,
                                 "%s: %s is not strictly wider than %s", fn,
                                 sbx_mode_name(req->target_mode), sbx_mode_name(req->current_mode));
        /* Step 2: target and justification together. */
        r = sbx_escalation_validate_args(sbx_mode_name(req->target_mode), req->justification,
                                         &target, err);
        if (r != SBX_OK)
                return r;
        /* Step 3: the approval channel; none means no. */
        if (approver == NULL)
                return sbx__fail(err, SBX_E_ESCALATION_NO_APPROVER, 0,
                                 "%s: no approver; wider access is never granted silently", fn);
        outcome = approver(req, userdata);

        /* Step 4: outcome mapping.  Anything unexpected is a denial. */
        switch (outcome) {
        case SBX_ESCALATION_APPROVED_ONCE:
                if (req->deadline_ms != 0 && now_ms() > req->deadline_ms)
                        return sbx__fail(err, SBX_E_ESCALATION_TIMED_OUT, 0,
                                         "%s: approval arrived after the deadline", fn);
                *granted_mode_out = target;
                return SBX_OK;
        case SBX_ESCALATION_TIMED_OUT:
                return sbx__fail(err, SBX_E_ESCALATION_TIMED_OUT, 0, "%s: approval timed out", fn);
        case SBX_ESCALATION_CANCELLED:
                return sbx__fail(err, SBX_E_ESCALATION_CANCELLED, 0, "%s: approval cancelled", fn);
        case SBX_ESCALATION_DENIED:
                return sbx__fail(err, SBX_E_ESCALATION_DENIED, 0, "%s: escalation to %s denied",
                                 fn, sbx_mode_name(target));
        default:
                return sbx__fail(err, SBX_E_ESCALATION_DENIED, 0,
                                 "%s: approver returned unknown outcome %d; treated as denied",
                                 fn, (int) outcome);
        }
}
