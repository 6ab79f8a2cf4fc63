/*
 * launch.c - the one Linux launcher: every confined (and the unconfined
 * direct) child is started here, by a raw clone3/clone syscall with a
 * pidfd and exit signal 0, never by glibc fork().  The parent waits for
 * the child's execve on an O_CLOEXEC pipe, bounded by a timeout, and a
 * shared page tells which step a child that ran out of time was in.
 *
 * Why not fork(): glibc's fork runs the host's atfork handlers and takes
 * its allocator locks, and in a child of a raw clone (rung 1's init) the
 * snapshot of a lock another thread held never unlocks.  Why exit signal
 * 0: the kernel auto-reaps only children that signal SIGCHLD to a parent
 * ignoring it, and waitpid(-1) without __WALL does not see them, so a
 * host's SIGCHLD policy or reaper cannot take our child away.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/ladder.h"

#ifndef CLONE_PIDFD
#  define CLONE_PIDFD 0x00001000
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#  define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __WALL
#  define __WALL 0x40000000
#endif

/* struct clone_args of clone3(2), version 0 (64 bytes). */
struct sbx__clone_args {
        uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* ------------------------------------------------------------- steps */

static const char *const step_names[] = {
        [STEP_NONE] = "unknown step",
        [STEP_SETGROUPS] = "writing /proc/self/setgroups",
        [STEP_UID_MAP] = "writing the user namespace uid_map",
        [STEP_GID_MAP] = "writing the user namespace gid_map",
        [STEP_MAKE_PRIVATE] = "making the mount tree private",
        [STEP_BASE_TMPFS] = "mounting the staging tmpfs",
        [STEP_BASE_DIRS] = "creating the staging directories",
        [STEP_PIVOT_BASE] = "pivoting into the staging root",
        [STEP_MOUNT_OP] = "building the sandbox mount tree",
        [STEP_PIVOT_ROOT] = "pivoting into the sandbox root",
        [STEP_CHDIR] = "changing to the working directory",
        [STEP_LOOPBACK] = "bringing up loopback in the network namespace",
        [STEP_SETSID] = "starting a new session (setsid)",
        [STEP_PDEATHSIG] = "setting PR_SET_PDEATHSIG",
        [STEP_SYNC] = "waiting for the parent",
        [STEP_FDS] = "arranging file descriptors",
        [STEP_RLIMIT] = "setting resource limits",
        [STEP_CAPS] = "dropping capabilities",
        [STEP_LANDLOCK_ADD] = "adding Landlock rules for the scratch mounts",
        [STEP_LANDLOCK] = "applying Landlock (landlock_restrict_self)",
        [STEP_SECCOMP] = "loading the seccomp filter",
        [STEP_EXEC] = "executing the command",
        [STEP_FORK] = "starting the sandbox process",
        [STEP_SIGNALS] = "resetting signal dispositions",
};

const char *sbx__step_name(int step)
{
        return step > 0 && step < (int) SBX__ARRAY_SIZE(step_names) && step_names[step] != NULL
                       ? step_names[step] : NULL;
}

static atomic_int fault_step, hang_step;
static atomic_int setup_timeout_ms = 30000;

void sbx__fault_inject(int step)
{
        atomic_store(&fault_step, step);
}

void sbx__fault_hang(int step)
{
        atomic_store(&hang_step, step);
}

int sbx__sigchld_ignored(void)
{
        struct sigaction sa;

        if (sigaction(SIGCHLD, NULL, &sa) < 0)
                return 0;
        return sa.sa_handler == SIG_IGN || (sa.sa_flags & SA_NOCLDWAIT) != 0;
}

int sbx__fault_active(void)
{
        return atomic_load(&fault_step) != 0 || atomic_load(&hang_step) != 0;
}

int sbx__launch_timeout(void)
{
        return atomic_load(&setup_timeout_ms);
}

void sbx__launch_set_timeout(int ms)
{
        atomic_store(&setup_timeout_ms, ms > 0 ? ms : 30000);
}

/* ------------------------------------------------- child side (AS-safe) */

int sbx__child_at(struct sbx__chan *ch, int step)
{
        if (ch->progress != NULL)
                *ch->progress = step;
        if (ch->hang_step == step)
                for (;;)
                        (void) pause();
        if (ch->fail_step == step) {
                errno = EPERM;
                return 1;
        }
        return 0;
}

void sbx__child_fail(const struct sbx__chan *ch, int step, int e, int index)
{
        struct sbx__child_report rep = { step, e < 0 ? -e : e, index };

        (void) !write(ch->err_w, &rep, sizeof(rep));
        _exit(127);
}

void sbx__child_reset_signals(void)
{
        struct sigaction dfl;
        sigset_t none;
        int sig;

        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        for (sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void) sigaction(sig, &dfl, NULL);
        sigemptyset(&none);
        (void) sigprocmask(SIG_SETMASK, &none, NULL);
}

void sbx__child_catch_signals(void (*handler)(int))
{
        struct sigaction sa;
        sigset_t all;
        int sig;

        sigfillset(&all);
        (void) sigprocmask(SIG_SETMASK, &all, NULL);
        memset(&sa, 0, sizeof(sa));
        sigfillset(&sa.sa_mask);
        sa.sa_handler = handler;
        for (sig = 1; sig < NSIG; sig++) {
                switch (sig) {
                case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGFPE:
                case SIGILL: case SIGTRAP: case SIGSYS: case SIGABRT:
                        continue;       /* uncatchable, or a fault of our own */
                default:
                        (void) sigaction(sig, &sa, NULL);
                }
        }
}

void sbx__child_close_others(const struct sbx__chan *ch, const int *keep, size_t n)
{
        int v[80];
        size_t m = 0, i, j;
        unsigned lo = 3;

        /* The fds this child needs, sorted (insertion sort: no library). */
        if (ch->err_w >= 3 && m < SBX__ARRAY_SIZE(v))
                v[m++] = ch->err_w;
        if (ch->sync_r >= 3 && m < SBX__ARRAY_SIZE(v))
                v[m++] = ch->sync_r;
        for (i = 0; i < n && m < SBX__ARRAY_SIZE(v); i++)
                if (keep[i] >= 3)
                        v[m++] = keep[i];
        for (i = 1; i < m; i++)
                for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
                        int t = v[j];

                        v[j] = v[j - 1];
                        v[j - 1] = t;
                }
        for (i = 0; i < m; i++) {
                if ((unsigned) v[i] > lo)
                        (void) syscall(SYS_close_range, lo, (unsigned) v[i] - 1, 0U);
                if ((unsigned) v[i] + 1 > lo)
                        lo = (unsigned) v[i] + 1;
        }
        (void) syscall(SYS_close_range, lo, ~0U, 0U);
}

int sbx__child_wait_go(struct sbx__chan *ch)
{
        ssize_t n;
        char c;

        if (ch->sync_r < 0)
                return 0;
        do
                n = read(ch->sync_r, &c, 1);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                return n < 0 ? -errno : -EPIPE;
        (void) close(ch->sync_r);
        ch->sync_r = -1;
        return 0;
}

static pid_t raw_clone(uint64_t flags, int exit_signal, int *pidfd)
{
        struct sbx__clone_args a;
        long pid;

        memset(&a, 0, sizeof(a));
        a.flags = flags | (pidfd != NULL ? CLONE_PIDFD : 0);
        a.pidfd = (uint64_t) (uintptr_t) pidfd;
        a.exit_signal = (uint64_t) exit_signal;
#ifdef SYS_clone3
        pid = syscall(SYS_clone3, &a, sizeof(a));
        if (pid >= 0 || (errno != ENOSYS && errno != EPERM))
                return (pid_t) pid;
#endif
        /* clone(2): the parent-tid pointer receives the pidfd; its place
         * is the third argument on every ABI but s390's. */
#if defined(__s390__) || defined(__s390x__)
        pid = syscall(SYS_clone, 0, (unsigned long) (a.flags | (unsigned) exit_signal), pidfd, 0, 0);
#else
        pid = syscall(SYS_clone, (unsigned long) (a.flags | (unsigned) exit_signal), 0, pidfd, 0, 0);
#endif
        return (pid_t) pid;
}

pid_t sbx__clone_fork(void)
{
        return raw_clone(0, SIGCHLD, NULL);
}

int sbx__child_arrange_fds(struct sbx__chan *ch, int *extra_fd, const int stdio[3],
                           const int *keep, size_t n_keep)
{
        int floor = 3 + (int) n_keep + 8, moved_keep[64], moved_io[3] = { -1, -1, -1 };
        size_t i;

        if (n_keep > SBX__ARRAY_SIZE(moved_keep))
                return -E2BIG;
        /* Everything still needed goes above the target range first, so
         * no dup2 below clobbers a source. */
        if (ch->err_w < floor) {
                int fd = fcntl(ch->err_w, F_DUPFD_CLOEXEC, floor);

                if (fd < 0)
                        return -errno;
                ch->err_w = fd;
        }
        if (extra_fd != NULL && *extra_fd >= 0 && *extra_fd < floor) {
                int fd = fcntl(*extra_fd, F_DUPFD_CLOEXEC, floor);

                if (fd < 0)
                        return -errno;
                *extra_fd = fd;
        }
        for (i = 0; i < 3; i++)
                if (stdio != NULL && stdio[i] >= 0 &&
                    (moved_io[i] = fcntl(stdio[i], F_DUPFD_CLOEXEC, floor)) < 0)
                        return -errno;
        for (i = 0; i < n_keep; i++) {
                moved_keep[i] = fcntl(keep[i], F_DUPFD_CLOEXEC, floor);
                if (moved_keep[i] < 0)
                        return -errno;
        }
        for (i = 0; i < 3; i++)
                if (moved_io[i] >= 0 && dup2(moved_io[i], (int) i) < 0)  /* clears CLOEXEC */
                        return -errno;
        for (i = 0; i < n_keep; i++)
                if (dup2(moved_keep[i], 3 + (int) i) < 0)
                        return -errno;
        /* Everything from 3+n_keep up is closed at exec (the error pipe
         * and the ruleset fd are needed until then). */
        if (syscall(SYS_close_range, 3 + (unsigned) n_keep, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                return -errno;
        return 0;
}

/* ------------------------------------------------------------- parent */

int sbx__launch(uint64_t ns_flags, int hold, sbx__child_fn fn, void *arg, struct sbx__proc *out)
{
        int errp[2] = { -1, -1 }, syncp[2] = { -1, -1 }, pidfd = -1, e;
        sigset_t all, old;
        struct sbx__chan ch;
        int32_t *shared;
        pid_t pid;

        out->pid = -1;
        out->pidfd = out->err_r = out->sync_w = -1;
        out->shared = NULL;
        out->ru = NULL;
        shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (shared == MAP_FAILED)
                return -errno;
        /* The go byte travels on a socket pair: the parent sends it with
         * MSG_NOSIGNAL, so a child that died first is an error, never a
         * SIGPIPE that kills the host. */
        if (pipe2(errp, O_CLOEXEC) < 0 ||
            (hold && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, syncp) < 0)) {
                e = -errno;
                goto fail;
        }
        ch.err_w = errp[1];
        ch.sync_r = syncp[0];
        ch.progress = shared;
        ch.fail_step = atomic_load(&fault_step);
        ch.hang_step = atomic_load(&hang_step);
        *shared = STEP_FORK;

        /* No host signal handler may run in the child before it resets
         * them; the child unblocks once it has. */
        sigfillset(&all);
        (void) pthread_sigmask(SIG_SETMASK, &all, &old);
        pid = raw_clone(ns_flags, 0, &pidfd);
        if (pid < 0 && errno == EINVAL && pidfd == -1) {
                /* A kernel without CLONE_PIDFD (< 5.2): plain waits. */
                pidfd = -1;
                pid = raw_clone(ns_flags, 0, NULL);
        }
        if (pid == 0) {
                (void) close(errp[0]);
                if (syncp[1] >= 0)
                        (void) close(syncp[1]);
                fn(arg, &ch);
                _exit(127);     /* not reached: fn execs or fails */
        }
        e = errno;
        (void) pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
                e = -e;
                goto fail;
        }
        (void) close(errp[1]);
        if (syncp[0] >= 0)
                (void) close(syncp[0]);
        out->pid = pid;
        out->pidfd = pidfd;
        out->err_r = errp[0];
        out->sync_w = syncp[1];
        out->shared = shared;
        return 0;
fail:
        if (errp[0] >= 0) {
                (void) close(errp[0]);
                (void) close(errp[1]);
        }
        if (syncp[0] >= 0) {
                (void) close(syncp[0]);
                (void) close(syncp[1]);
        }
        (void) munmap(shared, 4096);
        return e;
}

int sbx__launch_release(struct sbx__proc *p)
{
        char go = 1;
        ssize_t n;
        int e = 0;

        if (p->sync_w < 0)
                return 0;
        do
                n = send(p->sync_w, &go, 1, MSG_NOSIGNAL);
        while (n < 0 && errno == EINTR);
        if (n != 1)
                e = n < 0 ? -errno : -EPIPE;
        (void) close(p->sync_w);
        p->sync_w = -1;
        return e;
}

static int64_t now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int sbx__launch_wait_exec(struct sbx__proc *p, struct sbx__child_report *rep)
{
        const int64_t deadline = now_ms() + sbx__launch_timeout();
        struct pollfd pfd = { p->err_r, POLLIN, 0 };
        ssize_t n;
        int r;

        for (;;) {
                int64_t left = deadline - now_ms();

                if (left <= 0) {
                        rep->step = p->shared != NULL ? *(volatile int32_t *) p->shared : STEP_NONE;
                        rep->err = ETIMEDOUT;
                        rep->index = -1;
                        return -ETIMEDOUT;
                }
                r = poll(&pfd, 1, left > 1000000 ? 1000000 : (int) left);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        continue;
                do
                        n = read(p->err_r, rep, sizeof(*rep));
                while (n < 0 && errno == EINTR);
                if (n == 0) {
                        /* EOF: the exec closed the pipe -- or the child died
                         * (killed) in its setup, before reaching execve. */
                        int32_t at = p->shared != NULL ? *(volatile int32_t *) p->shared
                                                       : STEP_EXEC;

                        if (at == STEP_EXEC)
                                return 0;
                        rep->step = at;
                        rep->err = ECHILD;
                        rep->index = -1;
                        return 1;
                }
                if (n != (ssize_t) sizeof(*rep)) {
                        rep->step = STEP_NONE;
                        rep->err = EIO;
                        rep->index = -1;
                }
                return 1;
        }
}

int sbx__proc_reap(struct sbx__proc *p, int timeout_ms, int *status)
{
        const int64_t deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
        struct pollfd pfd = { p->pidfd, POLLIN, 0 };
        pid_t w;
        int st, r;

        if (p->pid <= 0)
                return -ECHILD;
        for (;;) {
                do
                        w = p->ru != NULL ? wait4(p->pid, &st, __WALL | WNOHANG, p->ru)
                                          : waitpid(p->pid, &st, __WALL | WNOHANG);
                while (w < 0 && errno == EINTR);
                if (w == p->pid) {
                        if (status != NULL)
                                *status = st;
                        p->pid = -1;
                        return 0;
                }
                if (w < 0)
                        return -errno;
                if (timeout_ms == 0)
                        return -ETIMEDOUT;
                if (timeout_ms > 0 && now_ms() >= deadline)
                        return -ETIMEDOUT;
                if (p->pidfd >= 0) {
                        int64_t left = timeout_ms > 0 ? deadline - now_ms() : 1000000;

                        r = poll(&pfd, 1, left <= 0 ? 0 : left > 1000000 ? 1000000 : (int) left);
                        if (r < 0 && errno != EINTR)
                                return -errno;
                } else {
                        /* No pidfd (kernel < 5.2): short naps, still bounded. */
                        struct timespec ts = { 0, 2 * 1000 * 1000 };

                        (void) nanosleep(&ts, NULL);
                }
        }
}

void sbx__proc_close_channel(struct sbx__proc *p)
{
        if (p->err_r >= 0)
                (void) close(p->err_r);
        if (p->sync_w >= 0)
                (void) close(p->sync_w);
        if (p->shared != NULL)
                (void) munmap(p->shared, 4096);
        p->err_r = p->sync_w = -1;
        p->shared = NULL;
}

void sbx__proc_abort(struct sbx__proc *p)
{
        if (p->pid > 0) {
                (void) kill(p->pid, SIGKILL);
                /* A SIGKILLed child dies at once unless the kernel holds it
                 * (uninterruptible I/O); then it is left, not waited for. */
                (void) sbx__proc_reap(p, 5000, NULL);
        }
        sbx__proc_close_channel(p);
        if (p->pidfd >= 0)
                (void) close(p->pidfd);
        p->pidfd = -1;
}
