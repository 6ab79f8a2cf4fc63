/*
 * bench/proxy - the egress proxy (src/net/) against direct loopback
 * connections in the same run, printed as ratios:
 *
 *   throughput   MB/s of one stream sent through a CONNECT tunnel to a
 *                sink on 127.0.0.1, against the same stream sent to the
 *                sink directly (target: at least 80% of direct); also
 *                through an engine relaying with splice(2);
 *   request      one forward request on a new connection (GET
 *                http://127.0.0.1:P/, answered and closed by a tiny
 *                origin) through the proxy, against the same request
 *                straight to the origin: the median, and what the proxy
 *                adds per request;
 *   round trip   one byte echoed on an open tunnel against an open
 *                direct connection.
 *
 * Every socket is on 127.0.0.1.  Not a test: nothing here asserts a
 * time.
 *
 *   bench/proxy [megabytes [requests]]     (default 512 and 2000)
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/net.h"

#include "bench.h"

#define RUNS   9                        /* throughput runs of each kind; the median */
#define CHUNK  (256 * 1024)

enum { SINK, HTTP, ECHO };

struct server {
        int        lfd;
        uint16_t   port;
        int        mode;
        pthread_t  thread;
};

static atomic_int stopping;

static int listen_lo(uint16_t *port)
{
        struct sockaddr_in a;
        socklen_t sl = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd < 0 || bind(fd, (struct sockaddr *) &a, sizeof(a)) < 0 || listen(fd, 128) < 0 ||
            getsockname(fd, (struct sockaddr *) &a, &sl) < 0) {
                perror("listen");
                exit(1);
        }
        *port = ntohs(a.sin_port);
        return fd;
}

static int connect_lo(uint16_t port)
{
        struct sockaddr_in a;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(port);
        if (fd < 0 || connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0) {
                perror("connect");
                exit(1);
        }
        (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
        while (n > 0) {
                ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

                if (w <= 0) {
                        perror("send");
                        exit(1);
                }
                p += w;
                n -= (size_t) w;
        }
}

/* Read through the end of a head ("\r\n\r\n"); 0, or -1 at EOF first. */
static int read_head(int fd, char *buf, size_t max)
{
        size_t len = 0;

        while (len + 1 < max) {
                ssize_t n = recv(fd, buf + len, max - 1 - len, 0);

                if (n <= 0)
                        return -1;
                len += (size_t) n;
                buf[len] = '\0';
                if (strstr(buf, "\r\n\r\n") != NULL)
                        return 0;
        }
        return -1;
}

static void drain(int fd)
{
        char buf[4096];

        while (recv(fd, buf, sizeof(buf), 0) > 0)
                ;
}

static void serve_one(int mode, int fd)
{
        static char buf[CHUNK];
        static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                                   "Connection: close\r\n\r\nok";
        ssize_t n;

        switch (mode) {
        case SINK:                              /* read to EOF, then one byte */
                while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
                        ;
                send_all(fd, "x", 1);
                break;
        case HTTP:
                if (read_head(fd, buf, 4096) == 0)
                        send_all(fd, resp, sizeof(resp) - 1);
                break;
        default:                                /* ECHO */
                while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
                        send_all(fd, buf, (size_t) n);
                break;
        }
        (void) close(fd);
}

static void *server_main(void *arg)
{
        struct server *s = arg;

        while (!atomic_load(&stopping)) {
                struct pollfd p = { s->lfd, POLLIN, 0 };
                int fd, one = 1;

                if (poll(&p, 1, 100) != 1)
                        continue;
                fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
                if (fd < 0)
                        continue;
                (void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                serve_one(s->mode, fd);
        }
        return NULL;
}

static void server_start(struct server *s, int mode)
{
        s->mode = mode;
        s->lfd = listen_lo(&s->port);
        if (pthread_create(&s->thread, NULL, server_main, s) != 0)
                exit(1);
}

/* ------------------------------------------------------------ the proxy */

/* One engine and execution: the default relay (a user-space buffer) or
 * the splice(2) one. */
struct proxy {
        struct sbx__proxy_engine *engine;
        struct sbx__proxy_exec   *exec;
        int                       lfd;
        uint16_t                  port;
        char                      auth[256];
};

static void proxy_start(struct proxy *p, int splice)
{
        struct sbx__net_rules rules = SBX__NET_RULES_INIT;
        struct sbx__proxy_config cfg = { &rules, NULL, NULL };
        struct sbx__proxy_limits lim;
        sbx_error err;

        memset(&lim, 0, sizeof(lim));
        lim.relay_splice = (uint32_t) splice;
        p->lfd = listen_lo(&p->port);
        if (sbx__net_rules_add(&rules, "127.0.0.1", &err) != SBX_OK ||
            sbx__proxy_engine_new(&lim, &p->engine, &err) != SBX_OK ||
            sbx__proxy_exec_new(p->engine, &cfg, p->lfd, &p->exec, &err) != SBX_OK ||
            sbx__http_basic(SBX__PROXY_USER, sbx__proxy_exec_token(p->exec), p->auth,
                            sizeof(p->auth)) == 0) {
                fprintf(stderr, "proxy: %s\n", err.message);
                exit(1);
        }
        sbx__net_rules_clear(&rules);
}

static void proxy_stop(struct proxy *p)
{
        sbx__proxy_exec_release(p->exec);
        sbx__proxy_engine_free(p->engine);
        (void) close(p->lfd);
}

/* A tunnel to 127.0.0.1:port through the proxy. */
static int tunnel(const struct proxy *p, uint16_t port)
{
        char req[512], head[1024];
        int fd = connect_lo(p->port);

        (void) snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u"
                        "\r\nProxy-Authorization: %s\r\n\r\n", port, port, p->auth);
        send_all(fd, req, strlen(req));
        if (read_head(fd, head, sizeof(head)) < 0 || strncmp(head, "HTTP/1.1 200", 12) != 0) {
                fprintf(stderr, "CONNECT failed: %.80s\n", head);
                exit(1);
        }
        return fd;
}

/* Seconds to push mb megabytes down fd and see the sink's byte. */
static double stream(int fd, size_t mb)
{
        static char chunk[CHUNK];
        size_t left = mb * 1024 * 1024;
        double t0 = now_us();
        char c;

        while (left > 0) {
                size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

                send_all(fd, chunk, n);
                left -= n;
        }
        (void) shutdown(fd, SHUT_WR);
        if (recv(fd, &c, 1, 0) != 1) {
                fprintf(stderr, "the sink did not answer\n");
                exit(1);
        }
        (void) close(fd);
        return (now_us() - t0) / 1e6;
}

/* One request on a new connection, straight to the origin (p NULL) or
 * through p; microseconds. */
static double request(uint16_t port, const struct proxy *p)
{
        char req[512], buf[1024];
        double t0 = now_us();
        int fd = connect_lo(p != NULL ? p->port : port);

        if (p != NULL)
                (void) snprintf(req, sizeof(req), "GET http://127.0.0.1:%u/ HTTP/1.1\r\nHost: "
                                "127.0.0.1:%u\r\nProxy-Authorization: %s\r\n\r\n", port, port,
                                p->auth);
        else
                (void) snprintf(req, sizeof(req), "GET / HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                                port);
        send_all(fd, req, strlen(req));
        if (read_head(fd, buf, sizeof(buf)) < 0 || strncmp(buf, "HTTP/1.1 200", 12) != 0) {
                fprintf(stderr, "request failed\n");
                exit(1);
        }
        drain(fd);
        (void) close(fd);
        return now_us() - t0;
}

static double round_trip(int fd)
{
        double t0 = now_us();
        char c = 'x';

        send_all(fd, &c, 1);
        if (recv(fd, &c, 1, 0) != 1)
                exit(1);
        return now_us() - t0;
}

static double median(double *v, size_t n)
{
        qsort(v, n, sizeof(*v), cmp_double);
        return v[n / 2];
}

int main(int argc, char **argv)
{
        size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 512;
        size_t nreq = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000, i;
        struct server sink, http, echo;
        struct proxy ps, pc;
        double td[RUNS], ts[RUNS], tc[RUNS], pr[RUNS], cr[RUNS], *rd, *rp, d, p, c;
        int a, b;

        if (mb == 0 || nreq < 10) {
                fprintf(stderr, "usage: %s [megabytes [requests >= 10]]\n", argv[0]);
                return 2;
        }
        (void) signal(SIGPIPE, SIG_IGN);
        server_start(&sink, SINK);
        server_start(&http, HTTP);
        server_start(&echo, ECHO);
        proxy_start(&ps, 0);
        proxy_start(&pc, 1);

        /* Interleaved, so every kind sees the same machine. */
        for (i = 0; i < RUNS; i++) {
                td[i] = stream(connect_lo(sink.port), mb);
                ts[i] = stream(tunnel(&ps, sink.port), mb);
                tc[i] = stream(tunnel(&pc, sink.port), mb);
        }
        /* The ratio is the median of each round's own ratio: a round's
         * three streams run back to back, so a neighbour that slows the
         * machine for a while slows all three alike. */
        for (i = 0; i < RUNS; i++) {
                pr[i] = td[i] / ts[i];
                cr[i] = td[i] / tc[i];
        }
        d = (double) mb / median(td, RUNS);
        p = (double) mb / median(ts, RUNS);
        c = (double) mb / median(tc, RUNS);
        printf("throughput  direct %7.0f MB/s  tunnel %7.0f MB/s  tunnel/direct %.2f   "
               "(splice relay %7.0f MB/s, %.2f; %zu MB, medians of %d)\n", d, p,
               median(pr, RUNS), c, median(cr, RUNS), mb, RUNS);

        rd = calloc(nreq, sizeof(*rd));
        rp = calloc(nreq, sizeof(*rp));
        if (rd == NULL || rp == NULL)
                return 1;
        for (i = 0; i < nreq; i++) {
                rd[i] = request(http.port, NULL);
                rp[i] = request(http.port, &ps);
        }
        d = median(rd, nreq);
        p = median(rp, nreq);
        printf("request     direct %7.1f us    proxy  %7.1f us    proxy/direct  %.2f   "
               "(+%.1f us per request on a new connection, median of %zu)\n", d, p, p / d,
               p - d, nreq);

        a = connect_lo(echo.port);
        for (i = 0; i < nreq; i++)
                rd[i] = round_trip(a);
        (void) close(a);
        b = tunnel(&ps, echo.port);
        for (i = 0; i < nreq; i++)
                rp[i] = round_trip(b);
        (void) close(b);
        d = median(rd, nreq);
        p = median(rp, nreq);
        printf("round trip  direct %7.1f us    tunnel %7.1f us    tunnel/direct %.2f   "
               "(+%.1f us per echoed byte on an open tunnel, median of %zu)\n", d, p, p / d,
               p - d, nreq);

        proxy_stop(&ps);
        proxy_stop(&pc);
        atomic_store(&stopping, 1);
        (void) pthread_join(sink.thread, NULL);
        (void) pthread_join(http.thread, NULL);
        (void) pthread_join(echo.thread, NULL);
        free(rd);
        free(rp);
        return 0;
}
