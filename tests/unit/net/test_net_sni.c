/*
 * test_net_sni.c - the TLS ClientHello parser (src/net/sni.c): real
 * ClientHellos captured from openssl s_client, the same handshake split
 * across records and across reads, and malformed ones built here.
 */
#include "unit/sbx_test.h"

#include "net/net.h"

/* openssl s_client (OpenSSL 3.0) -servername registry.npmjs.org: TLS 1.3, one record. */
static const uint8_t hello_tls13[] = {
        0x16, 0x03, 0x01, 0x01, 0x3f, 0x01, 0x00, 0x01, 0x3b, 0x03, 0x03, 0xfc,
        0xb0, 0x8a, 0xc0, 0xa6, 0x3f, 0x8a, 0x5f, 0xc1, 0xfa, 0x5e, 0x6c, 0x91,
        0x83, 0x31, 0x92, 0xf9, 0xa8, 0x8f, 0xd7, 0x07, 0xd5, 0xc5, 0x7c, 0xdc,
        0xc4, 0xc4, 0xb9, 0x0a, 0xc3, 0x13, 0xf8, 0x20, 0x9b, 0x50, 0x96, 0xb5,
        0xd8, 0x44, 0x68, 0x4d, 0x7c, 0x4a, 0xeb, 0x50, 0xf4, 0xeb, 0x9f, 0x99,
        0x09, 0x84, 0x76, 0xe0, 0x16, 0xe0, 0xe9, 0x0c, 0x83, 0x95, 0xa4, 0xe3,
        0x3a, 0x11, 0xe4, 0x3c, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
        0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
        0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
        0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
        0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
        0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xb4,
        0x00, 0x00, 0x00, 0x17, 0x00, 0x15, 0x00, 0x00, 0x12, 0x72, 0x65, 0x67,
        0x69, 0x73, 0x74, 0x72, 0x79, 0x2e, 0x6e, 0x70, 0x6d, 0x6a, 0x73, 0x2e,
        0x6f, 0x72, 0x67, 0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00,
        0x0a, 0x00, 0x16, 0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00,
        0x19, 0x00, 0x18, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0x01,
        0x04, 0x00, 0x23, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00,
        0x00, 0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06,
        0x03, 0x08, 0x07, 0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08,
        0x04, 0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03,
        0x03, 0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00,
        0x2b, 0x00, 0x09, 0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01,
        0x00, 0x2d, 0x00, 0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24,
        0x00, 0x1d, 0x00, 0x20, 0x82, 0x49, 0xc5, 0x83, 0x3f, 0x6f, 0x6c, 0x52,
        0x11, 0xf7, 0xa5, 0xbc, 0x69, 0x8c, 0x58, 0xad, 0x3a, 0xf6, 0x00, 0xe0,
        0xaa, 0x05, 0x88, 0x7e, 0xe3, 0x31, 0x75, 0x4e, 0x8a, 0xcb, 0xdc, 0x77
};

/* openssl s_client -noservername -tls1_2: no server_name extension. */
static const uint8_t hello_nosni[] = {
        0x16, 0x03, 0x01, 0x00, 0xb7, 0x01, 0x00, 0x00, 0xb3, 0x03, 0x03, 0x62,
        0xcd, 0x6b, 0x77, 0x6f, 0x19, 0x0f, 0xad, 0x8c, 0xff, 0xcd, 0xf1, 0x16,
        0x93, 0x0b, 0x0f, 0x71, 0x0c, 0x27, 0x75, 0x0e, 0x06, 0xec, 0xf1, 0x7c,
        0x15, 0x61, 0x5e, 0xa3, 0x29, 0x75, 0xfa, 0x00, 0x00, 0x38, 0xc0, 0x2c,
        0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa, 0xc0, 0x2b,
        0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b, 0xc0, 0x23,
        0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39, 0xc0, 0x09,
        0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d, 0x00, 0x3c,
        0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0x52, 0x00, 0x0b,
        0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a, 0x00, 0x0c, 0x00, 0x0a,
        0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19, 0x00, 0x18, 0x00, 0x23,
        0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, 0x00, 0x0d,
        0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03, 0x08, 0x07,
        0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04, 0x08, 0x05,
        0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03, 0x03, 0x01,
        0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02
};

static uint8_t scratch[65536];

static int parse(const uint8_t *b, size_t n, struct sbx__tls_hello *h)
{
        return sbx__tls_client_hello(b, n, scratch, sizeof(scratch), h);
}

static void test_net_sni__openssl_hello_gives_the_name(void **state)
{
        struct sbx__tls_hello h;
        (void) state;

        assert_int_equal(parse(hello_tls13, sizeof(hello_tls13), &h), SBX__TLS_OK);
        assert_true(h.has_sni);
        assert_string_equal(h.sni, "registry.npmjs.org");
        assert_int_equal(h.sni_len, 18);
        assert_int_equal(h.hello_end, sizeof(hello_tls13));
        assert_int_equal(h.record_version, 0x0301);
        assert_int_equal(h.version, 0x0303);
        assert_false(h.has_ech);
}

static void test_net_sni__no_server_name_is_ok_without_one(void **state)
{
        struct sbx__tls_hello h;
        (void) state;

        assert_int_equal(parse(hello_nosni, sizeof(hello_nosni), &h), SBX__TLS_OK);
        assert_false(h.has_sni);
        assert_int_equal(h.hello_end, sizeof(hello_nosni));
}

static void test_net_sni__every_prefix_asks_for_more(void **state)
{
        struct sbx__tls_hello h;
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(hello_tls13); i++)
                assert_int_equal(parse(hello_tls13, i, &h), SBX__TLS_MORE);
        /* Bytes after the ClientHello (early data, a second record) are not
         * looked at. */
        {
                uint8_t b[sizeof(hello_tls13) + 8];

                memcpy(b, hello_tls13, sizeof(hello_tls13));
                memset(b + sizeof(hello_tls13), 0xee, 8);
                assert_int_equal(parse(b, sizeof(b), &h), SBX__TLS_OK);
                assert_int_equal(h.hello_end, sizeof(hello_tls13));
        }
}

/* The handshake of hello_tls13 re-framed into records of `chunk` bytes. */
static size_t reframe(size_t chunk, uint8_t *out, size_t outsz)
{
        const uint8_t *hs = hello_tls13 + 5;
        size_t hl = sizeof(hello_tls13) - 5, o = 0, off;

        for (off = 0; off < hl; off += chunk) {
                size_t k = hl - off < chunk ? hl - off : chunk;

                assert_true(o + 5 + k <= outsz);
                out[o] = 22;
                out[o + 1] = 3;
                out[o + 2] = 1;
                out[o + 3] = (uint8_t) (k >> 8);
                out[o + 4] = (uint8_t) k;
                memcpy(out + o + 5, hs + off, k);
                o += 5 + k;
        }
        return o;
}

static void test_net_sni__a_hello_split_across_records(void **state)
{
        static const size_t chunks[] = { 1, 2, 3, 4, 5, 7, 64, 100, 318 };
        uint8_t b[4096];
        struct sbx__tls_hello h;
        size_t i, n, j;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(chunks); i++) {
                n = reframe(chunks[i], b, sizeof(b));
                assert_int_equal(parse(b, n, &h), SBX__TLS_OK);
                assert_string_equal(h.sni, "registry.npmjs.org");
                assert_int_equal(h.hello_end, n);
                for (j = 0; j < n; j++)
                        assert_int_equal(parse(b, j, &h), SBX__TLS_MORE);
        }
        /* A change_cipher_spec record in the middle of it is malformed. */
        n = reframe(100, b, sizeof(b));
        b[105] = 20;
        assert_int_equal(parse(b, n, &h), SBX__TLS_BAD);
        assert_non_null(h.why);
}

static void test_net_sni__not_tls(void **state)
{
        static const char *const not[] = { "GET / HTTP/1.1\r\n", "SSH-2.0-OpenSSH_9.6\r\n",
                                           "\x80\x2e\x01\x03\x01", "\x16\x02\x00" };
        struct sbx__tls_hello h;
        size_t i;
        (void) state;

        for (i = 0; i < SBX__ARRAY_SIZE(not); i++)
                assert_int_equal(parse((const uint8_t *) not[i], strlen(not[i]), &h),
                                 SBX__TLS_NOT);
        assert_int_equal(parse((const uint8_t *) "\x16", 1, &h), SBX__TLS_MORE);
}

/* ------------------------------------------------------- built ClientHellos */

struct hb {
        uint8_t b[4096];
        size_t  n;
};

static void put(struct hb *h, const void *p, size_t n)
{
        assert_true(h->n + n <= sizeof(h->b));
        memcpy(h->b + h->n, p, n);
        h->n += n;
}

static void put8(struct hb *h, unsigned v)
{
        uint8_t c = (uint8_t) v;

        put(h, &c, 1);
}

static void put16(struct hb *h, unsigned v)
{
        put8(h, v >> 8);
        put8(h, v);
}

/* One server_name extension with one host_name. */
static void ext_sni(struct hb *e, const char *name)
{
        size_t n = strlen(name);

        put16(e, 0);
        put16(e, (unsigned) n + 5);
        put16(e, (unsigned) n + 3);
        put8(e, 0);
        put16(e, (unsigned) n);
        put(e, name, n);
}

/* A record with a ClientHello around the extensions block ext (NULL: no
 * extensions at all); sid_len bytes of session id, ciphers bytes of
 * cipher suites, comp compression methods. */
static void hello(struct hb *out, const struct hb *ext, unsigned sid_len, unsigned ciphers,
                  unsigned comp)
{
        struct hb body;
        unsigned i;

        memset(&body, 0, sizeof(body));
        put16(&body, 0x0303);
        for (i = 0; i < 32; i++)
                put8(&body, i);
        put8(&body, sid_len);
        for (i = 0; i < sid_len; i++)
                put8(&body, 0xaa);
        put16(&body, ciphers);
        for (i = 0; i < ciphers; i++)
                put8(&body, 0x13);
        put8(&body, comp);
        for (i = 0; i < comp; i++)
                put8(&body, 0);
        if (ext != NULL) {
                put16(&body, (unsigned) ext->n);
                put(&body, ext->b, ext->n);
        }
        memset(out, 0, sizeof(*out));
        put8(out, 22);
        put16(out, 0x0301);
        put16(out, (unsigned) body.n + 4);
        put8(out, 1);
        put8(out, 0);
        put16(out, (unsigned) body.n);
        put(out, body.b, body.n);
}

static int parse_hb(const struct hb *b, struct sbx__tls_hello *h)
{
        return parse(b->b, b->n, h);
}

static void test_net_sni__built_hellos(void **state)
{
        struct hb ext, rec;
        struct sbx__tls_hello h;
        char longname[300];
        (void) state;

        memset(&ext, 0, sizeof(ext));
        put16(&ext, 0x000a);                    /* supported_groups, before it */
        put16(&ext, 4);
        put16(&ext, 2);
        put16(&ext, 0x001d);
        ext_sni(&ext, "Example.COM");
        put16(&ext, 0xfe0d);                    /* encrypted_client_hello */
        put16(&ext, 0);
        hello(&rec, &ext, 32, 2, 1);
        assert_int_equal(parse_hb(&rec, &h), SBX__TLS_OK);
        assert_string_equal(h.sni, "Example.COM");   /* as sent; normalised later */
        assert_true(h.has_ech);

        /* No extensions block (TLS 1.2 allows it). */
        hello(&rec, NULL, 0, 2, 1);
        assert_int_equal(parse_hb(&rec, &h), SBX__TLS_OK);
        assert_false(h.has_sni);

        /* The longest name, and one byte more. */
        memset(longname, 'a', sizeof(longname));
        longname[255] = '\0';
        memset(&ext, 0, sizeof(ext));
        ext_sni(&ext, longname);
        hello(&rec, &ext, 0, 2, 1);
        assert_int_equal(parse_hb(&rec, &h), SBX__TLS_OK);
        assert_int_equal(h.sni_len, 255);
        longname[255] = 'a';
        longname[256] = '\0';
        memset(&ext, 0, sizeof(ext));
        ext_sni(&ext, longname);
        hello(&rec, &ext, 0, 2, 1);
        assert_int_equal(parse_hb(&rec, &h), SBX__TLS_BAD);
}

static void expect_bad(const struct hb *rec)
{
        struct sbx__tls_hello h;

        assert_int_equal(parse_hb(rec, &h), SBX__TLS_BAD);
        assert_non_null(h.why);
        assert_false(h.has_sni && h.sni_len > SBX__TLS_SNI_MAX);
}

static void test_net_sni__malformed_hellos(void **state)
{
        struct hb ext, rec;
        (void) state;

        memset(&ext, 0, sizeof(ext));
        ext_sni(&ext, "a.example");
        ext_sni(&ext, "b.example");
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);                       /* two server_name extensions */

        memset(&ext, 0, sizeof(ext));           /* two host_names in one list */
        put16(&ext, 0);
        put16(&ext, 2 + 2 * 12);
        put16(&ext, 2 * 12);
        put8(&ext, 0);
        put16(&ext, 9);
        put(&ext, "a.example", 9);
        put8(&ext, 0);
        put16(&ext, 9);
        put(&ext, "b.example", 9);
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));           /* another name type */
        put16(&ext, 0);
        put16(&ext, 2 + 12);
        put16(&ext, 12);
        put8(&ext, 1);
        put16(&ext, 9);
        put(&ext, "a.example", 9);
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));           /* a NUL in the name */
        ext_sni(&ext, "a.example");
        ext.b[9] = '\0';
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));           /* an empty name */
        ext_sni(&ext, "");
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));           /* the list shorter than its extension */
        ext_sni(&ext, "a.example");
        ext.b[5]--;
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));           /* an extension past the end */
        put16(&ext, 0x0017);
        put16(&ext, 40);
        hello(&rec, &ext, 0, 2, 1);
        expect_bad(&rec);

        memset(&ext, 0, sizeof(ext));
        ext_sni(&ext, "a.example");
        hello(&rec, &ext, 33, 2, 1);            /* a session id of 33 */
        expect_bad(&rec);
        hello(&rec, &ext, 0, 3, 1);             /* an odd cipher suite list */
        expect_bad(&rec);
        hello(&rec, &ext, 0, 0, 1);             /* no cipher suites */
        expect_bad(&rec);
        hello(&rec, &ext, 0, 2, 0);             /* no compression methods */
        expect_bad(&rec);

        hello(&rec, &ext, 0, 2, 1);             /* the extensions length one short */
        rec.b[rec.n - ext.n - 1]--;
        expect_bad(&rec);
        hello(&rec, &ext, 0, 2, 1);             /* not a client_hello */
        rec.b[5] = 2;
        expect_bad(&rec);
        hello(&rec, &ext, 0, 2, 1);             /* version 2.x */
        rec.b[9] = 2;
        expect_bad(&rec);
        hello(&rec, &ext, 0, 2, 1);             /* a handshake longer than its record: */
        rec.b[8]++;                             /* the rest would come in another */
        {
                struct sbx__tls_hello h;

                assert_int_equal(parse_hb(&rec, &h), SBX__TLS_MORE);
        }
        hello(&rec, &ext, 0, 2, 1);             /* a record of 0 bytes */
        rec.b[3] = rec.b[4] = 0;
        expect_bad(&rec);
        hello(&rec, &ext, 0, 2, 1);             /* and one over 2^14 */
        rec.b[3] = 0x40;
        rec.b[4] = 0x01;
        expect_bad(&rec);
}

static void test_net_sni__limit_and_mutations(void **state)
{
        struct sbx__tls_hello h;
        uint8_t b[sizeof(hello_tls13)], small[64];
        size_t i;
        unsigned bit;
        (void) state;

        /* A ClientHello larger than the scratch buffer is refused. */
        assert_int_equal(sbx__tls_client_hello(hello_tls13, sizeof(hello_tls13), small,
                                               sizeof(small), &h), SBX__TLS_BAD);
        /* Every single-bit flip parses to something sane, within bounds
         * (ASan watches the reads). */
        for (i = 0; i < sizeof(hello_tls13); i++)
                for (bit = 0; bit < 8; bit++) {
                        int r;

                        memcpy(b, hello_tls13, sizeof(b));
                        b[i] ^= (uint8_t) (1u << bit);
                        r = parse(b, sizeof(b), &h);
                        assert_true(r >= SBX__TLS_BAD && r <= SBX__TLS_NOT);
                        if (r == SBX__TLS_OK) {
                                assert_true(h.hello_end <= sizeof(b));
                                assert_true(!h.has_sni || (h.sni_len > 0 &&
                                                           h.sni_len <= SBX__TLS_SNI_MAX &&
                                                           strlen(h.sni) == h.sni_len));
                        }
                }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_net_sni__openssl_hello_gives_the_name),
                cmocka_unit_test(test_net_sni__no_server_name_is_ok_without_one),
                cmocka_unit_test(test_net_sni__every_prefix_asks_for_more),
                cmocka_unit_test(test_net_sni__a_hello_split_across_records),
                cmocka_unit_test(test_net_sni__not_tls),
                cmocka_unit_test(test_net_sni__built_hellos),
                cmocka_unit_test(test_net_sni__malformed_hellos),
                cmocka_unit_test(test_net_sni__limit_and_mutations),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
