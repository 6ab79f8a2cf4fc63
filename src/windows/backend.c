/*
 * backend.c - the windows row of the backend table (docs/windows.md): the
 * probe, what the restricted tier claims, Confine (none: the backend
 * spawns the command itself), and the two spawn entries.  Unverified on
 * real Windows.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <string.h>

#include "win_internal.h"

/* Cheap: this process can open its own token (everything else is the
 * first spawn's test, and a token that cannot be restricted only lowers
 * that spawn's report to partial). */
sbx_code sbx__win_probe(sbx_error *err)
{
        HANDLE tok = NULL;

        if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY | TOKEN_DUPLICATE, &tok))
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE,
                                 sbx__win_errno(GetLastError()), "windows: cannot open this "
                                 "process's token (error %lu)",
                                 (unsigned long) GetLastError());
        (void) CloseHandle(tok);
        return SBX_OK;
}

/* The tier sbx_spawn runs is SBX_WINDOWS_AUTO without a setup: the
 * restricted tier (an executor set's windows_mode can ask otherwise). */
uint32_t sbx__win_guarantees(const struct sbx_plan *plan)
{
        (void) plan;
        return sbx__win_tier_guarantees(SBX__WIN_TIER_RESTRICTED);
}

sbx_code sbx__win_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                          const char *runner, const char *const *argv, char ***argv_out,
                          sbx_error *err)
{
        (void) plan;
        (void) profile;
        (void) runner;
        (void) argv;
        (void) argv_out;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "windows: there is no runner to wrap a "
                         "command line with; the token, the job and the ACLs are applied by "
                         "sbx_spawn (docs/windows.md)");
}

sbx_code sbx__win_spawn(const struct sbx_plan *plan, const char *const *argv,
                        const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        int32_t tier = 0;
        sbx_code r;

        r = sbx__win_select(SBX_WINDOWS_AUTO, plan->required, NULL, &tier, err);
        if (r != SBX_OK)
                return r;
        return sbx__win_start(plan, argv, opts, 1, child, err);
}

sbx_code sbx__win_direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                               const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        return sbx__win_start(plan, argv, opts, 0, child, err);
}
