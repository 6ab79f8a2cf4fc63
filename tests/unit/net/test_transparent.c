/*
 * The egress proxy's transparent mode on real sockets (src/net/
 * transparent.c).  No namespace and no redirect here: the test connects to
 * the transparent listener on 127.0.0.1 itself and says through the
 * engine's origdst hook what the "original destination" was, keyed by
 * the client's source port.  Original destinations in 192.0.2.0/24 are
 * only ever hints the engine must not dial; everything dialled is on
 * 127.0.0.0/8 (test_transparent_dns.c has the DNS answerer).  The
 * real-TLS case runs the openssl tool (skips without it, fails under
 * SBX_REQUIRE_ALL=1).
 */
#include "unit/net/transparent_test.h"

/* ------------------------------------------------------- test origins */

enum { ORIGIN_ECHO, ORIGIN_HTTP, ORIGIN_BANNER };

struct origin {
        int       lfd;
        uint16_t  port;
        int       mode;
        pthread_t thread;
        char      got[4096];            /* the first bytes it read */
        size_t    got_len;
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
        set_timeouts(fd);
        if (o->mode == ORIGIN_BANNER)
                (void) send(fd, "220 hello\r\n", 11, MSG_NOSIGNAL);
        for (;;) {
                ssize_t n = recv(fd, buf, sizeof(buf), 0);

                if (n <= 0)
                        break;
                if (o->got_len + (size_t) n <= sizeof(o->got)) {
                        memcpy(o->got + o->got_len, buf, (size_t) n);
                        o->got_len += (size_t) n;
                }
                if (o->mode == ORIGIN_HTTP) {
                        if (memmem(o->got, o->got_len, "\r\n\r\n", 4) == NULL)
                                continue;
                        (void) send(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                                    "Connection: close\r\n\r\nok", 59, MSG_NOSIGNAL);
                        break;
                }
                if (send(fd, buf, (size_t) n, MSG_NOSIGNAL) != n)
                        break;
        }
        (void) close(fd);
        return NULL;
}

static void origin_start_at(struct origin *o, int mode, const char *ip, uint16_t port)
{
        memset(o, 0, sizeof(*o));
        o->mode = mode;
        o->port = port;
        o->lfd = bound(SOCK_STREAM, ip, &o->port);
        assert_true(o->lfd >= 0);
        assert_int_equal(pthread_create(&o->thread, NULL, origin_main, o), 0);
}

static void origin_start(struct origin *o, int mode)
{
        origin_start_at(o, mode, "127.0.0.1", 0);
}

/* Join it; when nobody connected, a connection of our own ends its wait. */
static void origin_join(struct origin *o)
{
        struct sockaddr_in a;
        socklen_t sl = sizeof(a);

        if (nothing_pending(o->lfd) && getsockname(o->lfd, (struct sockaddr *) &a, &sl) == 0) {
                int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

                (void) connect(c, (struct sockaddr *) &a, sl);
                (void) close(c);
        }
        (void) pthread_join(o->thread, NULL);
        (void) close(o->lfd);
}

/* A connection to the transparent listener whose original destination
 * was ip:port (ip NULL: the lookup fails with rc). */
static int tconnect(const struct tp *p, const char *ip, uint16_t port, int rc)
{
        struct sockaddr_in to = sin_of("127.0.0.1", p->tport), me = sin_of("127.0.0.1", 0);
        socklen_t sl = sizeof(me);
        int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        uint16_t cport;
        struct od *o;

        assert_true(c >= 0);
        assert_int_equal(bind(c, (struct sockaddr *) &me, sizeof(me)), 0);
        assert_int_equal(getsockname(c, (struct sockaddr *) &me, &sl), 0);
        cport = ntohs(me.sin_port);
        (void) pthread_mutex_lock(&od_lock);
        assert_true(od_n < SBX__ARRAY_SIZE(od_tab));
        o = &od_tab[od_n++];
        memset(o, 0, sizeof(*o));
        o->cport = cport;
        o->rc = ip != NULL ? 0 : rc;
        o->port = port;
        if (ip != NULL)
                assert_int_equal(sbx__net_addr_parse(ip, strlen(ip), &o->a), 0);
        (void) pthread_mutex_unlock(&od_lock);
        assert_int_equal(connect(c, (struct sockaddr *) &to, sizeof(to)), 0);
        set_timeouts(c);
        return c;
}

/* A minimal ClientHello (one record) naming sni (NULL: no server_name). */
static size_t client_hello(const char *sni, uint8_t *out, size_t outsz)
{
        size_t n = sni != NULL ? strlen(sni) : 0, ext = sni != NULL ? 9 + n : 0;
        size_t body = 2 + 32 + 1 + 4 + 2 + 2 + ext, o = 0, i;

        assert_true(body + 9 <= outsz);
#define B(v) (out[o++] = (uint8_t) (v))
        B(22); B(3); B(1); B((body + 4) >> 8); B(body + 4);
        B(1); B(0); B(body >> 8); B(body);
        B(3); B(3);
        for (i = 0; i < 32; i++)
                B(i);
        B(0);                                   /* session id */
        B(0); B(2); B(0x13); B(0x01);           /* TLS_AES_128_GCM_SHA256 */
        B(1); B(0);                             /* null compression */
        B(ext >> 8); B(ext);
        if (sni != NULL) {
                B(0); B(0); B((n + 5) >> 8); B(n + 5);
                B((n + 3) >> 8); B(n + 3); B(0); B(n >> 8); B(n);
                memcpy(out + o, sni, n);
                o += n;
        }
#undef B
        return o;
}

/* The client reads a fatal TLS alert `desc`, then the end. */
static void expect_alert(int c, int desc)
{
        uint8_t a[7];
        char rest[16];

        recv_n(c, a, sizeof(a));
        assert_int_equal(a[0], 21);
        assert_int_equal(a[1], 3);
        assert_int_equal(a[3], 0);
        assert_int_equal(a[4], 2);
        assert_int_equal(a[5], 2);
        assert_int_equal(a[6], desc);
        assert_int_equal(recv_all(c, rest, sizeof(rest)), 0);
}

/* ------------------------------------------------------------ TCP tests */

static void test_transparent__sni_reaches_the_named_origin(void **state)
{
        struct origin o;
        struct tp p;
        char rule[64];
        const char *rules[] = { rule, NULL };
        uint8_t hello[512], back[512];
        size_t n;
        int c;
        (void) state;

        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(rule, sizeof(rule), "origin.test:%u+loopback", o.port);
        tp_start(&p, NULL, rules);
        /* The original destination 192.0.2.7 is only a hint: origin.test
         * resolves to 127.0.0.1, which is what is dialled. */
        c = tconnect(&p, "192.0.2.7", o.port, 0);
        n = client_hello("Origin.Test.", hello, sizeof(hello));
        send_all(c, hello, n);
        recv_n(c, back, n);                     /* the ClientHello, replayed and echoed */
        assert_memory_equal(back, hello, n);
        send_all(c, "after", 5);
        recv_n(c, back, 5);
        assert_memory_equal(back, "after", 5);
        (void) close(c);
        origin_join(&o);
        assert_int_equal(events(&p, NULL, 0), 0);
        tp_stop(&p);
}

static void test_transparent__unlisted_sni_gets_an_alert(void **state)
{
        struct origin o;
        struct tp p;
        char rule[64];
        const char *rules[] = { rule, NULL };
        struct sbx__net_event ev[4];
        uint8_t hello[512];
        int c;
        (void) state;

        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(rule, sizeof(rule), "origin.test:%u+loopback", o.port);
        tp_start(&p, NULL, rules);
        c = tconnect(&p, "127.0.0.1", o.port, 0);
        send_all(c, hello, client_hello("evil.test", hello, sizeof(hello)));
        expect_alert(c, 49);                    /* access_denied */
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_NOT_ALLOWED);
        assert_int_equal(ev[0].via, SBX__NET_VIA_TRANSPARENT);
        assert_int_equal(ev[0].status, 0);
        assert_string_equal(ev[0].host, "evil.test");
        assert_int_equal(ev[0].port, o.port);
        /* Another port of an allowed name is refused too. */
        c = tconnect(&p, "127.0.0.1", (uint16_t) (o.port + 1), 0);
        send_all(c, hello, client_hello("origin.test", hello, sizeof(hello)));
        expect_alert(c, 49);
        (void) close(c);
        assert_true(nothing_pending(o.lfd));
        origin_join(&o);
        tp_stop(&p);
}

static void test_transparent__the_original_address_is_a_hint(void **state)
{
        struct origin o, decoy;
        struct tp p;
        char rule[64];
        const char *rules[] = { rule, NULL };
        uint8_t hello[512], back[512];
        size_t n;
        int c;
        (void) state;

        /* A server on 127.0.0.2, same port: the "IP the client chose". */
        origin_start(&o, ORIGIN_ECHO);
        origin_start_at(&decoy, ORIGIN_ECHO, "127.0.0.2", o.port);
        (void) snprintf(rule, sizeof(rule), "origin.test:%u+loopback", o.port);
        tp_start(&p, NULL, rules);
        /* SNI origin.test sent to 127.0.0.2, which is not one of its
         * addresses: dialled at origin.test's own. */
        c = tconnect(&p, "127.0.0.2", o.port, 0);
        n = client_hello("origin.test", hello, sizeof(hello));
        send_all(c, hello, n);
        recv_n(c, back, n);
        (void) close(c);
        origin_join(&o);
        assert_true(nothing_pending(decoy.lfd));
        origin_join(&decoy);
        tp_stop(&p);

        /* two.test is 127.0.0.2 and 127.0.0.1: the original one (127.0.0.1)
         * is dialled first although the resolver put it second. */
        origin_start(&o, ORIGIN_ECHO);
        origin_start_at(&decoy, ORIGIN_ECHO, "127.0.0.2", o.port);
        (void) snprintf(rule, sizeof(rule), "two.test:%u+loopback", o.port);
        tp_start(&p, NULL, rules);
        c = tconnect(&p, "127.0.0.1", o.port, 0);
        n = client_hello("two.test", hello, sizeof(hello));
        send_all(c, hello, n);
        recv_n(c, back, n);
        (void) close(c);
        origin_join(&o);
        assert_true(nothing_pending(decoy.lfd));
        origin_join(&decoy);
        tp_stop(&p);
}

static void test_transparent__address_classes_hold(void **state)
{
        const char *rules[] = { "private.test", "origin.test", NULL };
        struct sbx__net_event ev[4];
        struct origin o;
        struct tp p;
        uint8_t hello[512];
        int c;
        (void) state;

        origin_start(&o, ORIGIN_ECHO);
        tp_start(&p, NULL, rules);
        c = tconnect(&p, "192.0.2.7", 443, 0);
        send_all(c, hello, client_hello("private.test", hello, sizeof(hello)));
        expect_alert(c, 49);
        (void) close(c);
        /* origin.test is loopback, and no rule allows that class. */
        c = tconnect(&p, "192.0.2.7", o.port, 0);
        send_all(c, hello, client_hello("origin.test", hello, sizeof(hello)));
        expect_alert(c, 49);
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 2);
        assert_int_equal(ev[0].reason, SBX__NET_R_ADDRESS);
        assert_string_equal(ev[0].addr, "10.0.0.1");
        assert_int_equal(ev[0].addr_class, SBX__NET_PRIVATE);
        assert_int_equal(ev[1].reason, SBX__NET_R_ADDRESS);
        assert_string_equal(ev[1].addr, "127.0.0.1");
        assert_true(nothing_pending(o.lfd));
        origin_join(&o);
        tp_stop(&p);
}

static void test_transparent__http_host_decides(void **state)
{
        static const char req[] = "GET /x HTTP/1.1\r\nHost: origin.test\r\nX-A: b\r\n\r\n";
        struct sbx__net_event ev[4];
        struct origin o;
        struct tp p;
        char rule[64], resp[2048];
        const char *rules[] = { rule, NULL };
        int c;
        (void) state;

        origin_start(&o, ORIGIN_HTTP);
        (void) snprintf(rule, sizeof(rule), "origin.test:%u+loopback", o.port);
        tp_start(&p, NULL, rules);
        c = tconnect(&p, "192.0.2.7", o.port, 0);
        send_all(c, req, strlen(req));
        (void) recv_all(c, resp, sizeof(resp));
        assert_non_null(strstr(resp, "200 OK"));
        (void) close(c);
        origin_join(&o);
        /* The origin got the request as sent, not rewritten. */
        assert_int_equal(o.got_len, strlen(req));
        assert_memory_equal(o.got, req, strlen(req));

        c = tconnect(&p, "192.0.2.7", o.port, 0);
        send_all(c, "GET / HTTP/1.1\r\nHost: evil.test\r\n\r\n", 36);
        (void) recv_all(c, resp, sizeof(resp));
        (void) close(c);
        assert_non_null(strstr(resp, "HTTP/1.1 403 "));
        assert_non_null(strstr(resp, "evil.test"));
        c = tconnect(&p, "192.0.2.7", o.port, 0);
        send_all(c, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 36);
        (void) recv_all(c, resp, sizeof(resp));
        (void) close(c);
        assert_non_null(strstr(resp, "HTTP/1.1 400 "));
        assert_int_equal(events(&p, ev, 4), 2);
        assert_int_equal(ev[0].reason, SBX__NET_R_NOT_ALLOWED);
        assert_int_equal(ev[0].status, 403);
        assert_string_equal(ev[0].host, "evil.test");
        assert_int_equal(ev[1].reason, SBX__NET_R_MALFORMED);
        assert_string_equal(ev[1].host, "192.0.2.7");   /* the original destination */
        tp_stop(&p);
}

static void test_transparent__other_protocols_need_an_address_rule(void **state)
{
        struct sbx__net_event ev[4];
        struct origin o;
        struct tp p;
        char rule[64], back[64];
        const char *rules[] = { rule, NULL };
        int c;
        (void) state;

        /* Binary first bytes, and a client that waits for the server. */
        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(rule, sizeof(rule), "127.0.0.1:%u", o.port);
        tp_start(&p, NULL, rules);
        c = tconnect(&p, "127.0.0.1", o.port, 0);
        send_all(c, "\x00\x01SSH?", 6);
        recv_n(c, back, 6);
        assert_memory_equal(back, "\x00\x01SSH?", 6);
        (void) close(c);
        origin_join(&o);
        origin_start_at(&o, ORIGIN_BANNER, "127.0.0.1", o.port);
        c = tconnect(&p, "127.0.0.1", o.port, 0);
        recv_n(c, back, 11);                    /* after the peek timeout */
        assert_memory_equal(back, "220 hello\r\n", 11);
        (void) close(c);
        origin_join(&o);
        /* A name rule never admits an address; nor TLS without a name. */
        c = tconnect(&p, "127.0.0.3", o.port, 0);
        send_all(c, "\x00\x01", 2);
        assert_int_equal(recv_all(c, back, sizeof(back)), 0);
        (void) close(c);
        c = tconnect(&p, "127.0.0.3", o.port, 0);
        send_all(c, back, client_hello(NULL, (uint8_t *) back, sizeof(back)));
        expect_alert(c, 49);
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 2);
        assert_int_equal(ev[0].reason, SBX__NET_R_NOT_ALLOWED);
        assert_string_equal(ev[0].host, "127.0.0.3");
        assert_int_equal(ev[1].reason, SBX__NET_R_NOT_ALLOWED);
        tp_stop(&p);
}

static void test_transparent__no_original_destination(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct tp p;
        char buf[16];
        char self[32];
        const char *rules[] = { "origin.test", NULL };
        int c;
        (void) state;

        tp_start(&p, NULL, rules);
        c = tconnect(&p, NULL, 0, -ENOENT);
        assert_int_equal(recv_all(c, buf, sizeof(buf)), 0);
        (void) close(c);
        /* The listener's own address: the client dialled it directly. */
        c = tconnect(&p, "127.0.0.1", p.tport, 0);
        assert_int_equal(recv_all(c, buf, sizeof(buf)), 0);
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 2);
        assert_int_equal(ev[0].reason, SBX__NET_R_ORIGINAL);
        assert_int_equal(ev[1].reason, SBX__NET_R_ORIGINAL);
        (void) snprintf(self, sizeof(self), "127.0.0.1");
        assert_string_equal(ev[1].host, self);
        assert_int_equal(ev[1].port, p.tport);
        tp_stop(&p);

        /* The real SO_ORIGINAL_DST: nothing redirected this connection. */
        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        tp_start(&p, &lim, rules);
        c = tconnect(&p, "127.0.0.1", 1, 0);    /* the hook is not asked */
        assert_int_equal(recv_all(c, buf, sizeof(buf)), 0);
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_ORIGINAL);
        tp_stop(&p);
}

static void test_transparent__malformed_and_slow_clients(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct tp p;
        uint8_t hello[512];
        const char *rules[] = { "origin.test+loopback", NULL };
        size_t n;
        int c;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        lim.origdst = test_origdst;
        lim.peek_timeout_ms = 200;
        lim.request_timeout_ms = 300;
        tp_start(&p, &lim, rules);
        n = client_hello("origin.test", hello, sizeof(hello));
        hello[43] = 3;                          /* an odd cipher suite list */
        c = tconnect(&p, "192.0.2.7", 443, 0);
        send_all(c, hello, n);
        expect_alert(c, 50);                    /* decode_error */
        (void) close(c);
        c = tconnect(&p, "192.0.2.7", 443, 0);
        send_all(c, hello, 5);                  /* a record header, then nothing */
        expect_alert(c, 50);
        (void) close(c);
        n = client_hello("under_score.test", hello, sizeof(hello));
        c = tconnect(&p, "192.0.2.7", 443, 0);
        send_all(c, hello, n);
        expect_alert(c, 50);
        (void) close(c);
        assert_int_equal(events(&p, ev, 4), 3);
        assert_int_equal(ev[0].reason, SBX__NET_R_MALFORMED);
        assert_int_equal(ev[1].reason, SBX__NET_R_TIMEOUT);
        assert_int_equal(ev[2].reason, SBX__NET_R_MALFORMED);
        assert_string_equal(ev[2].host, "192.0.2.7");
        assert_int_equal(ev[2].port, 443);
        tp_stop(&p);
}

static void test_transparent__release_cuts_and_limits_hold(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct origin o;
        struct tp p;
        char rule[64], back[16];
        const char *rules[] = { rule, NULL };
        int c, c2;
        (void) state;

        origin_start(&o, ORIGIN_ECHO);
        (void) snprintf(rule, sizeof(rule), "127.0.0.1:%u", o.port);
        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        lim.origdst = test_origdst;
        lim.max_conns_per_exec = 1;
        tp_start(&p, &lim, rules);
        c = tconnect(&p, "127.0.0.1", o.port, 0);
        send_all(c, "\x01x", 2);
        recv_n(c, back, 2);
        /* Over the limit: closed, no HTTP answer in a stream that is not. */
        c2 = tconnect(&p, "127.0.0.1", o.port, 0);
        assert_int_equal(recv_all(c2, back, sizeof(back)), 0);
        (void) close(c2);
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_LIMIT);
        assert_int_equal(ev[0].via, SBX__NET_VIA_TRANSPARENT);
        assert_int_equal(ev[0].status, 0);
        /* Release cuts the open tunnel. */
        sbx__proxy_exec_release(p.x);
        p.x = NULL;
        assert_int_equal(recv_all(c, back, sizeof(back)), 0);
        (void) close(c);
        origin_join(&o);
        sbx__proxy_engine_free(p.e);
        (void) close(p.plfd);
        (void) close(p.tlfd);
        (void) close(p.dfd);
}

static void test_transparent__arguments(void **state)
{
        const char *rules[] = { "origin.test", NULL };
        struct tp p;
        uint16_t port = 0;
        int u, i, more[SBX__PROXY_TRANSPARENT_MAX];
        (void) state;

        tp_start(&p, NULL, rules);
        assert_sbx_fails(sbx__proxy_exec_transparent(NULL, p.tlfd, p.dfd, err), SBX_E_INVALID,
                         "required");
        assert_sbx_fails(sbx__proxy_exec_transparent(p.x, -1, -1, err), SBX_E_INVALID,
                         "required");
        assert_sbx_fails(sbx__proxy_exec_transparent(p.x, p.dfd, -1, err), SBX_E_INVALID,
                         "tcp_listen_fd");
        assert_sbx_fails(sbx__proxy_exec_transparent(p.x, -1, p.tlfd, err), SBX_E_INVALID,
                         "dns_fd");
        u = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_sbx_fails(sbx__proxy_exec_transparent(p.x, -1, u, err), SBX_E_INVALID,
                         "dns_fd");
        (void) close(u);
        /* Up to the limit of each (one of each is there already). */
        for (i = 0; i < SBX__PROXY_TRANSPARENT_MAX; i++) {
                port = 0;
                more[i] = bound(SOCK_DGRAM, "127.0.0.1", &port);
        }
        for (i = 0; i < SBX__PROXY_TRANSPARENT_MAX - 1; i++)
                assert_int_equal(sbx__proxy_exec_transparent(p.x, -1, more[i], NULL), SBX_OK);
        assert_sbx_fails(sbx__proxy_exec_transparent(p.x, -1, more[i], err), SBX_E_RANGE,
                         "at most");
        for (i = 0; i < SBX__PROXY_TRANSPARENT_MAX; i++)
                (void) close(more[i]);

        tp_stop(&p);
}

/* An upstream proxy for one connection: CONNECT with its credential,
 * then a tunnel to the origin (answer 200), or a refusal. */
struct upstream {
        int       lfd;
        uint16_t  port, origin_port;
        int       answer;
        pthread_t thread;
        char      head[2048];
};

static void *upstream_main(void *arg)
{
        struct upstream *u = arg;
        struct pollfd pf = { u->lfd, POLLIN, 0 };
        size_t len = 0;
        int fd, ofd = -1;

        if (poll(&pf, 1, IO_TIMEOUT_S * 1000) != 1 ||
            (fd = accept4(u->lfd, NULL, NULL, SOCK_CLOEXEC)) < 0)
                return NULL;
        set_timeouts(fd);
        while (len + 1 < sizeof(u->head) && recv(fd, u->head + len, 1, 0) == 1)
                if (++len >= 4 && memcmp(u->head + len - 4, "\r\n\r\n", 4) == 0)
                        break;
        if (u->answer == 200 && strstr(u->head, "Proxy-Authorization: Basic dXA6cHc=\r\n")) {
                struct sockaddr_in a = sin_of("127.0.0.1", u->origin_port);

                ofd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                if (connect(ofd, (struct sockaddr *) &a, sizeof(a)) < 0) {
                        (void) close(ofd);
                        ofd = -1;
                }
        }
        if (ofd >= 0) {
                char buf[4096];

                (void) send(fd, "HTTP/1.1 200 OK\r\n\r\n", 19, MSG_NOSIGNAL);
                for (;;) {
                        struct pollfd p2[2] = { { fd, POLLIN, 0 }, { ofd, POLLIN, 0 } };
                        int k;

                        if (poll(p2, 2, IO_TIMEOUT_S * 1000) <= 0)
                                break;
                        k = p2[0].revents ? 0 : 1;
                        {
                                ssize_t n = recv(p2[k].fd, buf, sizeof(buf), 0);

                                if (n <= 0 || send(p2[1 - k].fd, buf, (size_t) n,
                                                   MSG_NOSIGNAL) != n)
                                        break;
                        }
                }
                (void) close(ofd);
        } else {
                (void) send(fd, "HTTP/1.1 403 Forbidden\r\n\r\n", 26, MSG_NOSIGNAL);
        }
        (void) close(fd);
        return NULL;
}

static void test_transparent__through_the_upstream(void **state)
{
        struct sbx__net_upstream up;
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        struct sbx__proxy_config cfg;
        struct sbx__proxy_exec *x = NULL;
        struct sbx__net_event ev[4];
        struct upstream u;
        struct origin o;
        struct tp p;
        char hp[32], rule[64];
        const char *rules[] = { "nothing.test", NULL };
        uint8_t hello[512], back[512];
        size_t n;
        int c, answer;
        (void) state;

        for (answer = 200; answer <= 403; answer += 203) {
                origin_start(&o, ORIGIN_ECHO);
                memset(&u, 0, sizeof(u));
                u.origin_port = o.port;
                u.answer = answer;
                u.lfd = bound(SOCK_STREAM, "127.0.0.1", &u.port);
                assert_int_equal(pthread_create(&u.thread, NULL, upstream_main, &u), 0);
                /* A second execution on the engine, with the upstream. */
                tp_start(&p, NULL, rules);
                (void) snprintf(hp, sizeof(hp), "127.0.0.1:%u", u.port);
                assert_int_equal(sbx__net_upstream_set(&up, hp, "up", "pw", NULL), SBX_OK);
                (void) snprintf(rule, sizeof(rule), "web.test:%u", o.port);
                assert_int_equal(sbx__net_rules_add(&rs, rule, NULL), SBX_OK);
                cfg.rules = &rs;
                cfg.upstream = &up;
                cfg.token = NULL;
                assert_int_equal(sbx__proxy_exec_new(p.e, &cfg, p.plfd, &x, NULL), SBX_OK);
                sbx__net_rules_clear(&rs);
                sbx__net_upstream_clear(&up);
                sbx__proxy_exec_release(p.x);   /* the first one is not needed */
                p.x = x;
                (void) close(p.tlfd);
                p.tport = 0;
                p.tlfd = bound(SOCK_STREAM, "127.0.0.1", &p.tport);
                assert_int_equal(sbx__proxy_exec_transparent(x, p.tlfd, -1, NULL), SBX_OK);
                /* web.test resolves nowhere here: the upstream resolves it. */
                c = tconnect(&p, "192.0.2.7", o.port, 0);
                n = client_hello("web.test", hello, sizeof(hello));
                send_all(c, hello, n);
                if (answer == 200) {
                        recv_n(c, back, n);
                        assert_memory_equal(back, hello, n);
                        assert_int_equal(events(&p, ev, 4), 0);
                } else {
                        expect_alert(c, 80);            /* internal_error */
                        assert_int_equal(events(&p, ev, 4), 1);
                        assert_int_equal(ev[0].reason, SBX__NET_R_UPSTREAM);
                }
                (void) close(c);
                (void) pthread_join(u.thread, NULL);
                (void) close(u.lfd);
                (void) snprintf(rule, sizeof(rule), "CONNECT web.test:%u HTTP/1.1\r\n", o.port);
                assert_memory_equal(u.head, rule, strlen(rule));
                origin_join(&o);
                tp_stop(&p);
        }
}

/* Real TLS: openssl s_client (which knows nothing of proxies) reaches
 * s_server through the transparent listener by the name it sends. */
static int have_openssl(void)
{
        return access("/usr/bin/openssl", X_OK) == 0;
}

static pid_t spawn(char *const argv[], const char *in, const char *out)
{
        posix_spawn_file_actions_t fa;
        pid_t pid = -1;

        assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
        (void) posix_spawn_file_actions_addopen(&fa, 0, in != NULL ? in : "/dev/null",
                                                O_RDONLY, 0);
        (void) posix_spawn_file_actions_addopen(&fa, 1, out != NULL ? out : "/dev/null",
                                                O_WRONLY | O_CREAT | O_TRUNC, 0600);
        (void) posix_spawn_file_actions_adddup2(&fa, 1, 2);
        if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0)
                pid = -1;
        (void) posix_spawn_file_actions_destroy(&fa);
        return pid;
}

static int wait_bounded(pid_t pid, int timeout_s)
{
        int st = 0, i;

        for (i = 0; i < timeout_s * 20; i++) {
                pid_t r = waitpid(pid, &st, WNOHANG);

                if (r == pid)
                        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                sleep_ms(50);
        }
        (void) kill(pid, SIGKILL);
        (void) waitpid(pid, &st, 0);
        return -1;
}

static void read_file(const char *path, char *buf, size_t max)
{
        FILE *f = fopen(path, "r");

        assert_non_null(f);
        buf[fread(buf, 1, max - 1, f)] = '\0';
        (void) fclose(f);
}

static void test_transparent__real_tls_by_server_name(void **state)
{
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct tp p;
        char dir[] = "/tmp/sbx-tp-XXXXXX", key[64], cert[64], in[64], out[64], acc[32];
        char conn[32], rule[64], outbuf[8192];
        const char *rules[] = { rule, NULL };
        uint16_t port = 0;
        pid_t srv;
        int st, i, fd;
        (void) state;

        if (!have_openssl()) {
                if (getenv("SBX_REQUIRE_ALL") != NULL)
                        fail_msg("the openssl tool is required (SBX_REQUIRE_ALL=1)");
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
                                "-out", cert, "-days", "1", "-subj", "/CN=tls.test",
                                "-addext", "subjectAltName=DNS:tls.test", NULL };

                assert_int_equal(wait_bounded(spawn(gen, NULL, NULL), 30), 0);
        }
        {
                FILE *f = fopen(in, "w");

                assert_non_null(f);
                (void) fputs("GET / HTTP/1.0\r\n\r\n", f);
                (void) fclose(f);
        }
        fd = bound(SOCK_STREAM, "127.0.0.1", &port);
        (void) close(fd);
        (void) snprintf(acc, sizeof(acc), "127.0.0.1:%u", port);
        {
                char *srv_argv[] = { "/usr/bin/openssl", "s_server", "-accept", acc, "-cert",
                                     cert, "-key", key, "-www", "-quiet", NULL };

                srv = spawn(srv_argv, NULL, NULL);
                assert_true(srv > 0);
        }
        for (i = 0; i < 400; i++) {             /* until it listens */
                struct sockaddr_in a = sin_of("127.0.0.1", port);

                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                st = connect(fd, (struct sockaddr *) &a, sizeof(a));
                (void) close(fd);
                if (st == 0)
                        break;
                sleep_ms(25);
        }
        assert_true(i < 400);

        /* Every connection's original destination is 192.0.2.7:port. */
        (void) snprintf(rule, sizeof(rule), "tls.test:%u+loopback", port);
        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        lim.origdst = fixed_origdst;
        lim.origdst_userdata = &port;
        tp_start(&p, &lim, rules);
        (void) snprintf(conn, sizeof(conn), "127.0.0.1:%u", p.tport);
        {
                char *cli[] = { "/usr/bin/openssl", "s_client", "-connect", conn, "-CAfile", cert,
                                "-verify_return_error", "-verify_hostname", "tls.test",
                                "-servername", "tls.test", "-quiet", NULL };

                st = wait_bounded(spawn(cli, in, out), 30);
        }
        read_file(out, outbuf, sizeof(outbuf));
        if (st != 0 || strstr(outbuf, "Cipher") == NULL)
                fail_msg("s_client exited %d: %.300s", st, outbuf);
        /* The same server under a name the rules do not list. */
        {
                char *cli[] = { "/usr/bin/openssl", "s_client", "-connect", conn,
                                "-servername", "evil.test", "-quiet", NULL };

                st = wait_bounded(spawn(cli, in, out), 30);
        }
        read_file(out, outbuf, sizeof(outbuf));
        assert_true(st != 0);
        if (strstr(outbuf, "access denied") == NULL)
                fail_msg("s_client did not report the alert: %.300s", outbuf);
        assert_int_equal(events(&p, ev, 4), 1);
        assert_string_equal(ev[0].host, "evil.test");
        tp_stop(&p);
        (void) kill(srv, SIGTERM);
        (void) wait_bounded(srv, 10);
        (void) unlink(key);
        (void) unlink(cert);
        (void) unlink(in);
        (void) unlink(out);
        (void) rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_transparent__sni_reaches_the_named_origin),
                cmocka_unit_test(test_transparent__unlisted_sni_gets_an_alert),
                cmocka_unit_test(test_transparent__the_original_address_is_a_hint),
                cmocka_unit_test(test_transparent__address_classes_hold),
                cmocka_unit_test(test_transparent__http_host_decides),
                cmocka_unit_test(test_transparent__other_protocols_need_an_address_rule),
                cmocka_unit_test(test_transparent__no_original_destination),
                cmocka_unit_test(test_transparent__malformed_and_slow_clients),
                cmocka_unit_test(test_transparent__release_cuts_and_limits_hold),
                cmocka_unit_test(test_transparent__arguments),
                cmocka_unit_test(test_transparent__through_the_upstream),
                cmocka_unit_test(test_transparent__real_tls_by_server_name),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
