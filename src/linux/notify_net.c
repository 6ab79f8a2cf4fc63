/*
 * notify_net.c - the supervisor's connect(2) for --allow-unix, run by the
 * rung-1 init and the rung-2 monitor (notify.c dispatches to it):
 * async-signal-safe code only.
 *
 * The command's filter sends every connect here (seccomp cannot see an
 * fd's family).  The supervisor copies the address once, takes the
 * caller's socket itself (pidfd_getfd) and connects it: a unix address
 * only when it is one of the listed paths, through the socket file the
 * parent pinned at spawn; any other address as given, with the same
 * Landlock domain and network namespace as the command.  Nothing the
 * caller changes after the copy (the address, its fd table) reaches the
 * kernel's connect.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "linux/ladder.h"


#ifndef PIDFD_THREAD
#  define PIDFD_THREAD O_EXCL
#endif

/* Copy exactly len bytes from the caller; 0 or -errno. */
static int read_mem(pid_t pid, uint64_t addr, void *out, size_t len)
{
        struct iovec l = { out, len }, r = { (void *) (uintptr_t) addr, len };
        ssize_t n;

        if (len == 0)
                return 0;
        n = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n == (ssize_t) len)
                return 0;
        return n < 0 && errno != EFAULT ? -errno : -EFAULT;
}

/* The Tgid of thread tid (/proc/<tid>/status), or -1. */
static pid_t thread_group(pid_t tid)
{
        char path[64], buf[512], *p;
        ssize_t n;
        long v = 0;
        int fd;

        memcpy(path, "/proc/", 6);
        memcpy(sbx__put_uint(path + 6, (unsigned long) tid), "/status", 8);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -1;
        n = read(fd, buf, sizeof(buf) - 1);
        (void) close(fd);
        if (n <= 0)
                return -1;
        buf[n] = '\0';
        p = strstr(buf, "\nTgid:");
        if (p == NULL)
                return -1;
        for (p += 6; *p == ' ' || *p == '\t'; p++)
                ;
        while (*p >= '0' && *p <= '9' && v < 1L << 30)
                v = v * 10 + (*p++ - '0');
        return v > 0 ? (pid_t) v : -1;
}

/* The caller's fd as our own (the same open socket): its thread's pidfd,
 * then pidfd_getfd.  The fd or -errno. */
static int caller_fd(const struct sbx__nreq *q, int fd)
{
        long pfd, r;

        pfd = syscall(SYS_pidfd_open, q->pid, PIDFD_THREAD);
        if (pfd < 0 && errno == EINVAL) {
                /* Before Linux 6.9 a pidfd names a process: the thread's
                 * leader (threads share its fd table unless one unshared
                 * it, and then the leader's fd is the one connected, still
                 * only to what the checks allow). */
                pid_t tgid = thread_group(q->pid);

                pfd = tgid > 0 ? syscall(SYS_pidfd_open, tgid, 0) : -1;
                if (tgid <= 0)
                        errno = ESRCH;
        }
        if (pfd < 0)
                return errno == EINVAL || errno == ESRCH ? -EBADF : -errno;
        /* The pidfd is of the thread that is still waiting (not a reuse). */
        if (!sbx__nreq_valid(q)) {
                (void) close((int) pfd);
                return -ESRCH;
        }
        r = syscall(SYS_pidfd_getfd, (int) pfd, fd, 0);
        if (r < 0)
                r = errno == EPERM ? -EACCES : -errno;
        (void) close((int) pfd);
        return (int) r;
}

/* "/proc/self/fd/<n>" into sun, with its length. */
static socklen_t fd_address(struct sockaddr_un *sun, int n)
{
        char p[64];
        size_t len;

        memcpy(p, "/proc/self/fd/", 14);
        *sbx__put_uint(p + 14, (unsigned long) n) = '\0';
        len = strlen(p);
        memset(sun, 0, sizeof(*sun));
        sun->sun_family = AF_UNIX;
        memcpy(sun->sun_path, p, len + 1);
        return (socklen_t) (offsetof(struct sockaddr_un, sun_path) + len + 1);
}

/*
 * connect(fd, addr, len), done here on the caller's own socket: a unix
 * address only when it names a listed socket (never an abstract name),
 * connected through the fd the parent opened on that socket file; any
 * other family as given.  The kernel reads only our copies, so neither the
 * address nor the fd table can change under the check.  A blocking
 * stream or seqpacket socket is connected by a short-lived worker, whether
 * or not it is nonblocking (the caller can flip O_NONBLOCK on the shared
 * file between any check and the connect), so a peer that never accepts
 * cannot stall the supervisor.  A datagram socket's connect never waits:
 * it is made here.
 */
/* The observer's view of a non-blocking stream connect the worker made
 * (EINPROGRESS): how it ended within a second, seen without reading
 * SO_ERROR (which the caller will).  Best effort: the sandbox may end
 * first. */
static void observe_stream(const struct sbx__nreq *q, int sfd, const void *a, uint32_t len,
                           int e)
{
        struct pollfd pfd = { sfd, POLLOUT, 0 };
        struct sockaddr_storage peer;
        socklen_t pl = sizeof(peer);

        if (e != EINPROGRESS) {
                sbx__observe_connect(q, a, len, e);
                return;
        }
        if (poll(&pfd, 1, 1000) == 1 && (pfd.revents & (POLLERR | POLLHUP)) &&
            getpeername(sfd, (struct sockaddr *) &peer, &pl) < 0)
                sbx__observe_connect(q, a, len, ECONNREFUSED);
}

static void do_connect(const struct sbx__nreq *q, int fd, uint64_t addr, uint32_t len)
{
        union {
                struct sockaddr_storage ss;
                struct sockaddr_un sun;
                sa_family_t family;
        } a;
        struct sockaddr_un to;
        const struct sockaddr *sa = (const struct sockaddr *) &a.ss;
        socklen_t salen = (socklen_t) len, tlen;
        int sfd, r, e, type = 0;

        if (len > sizeof(a.ss)) {
                sbx__nreq_respond(q, 0, EINVAL);
                return;
        }
        memset(&a, 0, sizeof(a));
        if ((r = read_mem(q->pid, addr, &a.ss, (size_t) len)) < 0) {
                sbx__nreq_respond(q, 0, -r);
                return;
        }
        if (len >= sizeof(sa_family_t) && a.family == AF_UNIX) {
                const size_t off = offsetof(struct sockaddr_un, sun_path);
                size_t plen, i;
                int pin = -2;

                if (len <= off || len > sizeof(struct sockaddr_un)) {
                        sbx__nreq_respond(q, 0, EINVAL);        /* as the kernel */
                        return;
                }
                plen = strnlen(a.sun.sun_path, (size_t) len - off);

                /* An abstract name (or none) is never listed. */
                for (i = 0; plen > 0 && i < q->ctx->n_unix; i++)
                        if (strlen(q->ctx->unix_paths[i]) == plen &&
                            memcmp(q->ctx->unix_paths[i], a.sun.sun_path, plen) == 0)
                                pin = q->ctx->unix_fds[i];
                if (pin == -2) {
                        sbx__observe_connect(q, &a, len, EACCES);
                        sbx__nreq_respond(q, 0, EACCES);
                        return;
                }
                if (pin < 0) {
                        sbx__observe_connect(q, &a, len, ENOENT);
                        sbx__nreq_respond(q, 0, ENOENT);  /* it did not exist at spawn */
                        return;
                }
                salen = fd_address(&to, pin);
                sa = (const struct sockaddr *) &to;
        }
        sfd = caller_fd(q, fd);
        if (sfd < 0) {
                if (sfd != -ESRCH)
                        sbx__nreq_respond(q, 0, -sfd);
                return;
        }
        tlen = sizeof(type);
        if (getsockopt(sfd, SOL_SOCKET, SO_TYPE, &type, &tlen) < 0) {
                sbx__nreq_respond(q, 0, errno);         /* ENOTSOCK */
        } else if (type == SOCK_DGRAM) {
                r = connect(sfd, sa, salen);
                e = r < 0 ? errno : 0;
                if (a.family != AF_UNIX)
                        sbx__observe_connect(q, &a, len, e);
                sbx__nreq_respond(q, 0, e);
        } else {
                const pid_t self = getpid();
                pid_t w = sbx__clone_fork();

                if (w == 0) {
                        /* Dies with the supervisor (checked after the
                         * request, which a death before it would miss). */
                        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != self)
                                _exit(0);
                        r = connect(sfd, sa, salen);
                        e = r < 0 ? errno : 0;
                        /* Recorded before the answer: once answered, the
                         * command may end, and the sandbox with it. */
                        if (a.family != AF_UNIX && q->ctx->obs != NULL && e != EINPROGRESS)
                                sbx__observe_connect(q, &a, len, e);
                        sbx__nreq_respond(q, 0, e);
                        if (a.family != AF_UNIX && q->ctx->obs != NULL && e == EINPROGRESS)
                                observe_stream(q, sfd, &a, len, e);
                        _exit(0);
                }
                if (w < 0)
                        sbx__nreq_respond(q, 0, EAGAIN);
        }
        (void) close(sfd);
}

void sbx__notify_connect(const struct sbx__nreq *q, const uint64_t *args, int socketcall)
{
        uint32_t v[3];
        int r;

        if (!socketcall) {
                do_connect(q, (int32_t) (uint32_t) args[0], args[1], (uint32_t) args[2]);
                return;
        }
        /* socketcall(SYS_CONNECT, args): the three arguments are 32-bit
         * words in the caller's memory, copied once. */
        if (args[0] != 3 /* SYS_CONNECT */) {
                sbx__nreq_respond(q, 0, ENOSYS);
                return;
        }
        if ((r = read_mem(q->pid, args[1], v, sizeof(v))) < 0) {
                sbx__nreq_respond(q, 0, -r);
                return;
        }
        do_connect(q, (int32_t) v[0], v[1], v[2]);
}
