/*
 * broker.c - the elevated tier's lifecycle on Windows (seed 003: an
 * installation-owned LocalSystem broker and restricted local accounts).
 * NOT READY in this version: nothing here has been run on a real Windows
 * machine, so Setup installs nothing and fails, Inspect reports not ready
 * (and whether anything sits at the state root), Remove has nothing of
 * ours to remove and leaves whatever is there alone.  docs/windows.md,
 * "The elevated tier".
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "win_internal.h"

static const char not_ready[] =
        "the elevated tier is not ready: it has not been run and reviewed on a real Windows "
        "machine (docs/windows.md)";

sbx_code sbx__win_broker_setup(const sbx_windows_setup_config *cfg, sbx_error *err)
{
        (void) cfg;
        return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "sbx_windows_setup: %s; nothing "
                         "was installed", not_ready);
}

sbx_code sbx__win_broker_inspect(const sbx_windows_setup_config *cfg,
                                 struct sbx__win_setup_state *state, char *reason,
                                 size_t reason_size, sbx_error *err)
{
        char canon[SBX__WINPATH_BUF];
        wchar_t *w;
        sbx_code r;

        r = sbx__winpath_check(cfg->state_root, canon, sizeof(canon), err);
        if (r != SBX_OK)
                return r;
        w = sbx__win_wide(canon);
        if (w == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_windows_inspect: no memory");
        /* Something at the state root is not a setup this version made
         * (it makes none): installed, never ready. */
        state->installed = GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;
        state->ready = 0;
        free(w);
        (void) snprintf(reason, reason_size, "%s%s", not_ready,
                        state->installed ? "; the state root holds state this version did "
                                           "not create" : "");
        return SBX_OK;
}

sbx_code sbx__win_broker_remove(const sbx_windows_setup_config *cfg, sbx_error *err)
{
        (void) cfg;
        (void) err;
        return SBX_OK;          /* this version never installed anything */
}
