/*
 * winmode.c - which Windows tier runs a plan (sbx_windows_mode), what each
 * tier claims, and the enforcement level of a spawn from the layers it
 * applied (the seed's partial level).  Pure; tested on Linux
 * (tests/unit/compile/test_winmode.c).  docs/windows.md, "Modes".
 * SPDX-License-Identifier: Apache-2.0
 */
#include "compile/windows.h"

uint32_t sbx__win_tier_guarantees(int32_t tier)
{
        switch (tier) {
        case SBX__WIN_TIER_RESTRICTED:
                /* Only what our own code guarantees: the environment block
                 * is built from the allow-list.  The token, the job and
                 * the ACLs are applied, but a same-session broker (COM,
                 * the Task Scheduler) can act with the user's full
                 * authority, and none of it has run on real Windows. */
                return SBX_G_ENV_SCRUB;
        case SBX__WIN_TIER_ELEVATED:
        default:
                return 0;       /* never ready in this version */
        }
}

sbx_code sbx__win_select(int32_t mode, uint32_t required,
                         const struct sbx__win_setup_state *setup, int32_t *tier_out,
                         sbx_error *err)
{
        int installed = setup != NULL && setup->installed;
        int ready = installed && setup->ready;
        int32_t tier;

        if (tier_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__win_select: tier_out is NULL");
        switch (mode) {
        case SBX_WINDOWS_RESTRICTED_TOKEN:
                tier = SBX__WIN_TIER_RESTRICTED;
                break;
        case SBX_WINDOWS_ELEVATED:
                if (!ready)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                         "windows: the elevated tier is not ready (%s); it "
                                         "never falls back to the restricted tier",
                                         installed ? "its setup is stale or unverified"
                                                   : "no setup was found");
                tier = SBX__WIN_TIER_ELEVATED;
                break;
        case SBX_WINDOWS_AUTO:
                if ((sbx__win_tier_guarantees(SBX__WIN_TIER_RESTRICTED) & required) == required)
                        tier = SBX__WIN_TIER_RESTRICTED;
                else if (ready)
                        tier = SBX__WIN_TIER_ELEVATED;
                else if (installed)
                        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                         "windows: the profile needs the elevated tier and "
                                         "its setup is stale or unverified; refusing the "
                                         "restricted tier (run sbx_windows_setup again)");
                else
                        tier = SBX__WIN_TIER_RESTRICTED;
                break;
        default:
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx__win_select: unknown windows "
                                 "mode %d", (int) mode);
        }
        *tier_out = tier;
        return SBX_OK;
}

int32_t sbx__win_enforcement(int32_t tier, uint32_t layers, uint32_t required)
{
        uint32_t claimed = sbx__win_tier_guarantees(tier);

        if (claimed == 0)
                return SBX_ENFORCEMENT_NONE;
        if ((claimed & required) != required)
                return SBX_ENFORCEMENT_PARTIAL;
        if (tier == SBX__WIN_TIER_RESTRICTED &&
            (layers & SBX__WIN_LAYERS_ALL) != SBX__WIN_LAYERS_ALL)
                return SBX_ENFORCEMENT_PARTIAL;
        return SBX_ENFORCEMENT_FULL;
}
