/*
 * test_net_dns.c - transparent mode's DNS answerer, the pure part
 * (src/net/dns.c): the query parser, the response, and the two decisions
 * made from the rules (a name admitted on some port; an address that a
 * connection to it on such a port could be dialled at).
 */
#include "unit/sbx_test.h"

#include <stdio.h>

#include "net/net.h"

struct pkt {
        uint8_t b[1024];
        size_t  n;
};

static void put8(struct pkt *p, unsigned v)
{
        assert_true(p->n < sizeof(p->b));
        p->b[p->n++] = (uint8_t) v;
}

static void put16(struct pkt *p, unsigned v)
{
        put8(p, v >> 8);
        put8(p, v);
}

/* A query: id 0x1234, RD, one question for the dotted name (labels as
 * given, "" the root), then an EDNS OPT record when opt. */
static void query(struct pkt *p, const char *name, unsigned qtype, unsigned qclass, int opt)
{
        const char *s = name;

        memset(p, 0, sizeof(*p));
        put16(p, 0x1234);
        put16(p, 0x0100);
        put16(p, 1);
        put16(p, 0);
        put16(p, 0);
        put16(p, opt ? 1 : 0);
        while (*s != '\0') {
                const char *dot = strchr(s, '.');
                size_t l = dot != NULL ? (size_t) (dot - s) : strlen(s);

                put8(p, (unsigned) l);
                memcpy(p->b + p->n, s, l);
                p->n += l;
                s += l + (dot != NULL);
        }
        put8(p, 0);
        put16(p, qtype);
        put16(p, qclass);
        if (opt) {
                put8(p, 0);                     /* root */
                put16(p, 41);                   /* OPT */
                put16(p, 1232);
                put16(p, 0);
                put16(p, 0);
                put16(p, 0);
        }
}

static int parse(const struct pkt *p, struct sbx__dns_query *q)
{
        return sbx__dns_parse_query(p->b, p->n, q);
}

static void test_net_dns__a_query_parses(void **state)
{
        struct pkt p;
        struct sbx__dns_query q;
        (void) state;

        query(&p, "Registry.NPMJS.org", SBX__DNS_A, SBX__DNS_IN, 1);
        assert_int_equal(parse(&p, &q), SBX__DNS_NOERROR);
        assert_int_equal(q.id, 0x1234);
        assert_true(q.has_question);
        assert_true(q.name_ok);
        assert_string_equal(q.name, "Registry.NPMJS.org");
        assert_int_equal(q.qtype, SBX__DNS_A);
        assert_int_equal(q.qclass, SBX__DNS_IN);
        assert_int_equal(q.wire_len, 20);
        assert_memory_equal(q.wire, p.b + 12, 20);

        query(&p, "under_score.example", SBX__DNS_AAAA, SBX__DNS_IN, 0);
        assert_int_equal(parse(&p, &q), SBX__DNS_NOERROR);
        assert_false(q.name_ok);                /* no host name: refused later */
        assert_string_equal(q.name, "");
        query(&p, "", SBX__DNS_A, SBX__DNS_IN, 0);
        assert_int_equal(parse(&p, &q), SBX__DNS_NOERROR);
        assert_false(q.name_ok);
}

static void test_net_dns__malformed_queries(void **state)
{
        struct pkt p;
        struct sbx__dns_query q;
        char name[400];
        size_t i;
        (void) state;

        query(&p, "a.example", SBX__DNS_A, SBX__DNS_IN, 0);
        for (i = 0; i < 12; i++)
                assert_int_equal(sbx__dns_parse_query(p.b, i, &q), -1);
        for (i = 12; i < p.n - 4 + 3; i++)      /* a cut question */
                assert_int_equal(sbx__dns_parse_query(p.b, i, &q), SBX__DNS_FORMERR);
        assert_int_equal(sbx__dns_parse_query(p.b, p.n, &q), SBX__DNS_NOERROR);

        p.b[2] |= 0x80;                         /* a response: never answered */
        assert_int_equal(parse(&p, &q), -1);
        p.b[2] = 0x08 | 0x01;                   /* opcode 1 (IQUERY) */
        assert_int_equal(parse(&p, &q), SBX__DNS_NOTIMP);
        p.b[2] = 0x01;
        p.b[5] = 2;                             /* two questions */
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);
        p.b[5] = 1;
        p.b[7] = 1;                             /* an answer in a query */
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);
        p.b[7] = 0;
        p.b[12] = 0xc0;                         /* a compression pointer */
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);
        p.b[12] = 64;                           /* a label of 64 */
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);

        /* 255 bytes on the wire is the most; 256 is refused. */
        memset(name, 0, sizeof(name));
        for (i = 0; i < 4; i++) {
                memset(name + i * 64, 'a', 63);
                name[i * 64 + 63] = '.';
        }
        name[4 * 64 - 1 - 2] = '\0';            /* 63.63.63.61: 255 on the wire */
        query(&p, name, SBX__DNS_A, SBX__DNS_IN, 0);
        assert_int_equal(parse(&p, &q), SBX__DNS_NOERROR);
        assert_int_equal(q.wire_len, 255);
        assert_int_equal(strlen(q.name), 253);
        name[4 * 64 - 1 - 2] = 'a';             /* 63.63.63.62: 256 */
        name[4 * 64 - 1 - 1] = '\0';
        query(&p, name, SBX__DNS_A, SBX__DNS_IN, 0);
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);
}

static void addr(const char *s, struct sbx__net_addr *a)
{
        assert_int_equal(sbx__net_addr_parse(s, strlen(s), a), 0);
}

static void test_net_dns__responses(void **state)
{
        struct pkt p;
        struct sbx__dns_query q;
        struct sbx__net_addr a[10];
        uint8_t out[512];
        size_t n, i;
        (void) state;

        query(&p, "Files.Example.org", SBX__DNS_A, SBX__DNS_IN, 1);
        assert_int_equal(parse(&p, &q), SBX__DNS_NOERROR);
        addr("93.184.216.34", &a[0]);
        addr("2001:db8::1", &a[1]);
        n = sbx__dns_response(&q, SBX__DNS_NOERROR, a, 2, 5, out, sizeof(out));
        /* header, the question as sent (case kept, no OPT), two answers */
        assert_int_equal(n, 12 + 19 + 4 + (12 + 4) + (12 + 16));
        assert_int_equal(out[0], 0x12);
        assert_int_equal(out[1], 0x34);
        assert_int_equal(out[2], 0x81);         /* QR, RD */
        assert_int_equal(out[3], 0x80);         /* RA, NOERROR */
        assert_int_equal(out[5], 1);
        assert_int_equal(out[7], 2);
        assert_int_equal(out[9] | out[11], 0);
        assert_memory_equal(out + 12, p.b + 12, 19 + 4);
        i = 12 + 19 + 4;
        assert_int_equal(out[i], 0xc0);
        assert_int_equal(out[i + 1], 12);
        assert_int_equal(out[i + 3], SBX__DNS_A);
        assert_int_equal(out[i + 5], SBX__DNS_IN);
        assert_int_equal(out[i + 9], 5);        /* TTL */
        assert_int_equal(out[i + 11], 4);
        assert_memory_equal(out + i + 12, a[0].b, 4);
        i += 16;
        assert_int_equal(out[i + 3], SBX__DNS_AAAA);
        assert_int_equal(out[i + 11], 16);
        assert_memory_equal(out + i + 12, a[1].b, 16);

        /* At most SBX__DNS_ANSWERS_MAX answers. */
        for (i = 0; i < 10; i++) {
                char s[32];

                (void) snprintf(s, sizeof(s), "93.184.216.%u", (unsigned) i + 1);
                addr(s, &a[i]);
        }
        n = sbx__dns_response(&q, SBX__DNS_NOERROR, a, 10, 5, out, sizeof(out));
        assert_int_equal(out[7], SBX__DNS_ANSWERS_MAX);
        assert_int_equal(n, 12 + 23 + SBX__DNS_ANSWERS_MAX * 16);

        /* NXDOMAIN keeps the question; FORMERR without one has none. */
        n = sbx__dns_response(&q, SBX__DNS_NXDOMAIN, NULL, 0, 5, out, sizeof(out));
        assert_int_equal(n, 12 + 23);
        assert_int_equal(out[3] & 15, SBX__DNS_NXDOMAIN);
        p.b[5] = 2;
        assert_int_equal(parse(&p, &q), SBX__DNS_FORMERR);
        n = sbx__dns_response(&q, SBX__DNS_FORMERR, NULL, 0, 5, out, sizeof(out));
        assert_int_equal(n, 12);
        assert_int_equal(out[3] & 15, SBX__DNS_FORMERR);
        assert_int_equal(out[5], 0);
        assert_int_equal(out[0], 0x12);         /* the id even then */
        /* Too small a buffer. */
        assert_int_equal(sbx__dns_response(&q, SBX__DNS_FORMERR, NULL, 0, 5, out, 11), 0);
}

static void host(const char *s, struct sbx__net_host *h)
{
        assert_int_equal(sbx__net_host_parse("test", s, strlen(s), 0, h, NULL), SBX_OK);
}

static int admitted(const struct sbx__net_rules *rs, const char *name)
{
        struct sbx__net_host h;

        host(name, &h);
        return sbx__dns_name_admitted(rs, &h);
}

static int given(const struct sbx__net_rules *rs, const char *name, const char *address)
{
        struct sbx__net_host h;
        struct sbx__net_addr a;

        host(name, &h);
        addr(address, &a);
        return sbx__dns_address_ok(rs, &h, &a);
}

static void test_net_dns__decisions_follow_the_rules(void **state)
{
        static const char *const entries[] = {
                "registry.npmjs.org:443", "*.pythonhosted.org", "localhost:8080+loopback",
                "127.0.0.1:9000", "svc.test", "db.test:5432", "10.0.0.5:5432",
                "other.test:80", "10.0.0.7",
        };
        struct sbx__net_rules rs = SBX__NET_RULES_INIT;
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(entries); i++)
                assert_int_equal(sbx__net_rules_add(&rs, entries[i], NULL), SBX_OK);

        assert_true(admitted(&rs, "registry.npmjs.org"));       /* port ignored */
        assert_true(admitted(&rs, "files.pythonhosted.org"));
        assert_false(admitted(&rs, "pythonhosted.org"));        /* a wildcard is below */
        assert_false(admitted(&rs, "evil.example"));
        assert_true(admitted(&rs, "localhost"));
        assert_false(admitted(&rs, "10.0.0.5"));                /* an address is no name */

        assert_true(given(&rs, "registry.npmjs.org", "104.16.0.1"));    /* public */
        assert_false(given(&rs, "registry.npmjs.org", "10.0.0.1"));
        assert_false(given(&rs, "registry.npmjs.org", "169.254.169.254"));
        assert_true(given(&rs, "localhost", "127.0.0.1"));      /* +loopback, port 8080 */
        assert_false(given(&rs, "localhost", "10.0.0.1"));
        /* svc.test (every port) may be 127.0.0.1 on port 9000, which an
         * address rule names. */
        assert_true(given(&rs, "svc.test", "127.0.0.1"));
        assert_false(given(&rs, "svc.test", "127.0.0.2"));
        /* db.test:5432 at 10.0.0.5, which 10.0.0.5:5432 names... */
        assert_true(given(&rs, "db.test", "10.0.0.5"));
        assert_false(given(&rs, "db.test", "10.0.0.6"));
        /* ... but not other.test (port 80 only) there. */
        assert_false(given(&rs, "other.test", "10.0.0.5"));
        /* 10.0.0.7 on every port: every admitted name may be it. */
        assert_true(given(&rs, "other.test", "10.0.0.7"));
        assert_true(given(&rs, "db.test", "10.0.0.7"));
        assert_false(given(&rs, "evil.example", "104.16.0.1"));        /* not admitted */
        assert_false(given(&rs, "svc.test", "0.0.0.0"));        /* never */
        sbx__net_rules_clear(&rs);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_net_dns__a_query_parses),
                cmocka_unit_test(test_net_dns__malformed_queries),
                cmocka_unit_test(test_net_dns__responses),
                cmocka_unit_test(test_net_dns__decisions_follow_the_rules),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
