/*
 * keeper.c - the keeper of a spawn whose command execs at once (bwrap):
 * the launched child stays behind as a small subreaper between the host
 * and the program, so that nothing the program started outlives the host
 * or the program.
 *
 * Why: bwrap's outer process dies with the host (a death signal), and its
 * inner process, pid 1 of the sandbox's namespace, sets its own death
 * signal only after it was cloned.  A host killed in between left the
 * inner process and the command running under PID 1.  With a keeper, an
 * orphaned inner process is adopted by the keeper (a subreaper), which
 * kills everything below it when the outer process ends, and ends it all
 * when the host goes (it watches the host through a pidfd, so a host
 * thread that exits takes nothing down).  A keeper killed itself leaves
 * its session to the host (tree.c).
 *
 * Everything here runs between clone and execve: async-signal-safe only.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/ladder.h"

#ifndef __WALL
#  define __WALL 0x40000000
#endif
#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif

static volatile pid_t keeper_child;

static void keeper_signal(int sig)
{
        if (sig != SIGCHLD && keeper_child > 0)     /* SIGCHLD only interrupts ppoll */
                (void) kill(keeper_child, sig);
}

/* Every fd but a and b, stdio included (the program's pipes must see EOF
 * when the program is done, not when its keeper is). */
static void close_but(int a, int b)
{
        int keep[2] = { a < b ? a : b, a < b ? b : a };
        unsigned lo = 0;
        int i;

        for (i = 0; i < 2; i++) {
                if (keep[i] < 0)
                        continue;
                if ((unsigned) keep[i] > lo)
                        (void) syscall(SYS_close_range, lo, (unsigned) keep[i] - 1, 0U);
                lo = (unsigned) keep[i] + 1;
        }
        (void) syscall(SYS_close_range, lo, ~0U, 0U);
}

/* End as the program ended: the same exit code, or the same signal (the
 * keeper is not dumpable: a core signal leaves no core). */
static void exit_as(int st) SBX__NORETURN;
static void exit_as(int st)
{
        if (WIFSIGNALED(st)) {
                struct sigaction sa;
                sigset_t one;
                int sig = WTERMSIG(st);

                memset(&sa, 0, sizeof(sa));
                sa.sa_handler = SIG_DFL;
                (void) sigaction(sig, &sa, NULL);
                sigemptyset(&one);
                sigaddset(&one, sig);
                (void) sigprocmask(SIG_UNBLOCK, &one, NULL);
                (void) kill(getpid(), sig);
                _exit(128 + sig);
        }
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : SBX_EXIT_RUNNER_FAILURE);
}

void sbx__keeper_run(struct sbx__chan *ch, pid_t parent, void (*exec_fn)(void *, struct sbx__chan *),
                     void *arg)
{
        sigset_t none;
        int pidfd, children, st = 0, sig, host_gone = 0;
        pid_t self = getpid(), pid, w;

        pidfd = (int) syscall(SYS_pidfd_open, parent, 0U);
        if (pidfd < 0 && errno == ENOSYS) {
                /* No pidfds (kernel < 5.3): the program dies with the
                 * spawning thread, as before there was a keeper. */
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        sbx__child_fail(ch, STEP_PDEATHSIG, errno, 0);
                if (getppid() != parent)
                        sbx__child_fail(ch, STEP_PDEATHSIG, ESRCH, 0);
                exec_fn(arg, ch);
        }
        /* The pidfd names the process that was the parent; if it already
         * went, getppid() says so. */
        if (pidfd < 0 || getppid() != parent)
                sbx__child_fail(ch, STEP_PDEATHSIG, pidfd < 0 ? errno : ESRCH, 0);
        if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                sbx__child_fail(ch, STEP_FORK, errno, 0);
        children = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
        if (children < 0)
                sbx__child_fail(ch, STEP_FORK, errno, 0);
        /* Signals are taken only inside ppoll; the catchable ones go on to
         * the program. */
        sbx__child_catch_signals(keeper_signal);
        pid = sbx__clone_fork();
        if (pid < 0)
                sbx__child_fail(ch, STEP_FORK, errno, 0);
        if (pid == 0) {
                (void) close(pidfd);
                (void) close(children);
                sbx__child_reset_signals();
                if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
                        sbx__child_fail(ch, STEP_PDEATHSIG, errno, 0);
                if (getppid() != self)
                        sbx__child_fail(ch, STEP_PDEATHSIG, ESRCH, 0);
                exec_fn(arg, ch);
        }
        keeper_child = pid;
        /* The channel is the program's now: its exec closes the last
         * write end (the host's EOF), its failure reports there. */
        close_but(pidfd, children);
        sigemptyset(&none);
        for (;;) {
                struct pollfd pfd = { host_gone ? -1 : pidfd, POLLIN, 0 };

                while ((w = waitpid(-1, &sig, WNOHANG | __WALL)) > 0)
                        if (w == pid) {
                                st = sig;
                                keeper_child = 0;
                        }
                if (keeper_child == 0 || (w < 0 && errno == ECHILD))
                        break;
                if (syscall(SYS_ppoll, &pfd, (nfds_t) 1, NULL, &none, (size_t) (NSIG / 8)) > 0 &&
                    pfd.revents != 0) {
                        /* The host is gone: so is the sandbox. */
                        host_gone = 1;
                        (void) kill(pid, SIGKILL);
                }
        }
        (void) sbx__kill_orphans(children);
        if (host_gone)
                _exit(SBX_EXIT_RUNNER_FAILURE);
        exit_as(st);
}
