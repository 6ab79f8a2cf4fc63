/*
 * sweep.c - what a spawning process that died without cleaning up (kill -9
 * of the host) left behind: per-spawn cgroups "sbx-<pid>-<n>" and rung-2
 * scratch directories "sbx-run-<pid>-XXXXXX" whose pid no longer exists.
 * Their sandboxes are gone too (the init/monitor watched the host), so
 * nothing uses them.  Each (base, prefix) is swept once per process; a pid
 * that was reused keeps its entry until a later process sweeps.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/linux_internal.h"

#define SWEPT_MAX 8

void sbx__sweep_dead(const char *base, const char *prefix, void (*remove)(const char *path))
{
        static char swept[SWEPT_MAX][SBX_PATH_MAX];
        static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        char key[SBX_PATH_MAX], path[SBX_PATH_MAX];
        size_t i, plen = strlen(prefix);
        struct dirent *e;
        DIR *d;

        if ((size_t) snprintf(key, sizeof(key), "%s/%s", base, prefix) >= sizeof(key))
                return;
        pthread_mutex_lock(&lock);
        for (i = 0; i < SWEPT_MAX && swept[i][0] != '\0'; i++)
                if (strcmp(swept[i], key) == 0) {
                        pthread_mutex_unlock(&lock);
                        return;
                }
        if (i < SWEPT_MAX)
                memcpy(swept[i], key, strlen(key) + 1);
        pthread_mutex_unlock(&lock);
        d = opendir(base);
        if (d == NULL)
                return;
        while ((e = readdir(d)) != NULL) {
                char *end;
                long pid;

                if (strncmp(e->d_name, prefix, plen) != 0)
                        continue;
                pid = strtol(e->d_name + plen, &end, 10);
                if (end == e->d_name + plen || *end != '-' || pid <= 0 || pid == (long) getpid())
                        continue;
                if (kill((pid_t) pid, 0) == 0 || errno != ESRCH)
                        continue;       /* alive, or someone else's */
                if ((size_t) snprintf(path, sizeof(path), "%s/%s", base, e->d_name) < sizeof(path))
                        remove(path);
        }
        closedir(d);
}
