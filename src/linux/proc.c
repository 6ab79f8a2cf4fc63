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
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "linux/ladder.h"
#include "paths/paths_internal.h"

static int linux_child_wait(sbx_child *c, int timeout_ms, int *status)
{
        struct sbx__proc p = { c->pid, c->pidfd, -1, -1, NULL, NULL };
        const struct sbx__lx_child *lx = c->os;
        const int32_t *shared = lx != NULL ? lx->shared : NULL;
        struct rusage ru;
        int r;

        /* A rung-2 or bwrap keeper that was killed (by a user, the OOM
         * killer) did not end its tree: while it is still an unreaped
         * zombie, whatever is left of its session goes (tree.c).  A rung-1
         * init takes its pid namespace along. */
        if (c->backend == SBX_BACKEND_LANDLOCK || c->backend == SBX_BACKEND_BWRAP) {
                int killed;

                r = sbx__proc_wait_exited(c->pid, c->pidfd, timeout_ms, &killed);
                if (r < 0)
                        return r;
                if (killed)
                        (void) sbx__tree_keeper_gone(c->pid);
        }
        /* The init/monitor reaped the whole tree: its usage is the tree's
         * (the largest resident set of any one of them). */
        memset(&ru, 0, sizeof(ru));
        p.ru = &ru;
        r = sbx__proc_reap(&p, timeout_ms, status);
        /* An init/monitor that exits 128 + N for a command signal N ended
         * says so on the page: the status is the signal's. */
        if (r == 0 && status != NULL && shared != NULL &&
            shared[SBX__END_MAGIC_AT] == SBX__END_MAGIC && WIFEXITED(*status) &&
            shared[SBX__END_SIG_AT] > 0 && shared[SBX__END_SIG_AT] < 128 &&
            WEXITSTATUS(*status) == 128 + shared[SBX__END_SIG_AT])
                *status = shared[SBX__END_SIG_AT];
        if (r == 0) {
                c->user_us = (uint64_t) ru.ru_utime.tv_sec * 1000000u + (uint64_t) ru.ru_utime.tv_usec;
                c->sys_us = (uint64_t) ru.ru_stime.tv_sec * 1000000u + (uint64_t) ru.ru_stime.tv_usec;
                c->peak_memory = (uint64_t) ru.ru_maxrss * 1024u;
                c->usage_known |= SBX_USAGE_CPU | SBX_USAGE_MEMORY;
        }
        return r;
}

/* The child itself is still ours (running or an unreaped zombie), so its
 * pid and process group cannot have been reused. */
static int still_ours(const sbx_child *c)
{
        if (c->pidfd >= 0)
                return syscall(SYS_pidfd_send_signal, c->pidfd, 0, NULL, 0U) == 0;
        return kill(c->pid, 0) == 0;
}

static int group_stop_signal(int sig)
{
        return sig == SIGSTOP || sig == SIGCONT || sig == SIGTSTP || sig == SIGTTIN ||
               sig == SIGTTOU;
}

static int linux_child_kill(sbx_child *c, int sig)
{
        if (c->pid <= 0 || !still_ours(c))
                return -ESRCH;
        switch (c->backend) {
        case SBX_BACKEND_NATIVE:
                /* pid 1 of the sandbox's pid namespace: SIGKILL ends the
                 * namespace and everything in it; a stop request stops all
                 * of it (SIGCONT resumes it); every other catchable signal
                 * is forwarded to the command by the init. */
                if (sig == SIGSTOP)
                        sig = SBX__SIG_STOPTREE;
                return kill(c->pid, sig) < 0 ? -errno : 0;
        case SBX_BACKEND_LANDLOCK:
                if (sig == SIGKILL) {
                        /* The subreaper monitor kills the command and every
                         * descendant it adopted, then exits; its process
                         * group goes too (the monitor, even dead, is not
                         * reaped yet, so the group is still ours). */
                        struct pollfd pfd = { c->pidfd, POLLIN, 0 };

                        if (kill(c->pid, SBX__SIG_KILLTREE) == 0 && c->pidfd >= 0)
                                (void) poll(&pfd, 1, 1000);
                        (void) kill(-c->pid, SIGKILL);
                        (void) kill(c->pid, SIGKILL);
                        return 0;
                }
                if (group_stop_signal(sig))
                        return kill(-c->pid, sig) < 0 ? -errno : 0;
                return kill(c->pid, sig) < 0 ? -errno : 0;      /* the monitor forwards */
        default:
                break;
        }
        /* bwrap and direct children run in their own session and group. */
        if (c->pidfd >= 0 && syscall(SYS_pidfd_send_signal, c->pidfd, sig, NULL, 0U) < 0)
                return -errno;
        (void) kill(-c->pid, sig);
        if (c->pidfd < 0 && kill(c->pid, sig) < 0)
                return -errno;
        return 0;
}

/* A rung-1/rung-2 child's host state: the tree's usage from its cgroups,
 * then the cgroups, the scratch directory and the progress page go. */
static void lx_release(sbx_child *c, struct sbx__lx_child *lx)
{
        size_t i;

        if (lx->scratch != NULL) {
                (void) sbx__rm_rf(lx->scratch);
                free(lx->scratch);
                lx->scratch = NULL;
        }
        if (lx->cgroup[0] != NULL || lx->cgroup[1] != NULL) {
                struct sbx__cg_usage u;

                sbx__cgroup_usage(lx->cgroup[0], lx->cgroup[1], &u);
                if (u.have_memory && lx->cgroup[1] != NULL) {
                        c->peak_memory = u.peak_memory;         /* the tree's, not one's */
                        c->usage_known |= SBX_USAGE_MEMORY;
                }
                if (u.have_processes) {
                        c->max_processes = u.max_processes;
                        c->usage_known |= SBX_USAGE_PROCESSES;
                }
                if (u.memory_hit)
                        c->limits_hit |= SBX_LIMIT_HIT_MEMORY;
                if (u.pids_hit && c->pids_max > 0)
                        c->limits_hit |= SBX_LIMIT_HIT_PIDS;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(lx->cgroup); i++) {
                if (lx->cgroup[i] != NULL) {
                        sbx__cgroup_destroy(lx->cgroup[i]);
                        free(lx->cgroup[i]);
                        lx->cgroup[i] = NULL;
                }
        }
        if (lx->shared != NULL)
                (void) munmap(lx->shared, 4096);
        lx->shared = NULL;
}

static void linux_child_release(sbx_child *c)
{
        if (c->os != NULL) {
                lx_release(c, c->os);
                free(c->os);
                c->os = NULL;
        }
        if (c->pidfd >= 0)
                (void) close(c->pidfd);
        c->pidfd = -1;
}

const struct sbx__child_ops sbx__linux_child_ops = {
        .wait = linux_child_wait, .kill = linux_child_kill, .release = linux_child_release,
};

/* The fds a child sent on sock (SCM_RIGHTS, received CLOEXEC): up to 5
 * into fds (the rest -1) and its tag byte.  0 or -errno.  Never blocks. */
int sbx__recv_fds(int sock, int fds[5], char *tag)
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(5 * sizeof(int))];
        } cm;
        struct msghdr mh;
        struct cmsghdr *c;
        struct iovec iov;
        size_t n, i;
        ssize_t got;

        for (i = 0; i < 5; i++)
                fds[i] = -1;
        memset(&mh, 0, sizeof(mh));
        iov.iov_base = tag;
        iov.iov_len = 1;
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cm.b;
        mh.msg_controllen = sizeof(cm.b);
        do
                got = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        while (got < 0 && errno == EINTR);
        if (got != 1)
                return got < 0 ? -errno : -EPIPE;
        c = CMSG_FIRSTHDR(&mh);
        if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
            c->cmsg_len < CMSG_LEN(sizeof(int)) || (mh.msg_flags & MSG_CTRUNC))
                return -EPROTO;
        n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (i = 0; i < n && i < 5; i++)
                memcpy(&fds[i], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        if (!((*tag == 'U' && n == 5) || (*tag == 'T' && n == 3) || (*tag == 'P' && n == 1))) {
                for (i = 0; i < 5; i++) {
                        if (fds[i] >= 0)
                                (void) close(fds[i]);
                        fds[i] = -1;
                }
                return -EPROTO;
        }
        return 0;
}
