/*
 * test_denial.c - sbx_denial_marker and sbx_denied_by_sandbox.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "unit/sbx_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) (lit), (sizeof(lit) - 1)        /* a literal as (text, len) */

static const char sentinel[] = "untouched";

/* --------------------------------------------------------- the marker */

static void check_marker(int32_t mode, const char *want)
{
        size_t need = strlen(want) + 1;
        char *buf = malloc(need);       /* exactly sized so ASan sees an overrun */
        sbx_error e = { 0, 0, { 0 } };

        assert_non_null(buf);
        assert_int_equal(sbx_denial_marker(mode, buf, need, &e), SBX_OK);
        assert_string_equal(buf, want);
        free(buf);
}

static void test_denial__marker_for_each_mode(void **state)
{
        (void) state;
        check_marker(SBX_MODE_READ_ONLY, "[sandbox: file access denied under read-only mode]");
        check_marker(SBX_MODE_WORKSPACE_WRITE,
                     "[sandbox: file access denied under workspace-write mode]");
        check_marker(SBX_MODE_DANGER_FULL_ACCESS,
                     "[sandbox: file access denied under danger-full-access mode]");
}

static void test_denial__marker_in_large_buffer(void **state)
{
        char buf[256];
        (void) state;

        memset(buf, 'Z', sizeof(buf));
        assert_int_equal(sbx_denial_marker(SBX_MODE_READ_ONLY, buf, sizeof(buf), NULL), SBX_OK);
        assert_string_equal(buf, "[sandbox: file access denied under read-only mode]");
        assert_int_equal(buf[sizeof("[sandbox: file access denied under read-only mode]")],
                         'Z');
}

static void test_denial__marker_small_buffer_is_range(void **state)
{
        static const char want[] = "[sandbox: file access denied under workspace-write mode]";
        char buf[sizeof(want)];
        size_t len, i;
        (void) state;

        for (len = 0; len < sizeof(want); len++) {
                memset(buf, 'Z', sizeof(buf));
                assert_sbx_fails(sbx_denial_marker(SBX_MODE_WORKSPACE_WRITE, buf, len, err),
                                 SBX_E_RANGE, "sbx_denial_marker");
                for (i = 0; i < sizeof(buf); i++)
                        assert_int_equal(buf[i], 'Z');          /* nothing written */
        }
        memset(buf, 'Z', sizeof(buf));
        assert_sbx_fails(sbx_denial_marker(SBX_MODE_WORKSPACE_WRITE, buf, sizeof(want) - 1, err),
                         SBX_E_RANGE, "buflen");
        assert_int_equal(sbx_denial_marker(SBX_MODE_WORKSPACE_WRITE, buf, sizeof(want), NULL),
                         SBX_OK);
        assert_string_equal(buf, want);
}

static void test_denial__marker_invalid_mode(void **state)
{
        static const int32_t bad[] = { SBX_MODE_NONE, 4, -1, 100, INT32_MAX, INT32_MIN };
        char buf[128];
        size_t i;
        (void) state;

        for (i = 0; i < N(bad); i++) {
                memset(buf, 'Z', sizeof(buf));
                assert_sbx_fails(sbx_denial_marker(bad[i], buf, sizeof(buf), err),
                                 SBX_E_INVALID, "sbx_denial_marker");
                assert_sbx_fails(sbx_denial_marker(bad[i], buf, sizeof(buf), err),
                                 SBX_E_INVALID, "mode");
                assert_int_equal(sbx_denial_marker(bad[i], buf, sizeof(buf), NULL),
                                 SBX_E_INVALID);
                assert_int_equal(buf[0], 'Z');
        }
}

static void test_denial__marker_null_buf_is_invalid(void **state)
{
        (void) state;
        assert_sbx_fails(sbx_denial_marker(SBX_MODE_READ_ONLY, NULL, 128, err), SBX_E_INVALID,
                         "buf");
        assert_sbx_fails(sbx_denial_marker(SBX_MODE_READ_ONLY, NULL, 0, err), SBX_E_INVALID,
                         "sbx_denial_marker");
}

/* ------------------------------------------------- denied by sandbox */

static const char *const bwrap_sigs[] = { "permission denied", "read-only file system",
                                          "operation not permitted" };

/* Returns the matched signature or NULL, checking the outputs agree. */
static const char *denied(int code, const char *text, size_t len, const char *const *sigs,
                          size_t n)
{
        int d = 77;
        const char *sig = sentinel;
        sbx_error e = { 0, 0, { 0 } };
        size_t i;

        assert_int_equal(sbx_denied_by_sandbox(code, text, len, sigs, n, &d, &sig, &e), SBX_OK);
        if (!d) {
                assert_int_equal(d, 0);
                assert_null(sig);
                return NULL;
        }
        assert_int_equal(d, 1);
        for (i = 0; i < n; i++)
                if (sig == sigs[i])
                        return sig;
        fail_msg("signature %p does not point into the list", (const void *) sig);
        return NULL;
}

static void test_denial__denied_on_failure_with_signature(void **state)
{
        (void) state;
        assert_ptr_equal(denied(1, S("touch: cannot touch '/etc/x': Read-only file system\n"),
                                bwrap_sigs, N(bwrap_sigs)),
                         bwrap_sigs[1]);
        assert_ptr_equal(denied(-13, S("open: permission denied"), bwrap_sigs, N(bwrap_sigs)),
                         bwrap_sigs[0]);
}

static void test_denial__exit_zero_is_not_denied(void **state)
{
        (void) state;
        assert_null(denied(0, S("Permission denied\n"), bwrap_sigs, N(bwrap_sigs)));
}

static void test_denial__no_signature_is_not_denied(void **state)
{
        (void) state;
        assert_null(denied(2, S("grep: no such file\n"), bwrap_sigs, N(bwrap_sigs)));
        assert_null(denied(2, S(""), bwrap_sigs, N(bwrap_sigs)));
        assert_null(denied(2, NULL, 0, bwrap_sigs, N(bwrap_sigs)));
        assert_null(denied(2, S("Permission denied"), NULL, 0));
}

static void test_denial__case_insensitive(void **state)
{
        static const char *const upper[] = { "PERMISSION Denied" };
        (void) state;

        assert_non_null(denied(1, S("PERMISSION DENIED"), bwrap_sigs, N(bwrap_sigs)));
        assert_ptr_equal(denied(1, S("x: permission denied"), upper, N(upper)), upper[0]);
}

static void test_denial__first_signature_in_list_wins(void **state)
{
        (void) state;
        /* "operation not permitted" occurs first, but the list order decides. */
        assert_ptr_equal(denied(1, S("operation not permitted\nRead-only file system\n"),
                                bwrap_sigs, N(bwrap_sigs)),
                         bwrap_sigs[1]);
}

static void test_denial__empty_signature_never_matches(void **state)
{
        static const char *const sigs[] = { "", "denied" };
        (void) state;

        assert_null(denied(1, S("anything"), sigs, 1));
        assert_ptr_equal(denied(1, S("access denied"), sigs, N(sigs)), sigs[1]);
}

static void test_denial__embedded_nul_and_bounds(void **state)
{
        static const char text[] = "\0\0x\0permission denied\0";
        char *copy;
        (void) state;

        assert_non_null(denied(1, S("\0\0x\0permission denied\0"), bwrap_sigs, N(bwrap_sigs)));
        assert_null(denied(1, S("permission\0denied"), bwrap_sigs, N(bwrap_sigs)));
        /* err_len bounds the search: cut inside "denied". */
        copy = malloc(sizeof(text) - 3);        /* exactly sized for ASan */
        assert_non_null(copy);
        memcpy(copy, text, sizeof(text) - 3);
        assert_null(denied(1, copy, sizeof(text) - 3, bwrap_sigs, N(bwrap_sigs)));
        free(copy);
}

static void test_denial__whole_text_is_searched(void **state)
{
        static const char *const sigs[] = { "denied\nby policy" };
        (void) state;

        /* Unlike a runner rule, the search is over the whole text. */
        assert_ptr_equal(denied(1, S("x: denied\nby policy\n"), sigs, N(sigs)), sigs[0]);
}

static void test_denial__signature_out_may_be_null(void **state)
{
        int d = 0;
        (void) state;

        assert_int_equal(sbx_denied_by_sandbox(1, S("Permission denied"), bwrap_sigs,
                                               N(bwrap_sigs), &d, NULL, NULL), SBX_OK);
        assert_int_equal(d, 1);
}

static void test_denial__long_text(void **state)
{
        const size_t total = 1024 * 1024;
        char *text = malloc(total);
        (void) state;

        assert_non_null(text);
        memset(text, 'p', total);
        assert_null(denied(1, text, total, bwrap_sigs, N(bwrap_sigs)));
        memcpy(text + total - 17, "permission denied", 17);
        assert_ptr_equal(denied(1, text, total, bwrap_sigs, N(bwrap_sigs)), bwrap_sigs[0]);
        free(text);
}

static void expect_denied_invalid(int code, const char *text, size_t len,
                                  const char *const *sigs, size_t n, int use_out,
                                  const char *needle)
{
        int d = 77;
        const char *sig = sentinel;

        assert_sbx_fails(sbx_denied_by_sandbox(code, text, len, sigs, n, use_out ? &d : NULL,
                                               &sig, err),
                         SBX_E_INVALID, needle);
        assert_sbx_fails(sbx_denied_by_sandbox(code, text, len, sigs, n, use_out ? &d : NULL,
                                               &sig, err),
                         SBX_E_INVALID, "sbx_denied_by_sandbox");
        assert_int_equal(sbx_denied_by_sandbox(code, text, len, sigs, n, use_out ? &d : NULL,
                                               &sig, NULL),
                         SBX_E_INVALID);
        assert_int_equal(d, 77);
        assert_ptr_equal(sig, sentinel);
}

static void test_denial__invalid_arguments(void **state)
{
        static const char *const with_null[] = { "permission denied", NULL };
        int code;
        (void) state;

        /* Checked whatever the exit code. */
        for (code = 0; code < 2; code++) {
                expect_denied_invalid(code, NULL, 3, bwrap_sigs, N(bwrap_sigs), 1, "err_text");
                expect_denied_invalid(code, S("x"), NULL, 2, 1, "signatures");
                expect_denied_invalid(code, S("x"), with_null, N(with_null), 1,
                                      "signatures[1]");
                expect_denied_invalid(code, S("x"), bwrap_sigs, N(bwrap_sigs), 0,
                                      "denied_out");
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_denial__marker_for_each_mode),
                cmocka_unit_test(test_denial__marker_in_large_buffer),
                cmocka_unit_test(test_denial__marker_small_buffer_is_range),
                cmocka_unit_test(test_denial__marker_invalid_mode),
                cmocka_unit_test(test_denial__marker_null_buf_is_invalid),
                cmocka_unit_test(test_denial__denied_on_failure_with_signature),
                cmocka_unit_test(test_denial__exit_zero_is_not_denied),
                cmocka_unit_test(test_denial__no_signature_is_not_denied),
                cmocka_unit_test(test_denial__case_insensitive),
                cmocka_unit_test(test_denial__first_signature_in_list_wins),
                cmocka_unit_test(test_denial__empty_signature_never_matches),
                cmocka_unit_test(test_denial__embedded_nul_and_bounds),
                cmocka_unit_test(test_denial__whole_text_is_searched),
                cmocka_unit_test(test_denial__signature_out_may_be_null),
                cmocka_unit_test(test_denial__long_text),
                cmocka_unit_test(test_denial__invalid_arguments),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
