/*
 * notify_prim.c - the notification primitives the supervisor's files share
 * (notify.c, notify_net.c, observe.c): handing the filter's listener from
 * the command to its init/monitor over a socket, checking a notification is
 * still live, answering it, and decimal digits without stdio.  A leaf: it
 * calls none of them (an answer the observer records goes through the
 * observer's own hook, struct sbx__obs.answer).  Async-signal-safe code
 * only.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "linux/ladder.h"

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#  define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#  define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#  define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP 0x1
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#  define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, uint64_t)
#endif

/* ------------------------------------------------------------ loading */

/* One byte with room for one SCM_RIGHTS fd: the listener's envelope. */
struct fd_msg {
        struct msghdr msg;
        struct iovec  iov;
        char          byte;
        union {
                char buf[CMSG_SPACE(sizeof(int))];
                struct cmsghdr align;
        } u;
};

static void fd_msg_init(struct fd_msg *m)
{
        memset(m, 0, sizeof(*m));
        m->byte = 'L';
        m->iov.iov_base = &m->byte;
        m->iov.iov_len = 1;
        m->msg.msg_iov = &m->iov;
        m->msg.msg_iovlen = 1;
        m->msg.msg_control = m->u.buf;
        m->msg.msg_controllen = sizeof(m->u.buf);
}

int sbx__notify_load_child(const struct sbx__bpf *bpf, int sock)
{
        struct sock_fprog fprog;
        struct fd_msg m;
        struct cmsghdr *c;
        long lfd;
        int e = 0;

        fprog.len = (unsigned short) bpf->len;
        fprog.filter = (struct sock_filter *) bpf->filter;
        lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                      SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
                      &fprog);
        if (lfd < 0 && errno == EINVAL)         /* before Linux 5.19 */
                lfd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                              SECCOMP_FILTER_FLAG_NEW_LISTENER, &fprog);
        if (lfd < 0)
                return -errno;
        fd_msg_init(&m);
        c = CMSG_FIRSTHDR(&m.msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &(int){ (int) lfd }, sizeof(int));
        while (sendmsg(sock, &m.msg, MSG_NOSIGNAL) < 0)
                if (errno != EINTR) {
                        e = -errno;
                        break;
                }
        (void) close((int) lfd);
        return e;
}

int sbx__notify_receive(int sock)
{
        struct fd_msg m;
        struct cmsghdr *c;
        ssize_t n;
        int fd;

        fd_msg_init(&m);
        do
                n = recvmsg(sock, &m.msg, MSG_CMSG_CLOEXEC);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        c = CMSG_FIRSTHDR(&m.msg);
        if (n != 1 || c == NULL || c->cmsg_type != SCM_RIGHTS ||
            c->cmsg_len != CMSG_LEN(sizeof(int)))
                return -EPIPE;
        memcpy(&fd, CMSG_DATA(c), sizeof(int));
        /* Linux 6.6+: the kernel switches straight to the supervisor and
         * back on one CPU for each notification, not through the
         * scheduler's wake-ups (several times faster on a busy or
         * virtual machine).  Older kernels refuse it; nothing changes. */
        {
                uint64_t flags = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

                (void) ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, &flags);
        }
        return fd;
}

/* ------------------------------------------------------------ answers */

int sbx__nreq_valid(const struct sbx__nreq *q)
{
        uint64_t id = q->id;

        return ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void sbx__nreq_respond(const struct sbx__nreq *q, int64_t val, int error)
{
        struct seccomp_notif_resp resp;

        memset(&resp, 0, sizeof(resp));
        resp.id = q->id;
        resp.val = error != 0 ? 0 : val;
        resp.error = error != 0 ? -error : 0;
        /* Recorded first: once answered, the command may end, and with
         * it the sandbox and this worker. */
        if (error != 0 && q->ctx->obs != NULL && q->op != 0)
                q->ctx->obs->answer(q, error);
        (void) ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* ------------------------------------------------------------ digits */

char *sbx__put_uint(char *p, unsigned long v)
{
        char tmp[24];
        size_t n = 0;

        do
                tmp[n++] = (char) ('0' + v % 10);
        while ((v /= 10) != 0);
        while (n > 0)
                *p++ = tmp[--n];
        return p;
}
