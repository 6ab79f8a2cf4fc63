/*
 * proc.c - the child-handle operations every Linux backend shares: wait
 * (on the pidfd, bounded when asked), signal the whole tree, release what
 * the spawn left on the host (scratch directory, cgroups, the pidfd).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "backend/backend.h"
#include "linux/linux_internal.h"
#include "paths/paths_internal.h"

int sbx__linux_child_wait(sbx_child *c, int timeout_ms, int *status)
{
        struct sbx__proc p = { c->pid, c->pidfd, -1, -1, NULL };

        return sbx__proc_reap(&p, timeout_ms, status);
}

int sbx__linux_child_kill(sbx_child *c, int sig)
{
        if (c->pid <= 0)
                return -ESRCH;
        switch (c->backend) {
        case SBX_BACKEND_NATIVE:
                /* pid 1 of the sandbox's pid namespace: SIGKILL ends the
                 * namespace and everything in it; the catchable signals are
                 * forwarded to the command by the init. */
                return kill(c->pid, sig) < 0 ? -errno : 0;
        case SBX_BACKEND_LANDLOCK:
                if (sig == SIGKILL && c->monitor && kill(c->pid, SIGALRM) == 0) {
                        /* The subreaper monitor kills the command and every
                         * descendant it adopted, then exits; if it does not
                         * within a second (stopped by the command), its
                         * process group goes. */
                        struct pollfd pfd = { c->pidfd, POLLIN, 0 };

                        if (c->pidfd >= 0 && poll(&pfd, 1, 1000) == 1)
                                return 0;
                }
                break;
        default:
                break;
        }
        /* The command runs in its own session and process group. */
        if (kill(-c->pid, sig) < 0 && kill(c->pid, sig) < 0)
                return -errno;
        return 0;
}

void sbx__linux_child_release(sbx_child *c)
{
        size_t i;

        if (c->scratch != NULL) {
                (void) sbx__rm_rf(c->scratch);
                free(c->scratch);
                c->scratch = NULL;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(c->cgroup); i++) {
                if (c->cgroup[i] != NULL) {
                        sbx__cgroup_destroy(c->cgroup[i]);
                        free(c->cgroup[i]);
                        c->cgroup[i] = NULL;
                }
        }
        if (c->pidfd >= 0)
                (void) close(c->pidfd);
        c->pidfd = -1;
}
