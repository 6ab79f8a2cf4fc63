/*
 * child.c - the child of both rungs, between clone and execve: only
 * async-signal-safe code on data the parent prepared (raw syscalls, no
 * malloc, no stdio, no locks).  A failing step is reported as (step,
 * errno, index) on the launcher's channel before _exit(127).
 *
 * Rung 1 is pid 1 of a new pid namespace and stays on as a confined init
 * that forwards signals, reaps and runs the command as pid 2; rung 2 runs
 * the command under a confined subreaper monitor when no cgroup tracks it
 * (or when a timeout is asked for).  Both get their second process from a
 * raw clone (sbx__clone_fork), never glibc fork().
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "linux/ladder.h"

#ifndef __WALL
#  define __WALL 0x40000000
#endif

static int drop_caps(int cap_last)
{
        struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct data[2];
        int i;

        /* Lock root out of regaining capabilities, when we may. */
        (void) prctl(PR_SET_SECUREBITS, 0x2f /* NOROOT, NO_SETUID_FIXUP, KEEP_CAPS locked */);
        for (i = 0; i <= cap_last; i++)
                if (prctl(PR_CAPBSET_DROP, i, 0, 0, 0) < 0 && errno != EINVAL && errno != EPERM)
                        return -errno;
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                return -errno;
        memset(data, 0, sizeof(data));
        if (syscall(SYS_capset, &hdr, data) < 0)
                return -errno;
        return 0;
}

/* A socket of type bound to 127.0.0.1:port (v6: [::1]:port, IPv6 only),
 * listening for a stream, or -errno.  Async-signal-safe. */
static int lo_socket(int v6, int type, uint16_t port)
{
        struct sockaddr_in sin;
        struct sockaddr_in6 sin6;
        int fd = socket(v6 ? AF_INET6 : AF_INET, type | SOCK_CLOEXEC, 0), r, one = 1;

        if (fd < 0)
                return -errno;
        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_port = htons(port);
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        memset(&sin6, 0, sizeof(sin6));
        sin6.sin6_family = AF_INET6;
        sin6.sin6_port = htons(port);
        sin6.sin6_addr = in6addr_loopback;
        if ((v6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
            (v6 ? bind(fd, (struct sockaddr *) &sin6, sizeof(sin6))
                : bind(fd, (struct sockaddr *) &sin, sizeof(sin))) < 0 ||
            (type == SOCK_STREAM && listen(fd, 128) < 0)) {
                r = -errno;
                (void) close(fd);
                return r;
        }
        return fd;
}

/*
 * The egress proxy's sockets in this network namespace, sent to the
 * parent over sock (it serves them from outside, docs/network.md): the
 * proxy listener on 127.0.0.1:SBX__PROXY_PORT; with transparent mode also
 * the transparent listener and the DNS socket on 127.0.0.1 (and, with
 * IPv6, on [::1]), once the route and the redirect rules are in (nft.c).
 * The tag byte says which: 'U' all five, 'T' the IPv4 three (an IPv6
 * connection then finds no listener: refused), 'P' the proxy listener
 * alone (transparent mode could not be set up: every other connection has
 * no route, or is refused).  The namespace's copies are closed.  0 or
 * -errno.  Async-signal-safe.
 */
static int proxy_sockets(int sock, int transparent, const struct sbx__nft_msgs *nft)
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(5 * sizeof(int))];
        } cm;
        struct msghdr mh;
        struct iovec iov;
        char tag = 'P';
        int fds[5] = { -1, -1, -1, -1, -1 }, n = 1, r = 0, i, failed;

        fds[0] = lo_socket(0, SOCK_STREAM, SBX__PROXY_PORT);
        if (fds[0] < 0)
                return fds[0];
        if (transparent) {
                fds[1] = lo_socket(0, SOCK_STREAM, SBX__TPROXY_PORT);
                fds[2] = lo_socket(0, SOCK_DGRAM, SBX__DNS_PORT);
                if (transparent == 2) {
                        fds[3] = lo_socket(1, SOCK_STREAM, SBX__TPROXY_PORT);
                        fds[4] = lo_socket(1, SOCK_DGRAM, SBX__DNS_PORT);
                }
                if (fds[1] >= 0 && fds[2] >= 0 && sbx__nft_apply(nft, &failed) == 0) {
                        tag = fds[3] >= 0 && fds[4] >= 0 ? 'U' : 'T';
                        n = tag == 'U' ? 5 : 3;
                }
        }
        memset(&mh, 0, sizeof(mh));
        memset(&cm, 0, sizeof(cm));
        iov.iov_base = &tag;
        iov.iov_len = 1;
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cm.b;
        mh.msg_controllen = CMSG_SPACE((size_t) n * sizeof(int));
        CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
        CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
        CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN((size_t) n * sizeof(int));
        memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), fds, (size_t) n * sizeof(int));
        if (sendmsg(sock, &mh, MSG_NOSIGNAL) != 1)
                r = -errno;
        for (i = 0; i < 5; i++)
                if (fds[i] >= 0)
                        (void) close(fds[i]);
        return r;
}

static int loopback_up(void)
{
        struct ifreq ifr;
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = 0;

        if (fd < 0)
                return -errno;
        memset(&ifr, 0, sizeof(ifr));
        memcpy(ifr.ifr_name, "lo", 3);
        if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
                r = -errno;
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        if (r == 0 && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
                r = -errno;
        close(fd);
        return r;
}

/* ----------------------------------------------- init / subreaper monitor */

static volatile pid_t init_command_pid;         /* 0 once reaped */
static volatile int init_rung;
static volatile sig_atomic_t init_timed_out, init_kill_tree;

/* Forward a catchable signal to the command.  SIGCONT continues the whole
 * rung-1 namespace (after a stop request stopped all of it). */
static void init_forward(int sig)
{
        if (sig == SIGCONT && init_rung == 1)
                (void) kill(-1, SIGCONT);
        else if (init_command_pid > 0)
                (void) kill(init_command_pid, sig);
}

/* The host's "kill the tree" request: the command goes, the init reaps
 * what is left and ends. */
static void init_killtree(int sig)
{
        (void) sig;
        init_kill_tree = 1;
        if (init_command_pid > 0)
                (void) kill(init_command_pid, SIGKILL);
}

/* The host's "stop" request: rung 1 stops everything in its namespace but
 * itself (kill(-1) from the namespace's init); SIGCONT resumes it. */
static void init_stoptree(int sig)
{
        (void) sig;
        if (init_rung == 1)
                (void) kill(-1, SIGSTOP);
        else if (init_command_pid > 0)
                (void) kill(init_command_pid, SIGSTOP);
}

/* Close every fd from 3 up except a, b and c (-1 = none). */
static void close_all_but(const int *fds, size_t n)
{
        unsigned lo = 3;
        int keep[4 + SBX__MAX_UNIX_FDS], t;
        size_t i, j;

        if (n > SBX__ARRAY_SIZE(keep))
                n = SBX__ARRAY_SIZE(keep);      /* cannot happen: the parent checked */
        memcpy(keep, fds, n * sizeof(*keep));
        for (i = 1; i < n; i++)         /* sorted */
                for (j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
                        t = keep[j - 1];
                        keep[j - 1] = keep[j];
                        keep[j] = t;
                }
        for (i = 0; i < n; i++) {
                if (keep[i] < 3)
                        continue;
                if ((unsigned) keep[i] > lo)
                        (void) syscall(SYS_close_range, lo, (unsigned) keep[i] - 1, 0U);
                lo = (unsigned) keep[i] + 1;
        }
        (void) syscall(SYS_close_range, lo, ~0U, 0U);
}

/* The pids in /proc/<tid>/children (fd, read from offset 0), killed.
 * 1 if any was found, 0 if none, -1 if it cannot be read. */
static int kill_listed(int fd)
{
        char buf[4096];
        long pid = 0;
        ssize_t n;
        int any = 0, i;

        if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0)
                return -1;
        n = read(fd, buf, sizeof(buf) - 1);
        if (n < 0)
                return -1;
        buf[n > 0 ? n : 0] = '\0';
        for (i = 0; i <= n; i++) {
                if (buf[i] >= '0' && buf[i] <= '9') {
                        pid = pid * 10 + (buf[i] - '0');
                        continue;
                }
                if (pid > 0) {
                        (void) kill((pid_t) pid, SIGKILL);
                        any = 1;
                }
                pid = 0;
        }
        return any;
}

/* Kill and reap every child of this (subreaper) process until none is
 * left: each round kills the listed children and waits for one, whose own
 * children are then reparented here and listed in the next round.
 * Bounded; async-signal-safe.  The list was opened before Landlock, so a
 * domain without /proc still reads it. */
int sbx__kill_orphans(int children_fd)
{
        long round;

        /* Every round reaps at least one process, so this ends when the
         * tree is gone (a chain loses one level per round: no small cap,
         * which a 5000-deep chain would outlast).  The bound is only
         * against a tree that grows as fast as it dies. */
        for (round = 0; round < (1L << 22); round++) {
                while (waitpid(-1, NULL, WNOHANG | __WALL) > 0)
                        ;
                if (kill_listed(children_fd) <= 0)
                        return 0;
                (void) waitpid(-1, NULL, __WALL);
        }
        return -1;
}

/* The command's own last steps, then execve.  Never returns. */
static void exec_command(struct sbx__prep *p) SBX__NORETURN;
static void exec_command(struct sbx__prep *p)
{
        int r;

        /* The git name veto: its listener goes to the init/monitor, which
         * performs every naming call for us (notify.c). */
        if (p->notify != NULL) {
                if (sbx__child_at(&p->ch, STEP_SECCOMP) ? (r = -EPERM)
                    : (r = sbx__notify_load_child(p->notify, p->notify_sock[1])))
                        sbx__child_fail(&p->ch, STEP_SECCOMP, r, 0);
                (void) close(p->notify_sock[1]);
                (void) close(p->notify_sock[0]);
        }
        if (sbx__child_at(&p->ch, STEP_FDS) ? (r = -EPERM)
            : (r = sbx__child_arrange_fds(&p->ch, &p->ruleset_fd, p->stdio, p->keep, p->n_keep)))
                sbx__child_fail(&p->ch, STEP_FDS, r, 0);
        if (sbx__child_at(&p->ch, STEP_RLIMIT) ||
            (p->set_nproc && setrlimit(RLIMIT_NPROC, &p->rl_nproc) < 0) ||
            (p->set_as && setrlimit(RLIMIT_AS, &p->rl_as) < 0))
                sbx__child_fail(&p->ch, STEP_RLIMIT, errno, 0);
        /* The deny list is the command's, not the init's or monitor's: the
         * supervisor reads the caller's memory (process_vm_readv), which
         * the list refuses. */
        if (!p->bpf_loaded &&
            (sbx__child_at(&p->ch, STEP_SECCOMP) ? (r = -EPERM) : (r = sbx__seccomp_load_child(&p->bpf))))
                sbx__child_fail(&p->ch, STEP_SECCOMP, r, 0);
        if (!sbx__child_at(&p->ch, STEP_EXEC))
                execve(p->exec_path, p->argv, p->envp);
        sbx__child_fail(&p->ch, STEP_EXEC, errno, 0);
}

/* The command process the init/monitor starts.  Under vfork it shares the
 * init's memory until execve, so it works on its own copy of the
 * preparation (the fd numbers it moves exist only in its own table). */
static int command_main(void *arg)
{
        struct sbx__prep local = *(const struct sbx__prep *) arg;

        sbx__child_reset_signals();
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                sbx__child_fail(&local.ch, STEP_PDEATHSIG, errno, 0);
        /* Rung 2: a nested Landlock domain that scopes signals, so the
         * command cannot stop or kill its monitor (same user, and the
         * monitor's own domain would allow it). */
        if (local.scope_fd >= 0 && sbx__landlock_enforce_child(local.scope_fd) < 0)
                sbx__child_fail(&local.ch, STEP_LANDLOCK, errno, 0);
        /* A zygote's command: its own working directory. */
        if (local.cmd_cwd != NULL &&
            (sbx__child_at(&local.ch, STEP_CHDIR) || chdir(local.cmd_cwd) < 0))
                sbx__child_fail(&local.ch, STEP_CHDIR, errno, 0);
        exec_command(&local);
}

/* AddressSanitizer cannot follow a CLONE_VM child onto its own stack; the
 * sanitizer builds start the command fork-style instead. */
#if defined(__SANITIZE_ADDRESS__)
#  define SBX__NO_VFORK 1
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SBX__NO_VFORK 1
#  endif
#endif
#ifndef SBX__NO_VFORK
#  define SBX__NO_VFORK 0
#endif

/* Start the command: vfork-style (no page tables copied; the init waits
 * until it exec'd or died), else a fork-like raw clone.  The pid or -1.
 * glibc's clone() is a thin wrapper (no atfork handlers, no locks). */
static pid_t start_command(struct sbx__prep *p)
{
        const size_t len = 64 * 1024;
        void *stack;
        pid_t pid;
        int e;

        /* The observer's command sends its open and execve calls to the
         * init/monitor, which a vfork parent could not answer. */
        if (SBX__NO_VFORK || p->obs != NULL) {
                pid = sbx__clone_fork();
                if (pid == 0)
                        (void) command_main(p);
                return pid;
        }
        stack = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
                     -1, 0);
        if (stack == MAP_FAILED)
                return -1;
        pid = clone(command_main, (char *) stack + len, CLONE_VM | CLONE_VFORK | SIGCHLD, p);
        e = errno;
        (void) munmap(stack, len);
        errno = e;
        return pid;
}

/* What one command's run under the init/monitor came to. */
struct served {
        int st;                         /* the command's wait status */
        int parent_gone;                /* the spawning process (or the zygote's host) left */
};

/* The init/monitor's own state before any command exists: non-dumpable,
 * every catchable signal but the synchronous faults handled, all blocked
 * (they are taken only inside ppoll, so no wakeup is lost).
 *
 * The init is a copy of the caller's address space (secrets, environment,
 * heap) that never execs.  Non-dumpable, its /proc/1/{environ,mem,maps}
 * are closed to the command, which runs as the same user in the same
 * namespace; the command's own execve makes it dumpable again. */
static void init_signal(int sig)
{
        if (sig == SBX__SIG_KILLTREE)
                init_killtree(sig);
        else if (sig == SBX__SIG_STOPTREE)
                init_stoptree(sig);
        else if (sig != SIGCHLD)        /* SIGCHLD only interrupts ppoll */
                init_forward(sig);
}

static void init_setup(struct sbx__prep *p)
{
        if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
                sbx__child_fail(&p->ch, STEP_CAPS, errno, 0);
        init_rung = p->rung;
        sbx__child_catch_signals(init_signal);
}

/* Watch the running command `pid` until it is reaped: serve the
 * supervisor's listener, kill it at the timeout, when the spawning process
 * goes, or when `ctrl` (the zygote's host, -1 = none) hangs up.  Reaps
 * every other child that ends meanwhile. */
static void serve(struct sbx__prep *p, pid_t pid, int listener, uint64_t timeout_ms, int ctrl,
                  struct served *out)
{
        struct pollfd pfd[4];
        nfds_t npfd = 0;
        sigset_t none;
        pid_t w;
        int sig, timer = -1;

        out->st = 0;
        out->parent_gone = 0;
        sigemptyset(&none);
        if (p->parent_pidfd >= 0)
                pfd[npfd++] = (struct pollfd){ p->parent_pidfd, POLLIN, 0 };
        if (ctrl >= 0)
                pfd[npfd++] = (struct pollfd){ ctrl, POLLIN, 0 };
        if (listener >= 0)
                pfd[npfd++] = (struct pollfd){ listener, POLLIN, 0 };
        if (timeout_ms > 0) {
                struct itimerspec its;

                memset(&its, 0, sizeof(its));
                its.it_value.tv_sec = (time_t) (timeout_ms / 1000);
                its.it_value.tv_nsec = (long) (timeout_ms % 1000) * 1000000L;
                timer = (int) syscall(SYS_timerfd_create, CLOCK_MONOTONIC, TFD_CLOEXEC);
                if (timer < 0 || syscall(SYS_timerfd_settime, timer, 0, &its, NULL) < 0) {
                        /* No timer, no promise: end the run now. */
                        (void) kill(pid, SIGKILL);
                        init_timed_out = 1;
                } else {
                        pfd[npfd++] = (struct pollfd){ timer, POLLIN, 0 };
                }
        }
        for (;;) {
                int done = 0;

                while ((w = waitpid(-1, &sig, WNOHANG | __WALL)) > 0) {
                        if (w == pid && init_command_pid != 0) {
                                out->st = sig;
                                done = 1;
                                init_command_pid = 0;
                        }
                }
                if (done)
                        break;
                if (w < 0 && errno == ECHILD)
                        _exit(SBX_EXIT_RUNNER_FAILURE);
                if (syscall(SYS_ppoll, pfd, npfd, NULL, &none, (size_t) (NSIG / 8)) > 0) {
                        nfds_t k;

                        for (k = 0; k < npfd; k++) {
                                if (pfd[k].revents == 0)
                                        continue;
                                if (pfd[k].fd == listener) {
                                        /* A naming call to vet (or, on
                                         * POLLHUP, no filtered task left). */
                                        if (!(pfd[k].revents & POLLIN) ||
                                            sbx__notify_serve(listener, &p->notify_ctx) < 0)
                                                pfd[k].fd = -1;
                                        continue;
                                }
                                if (pfd[k].fd == timer) {
                                        init_timed_out = 1;
                                } else {
                                        /* The spawning process is gone (or
                                         * the zygote's host hung up): so is
                                         * the sandbox. */
                                        out->parent_gone = 1;
                                }
                                pfd[k].fd = -1;
                                if (init_command_pid > 0)
                                        (void) kill(init_command_pid, SIGKILL);
                        }
                }
        }
        if (timer >= 0)
                (void) close(timer);
}

/* Whatever the command left behind goes.  Rung 1 (the namespace's init):
 * everything else in the namespace.  Rung 2 (a subreaper): every
 * descendant it adopted. */
static void kill_leftovers(struct sbx__prep *p)
{
        if (p->rung == 1) {
                int round;

                (void) kill(-1, SIGKILL);
                for (round = 0; round < 4096 && waitpid(-1, NULL, __WALL) > 0; round++)
                        ;
        } else if (sbx__kill_orphans(p->children_fd) < 0) {
                /* Not all of it could be ended: this zygote serves no more
                 * runs (the host sees it gone and starts a new one). */
                _exit(SBX_EXIT_RUNNER_FAILURE);
        }
}

/* The signal that ended the command (ours at a timeout or a kill
 * request), or 0 if it exited. */
static int run_signal(const struct served *sv)
{
        if (sv->parent_gone)
                return 0;
        if (init_timed_out || init_kill_tree)
                return SIGKILL;
        return WIFSIGNALED(sv->st) ? WTERMSIG(sv->st) : 0;
}

/* The exit code the init/monitor reports for a run (as a shell would). */
static int run_code(const struct served *sv)
{
        if (sv->parent_gone)
                return SBX_EXIT_RUNNER_FAILURE;
        if (init_timed_out || init_kill_tree)
                return 128 + SIGKILL;
        return WIFEXITED(sv->st) ? WEXITSTATUS(sv->st) : 128 + WTERMSIG(sv->st);
}

/*
 * The rung-1 init (pid 1 of the sandbox's pid namespace) or the rung-2
 * monitor, already confined like the command.  It starts the command,
 * forwards the catchable termination signals to it, reaps every orphan,
 * enforces the timeout, and exits with the command's exit code (128 +
 * signal when the command was killed, as a shell reports it).  When a
 * rung-1 init exits, the kernel kills whatever is left in the namespace.
 * Never returns.
 */
static void run_init(struct sbx__prep *p) SBX__NORETURN;
static void run_init(struct sbx__prep *p)
{
        struct served sv;
        pid_t pid;
        int listener = -1;

        init_setup(p);
        pid = sbx__child_at(&p->ch, STEP_FORK) ? -1 : start_command(p);
        if (pid < 0)
                sbx__child_fail(&p->ch, STEP_FORK, errno, 0);
        init_command_pid = pid;
        /* The git name veto's listener, sent by the command before its
         * execve (a closed end means it failed before; it reports that). */
        if (p->notify != NULL) {
                (void) close(p->notify_sock[1]);
                listener = sbx__notify_receive(p->notify_sock[0]);
                (void) close(p->notify_sock[0]);
        }
        /* The command reports its own exec failure; the init keeps only
         * what it watches: the spawning process, the timer, its children,
         * the listener. */
        {
                int keep[4 + SBX__MAX_UNIX_FDS];
                size_t n = 0, k;

                keep[n++] = p->parent_pidfd;
                keep[n++] = p->children_fd;
                keep[n++] = listener;
                keep[n++] = p->obs != NULL ? p->obs->fd : -1;
                for (k = 0; k < p->n_unix_fds && n < SBX__ARRAY_SIZE(keep); k++)
                        keep[n++] = p->unix_fds[k];
                close_all_but(keep, n);
        }
        serve(p, pid, listener, p->timeout_ms, -1, &sv);
        if (p->rung == 2)
                (void) sbx__kill_orphans(p->children_fd);
        sbx__observe_finish(p->obs);
        if (run_signal(&sv) != 0 && p->ch.progress != NULL) {
                p->ch.progress[SBX__END_SIG_AT] = run_signal(&sv);
                p->ch.progress[SBX__END_MAGIC_AT] = SBX__END_MAGIC;
        }
        _exit(run_code(&sv));
}

/*
 * A warm executor's zygote: the init/monitor of one executor, confined
 * once, that runs each command its host sends (warm.c) and answers with
 * the exit code once the command and everything it left behind are gone.
 * One command at a time; the host serialises.  Like run_init it only
 * makes system calls on memory it mapped itself.  Never returns: it exits
 * when its host hangs up or goes.
 */
/* The zygote's own setup: the init's, its commands' seccomp program (where
 * no supervisor needs them loaded one by one), and nothing kept but what
 * it serves with. */
static void zygote_setup(struct sbx__prep *p)
{
        int keep[5 + SBX__MAX_UNIX_FDS];
        size_t n = 0, k;
        int r;

        init_setup(p);
        /* Without a supervisor (which reads its callers' memory, refused
         * by the list) the zygote takes the commands' seccomp program
         * itself: each command inherits it instead of loading its own.
         * Nothing the zygote does from here on is on the list. */
        if (p->notify == NULL) {
                if (sbx__child_at(&p->ch, STEP_SECCOMP) ? (r = -EPERM)
                    : (r = sbx__seccomp_load_child(&p->bpf)))
                        sbx__child_fail(&p->ch, STEP_SECCOMP, r, 0);
                p->bpf_loaded = 1;
        }
        keep[n++] = p->parent_pidfd;
        keep[n++] = p->children_fd;
        keep[n++] = p->ctrl_fd;
        keep[n++] = p->scope_fd;        /* each command's signal scope */
        for (k = 0; k < p->n_unix_fds && n < SBX__ARRAY_SIZE(keep); k++)
                keep[n++] = p->unix_fds[k];
        /* Ready: the host's exec wait sees EOF at STEP_EXEC. */
        if (p->ch.progress != NULL)
                *p->ch.progress = STEP_EXEC;
        close_all_but(keep, n);
}

/* Idle until the host sends a request (into buf, its fds into fds[4]):
 * its length, or 0 to wait again.  The host hanging up, or the spawning
 * process ending, ends the zygote; signals are taken here too. */
static size_t zygote_receive(struct sbx__prep *p, char *buf, size_t buf_len, int fds[4],
                             int *nfd)
{
        union {
                struct cmsghdr h;
                char b[CMSG_SPACE(4 * sizeof(int))];
        } cm;
        struct sbx__zy_req *rq = (struct sbx__zy_req *) (void *) buf;
        struct pollfd idle[2];
        struct iovec iov = { buf, buf_len };
        struct msghdr mh;
        struct cmsghdr *c;
        sigset_t none;
        nfds_t nidle = 0;
        size_t i, want;
        ssize_t n;
        int ok;

        sigemptyset(&none);
        idle[nidle++] = (struct pollfd){ p->ctrl_fd, POLLIN, 0 };
        if (p->parent_pidfd >= 0)
                idle[nidle++] = (struct pollfd){ p->parent_pidfd, POLLIN, 0 };
        if (syscall(SYS_ppoll, idle, nidle, NULL, &none, (size_t) (NSIG / 8)) < 0)
                return 0;
        if (nidle > 1 && idle[1].revents != 0)
                _exit(SBX_EXIT_RUNNER_FAILURE);
        if (idle[0].revents == 0)
                return 0;
        memset(&mh, 0, sizeof(mh));
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = cm.b;
        mh.msg_controllen = sizeof(cm.b);
        n = recvmsg(p->ctrl_fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
                return 0;
        if (n <= 0)
                _exit(0);       /* the host hung up: nothing runs */
        *nfd = 0;
        for (c = CMSG_FIRSTHDR(&mh); c != NULL; c = CMSG_NXTHDR(&mh, c))
                if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                        size_t m = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

                        for (i = 0; i < m && *nfd < 4; i++)
                                memcpy(&fds[(*nfd)++], CMSG_DATA(c) + i * sizeof(int),
                                       sizeof(int));
                }
        /* Only the host writes here; a request it did not form is a broken
         * host: end, as if it had gone. */
        ok = (size_t) n >= sizeof(*rq) && !(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) &&
             rq->magic == SBX__ZY_MAGIC && rq->len == (size_t) n - sizeof(*rq) &&
             rq->len > 0 && buf[n - 1] == '\0' && rq->n_argv >= 1 &&
             rq->n_argv + rq->n_env <= SBX__ZY_MAX_STRS && (rq->fdmask & ~7u) == 0;
        want = 1 + ((rq->fdmask & 1) != 0) + ((rq->fdmask & 2) != 0) + ((rq->fdmask & 4) != 0);
        if (!ok || (size_t) *nfd != want)
                _exit(SBX_EXIT_RUNNER_FAILURE);
        return (size_t) n;
}

/* The command's prep: the zygote's, with the request's strings (into
 * ptrs: path, cwd, argv, envp) and fds (stdio, then the exec-status pipe). */
static void zygote_unpack(const struct sbx__prep *p, char *buf, size_t n, char **ptrs,
                          const int fds[4], struct sbx__prep *local)
{
        const struct sbx__zy_req *rq = (const struct sbx__zy_req *) (void *) buf;
        size_t off, i;
        int k;

        for (off = sizeof(*rq), i = 0; off < n && i < SBX__ZY_MAX_STRS + 2; i++) {
                ptrs[i] = buf + off;
                while (buf[off] != '\0')
                        off++;
                off++;
        }
        if (i != 2 + rq->n_argv + rq->n_env || off != n)
                _exit(SBX_EXIT_RUNNER_FAILURE);
        *local = *p;
        local->exec_path = ptrs[0];
        local->cmd_cwd = ptrs[1];
        /* argv and envp each end with a NULL: the one after argv is the
         * first env entry's slot, so the env moves up one. */
        for (i = 2 + rq->n_argv + rq->n_env; i > 2 + rq->n_argv; i--)
                ptrs[i] = ptrs[i - 1];
        ptrs[2 + rq->n_argv] = NULL;
        ptrs[3 + rq->n_argv + rq->n_env] = NULL;
        local->argv = ptrs + 2;
        local->envp = ptrs + 3 + rq->n_argv;
        for (k = 0, i = 0; i < 3; i++)
                local->stdio[i] = (rq->fdmask & (1u << i)) ? fds[k++] : -1;
        local->ch.err_w = fds[k];
        local->ch.sync_r = -1;
        local->ruleset_fd = -1;         /* the zygote's own domain holds it */
        local->n_keep = 0;
        local->timeout_ms = rq->timeout_ms;
        local->notify_sock[0] = local->notify_sock[1] = -1;
}

/* Run one command of the zygote and serve it to its end: the reply the
 * host reads (its exit code and signal).  *parent_gone: the spawning
 * process ended meanwhile. */
static struct sbx__zy_rep zygote_run(struct sbx__prep *p, struct sbx__prep *local,
                                     const int fds[4], int nfd, int *parent_gone)
{
        struct sbx__zy_rep rep = { SBX__ZY_MAGIC, 0, 0 };
        struct served sv;
        int listener = -1, i;
        pid_t pid;

        if (p->notify != NULL &&
            socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, local->notify_sock) < 0) {
                struct sbx__child_report cr = { STEP_SECCOMP, errno, 0 };

                (void) !write(local->ch.err_w, &cr, sizeof(cr));
                pid = -1;
        } else {
                init_timed_out = 0;
                init_kill_tree = 0;
                if (p->ch.progress != NULL)
                        *p->ch.progress = STEP_FORK;
                pid = start_command(local);
                if (pid < 0) {
                        struct sbx__child_report cr = { STEP_FORK, errno, 0 };

                        (void) !write(local->ch.err_w, &cr, sizeof(cr));
                }
        }
        init_command_pid = pid > 0 ? pid : 0;
        for (i = 0; i < nfd; i++)
                (void) close(fds[i]);
        if (local->notify_sock[0] >= 0) {
                (void) close(local->notify_sock[1]);
                listener = pid > 0 ? sbx__notify_receive(local->notify_sock[0]) : -1;
                (void) close(local->notify_sock[0]);
        }
        *parent_gone = 0;
        if (pid > 0) {
                serve(local, pid, listener, local->timeout_ms, p->ctrl_fd, &sv);
                kill_leftovers(p);
                rep.code = run_code(&sv);
                rep.sig = run_signal(&sv);
                *parent_gone = sv.parent_gone;
        } else {
                rep.code = SBX_EXIT_RUNNER_FAILURE;
        }
        if (listener >= 0)
                (void) close(listener);
        return rep;
}

static void run_zygote(struct sbx__prep *p) SBX__NORETURN;
static void run_zygote(struct sbx__prep *p)
{
        const size_t buf_len = sizeof(struct sbx__zy_req) + SBX__ZY_MAX_BYTES;
        const size_t ptr_len = (SBX__ZY_MAX_STRS + 2) * sizeof(char *);
        char *buf = mmap(NULL, buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        char **ptrs = mmap(NULL, ptr_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, 0);

        if (buf == MAP_FAILED || ptrs == MAP_FAILED)
                sbx__child_fail(&p->ch, STEP_FORK, errno, 0);
        zygote_setup(p);
        for (;;) {
                struct sbx__zy_rep rep;
                struct sbx__prep local;
                int fds[4] = { -1, -1, -1, -1 }, nfd = 0, parent_gone;
                size_t n = zygote_receive(p, buf, buf_len, fds, &nfd);

                if (n == 0)
                        continue;
                zygote_unpack(p, buf, n, ptrs, fds, &local);
                rep = zygote_run(p, &local, fds, nfd, &parent_gone);
                if (parent_gone)
                        _exit(SBX_EXIT_RUNNER_FAILURE);
                if (send(p->ctrl_fd, &rep, sizeof(rep), MSG_NOSIGNAL) != (ssize_t) sizeof(rep))
                        _exit(SBX_EXIT_RUNNER_FAILURE);
        }
}

/* ------------------------------------------------------------ the child */

#define AT(step) sbx__child_at(&p->ch, (step))

static void rung1_root(struct sbx__prep *p)
{
        size_t i;
        int r;

        if ((r = AT(STEP_SETGROUPS) ? -EPERM : sbx__write_text("/proc/self/setgroups", "deny")) < 0 &&
            r != -ENOENT)
                sbx__child_fail(&p->ch, STEP_SETGROUPS, r, 0);
        if ((r = AT(STEP_UID_MAP) ? -EPERM : sbx__write_text("/proc/self/uid_map", p->uid_map)) < 0)
                sbx__child_fail(&p->ch, STEP_UID_MAP, r, 0);
        if ((r = AT(STEP_GID_MAP) ? -EPERM : sbx__write_text("/proc/self/gid_map", p->gid_map)) < 0)
                sbx__child_fail(&p->ch, STEP_GID_MAP, r, 0);
        if (AT(STEP_MAKE_PRIVATE) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
                sbx__child_fail(&p->ch, STEP_MAKE_PRIVATE, errno, 0);
        if (AT(STEP_BASE_TMPFS) ||
            mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
                sbx__child_fail(&p->ch, STEP_BASE_TMPFS, errno, 0);
        if (AT(STEP_BASE_DIRS) || mkdir("/tmp/newroot", 0755) < 0 || mkdir("/tmp/oldroot", 0755) < 0)
                sbx__child_fail(&p->ch, STEP_BASE_DIRS, errno, 0);
        if (AT(STEP_PIVOT_BASE) ||
            syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") < 0 || chdir("/") < 0)
                sbx__child_fail(&p->ch, STEP_PIVOT_BASE, errno, 0);
        for (i = 0; i < p->n_ops; i++) {
                r = AT(STEP_MOUNT_OP) ? -EPERM : sbx__run_op(&p->ops[i], p->ruleset_fd);
                if (r < 0 && !(p->ops[i].optional && (r == -ENOENT || r == -ENOTDIR)))
                        sbx__child_fail(&p->ch, STEP_MOUNT_OP, r, (int) i);
        }
        if (AT(STEP_PIVOT_ROOT) || chdir("/newroot") < 0 ||
            syscall(SYS_pivot_root, ".", ".") < 0 ||
            umount2(".", MNT_DETACH) < 0 || chdir("/") < 0)
                sbx__child_fail(&p->ch, STEP_PIVOT_ROOT, errno, 0);
        if (p->net_ns && (AT(STEP_LOOPBACK) ? (r = -EPERM) : (r = loopback_up())) < 0)
                sbx__child_fail(&p->ch, STEP_LOOPBACK, r, 0);
        if (p->proxy_sock[1] >= 0) {
                if ((r = proxy_sockets(p->proxy_sock[1], p->transparent, &p->nft)) < 0)
                        sbx__child_fail(&p->ch, STEP_LOOPBACK, r, 1);
                (void) close(p->proxy_sock[1]);
                p->proxy_sock[1] = -1;
        }
}

void sbx__ladder_child(void *arg, struct sbx__chan *ch)
{
        struct sbx__prep *p = arg;
        size_t i;
        int r;

        p->ch = *ch;
        /* Default dispositions, nothing blocked: the command starts clean
         * (signals stayed blocked since clone, so no host handler ran). */
        if (AT(STEP_SIGNALS))
                sbx__child_fail(&p->ch, STEP_SIGNALS, errno, 0);
        sbx__child_reset_signals();
        {
                int need[73 + SBX__MAX_UNIX_FDS];
                size_t n = 0, k;

                need[n++] = p->obs_pipe[1];     /* the observer's records */
                need[n++] = p->ruleset_fd;
                need[n++] = p->parent_pidfd;
                need[n++] = p->scope_fd;
                need[n++] = p->notify_sock[0];
                need[n++] = p->notify_sock[1];
                need[n++] = p->ctrl_fd;
                need[n++] = p->proxy_sock[1];
                for (k = 0; k < 3; k++)
                        need[n++] = p->stdio[k];
                for (k = 0; k < p->n_keep && n < SBX__ARRAY_SIZE(need); k++)
                        need[n++] = p->keep[k];
                for (k = 0; k < p->n_unix_fds && n < SBX__ARRAY_SIZE(need); k++)
                        need[n++] = p->unix_fds[k];
                sbx__child_close_others(&p->ch, need, n);
        }
        /* The init/monitor watches the spawning *process* (a pidfd): a
         * death signal would follow the spawning *thread*, and a host's
         * thread pool would take the sandbox down with a thread.  Only a
         * kernel without pidfds falls back to it. */
        if (AT(STEP_PDEATHSIG) ||
            (p->parent_pidfd < 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) < 0))
                sbx__child_fail(&p->ch, STEP_PDEATHSIG, errno, 0);
        /* Rung 2: the parent may already be gone.  Rung 1 is pid 1 of its
         * namespace (getppid() is 0); the sync byte below covers it. */
        if (p->rung == 2 && getppid() != p->parent_pid)
                sbx__child_fail(&p->ch, STEP_PDEATHSIG, ESRCH, 0);
        /* Wait until the parent has placed us in cgroups etc. */
        if (AT(STEP_SYNC) ? (r = -EPERM) : (r = sbx__child_wait_go(&p->ch)))
                sbx__child_fail(&p->ch, STEP_SYNC, r, 0);
        if (AT(STEP_SETSID) || setsid() < 0)
                sbx__child_fail(&p->ch, STEP_SETSID, errno, 0);

        if (p->rung == 1) {
                rung1_root(p);
        } else {
                for (i = 0; i < p->n_ops; i++) {
                        r = AT(STEP_LANDLOCK_ADD) ? -EPERM : sbx__run_op(&p->ops[i], p->ruleset_fd);
                        if (r < 0 && !(p->ops[i].optional && (r == -ENOENT || r == -ENOTDIR)))
                                sbx__child_fail(&p->ch, STEP_LANDLOCK_ADD, r, (int) i);
                }
        }
        if (AT(STEP_CHDIR) || chdir(p->cwd) < 0)
                sbx__child_fail(&p->ch, STEP_CHDIR, errno, 0);
        /* The monitor's list of children, opened while /proc is still
         * reachable (a domain without host reads has none later). */
        if (p->rung == 2 && p->monitor &&
            (AT(STEP_FORK) ||
             (p->children_fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC)) < 0))
                sbx__child_fail(&p->ch, STEP_FORK, errno, 0);
        if (AT(STEP_CAPS) ? (r = -EPERM) : (r = drop_caps(p->cap_last)))
                sbx__child_fail(&p->ch, STEP_CAPS, r, 0);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                sbx__child_fail(&p->ch, STEP_CAPS, errno, 0);
        if (AT(STEP_LANDLOCK) ? (r = -EPERM)
                              : (r = p->ruleset_fd >= 0 ? sbx__landlock_enforce_child(p->ruleset_fd) : 0))
                sbx__child_fail(&p->ch, STEP_LANDLOCK, r, 0);
        /* Rung 1: we are pid 1 of the new pid namespace, and pid 1 ignores
         * every signal it has no handler for.  Stay as a confined init that
         * forwards signals and reaps, and run the command as pid 2. */
        if (p->ctrl_fd >= 0) {
                /* A warm executor's zygote (rung 2: a subreaper). */
                if (p->rung == 2 && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                        sbx__child_fail(&p->ch, STEP_FORK, errno, 0);
                run_zygote(p);
        } else if (p->rung == 1) {
                run_init(p);
        } else if (p->monitor) {
                /* Rung 2 without a tracking cgroup (or with a timeout): a
                 * subreaper monitor, so descendants that leave the process
                 * group are still found and killed when the command ends. */
                if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
                        sbx__child_fail(&p->ch, STEP_FORK, errno, 0);
                run_init(p);
        }
        exec_command(p);
}
