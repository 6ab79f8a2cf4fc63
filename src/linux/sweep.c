/*
 * sweep.c - what a spawning process that died without cleaning up (kill -9
 * of the host) left behind: per-spawn cgroups "sbx-<pid>-<n>" and rung-2
 * scratch directories "sbx-run-<pid>-XXXXXX" whose owner no longer exists.
 * A name that carries the owner's start time and pid namespace
 * ("sbx-<pid>-<start>-<pidns>-<n>", sbx__owner_tag) is told apart from a
 * later process that reuses the pid; one with the pid only is swept once
 * no process has that pid.  Their sandboxes are gone too (the
 * init/monitor watched the host), so nothing uses them.  Each (base,
 * prefix) is swept at most once a second per process (sbx__sweep_due).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "linux/linux_internal.h"
#include "paths/paths_internal.h"

void sbx__sweep_dead(const char *base, const char *prefix, void (*remove)(const char *path))
{
        char key[SBX_PATH_MAX], path[SBX_PATH_MAX];
        size_t plen = strlen(prefix);
        struct dirent *e;
        DIR *d;

        if ((size_t) snprintf(key, sizeof(key), "%s/%s", base, prefix) >= sizeof(key) ||
            !sbx__sweep_due(key))
                return;
        d = opendir(base);
        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL) {
                if (strncmp(e->d_name, prefix, plen) != 0 || !sbx__owner_gone(e->d_name + plen))
                        continue;       /* alive, unknown, or another kind */
                if ((size_t) snprintf(path, sizeof(path), "%s/%s", base, e->d_name) < sizeof(path))
                        remove(path);
        }
        closedir(d);
}
