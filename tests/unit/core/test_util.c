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

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_util__hex_encode),
                cmocka_unit_test(test_util__random_hex_is_fresh_and_well_formed),
                cmocka_unit_test(test_util__wipe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
