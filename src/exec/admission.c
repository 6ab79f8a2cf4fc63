/*
 * admission.c - the one admission check (exec.h).
 * SPDX-License-Identifier: Apache-2.0
 */
#include "exec/exec.h"

sbx_code sbx__admit(const struct sbx_plan *plan, const char *fn, sbx_error *err)
{
        if (plan == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan is NULL", fn);
        switch (plan->command) {
        case SBX_ACCESS_ALLOW:
                return SBX_OK;
        case SBX_ACCESS_GATED:
                return sbx__fail(err, SBX_E_GRANT_REQUIRED, 0,
                                 "%s: command.execute is gated and no command.start grant was "
                                 "presented; nothing was run", fn);
        case SBX_ACCESS_DENY:
        default:
                return sbx__fail(err, SBX_E_GRANT_DENIED, 0,
                                 "%s: command.execute is denied by the profile; nothing was run",
                                 fn);
        }
}
