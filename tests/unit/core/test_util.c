#include <errno.h>
#include <string.h>

#include "unit/sbx_test.h"
#include "core/internal.h"

static void test_util__hex_encode(void **state)
{
        const unsigned char in[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
        char out[2 * sizeof(in) + 1];
        (void) state;

        memset(out, 'x', sizeof(out));
        sbx__hex_encode(in, sizeof(in), out);
        assert_string_equal(out, "00017f80abff");
        sbx__hex_encode(in, 0, out);
        assert_string_equal(out, "");
}

static void test_util__random_hex_is_fresh_and_well_formed(void **state)
{
        char a[2 * 32 + 1], b[2 * 32 + 1];
        size_t i;
        (void) state;

        assert_int_equal(sbx__random_hex(a, 32), 0);
        assert_int_equal(sbx__random_hex(b, 32), 0);
        assert_int_equal(strlen(a), 64);
        assert_int_equal(strspn(a, "0123456789abcdef"), 64);
        assert_string_not_equal(a, b);          /* 2^-256 to fail by chance */
        assert_int_equal(sbx__random_hex(a, 65), -EINVAL);
        for (i = 0; i < 4; i++) {
                unsigned char buf[300];

                memset(buf, 0, sizeof(buf));
                assert_int_equal(sbx__random_bytes(buf, sizeof(buf)), 0);
                /* 300 zero bytes from a working generator: 2^-2400. */
                assert_true(memcmp(buf, (unsigned char[300]){ 0 }, sizeof(buf)) != 0);
        }
}

static void test_util__wipe(void **state)
{
        unsigned char secret[16];
        (void) state;

        memset(secret, 0xa5, sizeof(secret));
        sbx__wipe(secret, sizeof(secret));
        assert_memory_equal(secret, (unsigned char[16]){ 0 }, sizeof(secret));
}

static void test_util__size_parse(void **state)
{
        static const char *const bad[] = { "", "0", "0K", "-1", "+1", " 1", "1 ", "1KB", "1.5G",
                                           "1P", "K", "0x10", "1kk" };
        uint64_t v = 7;
        size_t i;
        (void) state;

        assert_int_equal(sbx_size_parse("4096", &v, NULL), SBX_OK);
        assert_int_equal(v, 4096);
        assert_int_equal(sbx_size_parse("512M", &v, NULL), SBX_OK);
        assert_int_equal(v, 512ull << 20);
        assert_int_equal(sbx_size_parse("2g", &v, NULL), SBX_OK);
        assert_int_equal(v, 2ull << 30);
        assert_int_equal(sbx_size_parse("1t", &v, NULL), SBX_OK);
        assert_int_equal(v, 1ull << 40);
        assert_int_equal(sbx_size_parse("1k", &v, NULL), SBX_OK);
        assert_int_equal(v, 1024);
        assert_int_equal(sbx_size_parse("18446744073709551615", &v, NULL), SBX_OK);
        assert_true(v == UINT64_MAX);
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                v = 7;
                assert_sbx_fails(sbx_size_parse(bad[i], &v, err), SBX_E_INVALID, "not a size");
                assert_int_equal(v, 7);
        }
        assert_sbx_fails(sbx_size_parse("18446744073709551616", &v, err), SBX_E_RANGE, "2^64");
        assert_sbx_fails(sbx_size_parse("16777216T", &v, err), SBX_E_RANGE, "2^64");
        assert_int_equal(v, 7);
        assert_sbx_fails(sbx_size_parse(NULL, &v, err), SBX_E_INVALID, "NULL");
        assert_sbx_fails(sbx_size_parse("1", NULL, err), SBX_E_INVALID, "NULL");
}

static void test_util__utf8_decode(void **state)
{
        static const struct { const char *s; size_t len; uint32_t cp; } ok[] = {
                { "A", 1, 0x41 }, { "\xc2\x80", 2, 0x80 }, { "\xdf\xbf", 2, 0x7ff },
                { "\xe0\xa0\x80", 3, 0x800 }, { "\xed\x9f\xbf", 3, 0xd7ff },
                { "\xef\xbf\xbf", 3, 0xffff }, { "\xf0\x90\x80\x80", 4, 0x10000 },
                { "\xf4\x8f\xbf\xbf", 4, 0x10ffff },
        };
        static const char *const bad[] = {
                "\x80", "\xbf", "\xc0\x80", "\xc1\xbf",     /* stray, overlong */
                "\xe0\x80\x80", "\xe0\x9f\xbf",              /* overlong */
                "\xed\xa0\x80", "\xed\xbf\xbf",              /* surrogates */
                "\xf0\x80\x80\x80", "\xf4\x90\x80\x80",      /* overlong, > U+10FFFF */
                "\xf5\x80\x80\x80", "\xff", "\xc2", "\xe2\x82", "\xc2\x41",
        };
        uint32_t cp;
        size_t i;
        (void) state;

        for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
                cp = 0;
                assert_int_equal(sbx__utf8_decode((const unsigned char *) ok[i].s,
                                                  strlen(ok[i].s), &cp), ok[i].len);
                assert_int_equal(cp, ok[i].cp);
        }
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_int_equal(sbx__utf8_decode((const unsigned char *) bad[i],
                                                  strlen(bad[i]), &cp), 0);
        /* n cuts a sequence short; n = 0 is nothing. */
        assert_int_equal(sbx__utf8_decode((const unsigned char *) "\xe2\x82\xac", 2, &cp), 0);
        assert_int_equal(sbx__utf8_decode((const unsigned char *) "A", 0, &cp), 0);
}

static void test_util__sha256(void **state)
{
        char hex[2 * SBX__SHA256_SIZE + 1];
        struct sbx__sha256 h;
        uint8_t d[SBX__SHA256_SIZE];
        char block[1000];
        int i;
        (void) state;

        /* FIPS 180-2 vectors. */
        assert_int_equal(sbx__sha256_hex("abc", 3, hex), 0);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_int_equal(sbx__sha256_hex("", 0, hex), 0);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        /* A million 'a's in pieces. */
        memset(block, 'a', sizeof(block));
        sbx__sha256_init(&h);
        for (i = 0; i < 1000; i++)
                sbx__sha256_update(&h, block, sizeof(block));
        assert_int_equal(sbx__sha256_final(&h, d), 0);
        sbx__hex_encode(d, sizeof(d), hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_util__buf(void **state)
{
        struct sbx__buf b = SBX__BUF_INIT;
        int i;
        (void) state;

        sbx__buf_adds(&b, "abc");
        sbx__buf_add(&b, "defg", 2);
        sbx__buf_printf(&b, "-%d-%s", 42, "x");
        assert_false(b.oom);
        assert_string_equal(b.b, "abcde-42-x");
        assert_int_equal(b.len, 10);
        for (i = 0; i < 1000; i++)
                sbx__buf_adds(&b, "0123456789");
        assert_false(b.oom);
        assert_int_equal(b.len, 10 + 10000);
        assert_int_equal(strlen(b.b), b.len);
        /* A size that would overflow fails, and stays failed. */
        assert_int_equal(sbx__buf_reserve(&b, SIZE_MAX - 4), -1);
        assert_true(b.oom);
        sbx__buf_adds(&b, "more");
        assert_int_equal(b.len, 10 + 10000);
        sbx__buf_free(&b);
        assert_null(b.b);
        assert_false(b.oom);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_util__hex_encode),
                cmocka_unit_test(test_util__random_hex_is_fresh_and_well_formed),
                cmocka_unit_test(test_util__wipe),
                cmocka_unit_test(test_util__size_parse),
                cmocka_unit_test(test_util__utf8_decode),
                cmocka_unit_test(test_util__sha256),
                cmocka_unit_test(test_util__buf),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
