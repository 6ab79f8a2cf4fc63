/*
 * The egress proxy engine on real sockets (src/net/proxy.c, conn.c,
 * relay.c, resolve.c).  Every socket is on 127.0.0.1 or ::1; every wait
 * is bounded.  The TLS case runs the openssl command-line tool (Debian
 * package "openssl"); without it the case skips, or fails under
 * SBX_REQUIRE_ALL=1.
 */
#include "unit/sbx_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"
#include "net/proxy_internal.h"

extern char **environ;

#define IO_TIMEOUT_S 10

/* ---------------------------------------------------------------- sockets */

static int count_dir(const char *path)
{
        DIR *d = opendir(path);
        struct dirent *de;
        int n = 0;

        if (d == NULL)
                return -1;
        while ((de = readdir(d)) != NULL)
                n += de->d_name[0] != '.';
        (void) closedir(d);
        return n - 1;                           /* the DIR's own fd, or nothing */
}

static void sleep_ms(int ms)
{
        struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };

        (void) nanosleep(&ts, NULL);
}

static void set_timeouts(int fd)
{
        struct timeval tv = { IO_TIMEOUT_S, 0 };

        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

/* A listener on 127.0.0.1 (or ::1) and an ephemeral port. */
static int listen_lo(int v6, uint16_t *port)
{
        struct sockaddr_storage ss;
        socklen_t sl;
        int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        memset(&ss, 0, sizeof(ss));
        if (v6) {
                struct sockaddr_in6 *a = (struct sockaddr_in6 *) &ss;

                a->sin6_family = AF_INET6;
                a->sin6_addr = in6addr_loopback;
                sl = sizeof(*a);
        } else {
                struct sockaddr_in *a = (struct sockaddr_in *) &ss;

                a->sin_family = AF_INET;
                a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                sl = sizeof(*a);
        }
        if (bind(fd, (struct sockaddr *) &ss, sl) < 0 || listen(fd, 16) < 0) {
                (void) close(fd);
                return -1;
        }
        assert_int_equal(getsockname(fd, (struct sockaddr *) &ss, &sl), 0);
        *port = ntohs(v6 ? ((struct sockaddr_in6 *) &ss)->sin6_port
                         : ((struct sockaddr_in *) &ss)->sin_port);
        return fd;
}

static int connect_lo(uint16_t port)
{
        struct sockaddr_in a;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        memset(&a, 0, sizeof(a));
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(port);
        if (connect(fd, (struct sockaddr *) &a, sizeof(a)) < 0) {
                (void) close(fd);
                return -1;
        }
        set_timeouts(fd);
        return fd;
}

/* A port nothing listens on (bound, then closed). */
static uint16_t dead_port(void)
{
        uint16_t port = 0;
        int fd = listen_lo(0, &port);

        (void) close(fd);
        return port;
}

static void send_str(int fd, const char *s)
{
        size_t n = strlen(s);

        while (n > 0) {
                ssize_t w = send(fd, s, n, MSG_NOSIGNAL);

                assert_true(w > 0);
                s += w;
                n -= (size_t) w;
        }
}

/* Read until EOF (or the timeout, or max - 1 bytes); NUL-terminated. */
static size_t recv_all(int fd, char *buf, size_t max)
{
        size_t len = 0;

        while (len + 1 < max) {
                ssize_t n = recv(fd, buf + len, max - 1 - len, 0);

                if (n <= 0)
                        break;
                len += (size_t) n;
        }
        buf[len] = '\0';
        return len;
}

/* Read up to the end of a head; its length (0 at EOF first). */
static size_t recv_head(int fd, char *buf, size_t max)
{
        size_t len = 0;

        while (len + 1 < max) {
                ssize_t n = recv(fd, buf + len, 1, 0);

                if (n <= 0)
                        break;
                len++;
                buf[len] = '\0';
                if (len >= 4 && memcmp(buf + len - 4, "\r\n\r\n", 4) == 0)
                        return len;
        }
        buf[len] = '\0';
        return 0;
}

static int status_of(const char *head)
{
        return strncmp(head, "HTTP/1.1 ", 9) == 0 ? atoi(head + 9) : -1;
}

/* Nothing waits on the listener (nobody connected to it). */
static int nothing_pending(int lfd)
{
        struct pollfd p = { lfd, POLLIN, 0 };

        return poll(&p, 1, 300) == 0;
}

/* --------------------------------------------------------- test servers */

enum { ORIGIN_ECHO, ORIGIN_HTTP };

/* A server for one connection on 127.0.0.1, in a thread. */
struct origin {
        int       lfd;
        uint16_t  port;
        int       mode;
        pthread_t thread;
        int       accepted;
        char      head[4096];           /* ORIGIN_HTTP: the request head it got */
};

static void *origin_main(void *arg)
{
        struct origin *o = arg;
        struct pollfd p = { o->lfd, POLLIN, 0 };
        char buf[4096];
        int fd;

        if (poll(&p, 1, IO_TIMEOUT_S * 1000) != 1)
                return NULL;
        fd = accept4(o->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
                return NULL;
        o->accepted = 1;
        set_timeouts(fd);
        if (o->mode == ORIGIN_HTTP) {
                static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
                                           "Connection: close\r\n\r\nhello";

                if (recv_head(fd, o->head, sizeof(o->head)) > 0)
                        (void) send(fd, resp, sizeof(resp) - 1, MSG_NOSIGNAL);
        } else {
                for (;;) {
                        ssize_t n = recv(fd, buf, sizeof(buf), 0);

                        if (n <= 0 || send(fd, buf, (size_t) n, MSG_NOSIGNAL) != n)
                                break;
                }
        }
        (void) close(fd);
        return NULL;
}

static void origin_start(struct origin *o, int mode)
{
        memset(o, 0, sizeof(*o));
        o->mode = mode;
        o->lfd = listen_lo(0, &o->port);
        assert_true(o->lfd >= 0);
        assert_int_equal(pthread_create(&o->thread, NULL, origin_main, o), 0);
}

static void origin_join(struct origin *o)
{
        (void) pthread_join(o->thread, NULL);
        (void) close(o->lfd);
}

/* A tiny upstream organisation proxy: one CONNECT, checked for its own
 * credential, relayed to 127.0.0.1:origin_port whatever it names. */
struct upstream {
        int       lfd;
        uint16_t  port, origin_port;
        int       answer;               /* 200, or the refusal to give */
        pthread_t thread;
        char      head[4096];
};

static void relay2(int a, int b)
{
        char buf[16384];

        for (;;) {
                struct pollfd p[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
                int i;

                if (poll(p, 2, IO_TIMEOUT_S * 1000) <= 0)
                        return;
                for (i = 0; i < 2; i++) {
                        if (p[i].revents == 0)
                                continue;
                        ssize_t n = recv(p[i].fd, buf, sizeof(buf), 0);

                        if (n <= 0 || send(p[1 - i].fd, buf, (size_t) n, MSG_NOSIGNAL) != n)
                                return;
                }
        }
}

static void *upstream_main(void *arg)
{
        struct upstream *u = arg;
        struct pollfd p = { u->lfd, POLLIN, 0 };
        char resp[128];
        int fd, ofd;

        if (poll(&p, 1, IO_TIMEOUT_S * 1000) != 1)
                return NULL;
        fd = accept4(u->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
                return NULL;
        set_timeouts(fd);
        if (recv_head(fd, u->head, sizeof(u->head)) > 0) {
                int ok = u->answer == 200 &&
                         strstr(u->head, "Proxy-Authorization: Basic dXA6dXBzZWNyZXQ=\r\n");

                (void) snprintf(resp, sizeof(resp), "HTTP/1.1 %d %s\r\n\r\n", ok ? 200 : 403,
                                ok ? "Connection established" : "Forbidden");
                ofd = ok ? connect_lo(u->origin_port) : -1;
                (void) send(fd, resp, strlen(resp), MSG_NOSIGNAL);
                if (ofd >= 0) {
                        relay2(fd, ofd);
                        (void) close(ofd);
                }
        }
        (void) close(fd);
        return NULL;
}

static void upstream_start(struct upstream *u, uint16_t origin_port, int answer)
{
        memset(u, 0, sizeof(*u));
        u->origin_port = origin_port;
        u->answer = answer;
        u->lfd = listen_lo(0, &u->port);
        assert_true(u->lfd >= 0);
        assert_int_equal(pthread_create(&u->thread, NULL, upstream_main, u), 0);
}

static void upstream_join(struct upstream *u)
{
        (void) pthread_join(u->thread, NULL);
        (void) close(u->lfd);
}

/* --------------------------------------------------------------- the proxy */

/* A resolver for names no DNS has: what they resolve to is refused by
 * class, so nothing here is ever dialled. */
static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slow_cond = PTHREAD_COND_INITIALIZER;
static int slow_done;

static int fake_resolve(const char *host, struct sbx__net_addr *out, size_t max, size_t *n,
                        void *ud)
{
        static const struct { const char *name, *addrs[2]; } names[] = {
                { "metadata.test", { "169.254.169.254", NULL } },
                { "private.test",  { "10.0.0.1", NULL } },
                { "mixed.test",    { "10.0.0.1", "127.0.0.1" } },
                { "unspec.test",   { "0.0.0.0", NULL } },
        };
        size_t i, k;

        if (strcmp(host, "slow.test") == 0) {
                struct timespec ts;

                (void) clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_sec += 5;
                (void) pthread_mutex_lock(&slow_lock);
                while (!slow_done &&
                       pthread_cond_timedwait(&slow_cond, &slow_lock, &ts) != ETIMEDOUT)
                        ;
                (void) pthread_mutex_unlock(&slow_lock);
                return -ENOENT;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(names); i++) {
                if (strcmp(host, names[i].name) != 0)
                        continue;
                for (k = 0; k < 2 && names[i].addrs[k] != NULL && k < max; k++)
                        if (sbx__net_addr_parse(names[i].addrs[k], strlen(names[i].addrs[k]),
                                                &out[k]) < 0)
                                return -EINVAL;
                *n = k;
                return 0;
        }
        if (strcmp(host, "localhost") == 0)
                return sbx__net_getaddrinfo(host, out, max, n, ud);
        return -ENOENT;                         /* never the real DNS */
}

struct px {
        struct sbx__proxy_engine *e;
        struct sbx__proxy_exec   *x;
        int                       lfd;          /* the "integrator's" listener */
        uint16_t                  port;
        char                      auth[256];    /* "Basic ..." */
};

static void px_exec(struct px *p, const char *const *rules, const struct sbx__net_upstream *up)
{
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        struct sbx__proxy_config cfg;
        sbx_error e = { 0, 0, { 0 } };

        for (; rules != NULL && *rules != NULL; rules++)
                assert_int_equal(sbx__net_rules_add(&rs, *rules, NULL), SBX_OK);
        cfg.rules = &rs;
        cfg.upstream = up;
        cfg.token = NULL;
        p->lfd = listen_lo(0, &p->port);
        assert_true(p->lfd >= 0);
        if (sbx__proxy_exec_new(p->e, &cfg, p->lfd, &p->x, &e) != SBX_OK)
                fail_msg("%s", e.message);
        sbx__net_rules_clear(&rs);
        assert_true(sbx__http_basic(SBX__PROXY_USER, sbx__proxy_exec_token(p->x), p->auth,
                                    sizeof(p->auth)) > 0);
}

static void px_start(struct px *p, const struct sbx__proxy_limits *lim, const char *const *rules,
                     const struct sbx__net_upstream *up)
{
        memset(p, 0, sizeof(*p));
        assert_int_equal(sbx__proxy_engine_new(lim, &p->e, NULL), SBX_OK);
        px_exec(p, rules, up);
}

static void px_release(struct px *p)
{
        sbx__proxy_exec_release(p->x);
        p->x = NULL;
        (void) close(p->lfd);
}

static void px_stop(struct px *p)
{
        if (p->x != NULL)
                px_release(p);
        sbx__proxy_engine_free(p->e);
}

/* CONNECT target through p with the credential (auth NULL: none).  The
 * status; *fd the connection (closed unless 200). */
static int px_connect(const struct px *p, const char *target, const char *auth, int *fd,
                      char *head, size_t headsz)
{
        char req[1024];
        int c = connect_lo(p->port), st;

        assert_true(c >= 0);
        (void) snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%s\r\n",
                        target, target, auth ? "Proxy-Authorization: " : "", auth ? auth : "",
                        auth ? "\r\n" : "");
        send_str(c, req);
        if (recv_head(c, head, headsz) == 0) {
                (void) close(c);
                return -1;
        }
        st = status_of(head);
        if (st != 200) {
                size_t hl = strlen(head);

                (void) recv_all(c, head + hl, headsz - hl);     /* the body too */
                (void) close(c);
                c = -1;
        }
        *fd = c;
        return st;
}

static void echo_check(int fd, const char *msg)
{
        char buf[256];
        size_t n = strlen(msg), got = 0;

        send_str(fd, msg);
        while (got < n) {
                ssize_t r = recv(fd, buf + got, n - got, 0);

                assert_true(r > 0);
                got += (size_t) r;
        }
        assert_memory_equal(buf, msg, n);
}

static size_t events(const struct px *p, struct sbx__net_event *ev, size_t max)
{
        return sbx__proxy_exec_events(p->x, ev, max, NULL);
}

/* ------------------------------------------------------------------ tests */

static void test_proxy__forward_request_reaches_granted_origin(void **state)
{
        struct origin o;
        struct px p;
        char rule[64], req[1024], resp[2048];
        const char *rules[] = { rule, NULL };
        struct sbx__net_event ev[4];
        int c;
        (void) state;

        origin_start(&o, ORIGIN_HTTP);
        (void) snprintf(rule, sizeof(rule), "127.0.0.1:%u", o.port);
        px_start(&p, NULL, rules, NULL);
        c = connect_lo(p.port);
        (void) snprintf(req, sizeof(req), "GET http://127.0.0.1:%u/a/b?c=1 HTTP/1.1\r\n"
                        "Host: 127.0.0.1:%u\r\nProxy-Authorization: %s\r\n"
                        "Proxy-Connection: keep-alive\r\nUser-Agent: sbx-test\r\n\r\n",
                        o.port, o.port, p.auth);
        send_str(c, req);
        (void) recv_all(c, resp, sizeof(resp));
        (void) close(c);
        origin_join(&o);
        assert_int_equal(status_of(resp), 200);
        assert_non_null(strstr(resp, "\r\n\r\nhello"));
        (void) snprintf(req, sizeof(req), "Host: 127.0.0.1:%u\r\n", o.port);
        assert_true(strncmp(o.head, "GET /a/b?c=1 HTTP/1.1\r\n", 23) == 0);
        assert_non_null(strstr(o.head, req));
        assert_non_null(strstr(o.head, "User-Agent: sbx-test\r\n"));
        assert_non_null(strstr(o.head, "Connection: close\r\n"));
        assert_null(strstr(o.head, "Proxy-"));
        assert_null(strstr(o.head, sbx__proxy_exec_token(p.x)));
        assert_int_equal(events(&p, ev, 4), 0);
        px_stop(&p);
}

static void tunnel_both_ways(const struct sbx__proxy_limits *lim)
{
        struct origin o;
        struct px p;
        /* More than the largest relay buffer (SBX__PROXY_BUF_MAX), so the
         * buffers grow while bytes are in flight both ways. */
        enum { BIG = 3 * SBX__PROXY_BUF_MAX + 12345 };
        char rule[64], target[64], head[1024], *big = malloc(BIG), *back = malloc(BIG);
        const char *rules[] = { rule, NULL };
        size_t i, got = 0;
        int c;

        assert_non_null(big);
        assert_non_null(back);
        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(rule, sizeof(rule), "127.0.0.1:%u", o.port);
        (void) snprintf(target, sizeof(target), "127.0.0.1:%u", o.port);
        px_start(&p, lim, rules, NULL);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 200);
        echo_check(c, "ping");
        /* Both ways at once (the echo answers as it reads). */
        for (i = 0; i < (size_t) BIG; i++)
                big[i] = (char) (i * 7);
        {
                size_t sent = 0;

                while (got < (size_t) BIG) {
                        struct pollfd pf = { c, POLLIN | (sent < (size_t) BIG ? POLLOUT : 0), 0 };
                        ssize_t n;

                        assert_int_equal(poll(&pf, 1, IO_TIMEOUT_S * 1000), 1);
                        if ((pf.revents & POLLOUT) && sent < (size_t) BIG) {
                                n = send(c, big + sent, (size_t) BIG - sent,
                                         MSG_NOSIGNAL | MSG_DONTWAIT);
                                if (n > 0)
                                        sent += (size_t) n;
                        }
                        if (pf.revents & POLLIN) {
                                n = recv(c, back + got, (size_t) BIG - got, MSG_DONTWAIT);
                                assert_true(n > 0 || errno == EAGAIN);
                                if (n > 0)
                                        got += (size_t) n;
                        }
                }
        }
        assert_memory_equal(big, back, (size_t) BIG);
        free(big);
        free(back);
        /* Half-close: the origin sees EOF, echoes nothing more, closes. */
        assert_int_equal(shutdown(c, SHUT_WR), 0);
        assert_int_equal(recv(c, head, sizeof(head), 0), 0);
        (void) close(c);
        origin_join(&o);
        px_stop(&p);
}

static void test_proxy__connect_tunnel_relays_both_ways(void **state)
{
        (void) state;
        tunnel_both_ways(NULL);
}

static void test_proxy__splice_relay_relays_both_ways(void **state)
{
        struct sbx__proxy_limits lim;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.relay_splice = 1;
        tunnel_both_ways(&lim);
}

static void test_proxy__ungranted_host_is_403_naming_it(void **state)
{
        const char *rules[] = { "registry.npmjs.org:443", NULL };
        struct sbx__net_event ev[4];
        struct px p;
        char head[2048];
        int c;
        (void) state;

        px_start(&p, NULL, rules, NULL);
        assert_int_equal(px_connect(&p, "Evil.Example:443", p.auth, &c, head, sizeof(head)),
                         403);
        assert_non_null(strstr(head, "evil.example:443 refused"));
        assert_non_null(strstr(head, "no allowlist entry"));
        assert_int_equal(px_connect(&p, "registry.npmjs.org:80", p.auth, &c, head, sizeof(head)),
                         403);
        assert_int_equal(events(&p, ev, 4), 2);
        assert_int_equal(ev[0].reason, SBX__NET_R_NOT_ALLOWED);
        assert_int_equal(ev[0].status, 403);
        assert_string_equal(ev[0].host, "evil.example");
        assert_int_equal(ev[0].port, 443);
        assert_true(ev[0].time_ms > 0);
        assert_string_equal(ev[1].host, "registry.npmjs.org");
        assert_int_equal(ev[1].port, 80);
        px_stop(&p);
}

static void test_proxy__loopback_name_needs_the_address_or_class(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct origin o;
        struct px p;
        char r1[64], r2[64], target[64], head[2048];
        const char *by_name[] = { r1, NULL };
        const char *by_literal[] = { r1, r2, NULL };
        const char *by_class[] = { r2, NULL };
        int c;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(r1, sizeof(r1), "localhost:%u", o.port);
        (void) snprintf(target, sizeof(target), "localhost:%u", o.port);

        /* The name alone: it resolves to loopback, refused, never dialled. */
        px_start(&p, &lim, by_name, NULL);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 403);
        assert_non_null(strstr(head, "resolves to 127.0.0.1, a loopback address"));
        (void) snprintf(r2, sizeof(r2), "127.0.0.1:%u", o.port);
        assert_non_null(strstr(head, r2));      /* how to allow it */
        assert_true(nothing_pending(o.lfd));
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_ADDRESS);
        assert_int_equal(ev[0].addr_class, SBX__NET_LOOPBACK);
        assert_string_equal(ev[0].addr, "127.0.0.1");
        assert_string_equal(ev[0].host, "localhost");
        px_release(&p);

        /* The name and the address literal: dialled. */
        px_exec(&p, by_literal, NULL);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 200);
        echo_check(c, "by literal");
        (void) close(c);
        origin_join(&o);
        px_release(&p);

        /* The name with +loopback: dialled. */
        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(r2, sizeof(r2), "localhost:%u+loopback", o.port);
        (void) snprintf(target, sizeof(target), "localhost:%u", o.port);
        px_exec(&p, by_class, NULL);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 200);
        echo_check(c, "by class");
        (void) close(c);
        origin_join(&o);
        px_stop(&p);
}

static void test_proxy__private_and_metadata_names_refused(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[8];
        struct origin o;
        struct px p;
        char mixed[64], lit[64], target[64], head[2048];
        const char *rules[] = { "metadata.test:80+link-local", "private.test:5432",
                                "unspec.test:80+loopback", "nx.test:80", mixed, lit, NULL };
        int c;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(mixed, sizeof(mixed), "mixed.test:%u", o.port);
        (void) snprintf(lit, sizeof(lit), "127.0.0.1:%u", o.port);
        px_start(&p, &lim, rules, NULL);
        assert_int_equal(px_connect(&p, "metadata.test:80", p.auth, &c, head, sizeof(head)), 403);
        assert_non_null(strstr(head, "169.254.169.254, a metadata address"));
        assert_non_null(strstr(head, "metadata.test:80+metadata"));
        assert_int_equal(px_connect(&p, "private.test:5432", p.auth, &c, head, sizeof(head)),
                         403);
        assert_non_null(strstr(head, "10.0.0.1, a private address"));
        assert_int_equal(px_connect(&p, "unspec.test:80", p.auth, &c, head, sizeof(head)), 403);
        assert_non_null(strstr(head, "never dialled"));
        assert_int_equal(px_connect(&p, "nx.test:80", p.auth, &c, head, sizeof(head)), 502);
        assert_non_null(strstr(head, "cannot resolve nx.test: no such name"));
        /* A name with a private and a named address: only the named one is
         * dialled. */
        (void) snprintf(target, sizeof(target), "mixed.test:%u", o.port);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 200);
        echo_check(c, "mixed");
        (void) close(c);
        origin_join(&o);
        assert_int_equal(events(&p, ev, 8), 4);
        assert_int_equal(ev[0].addr_class, SBX__NET_METADATA);
        assert_int_equal(ev[1].addr_class, SBX__NET_PRIVATE);
        assert_int_equal(ev[2].addr_class, SBX__NET_UNSPECIFIED);
        assert_int_equal(ev[3].reason, SBX__NET_R_RESOLVE);
        assert_int_equal(ev[3].status, 502);
        px_stop(&p);
}

static void test_proxy__credential_is_required(void **state)
{
        const char *rules[] = { "example.com:443", NULL };
        struct sbx__net_event ev[4];
        struct px p;
        char head[2048], wrong[256], url[256];
        const char *tok;
        struct sbx__proxy_exec *x2;
        int c, lfd2;
        uint16_t port2;
        struct sbx__proxy_config cfg = { NULL, NULL, NULL };
        (void) state;

        px_start(&p, NULL, rules, NULL);
        tok = sbx__proxy_exec_token(p.x);
        assert_int_equal(strlen(tok), 64);
        assert_int_equal(px_connect(&p, "example.com:443", NULL, &c, head, sizeof(head)), 407);
        assert_non_null(strstr(head, "Proxy-Authenticate: Basic"));
        assert_non_null(strstr(head, "no Proxy-Authorization"));
        assert_true(sbx__http_basic(SBX__PROXY_USER, "0000", wrong, sizeof(wrong)) > 0);
        assert_int_equal(px_connect(&p, "example.com:443", wrong, &c, head, sizeof(head)), 407);
        assert_true(sbx__http_basic("other", tok, wrong, sizeof(wrong)) > 0);
        assert_int_equal(px_connect(&p, "example.com:443", wrong, &c, head, sizeof(head)), 407);
        assert_null(strstr(head, tok));
        assert_int_equal(events(&p, ev, 4), 3);
        assert_int_equal(ev[0].reason, SBX__NET_R_AUTH);
        assert_int_equal(ev[0].status, 407);
        assert_string_equal(ev[0].host, "example.com");
        /* Another execution has another credential; its own fails here. */
        lfd2 = listen_lo(0, &port2);
        assert_int_equal(sbx__proxy_exec_new(p.e, &cfg, lfd2, &x2, NULL), SBX_OK);
        assert_string_not_equal(sbx__proxy_exec_token(x2), tok);
        assert_true(sbx__http_basic(SBX__PROXY_USER, sbx__proxy_exec_token(x2), wrong,
                                    sizeof(wrong)) > 0);
        assert_int_equal(px_connect(&p, "example.com:443", wrong, &c, head, sizeof(head)), 407);
        assert_int_equal(sbx__proxy_exec_url(x2, "127.0.0.1:3128", url, sizeof(url), NULL),
                         SBX_OK);
        assert_true(strncmp(url, "http://sbx:", 11) == 0);
        assert_non_null(strstr(url, sbx__proxy_exec_token(x2)));
        assert_non_null(strstr(url, "@127.0.0.1:3128"));
        assert_sbx_fails(sbx__proxy_exec_url(x2, "127.0.0.1:3128", url, 20, err), SBX_E_RANGE,
                         "bufsz");
        sbx__proxy_exec_release(x2);
        (void) close(lfd2);
        /* Not a listening socket. */
        assert_sbx_fails(sbx__proxy_exec_new(p.e, &cfg, 0, &x2, err), SBX_E_INVALID,
                         "listening");
        px_stop(&p);
}

static void test_proxy__malformed_and_bounded_requests(void **state)
{
        struct sbx__proxy_limits lim;
        const char *rules[] = { "example.com", NULL };
        struct sbx__net_event ev[8];
        char head[4096], big[3000];
        struct px p;
        int c;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.head_max = 2048;
        lim.request_timeout_ms = 300;
        px_start(&p, &lim, rules, NULL);
        c = connect_lo(p.port);
        send_str(c, "GET /local HTTP/1.1\r\nHost: x\r\n\r\n");
        (void) recv_all(c, head, sizeof(head));
        (void) close(c);
        assert_int_equal(status_of(head), 400);
        assert_non_null(strstr(head, "origin-form"));
        c = connect_lo(p.port);
        send_str(c, "GET https://example.com/ HTTP/1.1\r\n\r\n");
        (void) recv_all(c, head, sizeof(head));
        (void) close(c);
        assert_int_equal(status_of(head), 400);
        assert_non_null(strstr(head, "CONNECT"));
        /* A head over the limit. */
        c = connect_lo(p.port);
        memset(big, 'a', sizeof(big) - 1);
        big[sizeof(big) - 1] = '\0';
        memcpy(big, "GET http://example.com/", 23);
        send_str(c, big);
        (void) recv_all(c, head, sizeof(head));
        (void) close(c);
        assert_int_equal(status_of(head), 431);
        /* A head that never ends. */
        c = connect_lo(p.port);
        send_str(c, "CONNECT example.com:443 HTTP/1.1\r\n");
        (void) recv_all(c, head, sizeof(head));
        (void) close(c);
        assert_int_equal(status_of(head), 408);
        /* A client that says nothing and leaves: no answer, no event. */
        c = connect_lo(p.port);
        (void) close(c);
        assert_int_equal(events(&p, ev, 8), 4);
        assert_int_equal(ev[0].reason, SBX__NET_R_MALFORMED);
        assert_int_equal(ev[1].reason, SBX__NET_R_UNSUPPORTED);
        assert_string_equal(ev[1].host, "example.com");
        assert_int_equal(ev[2].status, 431);
        assert_int_equal(ev[3].reason, SBX__NET_R_TIMEOUT);
        px_stop(&p);
}

static void test_proxy__slow_resolver_is_bounded(void **state)
{
        struct sbx__proxy_limits lim;
        const char *rules[] = { "slow.test:80", NULL };
        char head[2048];
        struct px p;
        int c;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        lim.resolve_timeout_ms = 200;
        lim.resolvers = 1;
        slow_done = 0;
        px_start(&p, &lim, rules, NULL);
        assert_int_equal(px_connect(&p, "slow.test:80", p.auth, &c, head, sizeof(head)), 502);
        assert_non_null(strstr(head, "timed out"));
        /* The one resolver thread is still busy: the next lookup queues and
         * times out as well, and the execution is released meanwhile. */
        assert_int_equal(px_connect(&p, "slow.test:80", p.auth, &c, head, sizeof(head)), 502);
        (void) pthread_mutex_lock(&slow_lock);
        slow_done = 1;
        (void) pthread_cond_broadcast(&slow_cond);
        (void) pthread_mutex_unlock(&slow_lock);
        px_stop(&p);
}

static void test_proxy__upstream_chaining(void **state)
{
        struct sbx__net_upstream up;
        struct upstream u;
        struct origin o;
        struct px p;
        char upaddr[64], r1[64], target[64], head[2048], req[1024], resp[2048];
        const char *rules[] = { r1, NULL };
        int c;
        (void) state;

        /* CONNECT through the upstream, with its credential, not ours. */
        origin_start(&o, ORIGIN_ECHO);
        upstream_start(&u, o.port, 200);
        (void) snprintf(upaddr, sizeof(upaddr), "127.0.0.1:%u", u.port);
        assert_int_equal(sbx__net_upstream_set(&up, upaddr, "up", "upsecret", NULL), SBX_OK);
        (void) snprintf(r1, sizeof(r1), "localhost:%u", o.port);
        (void) snprintf(target, sizeof(target), "localhost:%u", o.port);
        px_start(&p, NULL, rules, &up);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 200);
        echo_check(c, "via upstream");
        (void) close(c);
        origin_join(&o);
        upstream_join(&u);
        (void) snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\n", target);
        assert_true(strncmp(u.head, req, strlen(req)) == 0);
        assert_null(strstr(u.head, sbx__proxy_exec_token(p.x)));
        px_release(&p);

        /* A forward request goes through the upstream as a CONNECT too. */
        origin_start(&o, ORIGIN_HTTP);
        upstream_start(&u, o.port, 200);
        sbx__net_upstream_clear(&up);
        (void) snprintf(upaddr, sizeof(upaddr), "127.0.0.1:%u", u.port);
        assert_int_equal(sbx__net_upstream_set(&up, upaddr, "up", "upsecret", NULL), SBX_OK);
        (void) snprintf(r1, sizeof(r1), "127.0.0.1:%u", o.port);
        px_exec(&p, rules, &up);
        c = connect_lo(p.port);
        (void) snprintf(req, sizeof(req), "GET http://127.0.0.1:%u/x HTTP/1.1\r\n"
                        "Proxy-Authorization: %s\r\n\r\n", o.port, p.auth);
        send_str(c, req);
        (void) recv_all(c, resp, sizeof(resp));
        (void) close(c);
        origin_join(&o);
        upstream_join(&u);
        assert_int_equal(status_of(resp), 200);
        assert_non_null(strstr(resp, "hello"));
        assert_true(strncmp(o.head, "GET /x HTTP/1.1\r\n", 17) == 0);
        assert_true(strncmp(u.head, "CONNECT 127.0.0.1:", 18) == 0);
        sbx__net_upstream_clear(&up);
        px_stop(&p);
}

static void test_proxy__upstream_failure_never_goes_direct(void **state)
{
        struct sbx__net_upstream up;
        struct sbx__net_event ev[4];
        struct upstream u;
        struct px p;
        char upaddr[64], r1[64], target[64], head[2048];
        const char *rules[] = { r1, NULL };
        uint16_t oport;
        int olfd, c;
        (void) state;

        olfd = listen_lo(0, &oport);
        (void) snprintf(r1, sizeof(r1), "127.0.0.1:%u", oport);
        (void) snprintf(target, sizeof(target), "127.0.0.1:%u", oport);
        /* Nothing listens where the upstream should be. */
        (void) snprintf(upaddr, sizeof(upaddr), "127.0.0.1:%u", dead_port());
        assert_int_equal(sbx__net_upstream_set(&up, upaddr, NULL, NULL, NULL), SBX_OK);
        px_start(&p, NULL, rules, &up);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 502);
        assert_non_null(strstr(head, "unreachable"));
        assert_non_null(strstr(head, "no direct connection"));
        assert_true(nothing_pending(olfd));
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_UPSTREAM);
        assert_int_equal(ev[0].status, 502);
        px_release(&p);
        sbx__net_upstream_clear(&up);

        /* An upstream that refuses (its credential is missing). */
        upstream_start(&u, oport, 200);
        (void) snprintf(upaddr, sizeof(upaddr), "127.0.0.1:%u", u.port);
        assert_int_equal(sbx__net_upstream_set(&up, upaddr, "up", "wrong", NULL), SBX_OK);
        px_exec(&p, rules, &up);
        assert_int_equal(px_connect(&p, target, p.auth, &c, head, sizeof(head)), 502);
        assert_non_null(strstr(head, "answered 403"));
        assert_true(nothing_pending(olfd));
        upstream_join(&u);
        sbx__net_upstream_clear(&up);
        (void) close(olfd);
        px_stop(&p);
}

static void test_proxy__release_cuts_only_its_tunnels(void **state)
{
        struct origin oa, ob;
        struct px a, b;
        char ra[64], rb[64], ta[64], tb[64], head[1024];
        const char *rules_a[] = { ra, NULL };
        const char *rules_b[] = { rb, NULL };
        int ca, cb, c;
        (void) state;

        origin_start(&oa, ORIGIN_ECHO);
        origin_start(&ob, ORIGIN_ECHO);
        (void) snprintf(ra, sizeof(ra), "127.0.0.1:%u", oa.port);
        (void) snprintf(rb, sizeof(rb), "127.0.0.1:%u", ob.port);
        (void) snprintf(ta, sizeof(ta), "127.0.0.1:%u", oa.port);
        (void) snprintf(tb, sizeof(tb), "127.0.0.1:%u", ob.port);
        px_start(&a, NULL, rules_a, NULL);
        b = a;                                  /* the same engine */
        px_exec(&b, rules_b, NULL);
        assert_int_equal(px_connect(&a, ta, a.auth, &ca, head, sizeof(head)), 200);
        assert_int_equal(px_connect(&b, tb, b.auth, &cb, head, sizeof(head)), 200);
        echo_check(ca, "a1");
        echo_check(cb, "b1");
        assert_int_equal(sbx__proxy_exec_active(a.x), 1);
        sbx__proxy_exec_release(a.x);
        a.x = NULL;
        assert_int_equal(recv(ca, head, sizeof(head), 0), 0);  /* cut */
        echo_check(cb, "b2 after a's release");
        assert_int_equal(sbx__proxy_exec_active(b.x), 1);
        /* a's listener is no longer served (the kernel still queues on the
         * caller's own copy, but no one answers). */
        c = connect_lo(a.port);
        {
                struct timeval tv = { 0, 300000 };

                (void) setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        }
        send_str(c, "CONNECT x.y:1 HTTP/1.1\r\n\r\n");
        assert_true(recv(c, head, sizeof(head), 0) < 0);
        (void) close(c);
        (void) close(a.lfd);
        (void) close(ca);
        origin_join(&oa);
        /* The global stop cuts b too. */
        sbx__proxy_engine_free(b.e);
        assert_int_equal(recv(cb, head, sizeof(head), 0), 0);
        (void) close(cb);
        (void) close(b.lfd);
        origin_join(&ob);
}

static void test_proxy__connection_limit_holds(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct origin o1, o2, o3;
        struct px p;
        char r[64], t1[64], t2[64], t3[64], head[1024];
        const char *rules[] = { r, NULL };
        int c1, c2, c3, i;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.max_conns_per_exec = 2;
        origin_start(&o1, ORIGIN_ECHO);
        origin_start(&o2, ORIGIN_ECHO);
        origin_start(&o3, ORIGIN_ECHO);
        (void) snprintf(r, sizeof(r), "127.0.0.1");
        (void) snprintf(t1, sizeof(t1), "127.0.0.1:%u", o1.port);
        (void) snprintf(t2, sizeof(t2), "127.0.0.1:%u", o2.port);
        (void) snprintf(t3, sizeof(t3), "127.0.0.1:%u", o3.port);
        px_start(&p, &lim, rules, NULL);
        assert_int_equal(px_connect(&p, t1, p.auth, &c1, head, sizeof(head)), 200);
        assert_int_equal(px_connect(&p, t2, p.auth, &c2, head, sizeof(head)), 200);
        assert_int_equal(px_connect(&p, t3, p.auth, &c3, head, sizeof(head)), 503);
        assert_true(nothing_pending(o3.lfd));
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_LIMIT);
        (void) close(c1);
        origin_join(&o1);
        for (i = 0; i < 500 && sbx__proxy_exec_active(p.x) > 1; i++)
                sleep_ms(10);
        assert_int_equal(sbx__proxy_exec_active(p.x), 1);
        assert_int_equal(px_connect(&p, t3, p.auth, &c3, head, sizeof(head)), 200);
        echo_check(c3, "third");
        (void) close(c2);
        (void) close(c3);
        origin_join(&o2);
        origin_join(&o3);
        px_stop(&p);
}

static void test_proxy__events_are_bounded(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[8];
        uint64_t dropped = 0;
        char head[1024];
        struct px p;
        int c, i;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.events_max = 3;
        px_start(&p, &lim, NULL, NULL);
        for (i = 0; i < 5; i++)
                assert_int_equal(px_connect(&p, "a.example:1", p.auth, &c, head, sizeof(head)),
                                 403);
        assert_int_equal(sbx__proxy_exec_events(p.x, ev, 8, &dropped), 3);
        assert_int_equal(dropped, 2);
        assert_int_equal(sbx__proxy_exec_events(p.x, ev, 1, &dropped), 1);
        assert_int_equal(dropped, 4);
        px_stop(&p);
}

/* ------------------------------------------------------------- TLS, openssl */

static int have_openssl(void)
{
        return access("/usr/bin/openssl", X_OK) == 0;
}

/* Run argv with stdin/stdout from files (NULL: /dev/null); its pid. */
static pid_t spawn(char *const argv[], const char *in, const char *out)
{
        posix_spawn_file_actions_t fa;
        pid_t pid;
        int r;

        (void) posix_spawn_file_actions_init(&fa);
        (void) posix_spawn_file_actions_addopen(&fa, 0, in ? in : "/dev/null", O_RDONLY, 0);
        (void) posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
                                                O_WRONLY | O_CREAT | O_TRUNC, 0600);
        (void) posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
        r = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
        (void) posix_spawn_file_actions_destroy(&fa);
        return r == 0 ? pid : -1;
}

/* Wait at most timeout_s for pid; its exit status, or -1 (then killed). */
static int wait_bounded(pid_t pid, int timeout_s)
{
        int st, i;

        for (i = 0; i < timeout_s * 100; i++) {
                pid_t w = waitpid(pid, &st, WNOHANG);

                if (w == pid)
                        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
                sleep_ms(10);
        }
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, &st, 0);
        return -1;
}

static void test_proxy__connect_tunnel_carries_tls(void **state)
{
        char dir[] = "/tmp/sbx-net-tls.XXXXXX", key[128], cert[128], in[128], out[128];
        char acc[64], conn[64], proxy[64], rule[64], outbuf[8192];
        const char *rules[] = { rule, NULL };
        struct px p;
        uint16_t port;
        pid_t srv;
        int fd, i, st;
        FILE *f;
        (void) state;

        if (!have_openssl()) {
                if (getenv("SBX_REQUIRE_ALL") != NULL && strcmp(getenv("SBX_REQUIRE_ALL"), "1") == 0)
                        fail_msg("openssl (the Debian package \"openssl\") is required");
                skip();
        }
        assert_non_null(mkdtemp(dir));
        (void) snprintf(key, sizeof(key), "%s/key.pem", dir);
        (void) snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
        (void) snprintf(in, sizeof(in), "%s/in", dir);
        (void) snprintf(out, sizeof(out), "%s/out", dir);
        {
                char *gen[] = { "/usr/bin/openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                                "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1", NULL };

                assert_int_equal(wait_bounded(spawn(gen, NULL, NULL), 30), 0);
        }
        f = fopen(in, "w");
        assert_non_null(f);
        (void) fputs("GET / HTTP/1.0\r\n\r\n", f);
        (void) fclose(f);

        port = dead_port();
        (void) snprintf(acc, sizeof(acc), "127.0.0.1:%u", port);
        {
                char *srv_argv[] = { "/usr/bin/openssl", "s_server", "-accept", acc, "-cert",
                                     cert, "-key", key, "-www", "-quiet", NULL };

                srv = spawn(srv_argv, NULL, NULL);
                assert_true(srv > 0);
        }
        for (i = 0; i < 400; i++) {             /* until it listens */
                fd = connect_lo(port);
                if (fd >= 0) {
                        (void) close(fd);
                        break;
                }
                sleep_ms(25);
        }
        assert_true(i < 400);

        (void) snprintf(rule, sizeof(rule), "127.0.0.1:%u", port);
        px_start(&p, NULL, rules, NULL);
        (void) snprintf(conn, sizeof(conn), "127.0.0.1:%u", port);
        (void) snprintf(proxy, sizeof(proxy), "127.0.0.1:%u", p.port);
        assert_int_equal(setenv("SBX_TEST_PROXY_PASS", sbx__proxy_exec_token(p.x), 1), 0);
        {
                char *cli[] = { "/usr/bin/openssl", "s_client", "-connect", conn, "-proxy", proxy,
                                "-proxy_user", SBX__PROXY_USER, "-proxy_pass",
                                "env:SBX_TEST_PROXY_PASS", "-CAfile", cert,
                                "-verify_return_error", "-verify_hostname", "localhost",
                                "-servername", "localhost", "-quiet", NULL };

                st = wait_bounded(spawn(cli, in, out), 30);
        }
        (void) unsetenv("SBX_TEST_PROXY_PASS");
        (void) kill(srv, SIGTERM);
        (void) wait_bounded(srv, 10);
        f = fopen(out, "r");
        assert_non_null(f);
        outbuf[fread(outbuf, 1, sizeof(outbuf) - 1, f)] = '\0';
        (void) fclose(f);
        (void) unlink(key);
        (void) unlink(cert);
        (void) unlink(in);
        (void) unlink(out);
        (void) rmdir(dir);
        if (st != 0 || strstr(outbuf, "s_server") == NULL)
                fail_msg("s_client exited %d: %.300s", st, outbuf);
        /* The page came over TLS: s_server -www lists the negotiated cipher. */
        assert_non_null(strstr(outbuf, "Cipher"));
        px_stop(&p);
}

/* --------------------------------------------------------------- the group */

static int fds_before, tasks_before;

static int group_setup(void **state)
{
        (void) state;
        (void) signal(SIGPIPE, SIG_IGN);
        fds_before = count_dir("/proc/self/fd");
        tasks_before = count_dir("/proc/self/task");
        return 0;
}

static int group_teardown(void **state)
{
        int fds = count_dir("/proc/self/fd"), tasks = count_dir("/proc/self/task");

        (void) state;
        if (fds != fds_before || tasks != tasks_before) {
                fprintf(stderr, "leak: %d fds (was %d), %d threads (was %d)\n", fds, fds_before,
                        tasks, tasks_before);
                return -1;
        }
        return 0;
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_proxy__forward_request_reaches_granted_origin),
                cmocka_unit_test(test_proxy__connect_tunnel_relays_both_ways),
                cmocka_unit_test(test_proxy__splice_relay_relays_both_ways),
                cmocka_unit_test(test_proxy__connect_tunnel_carries_tls),
                cmocka_unit_test(test_proxy__ungranted_host_is_403_naming_it),
                cmocka_unit_test(test_proxy__loopback_name_needs_the_address_or_class),
                cmocka_unit_test(test_proxy__private_and_metadata_names_refused),
                cmocka_unit_test(test_proxy__credential_is_required),
                cmocka_unit_test(test_proxy__malformed_and_bounded_requests),
                cmocka_unit_test(test_proxy__slow_resolver_is_bounded),
                cmocka_unit_test(test_proxy__upstream_chaining),
                cmocka_unit_test(test_proxy__upstream_failure_never_goes_direct),
                cmocka_unit_test(test_proxy__release_cuts_only_its_tunnels),
                cmocka_unit_test(test_proxy__connection_limit_holds),
                cmocka_unit_test(test_proxy__events_are_bounded),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
