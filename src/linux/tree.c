/*
 * tree.c - what is left of a run whose keeper died: every process of the
 * keeper's session, found from the host and killed.
 *
 * A rung-2 run (and a bwrap run) has no pid namespace whose end takes its
 * processes along.  Its keeper -- the subreaper monitor, the warm zygote,
 * the outer bwrap -- made a session of its own (setsid) before anything of
 * the command ran, and the command's seccomp program refuses setsid on
 * rung 2 (bwrap's commands live in a pid namespace whose init is in the
 * session): every process of the run stays in that session for its whole
 * life, whatever it forks, whichever process group it moves to, whoever
 * adopts it once the keeper is gone.  No process outside the run can
 * enter the session (setsid makes a new one; setpgid only joins a group of
 * the caller's own session).
 *
 * So when a keeper is SIGKILLed (by a user, the OOM killer, a crash), the
 * host finds the run by the session id = the keeper's pid and kills each
 * member through a pidfd.  The keeper must still be an unreaped zombie
 * while this runs: a live struct pid (the zombie's, or a member's session
 * reference) is never reused, so the session id names this run alone.
 * Zombies are done (they hold nothing but their exit status; whoever
 * adopted them reaps them).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux_internal.h"

#ifndef __WALL
#  define __WALL 0x40000000
#endif
#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#  define SYS_pidfd_send_signal 424
#endif

/* The session id and state letter of /proc/<pid>/stat ("pid (comm) S ppid
 * pgrp session ..."; comm may hold spaces and parentheses: parse after the
 * last ')').  0 or -errno. */
int sbx__proc_session(pid_t pid, pid_t *sid, char *state)
{
        char path[64], buf[1024], *p, *end;
        long v[3];
        ssize_t n;
        int fd, i;

        (void) snprintf(path, sizeof(path), "/proc/%ld/stat", (long) pid);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, sizeof(buf) - 1);
        i = errno;
        (void) close(fd);
        if (n <= 0)
                return n < 0 ? -i : -EIO;
        buf[n] = '\0';
        p = strrchr(buf, ')');
        if (p == NULL || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
                return -EIO;
        *state = p[2];
        p += 4;
        for (i = 0; i < 3; i++) {               /* ppid, pgrp, session */
                errno = 0;
                v[i] = strtol(p, &end, 10);
                if (end == p || errno != 0 || (*end != ' ' && *end != '\0'))
                        return -EIO;
                p = end;
        }
        *sid = (pid_t) v[2];
        return 0;
}

/* One pass over /proc: SIGKILL every live member of session sid.  The
 * number of live members seen, or -errno if /proc cannot be read. */
static int kill_pass(pid_t sid)
{
        struct dirent *e;
        DIR *d = opendir("/proc");
        int live = 0;

        if (d == NULL)
                return -errno;
        while ((e = readdir(d)) != NULL) {
                char *end, st;
                pid_t s;
                long pid = strtol(e->d_name, &end, 10);
                int fd;

                if (end == e->d_name || *end != '\0' || pid <= 0 || pid == (long) getpid())
                        continue;
                if (sbx__proc_session((pid_t) pid, &s, &st) < 0 || s != sid || st == 'Z' ||
                    st == 'X')
                        continue;
                /* Hold the process, then look again: the pid cannot name
                 * another process while the pidfd holds it. */
                fd = (int) syscall(SYS_pidfd_open, (pid_t) pid, 0U);
                if (fd >= 0) {
                        if (sbx__proc_session((pid_t) pid, &s, &st) == 0 && s == sid &&
                            st != 'Z' && st != 'X') {
                                (void) syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0U);
                                live++;
                        }
                        (void) close(fd);
                } else if (errno == ENOSYS) {
                        (void) kill((pid_t) pid, SIGKILL);      /* kernel < 5.3 */
                        live++;
                }
        }
        closedir(d);
        return live;
}

int sbx__tree_kill_session(pid_t sid, int timeout_ms)
{
        struct timespec nap = { 0, 2 * 1000 * 1000 };
        int waited = 0, r;

        if (sid <= 1)
                return -EINVAL;
        /* Each pass kills what it sees; a member forked meanwhile is seen
         * by the next (a SIGKILLed process forks no more).  Bounded: a
         * process the kernel holds (uninterruptible I/O) is reported. */
        for (;;) {
                r = kill_pass(sid);
                if (r <= 0)
                        return r;
                if (waited >= timeout_ms)
                        return -ETIMEDOUT;
                (void) nanosleep(&nap, NULL);
                waited += 2;
        }
}

int sbx__proc_wait_exited(pid_t pid, int pidfd, int timeout_ms, int *killed)
{
        struct timespec t0, t1;
        siginfo_t si;
        long left;
        int r;

        *killed = 0;
        if (pid <= 0)
                return -ECHILD;
        (void) clock_gettime(CLOCK_MONOTONIC, &t0);
        for (;;) {
                memset(&si, 0, sizeof(si));
                do
                        r = waitid(P_PID, (id_t) pid, &si, WEXITED | WNOHANG | WNOWAIT | __WALL);
                while (r < 0 && errno == EINTR);
                if (r < 0)
                        return -errno;
                if (si.si_pid == pid) {
                        *killed = si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
                        return 0;
                }
                if (timeout_ms == 0)
                        return -ETIMEDOUT;
                (void) clock_gettime(CLOCK_MONOTONIC, &t1);
                left = timeout_ms < 0 ? 1000000L
                                      : timeout_ms - ((t1.tv_sec - t0.tv_sec) * 1000L +
                                                      (t1.tv_nsec - t0.tv_nsec) / 1000000L);
                if (left <= 0)
                        return -ETIMEDOUT;
                if (pidfd >= 0) {
                        struct pollfd pfd = { pidfd, POLLIN, 0 };

                        if (poll(&pfd, 1, left > 1000000L ? 1000000 : (int) left) < 0 &&
                            errno != EINTR)
                                return -errno;
                } else {
                        struct timespec nap = { 0, 2 * 1000 * 1000 };

                        (void) nanosleep(&nap, NULL);
                }
        }
}

int sbx__tree_keeper_gone(pid_t keeper)
{
        pid_t sid;
        char st;

        /* The keeper (an unreaped zombie) led the run's session: what is
         * left of the run is that session.  A keeper of another session
         * (a bwrap spawn without a session of its own) has none to kill. */
        if (sbx__proc_session(keeper, &sid, &st) < 0 || sid != keeper)
                return 0;
        return sbx__tree_kill_session(sid, SBX__TREE_KILL_MS);
}
