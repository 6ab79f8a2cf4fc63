/*
 * scratch.c - a rung-2 spawn's scratch directory (HOME and TMPDIR) in the
 * user's one scratch parent, named by its owner so that a later spawn of
 * any process sweeps what a dead host left (sweep.c, rmtree.c).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/ladder.h"
#include "paths/paths_internal.h"

/* A dead host's scratch directory, if it is ours (sweep.c). */
static void remove_scratch(const char *path)
{
        struct stat st;

        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
                (void) sbx__rm_rf(path);
}

/* In the user's one scratch parent, which every other sandbox hides (llrules.c). */
sbx_code sbx__make_scratch(char **out, sbx_error *err)
{
        char base[64], buf[SBX_PATH_MAX - 16], sub[SBX_PATH_MAX], tag[96];
        int e = sbx__run_scratch_parent(base, sizeof(base));

        if (e < 0)
                return sbx__fail(err, SBX_E_IO, -e, "sbx_spawn: cannot use the scratch parent "
                                 "%s (a directory of this user, mode 0700)", base);
        sbx__sweep_dead(base, "sbx-run-", remove_scratch);
        /* Named by its owner (pid, start time, pid namespace): a later
         * spawn of any process tells a dead owner from a reused pid. */
        if (sbx__owner_tag(tag, sizeof(tag)) < 0)
                (void) snprintf(tag, sizeof(tag), "%ld", (long) getpid());
        (void) snprintf(buf, sizeof(buf), "%s/sbx-run-%s-XXXXXX", base, tag);
        if (mkdtemp(buf) == NULL)
                return sbx__fail(err, SBX_E_IO, errno, "sbx_spawn: cannot create a scratch "
                                 "directory under \"%s\"", base);
        (void) snprintf(sub, sizeof(sub), "%s/home", buf);
        if (mkdir(sub, 0700) < 0)
                goto fail;
        (void) snprintf(sub, sizeof(sub), "%s/tmp", buf);
        if (mkdir(sub, 0700) < 0)
                goto fail;
        if ((*out = sbx__strdup(buf)) == NULL) {
                (void) sbx__rm_rf(buf);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        }
        return SBX_OK;
fail:
        e = errno;
        (void) sbx__rm_rf(buf);
        return sbx__fail(err, SBX_E_IO, e, "sbx_spawn: cannot create the scratch HOME/TMPDIR");
}
