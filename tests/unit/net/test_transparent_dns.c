/*
 * Transparent mode's DNS answerer on real sockets (src/net/transparent.c,
 * dns.c): queries over UDP on 127.0.0.1 to the execution's DNS socket,
 * names resolved by a test resolver (never the real DNS).
 */
#include "unit/net/transparent_test.h"

struct answer {
        int                  rcode;
        uint16_t             id;
        size_t               n;                 /* answers */
        struct sbx__net_addr a[16];
        uint32_t             ttl;
        uint8_t              raw[512];
        size_t               len;
};

/* A query datagram: id, RD, one question (labels as dotted). */
static size_t query(uint8_t *b, uint16_t id, const char *name, unsigned qtype, unsigned qclass)
{
        const char *s = name;
        size_t o = 0;

        b[o++] = (uint8_t) (id >> 8);
        b[o++] = (uint8_t) id;
        b[o++] = 0x01;
        b[o++] = 0x00;
        memcpy(b + o, "\0\1\0\0\0\0\0\0", 8);
        o += 8;
        while (*s != '\0') {
                const char *dot = strchr(s, '.');
                size_t l = dot != NULL ? (size_t) (dot - s) : strlen(s);

                b[o++] = (uint8_t) l;
                memcpy(b + o, s, l);
                o += l;
                s += l + (dot != NULL);
        }
        b[o++] = 0;
        b[o++] = (uint8_t) (qtype >> 8);
        b[o++] = (uint8_t) qtype;
        b[o++] = (uint8_t) (qclass >> 8);
        b[o++] = (uint8_t) qclass;
        return o;
}

static int udp_client(const struct tp *p)
{
        struct sockaddr_in to = sin_of("127.0.0.1", p->dport);
        int u = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        assert_true(u >= 0);
        assert_int_equal(connect(u, (struct sockaddr *) &to, sizeof(to)), 0);
        return u;
}

/* Wait up to ms for the answer on u and parse it: 1, or 0 when none came. */
static int receive(int u, int ms, struct answer *a)
{
        struct pollfd pf = { u, POLLIN, 0 };
        ssize_t n;
        size_t off, i;

        memset(a, 0, sizeof(*a));
        if (poll(&pf, 1, ms) != 1)
                return 0;
        n = recv(u, a->raw, sizeof(a->raw), 0);
        assert_true(n >= 12);
        a->len = (size_t) n;
        a->id = (uint16_t) (a->raw[0] << 8 | a->raw[1]);
        assert_true(a->raw[2] & 0x80);          /* QR */
        a->rcode = a->raw[3] & 15;
        a->n = (size_t) (a->raw[6] << 8 | a->raw[7]);
        off = 12;
        if (a->raw[5] == 1) {                   /* skip the question */
                while (off < a->len && a->raw[off] != 0)
                        off += 1 + a->raw[off];
                off += 5;
        }
        assert_true(a->n <= 16);
        for (i = 0; i < a->n; i++) {
                size_t rdlen;

                assert_true(off + 12 <= a->len);
                assert_int_equal(a->raw[off], 0xc0);
                rdlen = (size_t) (a->raw[off + 10] << 8 | a->raw[off + 11]);
                a->ttl = (uint32_t) a->raw[off + 6] << 24 | (uint32_t) a->raw[off + 7] << 16 |
                         (uint32_t) a->raw[off + 8] << 8 | a->raw[off + 9];
                assert_true(rdlen == 4 || rdlen == 16);
                assert_true(off + 12 + rdlen <= a->len);
                a->a[i].family = rdlen == 4 ? 4 : 6;
                memcpy(a->a[i].b, a->raw + off + 12, rdlen);
                off += 12 + rdlen;
        }
        assert_int_equal(off, a->len);
        return 1;
}

static void ask(int u, uint16_t id, const char *name, unsigned qtype, unsigned qclass,
                struct answer *a)
{
        uint8_t q[300];
        size_t n = query(q, id, name, qtype, qclass);

        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        if (!receive(u, IO_TIMEOUT_S * 1000, a))
                fail_msg("no answer for %s", name);
        assert_int_equal(a->id, id);
}

static void expect_addrs(const struct answer *a, const char *const *want)
{
        size_t i;

        assert_int_equal(a->rcode, SBX__DNS_NOERROR);
        for (i = 0; want[i] != NULL; i++) {
                char t[SBX__NET_ADDR_TEXT];

                assert_true(i < a->n);
                assert_string_equal(sbx__net_addr_format(&a->a[i], t), want[i]);
        }
        assert_int_equal(a->n, i);
        if (i > 0)
                assert_int_equal(a->ttl, SBX__DNS_TTL);
}

static void test_transparent_dns__answers_follow_the_rules(void **state)
{
        static const char *const rules[] = {
                "pub.test:443", "mixed.test:80", "127.0.0.1:80", "metadata.test",
                "*.wild.test", "v6.test+loopback", NULL,
        };
        static const char *const pub4[] = { "93.184.216.34", NULL };
        static const char *const pub6[] = { "2606:2800:220:1::1", NULL };
        static const char *const lo4[] = { "127.0.0.1", NULL }, *const lo6[] = { "::1", NULL };
        static const char *const none[] = { NULL };
        struct sbx__net_event ev[8];
        struct answer a;
        struct tp p;
        int u;
        (void) state;

        tp_start(&p, NULL, rules);
        u = udp_client(&p);
        ask(u, 1, "pub.test", SBX__DNS_A, SBX__DNS_IN, &a);
        expect_addrs(&a, pub4);
        ask(u, 2, "PUB.Test", SBX__DNS_AAAA, SBX__DNS_IN, &a);
        expect_addrs(&a, pub6);
        assert_memory_equal(a.raw + 13, "PUB", 3);      /* the question as asked */
        /* 10.0.0.1 is private: only the address 127.0.0.1:80 names is given. */
        ask(u, 3, "mixed.test", SBX__DNS_A, SBX__DNS_IN, &a);
        expect_addrs(&a, lo4);
        ask(u, 4, "v6.test", SBX__DNS_AAAA, SBX__DNS_IN, &a);
        expect_addrs(&a, lo6);
        ask(u, 5, "v6.test", SBX__DNS_A, SBX__DNS_IN, &a);
        expect_addrs(&a, lo4);
        /* Another type of an admitted name: no records. */
        ask(u, 6, "pub.test", 15 /* MX */, SBX__DNS_IN, &a);
        expect_addrs(&a, none);
        assert_int_equal(events(&p, ev, 8), 0);

        /* A metadata address is never given out (an event says so). */
        ask(u, 7, "metadata.test", SBX__DNS_A, SBX__DNS_IN, &a);
        expect_addrs(&a, none);
        ask(u, 8, "evil.test", SBX__DNS_A, SBX__DNS_IN, &a);
        assert_int_equal(a.rcode, SBX__DNS_NXDOMAIN);
        assert_int_equal(a.n, 0);
        ask(u, 9, "wild.test", SBX__DNS_A, SBX__DNS_IN, &a);   /* not below itself */
        assert_int_equal(a.rcode, SBX__DNS_NXDOMAIN);
        ask(u, 10, "x.wild.test", SBX__DNS_A, SBX__DNS_IN, &a);        /* no such name */
        assert_int_equal(a.rcode, SBX__DNS_NXDOMAIN);
        assert_int_equal(events(&p, ev, 8), 4);
        assert_int_equal(ev[0].reason, SBX__NET_R_ADDRESS);
        assert_int_equal(ev[0].via, SBX__NET_VIA_DNS);
        assert_string_equal(ev[0].host, "metadata.test");
        assert_string_equal(ev[0].addr, "169.254.169.254");
        assert_int_equal(ev[0].addr_class, SBX__NET_METADATA);
        assert_int_equal(ev[1].reason, SBX__NET_R_DNS);
        assert_string_equal(ev[1].host, "evil.test");
        assert_int_equal(ev[1].status, SBX__DNS_NXDOMAIN);
        assert_int_equal(ev[1].port, 0);
        assert_int_equal(ev[2].reason, SBX__NET_R_DNS);
        assert_int_equal(ev[3].reason, SBX__NET_R_RESOLVE);
        assert_string_equal(ev[3].host, "x.wild.test");

        /* Not ours to answer: another class, a name that is no host name. */
        ask(u, 11, "pub.test", SBX__DNS_A, 3 /* CH */, &a);
        assert_int_equal(a.rcode, SBX__DNS_REFUSED);
        ask(u, 12, "_sip._tcp.pub.test", 33 /* SRV */, SBX__DNS_IN, &a);
        assert_int_equal(a.rcode, SBX__DNS_REFUSED);
        ask(u, 13, "93.184.216.34", SBX__DNS_A, SBX__DNS_IN, &a);
        assert_int_equal(a.rcode, SBX__DNS_REFUSED);
        assert_int_equal(events(&p, ev, 8), 4);         /* no events for those */
        (void) close(u);
        tp_stop(&p);
}

static void test_transparent_dns__malformed_queries(void **state)
{
        static const char *const rules[] = { "pub.test", NULL };
        struct answer a;
        struct tp p;
        uint8_t q[300];
        size_t n;
        int u;
        (void) state;

        tp_start(&p, NULL, rules);
        u = udp_client(&p);
        n = query(q, 0x4242, "pub.test", SBX__DNS_A, SBX__DNS_IN);
        q[2] = 0x10;                            /* opcode 2 (STATUS) */
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        assert_true(receive(u, IO_TIMEOUT_S * 1000, &a));
        assert_int_equal(a.rcode, SBX__DNS_NOTIMP);
        assert_int_equal(a.id, 0x4242);
        q[2] = 0x01;
        q[5] = 0;                               /* no question */
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        assert_true(receive(u, IO_TIMEOUT_S * 1000, &a));
        assert_int_equal(a.rcode, SBX__DNS_FORMERR);
        q[5] = 1;
        assert_int_equal(send(u, q, n - 3, 0), (ssize_t) n - 3);       /* cut */
        assert_true(receive(u, IO_TIMEOUT_S * 1000, &a));
        assert_int_equal(a.rcode, SBX__DNS_FORMERR);
        /* A response, or less than a header: no answer at all. */
        q[2] |= 0x80;
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        assert_int_equal(send(u, "\1\2\3\4\5", 5, 0), 5);
        assert_false(receive(u, 300, &a));
        /* ... and the answerer goes on. */
        q[2] = 0x01;
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        assert_true(receive(u, IO_TIMEOUT_S * 1000, &a));
        assert_int_equal(a.rcode, SBX__DNS_NOERROR);
        assert_int_equal(a.n, 1);
        (void) close(u);
        tp_stop(&p);
}

static void test_transparent_dns__slow_lookups_block_nothing(void **state)
{
        static const char *const rules[] = { "slow.test", "pub.test", NULL };
        static const char *const pub4[] = { "93.184.216.34", NULL };
        struct sbx__proxy_limits lim;
        struct sbx__net_event ev[4];
        struct answer a;
        struct tp p;
        uint8_t q[300];
        size_t n;
        int u;
        (void) state;

        memset(&lim, 0, sizeof(lim));
        lim.resolve = fake_resolve;
        lim.origdst = test_origdst;
        lim.resolve_timeout_ms = 500;
        (void) pthread_mutex_lock(&slow_lock);
        slow_done = 0;
        (void) pthread_mutex_unlock(&slow_lock);
        tp_start(&p, &lim, rules);
        u = udp_client(&p);
        n = query(q, 77, "slow.test", SBX__DNS_A, SBX__DNS_IN);
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        ask(u, 78, "pub.test", SBX__DNS_A, SBX__DNS_IN, &a);   /* answered first */
        expect_addrs(&a, pub4);
        assert_true(receive(u, IO_TIMEOUT_S * 1000, &a));      /* then the lookup's end */
        assert_int_equal(a.id, 77);
        assert_int_equal(a.rcode, SBX__DNS_SERVFAIL);
        assert_int_equal(events(&p, ev, 4), 1);
        assert_int_equal(ev[0].reason, SBX__NET_R_RESOLVE);
        assert_int_equal(ev[0].status, SBX__DNS_SERVFAIL);
        /* A lookup still running when the execution is released. */
        n = query(q, 79, "slow.test", SBX__DNS_A, SBX__DNS_IN);
        assert_int_equal(send(u, q, n, 0), (ssize_t) n);
        sleep_ms(50);
        sbx__proxy_exec_release(p.x);
        p.x = NULL;
        (void) pthread_mutex_lock(&slow_lock);
        slow_done = 1;                          /* lets the resolver thread go */
        (void) pthread_cond_broadcast(&slow_cond);
        (void) pthread_mutex_unlock(&slow_lock);
        sbx__proxy_engine_free(p.e);
        (void) close(p.plfd);
        (void) close(p.tlfd);
        (void) close(p.dfd);
        (void) close(u);
}

static void test_transparent_dns__a_second_socket(void **state)
{
        static const char *const rules[] = { "pub.test", NULL };
        static const char *const pub4[] = { "93.184.216.34", NULL };
        struct sockaddr_in6 a6;
        struct answer a;
        struct tp p;
        uint8_t q[300];
        size_t n;
        int d6, u6;
        (void) state;

        /* An IPv6 DNS socket beside the IPv4 one, as the integrator makes
         * for a namespace with both. */
        tp_start(&p, NULL, rules);
        d6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        memset(&a6, 0, sizeof(a6));
        a6.sin6_family = AF_INET6;
        a6.sin6_addr = in6addr_loopback;
        if (d6 < 0 || bind(d6, (struct sockaddr *) &a6, sizeof(a6)) < 0) {
                if (d6 >= 0)
                        (void) close(d6);
                tp_stop(&p);
                skip();                         /* no IPv6 loopback here */
        }
        {
                socklen_t sl = sizeof(a6);

                assert_int_equal(getsockname(d6, (struct sockaddr *) &a6, &sl), 0);
        }
        assert_int_equal(sbx__proxy_exec_transparent(p.x, -1, d6, NULL), SBX_OK);
        (void) close(d6);                       /* the engine has its own */
        u6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_int_equal(connect(u6, (struct sockaddr *) &a6, sizeof(a6)), 0);
        n = query(q, 5, "pub.test", SBX__DNS_A, SBX__DNS_IN);
        assert_int_equal(send(u6, q, n, 0), (ssize_t) n);
        assert_true(receive(u6, IO_TIMEOUT_S * 1000, &a));
        expect_addrs(&a, pub4);
        (void) close(u6);
        tp_stop(&p);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_transparent_dns__answers_follow_the_rules),
                cmocka_unit_test(test_transparent_dns__malformed_queries),
                cmocka_unit_test(test_transparent_dns__slow_lookups_block_nothing),
                cmocka_unit_test(test_transparent_dns__a_second_socket),
        };
        return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
