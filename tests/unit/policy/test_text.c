/*
 * test_text.c - sbx_text_strip_ansi, sbx_text_normalize, sbx_text_sanitize.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "unit/sbx_test.h"

#define ESC "\x1b"
#define BEL "\x07"
#define ST  ESC "\\"

typedef sbx_code (*text_fn)(char *buf, size_t len, size_t *out_len, sbx_error *err);

/*
 * Run fn on an exactly-sized heap copy of in[0..in_len) (so ASan sees any
 * overrun) and compare the result with want[0..want_len).  For the stripping
 * functions also check that no ESC byte survived.
 */
static void check_bytes(text_fn fn, const char *in, size_t in_len, const char *want,
                        size_t want_len)
{
        char *buf = malloc(in_len > 0 ? in_len : 1);
        size_t n = (size_t) -1;
        sbx_error e = { 0, 0, { 0 } };

        assert_non_null(buf);
        if (in_len > 0)
                memcpy(buf, in, in_len);
        assert_int_equal(fn(buf, in_len, &n, &e), SBX_OK);
        assert_true(n <= in_len);
        if (n != want_len)
                fail_msg("output length %zu, want %zu", n, want_len);
        if (want_len > 0)
                assert_memory_equal(buf, want, want_len);
        if (fn != sbx_text_normalize && n > 0)
                assert_null(memchr(buf, 0x1b, n));
        free(buf);
}

#define CHECK(fn, in, want) check_bytes((fn), (in), sizeof(in) - 1, (want), sizeof(want) - 1)
#define STRIP(in, want) CHECK(sbx_text_strip_ansi, in, want)
#define NORM(in, want) CHECK(sbx_text_normalize, in, want)
#define SANE(in, want) CHECK(sbx_text_sanitize, in, want)

#define N_FNS 3
static const text_fn all_fns[N_FNS] = {
        sbx_text_strip_ansi, sbx_text_normalize, sbx_text_sanitize
};
static const char *const all_names[N_FNS] = {
        "sbx_text_strip_ansi", "sbx_text_normalize", "sbx_text_sanitize"
};

/* --------------------------------------------------------- arguments */

static void test_text__null_buf_with_len_is_invalid(void **state)
{
        size_t i, n = 42;
        (void) state;

        for (i = 0; i < N_FNS; i++) {
                assert_sbx_fails(all_fns[i](NULL, 1, &n, err), SBX_E_INVALID, all_names[i]);
                assert_sbx_fails(all_fns[i](NULL, 5, &n, err), SBX_E_INVALID, "buf");
                assert_int_equal(n, 42);        /* output untouched */
                assert_int_equal(all_fns[i](NULL, 5, &n, NULL), SBX_E_INVALID);
        }
}

static void test_text__null_out_len_is_invalid(void **state)
{
        char buf[] = "abc";
        size_t i;
        (void) state;

        for (i = 0; i < N_FNS; i++) {
                assert_sbx_fails(all_fns[i](buf, 3, NULL, err), SBX_E_INVALID, all_names[i]);
                assert_sbx_fails(all_fns[i](buf, 3, NULL, err), SBX_E_INVALID, "out_len");
                assert_sbx_fails(all_fns[i](NULL, 0, NULL, err), SBX_E_INVALID, "out_len");
                assert_string_equal(buf, "abc");
        }
}

static void test_text__null_buf_with_zero_len_is_empty(void **state)
{
        size_t i, n;
        (void) state;

        for (i = 0; i < N_FNS; i++) {
                n = 42;
                assert_int_equal(all_fns[i](NULL, 0, &n, NULL), SBX_OK);
                assert_int_equal(n, 0);
        }
}

static void test_text__empty_input(void **state)
{
        (void) state;
        STRIP("", "");
        NORM("", "");
        SANE("", "");
}

static void test_text__plain_text_unchanged(void **state)
{
        (void) state;
        STRIP("hello, world\n\tline two\n", "hello, world\n\tline two\n");
        NORM("hello, world\n\tline two\n", "hello, world\n\tline two\n");
        SANE("hello, world\n\tline two\n", "hello, world\n\tline two\n");
}

static void test_text__only_len_bytes_are_touched(void **state)
{
        char buf[] = "ab" ESC "[1mcd";
        size_t n = 0;
        (void) state;

        /* Only the first 4 bytes ("ab" ESC "[") are the input. */
        assert_int_equal(sbx_text_strip_ansi(buf, 4, &n, NULL), SBX_OK);
        assert_int_equal(n, 2);
        assert_memory_equal(buf, "ab", 2);
        assert_memory_equal(buf + 4, "1mcd", 5);
}

/* -------------------------------------------------------------- CSI */

static void test_text__strip_csi_sgr(void **state)
{
        (void) state;
        STRIP(ESC "[1;31mred" ESC "[0m plain", "red plain");
        STRIP(ESC "[mx" ESC "[38;5;196my" ESC "[38:2::255:0:0mz", "xyz");
}

static void test_text__strip_csi_private_and_intermediates(void **state)
{
        (void) state;
        STRIP("a" ESC "[?25lb" ESC "[?1049hc", "abc");    /* private marker */
        STRIP("a" ESC "[2 qb", "ab");                       /* intermediate SP */
        STRIP("a" ESC "[>0;1\"pb", "ab");
}

static void test_text__strip_csi_final_byte_range(void **state)
{
        (void) state;
        STRIP("a" ESC "[2@b", "ab");        /* 0x40, lowest final */
        STRIP("a" ESC "[3~b", "ab");        /* 0x7e, highest final */
        STRIP("a" ESC "[Hb" ESC "[2Jc" ESC "[Kd", "abcd");
        STRIP("a" ESC "[10;20Hb", "ab");
}

static void test_text__strip_csi_broken_by_other_byte(void **state)
{
        (void) state;
        /* A byte that cannot continue a CSI abandons it and is kept. */
        STRIP("a" ESC "[31\nb", "a\nb");
        STRIP("a" ESC "[31\xc3\xa9", "a\xc3\xa9");
        STRIP("a" ESC "[\x7f" "b", "a\x7f" "b");
        /* An ESC abandons the CSI and starts a new sequence. */
        STRIP("a" ESC "[31" ESC "[32mb", "ab");
}

static void test_text__c1_csi_is_kept_as_data(void **state)
{
        (void) state;
        /* 0x9b is a UTF-8 continuation byte, not a CSI introducer. */
        STRIP("\x9b" "31mX", "\x9b" "31mX");
        STRIP("\xe2\x9b\x94", "\xe2\x9b\x94");      /* U+26D4 contains 0x9b */
        STRIP("\x9d" "0;t\x9c" "x", "\x9d" "0;t\x9c" "x");
}

/* ---------------------------------------------------- control strings */

static void test_text__strip_osc_bel_terminated(void **state)
{
        (void) state;
        STRIP(ESC "]0;window title" BEL "text", "text");
        STRIP("a" ESC "]2;t" BEL "b" ESC "]1;x" BEL "c", "abc");
}

static void test_text__strip_osc_st_terminated(void **state)
{
        (void) state;
        STRIP(ESC "]8;;https://example.com" ST "link" ESC "]8;;" ST, "link");
        STRIP(ESC "]0;title" ST "text", "text");
}

static void test_text__strip_osc_swallows_any_bytes(void **state)
{
        (void) state;
        STRIP("a" ESC "]0;x\ny\0z\xff\r" BEL "b", "ab");
}

static void test_text__osc_ended_by_another_escape(void **state)
{
        (void) state;
        /* As in xterm: an ESC inside a string ends it and starts a new
         * sequence, which is stripped by the usual rules. */
        STRIP(ESC "]0;t" ESC "[1mX", "X");
        STRIP(ESC "]0;t" ESC "7X", "X");
        STRIP(ESC "]0;t" ESC "]0;u" BEL "X", "X");
}

static void test_text__strip_dcs_sos_pm_apc(void **state)
{
        (void) state;
        STRIP("a" ESC "P1$r0m" ST "b", "ab");              /* DCS */
        STRIP("a" ESC "Xsos payload" ST "b", "ab");         /* SOS */
        STRIP("a" ESC "^pm payload" ST "b", "ab");          /* PM */
        STRIP("a" ESC "_Gf=100;AAAA" ST "b", "ab");         /* APC (kitty graphics) */
        STRIP("a" ESC "Pq#0;2;0;0;0" BEL "b", "ab");        /* BEL also ends them */
        STRIP("a" ESC "_x\n[1m" ST "b", "ab");
}

/* ---------------------------------------------------- short escapes */

static void test_text__strip_two_byte_escapes(void **state)
{
        (void) state;
        STRIP("a" ESC "7b" ESC "8c", "abc");                /* DECSC / DECRC */
        STRIP("a" ESC "=b" ESC ">c", "abc");                /* keypad modes */
        STRIP("a" ESC "cb", "ab");                          /* RIS */
        STRIP("a" ESC "Mb" ESC "Dc" ESC "Ed", "abcd");      /* RI, IND, NEL */
        STRIP("a" ESC "\\b", "ab");                         /* a stray ST */
        STRIP("a" ESC "~b" ESC "0c", "abc");                /* 0x7e and 0x30 */
}

static void test_text__strip_charset_designations(void **state)
{
        (void) state;
        STRIP("a" ESC "(Bb", "ab");
        STRIP("a" ESC ")0b", "ab");
        STRIP("a" ESC "#8b", "ab");                         /* DECALN */
        STRIP("a" ESC "%Gb", "ab");                         /* UTF-8 mode */
        STRIP("a" ESC " Fb", "ab");                         /* S7C1T */
        STRIP("a" ESC "$(Cb", "ab");                        /* two intermediates */
}

static void test_text__esc_followed_by_non_final_is_dropped(void **state)
{
        (void) state;
        /* The ESC is dropped; the byte after it is ordinary text. */
        STRIP("a" ESC "\nb", "a\nb");
        STRIP("a" ESC "\xc3\xa9", "a\xc3\xa9");
        STRIP("a" ESC "\0b", "a\0b");
        STRIP("a" ESC "(\nb", "a\nb");
        STRIP("a" ESC "\x7f" "b", "a\x7f" "b");
}

static void test_text__esc_esc_starts_new_sequence(void **state)
{
        (void) state;
        STRIP("a" ESC ESC "[31mb", "ab");
        STRIP(ESC ESC ESC ESC "x", "");
        STRIP(ESC ESC ESC ESC, "");
}

/* ------------------------------------------------------- unterminated */

static void test_text__lone_esc_at_end_is_dropped(void **state)
{
        (void) state;
        STRIP("abc" ESC, "abc");
        STRIP(ESC, "");
}

static void test_text__unterminated_sequences_are_dropped(void **state)
{
        (void) state;
        STRIP("abc" ESC "[", "abc");
        STRIP("abc" ESC "[12;3", "abc");
        STRIP("abc" ESC "[12 ", "abc");
        STRIP("abc" ESC "(", "abc");
        STRIP("abc" ESC "]0;title never ends\nmore", "abc");
        STRIP("abc" ESC "]0;title" ESC, "abc");
        STRIP("abc" ESC "Ppayload", "abc");
        STRIP("abc" ESC "_", "abc");
}

/* -------------------------------------------------------- raw bytes */

static void test_text__embedded_nul_preserved(void **state)
{
        (void) state;
        STRIP("a\0b" ESC "[0m\0c", "a\0b\0c");
        NORM("a\0\r\n\0", "a\0\n\0");
        SANE("\0" ESC "[1m\0\r\0", "\0\0\n\0");
}

static void test_text__invalid_utf8_preserved(void **state)
{
        (void) state;
        STRIP("\xff\xfe\x80 \xc3" ESC "[1m\xed\xa0\x80", "\xff\xfe\x80 \xc3\xed\xa0\x80");
        NORM("\xff\r\xfe", "\xff\n\xfe");
        SANE("\xc0\xaf" ESC "]0;t" BEL "\xf8", "\xc0\xaf\xf8");
}

/* --------------------------------------------------------- normalize */

static void test_text__normalize_crlf(void **state)
{
        (void) state;
        NORM("a\r\nb\r\n", "a\nb\n");
        NORM("\r\n\r\n", "\n\n");
}

static void test_text__normalize_lone_cr(void **state)
{
        (void) state;
        NORM("a\rb", "a\nb");
        NORM("a\r", "a\n");
        NORM("\r", "\n");
        NORM("a\r\r\nb", "a\n\nb");         /* lone CR, then CRLF */
        NORM("a\n\rb", "a\n\nb");           /* LF CR is two breaks */
        NORM("\r\r", "\n\n");
}

static void test_text__normalize_drops_bel(void **state)
{
        (void) state;
        NORM("a" BEL "b" BEL, "ab");
        NORM(BEL BEL BEL, "");
        NORM("a\r" BEL "\nb", "a\n\nb");    /* BEL does not join CR and LF */
}

static void test_text__normalize_keeps_esc(void **state)
{
        char buf[] = ESC "[1mX";
        size_t n = 0;
        (void) state;

        assert_int_equal(sbx_text_normalize(buf, sizeof(buf) - 1, &n, NULL), SBX_OK);
        assert_int_equal(n, sizeof(buf) - 1);
        assert_memory_equal(buf, ESC "[1mX", n);
}

/* ---------------------------------------------------------- sanitize */

static void test_text__sanitize_strips_then_normalizes(void **state)
{
        (void) state;
        SANE(ESC "]0;t" BEL "a\r\nb" BEL "\r" ESC "[1mc" ESC "[0m\r\n", "a\nb\nc\n");
        /* The CR freed by stripping is normalised too. */
        SANE("a" ESC "\rb", "a\nb");
        /* A CSI between CR and LF: after stripping they form a CRLF. */
        SANE("a\r" ESC "[K\nb", "a\nb");
        /* The BEL terminating an OSC is consumed by the stripper. */
        SANE("x" ESC "]0;t" BEL BEL "y", "xy");
}

/* -------------------------------------------------------- long input */

static void test_text__long_input_of_escapes(void **state)
{
        static const char unit[] = ESC "[1;31mX" ESC "]0;t" BEL ESC "(B\r\n";
        const size_t ulen = sizeof(unit) - 1, total = 1024 * 1024;
        size_t reps = total / ulen, i, n = 0;
        char *buf = malloc(total);
        (void) state;

        assert_non_null(buf);
        for (i = 0; i < reps; i++)
                memcpy(buf + i * ulen, unit, ulen);
        assert_int_equal(sbx_text_sanitize(buf, reps * ulen, &n, NULL), SBX_OK);
        assert_int_equal(n, reps * 2);
        for (i = 0; i < reps; i++)
                assert_memory_equal(buf + 2 * i, "X\n", 2);

        /* One enormous unterminated CSI, then one enormous unterminated OSC. */
        buf[0] = 0x1b;
        buf[1] = '[';
        memset(buf + 2, ';', total - 2);
        assert_int_equal(sbx_text_strip_ansi(buf, total, &n, NULL), SBX_OK);
        assert_int_equal(n, 0);
        buf[0] = 0x1b;
        buf[1] = ']';
        memset(buf + 2, 'z', total - 2);
        assert_int_equal(sbx_text_strip_ansi(buf, total, &n, NULL), SBX_OK);
        assert_int_equal(n, 0);

        /* Nothing but ESC bytes, and nothing but CRs. */
        memset(buf, 0x1b, total);
        assert_int_equal(sbx_text_strip_ansi(buf, total, &n, NULL), SBX_OK);
        assert_int_equal(n, 0);
        memset(buf, '\r', total);
        assert_int_equal(sbx_text_normalize(buf, total, &n, NULL), SBX_OK);
        assert_int_equal(n, total);
        assert_null(memchr(buf, '\r', n));
        free(buf);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text__null_buf_with_len_is_invalid),
                cmocka_unit_test(test_text__null_out_len_is_invalid),
                cmocka_unit_test(test_text__null_buf_with_zero_len_is_empty),
                cmocka_unit_test(test_text__empty_input),
                cmocka_unit_test(test_text__plain_text_unchanged),
                cmocka_unit_test(test_text__only_len_bytes_are_touched),
                cmocka_unit_test(test_text__strip_csi_sgr),
                cmocka_unit_test(test_text__strip_csi_private_and_intermediates),
                cmocka_unit_test(test_text__strip_csi_final_byte_range),
                cmocka_unit_test(test_text__strip_csi_broken_by_other_byte),
                cmocka_unit_test(test_text__c1_csi_is_kept_as_data),
                cmocka_unit_test(test_text__strip_osc_bel_terminated),
                cmocka_unit_test(test_text__strip_osc_st_terminated),
                cmocka_unit_test(test_text__strip_osc_swallows_any_bytes),
                cmocka_unit_test(test_text__osc_ended_by_another_escape),
                cmocka_unit_test(test_text__strip_dcs_sos_pm_apc),
                cmocka_unit_test(test_text__strip_two_byte_escapes),
                cmocka_unit_test(test_text__strip_charset_designations),
                cmocka_unit_test(test_text__esc_followed_by_non_final_is_dropped),
                cmocka_unit_test(test_text__esc_esc_starts_new_sequence),
                cmocka_unit_test(test_text__lone_esc_at_end_is_dropped),
                cmocka_unit_test(test_text__unterminated_sequences_are_dropped),
                cmocka_unit_test(test_text__embedded_nul_preserved),
                cmocka_unit_test(test_text__invalid_utf8_preserved),
                cmocka_unit_test(test_text__normalize_crlf),
                cmocka_unit_test(test_text__normalize_lone_cr),
                cmocka_unit_test(test_text__normalize_drops_bel),
                cmocka_unit_test(test_text__normalize_keeps_esc),
                cmocka_unit_test(test_text__sanitize_strips_then_normalizes),
                cmocka_unit_test(test_text__long_input_of_escapes),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
