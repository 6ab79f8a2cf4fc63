/*
 * relay.c - the engine's socket helpers: bounded waits that a cut
 * execution interrupts, a dial with a deadline, and the byte relay of a
 * tunnel or a forwarded request (docs/network.md, "The engine").
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "net/proxy_internal.h"

int64_t sbx__proxy_now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int remaining(int64_t deadline_ms)
{
        int64_t left = deadline_ms - sbx__proxy_now_ms();

        return left <= 0 ? 0 : left > 3600000 ? 3600000 : (int) left;
}

int sbx__proxy_wait(int fd, short events, int cancel_fd, int64_t deadline_ms)
{
        for (;;) {
                struct pollfd p[2] = { { fd, events, 0 }, { cancel_fd, POLLIN, 0 } };
                int n = poll(p, 2, remaining(deadline_ms));

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (p[1].revents != 0)
                        return -ECANCELED;
                if (n == 0)
                        return 0;
                return 1;
        }
}

int sbx__proxy_send_all(int fd, const void *buf, size_t len, int cancel_fd,
                        int64_t deadline_ms)
{
        const char *p = buf;

        while (len > 0) {
                ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

                if (n > 0) {
                        p += n;
                        len -= (size_t) n;
                        continue;
                }
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                        int w = sbx__proxy_wait(fd, POLLOUT, cancel_fd, deadline_ms);

                        if (w == 0)
                                return -ETIMEDOUT;
                        if (w < 0)
                                return w;
                        continue;
                }
                return n < 0 ? -errno : -EIO;
        }
        return 0;
}

int sbx__proxy_dial(const struct sbx__net_addr *addr, uint16_t port, int cancel_fd,
                    int64_t deadline_ms)
{
        struct sockaddr_storage ss;
        socklen_t sl;
        int fd, r, one = 1, soerr = 0;
        socklen_t el = sizeof(soerr);

        memset(&ss, 0, sizeof(ss));
        if (addr->family == 4) {
                struct sockaddr_in *in = (struct sockaddr_in *) &ss;

                in->sin_family = AF_INET;
                in->sin_port = htons(port);
                memcpy(&in->sin_addr, addr->b, 4);
                sl = sizeof(*in);
        } else {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;

                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons(port);
                memcpy(&in6->sin6_addr, addr->b, 16);
                sl = sizeof(*in6);
        }
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP);
        if (fd < 0)
                return -errno;
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        do
                r = connect(fd, (struct sockaddr *) &ss, sl);
        while (r < 0 && errno == EINTR);
        if (r < 0 && errno != EINPROGRESS) {
                r = -errno;
                goto fail;
        }
        if (r < 0) {
                r = sbx__proxy_wait(fd, POLLOUT, cancel_fd, deadline_ms);
                if (r == 0)
                        r = -ETIMEDOUT;
                if (r < 0)
                        goto fail;
                if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &el) < 0)
                        soerr = errno;
                if (soerr != 0) {
                        r = -soerr;
                        goto fail;
                }
        }
        return fd;
fail:
        (void) close(fd);
        return r;
}

/*
 * One direction of a relay: bytes read from `from`, not yet written to
 * `to`.  They move through a pipe with splice(2), never copied to user
 * space, or, where a pipe or splice is not available, through a buffer.
 * What the caller hands in to send first (pre) goes out before either.
 */
struct dir {
        const char *pre;
        size_t      pre_len;
        int         pipe[2];            /* splice; -1 for the copy path */
        size_t      inpipe;
        char       *buf;                /* the copy path */
        size_t      cap;                /* buf's size */
        size_t      off, len;
        int         full;               /* the last read filled buf */
        int         eof;                /* `from` ended */
        int         shut;               /* `to` was shut down for writing */
};

#define SPLICE_FLAGS (SPLICE_F_MOVE | SPLICE_F_NONBLOCK)

/*
 * A relay buffer starts at SBX__PROXY_BUF and doubles, up to
 * SBX__PROXY_BUF_MAX, each time a read fills it: a bulk stream then moves
 * in fewer, larger system calls (bench/proxy: the tunnel's throughput
 * against a direct stream went from about 0.45 to 0.75 with it), while a
 * connection that only ever carries small messages keeps the small one.
 * What buffers grow by is counted process-wide, capped at
 * SBX__PROXY_BUF_ALL; past the cap a buffer stays as it is.
 */
static atomic_size_t grown;

static int buf_alloc(struct dir *d)
{
        d->buf = malloc(SBX__PROXY_BUF);
        d->cap = SBX__PROXY_BUF;
        return d->buf != NULL ? 0 : -1;
}

static void buf_free(struct dir *d)
{
        if (d->cap > SBX__PROXY_BUF)
                atomic_fetch_sub(&grown, d->cap - SBX__PROXY_BUF);
        free(d->buf);
        d->buf = NULL;
        d->cap = 0;
}

/* Double an empty buffer, if the budget has room (else keep it). */
static void buf_grow(struct dir *d)
{
        size_t cap = d->cap * 2;
        char *nb;

        d->full = 0;
        if (d->len > 0 || cap > SBX__PROXY_BUF_MAX)
                return;
        if (atomic_fetch_add(&grown, d->cap) + d->cap > SBX__PROXY_BUF_ALL) {
                atomic_fetch_sub(&grown, d->cap);
                return;
        }
        nb = malloc(cap);
        if (nb == NULL) {
                atomic_fetch_sub(&grown, d->cap);
                return;
        }
        free(d->buf);
        d->buf = nb;
        d->cap = cap;
}

static int dir_init(struct dir *d, const char *pre, size_t pre_len, int copy)
{
        memset(d, 0, sizeof(*d));
        d->pre = pre;
        d->pre_len = pre_len;
        d->pipe[0] = d->pipe[1] = -EBADF;
        if (!copy && pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) == 0) {
                (void) fcntl(d->pipe[1], F_SETPIPE_SZ, SBX__PROXY_BUF);
                return 0;
        }
        d->pipe[0] = d->pipe[1] = -EBADF;
        return buf_alloc(d);
}

static void dir_free(struct dir *d)
{
        if (d->pipe[0] >= 0)
                (void) close(d->pipe[0]);
        if (d->pipe[1] >= 0)
                (void) close(d->pipe[1]);
        buf_free(d);
}

static int pending(const struct dir *d)
{
        return d->pre_len > 0 || d->inpipe > 0 || d->len > 0;
}

/* splice is refused for this pair (EINVAL: a socket type without it):
 * the copy path from now on.  0, or -1 without memory. */
static int to_copy_path(struct dir *d)
{
        dir_free(d);
        d->pipe[0] = d->pipe[1] = -EBADF;
        return buf_alloc(d);
}

static int again(void)
{
        return errno == EAGAIN || errno == EWOULDBLOCK;
}

/* Move what can move now from -> to without blocking.  1 progress, 0 none,
 * -1 the relay is over (an error). */
static int pump(int from, int to, struct dir *d)
{
        int moved = 0;

        for (;;) {
                ssize_t n;

                if (d->pre_len > 0 || d->len > 0) {
                        const char *p = d->pre_len > 0 ? d->pre : d->buf + d->off;
                        size_t len = d->pre_len > 0 ? d->pre_len : d->len;

                        n = send(to, p, len, MSG_NOSIGNAL);
                        if (n > 0) {
                                if (d->pre_len > 0) {
                                        d->pre += n;
                                        d->pre_len -= (size_t) n;
                                } else {
                                        d->off += (size_t) n;
                                        d->len -= (size_t) n;
                                }
                                moved = 1;
                                continue;
                        }
                } else if (d->inpipe > 0) {
                        n = splice(d->pipe[0], NULL, to, NULL, d->inpipe, SPLICE_FLAGS);
                        if (n > 0) {
                                d->inpipe -= (size_t) n;
                                moved = 1;
                                continue;
                        }
                } else if (d->eof) {
                        if (!d->shut) {
                                (void) shutdown(to, SHUT_WR);
                                d->shut = 1;
                                moved = 1;
                        }
                        return moved;
                } else if (d->pipe[0] >= 0) {
                        n = splice(from, NULL, d->pipe[1], NULL, SBX__PROXY_BUF, SPLICE_FLAGS);
                        if (n > 0) {
                                d->inpipe = (size_t) n;
                                moved = 1;
                                continue;
                        }
                        if (n < 0 && errno == EINVAL) {
                                if (to_copy_path(d) < 0)
                                        return -1;
                                continue;
                        }
                } else {
                        if (d->full)
                                buf_grow(d);
                        n = recv(from, d->buf, d->cap, 0);
                        if (n > 0) {
                                d->off = 0;
                                d->len = (size_t) n;
                                d->full = (size_t) n == d->cap;
                                moved = 1;
                                continue;
                        }
                }
                if (n == 0) {                   /* only a read returns 0: the end */
                        d->eof = 1;
                        continue;
                }
                if (errno == EINTR)
                        continue;
                return again() ? moved : -1;
        }
}

/* The events a socket waits for: input when the direction it feeds is
 * empty, output when the direction towards it holds bytes. */
static short want(const struct dir *in, const struct dir *out)
{
        short ev = 0;

        if (!pending(in) && !in->eof)
                ev |= POLLIN;
        if (pending(out))
                ev |= POLLOUT;
        return ev;
}

void sbx__proxy_relay(int a, int b, int cancel_fd, uint32_t idle_ms, int copy,
                      const char *a_to_b, size_t a_to_b_len, const char *b_to_a,
                      size_t b_to_a_len)
{
        struct dir ab, ba;
        short ra = POLLIN | POLLOUT, rb = POLLIN | POLLOUT;
        int one = 1, ok;

        ok = dir_init(&ab, a_to_b, a_to_b_len, copy) == 0;
        ok = dir_init(&ba, b_to_a, b_to_a_len, copy) == 0 && ok;
        if (!ok)
                goto out;
        (void) setsockopt(a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        for (;;) {
                struct pollfd p[3];
                int n;

                /* A direction moves when poll said its source has input
                 * or its destination room (both, the first time): a
                 * read bound to fail is a system call a bulk stream pays
                 * for each chunk. */
                if (((ra & ~POLLOUT) != 0 || (rb & POLLOUT) != 0) && pump(a, b, &ab) < 0)
                        break;
                if (((rb & ~POLLOUT) != 0 || (ra & POLLOUT) != 0) && pump(b, a, &ba) < 0)
                        break;
                if (ab.shut && ba.shut)
                        break;                  /* both directions ended */
                /* A socket with nothing to do now is left out: poll would
                 * report its hang-up again and again. */
                p[0].events = want(&ab, &ba);
                p[0].fd = p[0].events != 0 ? a : -1;
                p[1].events = want(&ba, &ab);
                p[1].fd = p[1].events != 0 ? b : -1;
                p[2].fd = cancel_fd;
                p[2].events = POLLIN;
                p[0].revents = p[1].revents = p[2].revents = 0;
                n = poll(p, 3, idle_ms > INT32_MAX ? -1 : (int) idle_ms);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0 || p[2].revents != 0)
                        break;                  /* error, idle, or cut */
                if ((p[0].revents | p[1].revents) & POLLNVAL)
                        break;
                ra = p[0].revents;
                rb = p[1].revents;
        }
out:
        dir_free(&ab);
        dir_free(&ba);
}
