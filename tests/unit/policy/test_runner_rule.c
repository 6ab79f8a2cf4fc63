/*
 * test_runner_rule.c - sbx_runner_rule_matches, the three-stage runner
 * failure filter.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "unit/sbx_test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define S(lit) (lit), (sizeof(lit) - 1)        /* a literal as (text, len) */

static const int32_t seed_codes[] = { 125 };
static const char *const seed_fatal[] = { "cannot start sandbox runner", "exec format error" };
static const char *const seed_info[] = { "landlock: fallback to baseline" };

/* The rule from the design seed. */
static sbx_runner_rule seed_rule(void)
{
        sbx_runner_rule r = SBX_RUNNER_RULE_INIT;

        r.allowed_exit_codes = seed_codes;
        r.n_allowed_exit_codes = N(seed_codes);
        r.fatal_signatures = seed_fatal;
        r.n_fatal_signatures = N(seed_fatal);
        r.informational_lines = seed_info;
        r.n_informational_lines = N(seed_info);
        return r;
}

static const char sentinel[] = "untouched";

/* Match and return the signature (NULL when no match), checking that the
 * two outputs agree and that a signature points into the rule. */
static const char *match(const sbx_runner_rule *rule, int code, const char *text, size_t len)
{
        int matched = 77;
        const char *sig = sentinel;
        sbx_error e = { 0, 0, { 0 } };
        size_t i;

        assert_int_equal(sbx_runner_rule_matches(rule, code, text, len, &matched, &sig, &e),
                         SBX_OK);
        if (!matched) {
                assert_int_equal(matched, 0);
                assert_null(sig);
                return NULL;
        }
        assert_int_equal(matched, 1);
        for (i = 0; i < rule->n_fatal_signatures; i++)
                if (sig == rule->fatal_signatures[i])
                        return sig;
        fail_msg("signature %p does not point into the rule", (const void *) sig);
        return NULL;
}

/* ------------------------------------------------------------- seed */

static void test_runner_rule__seed_example_matches(void **state)
{
        sbx_runner_rule r = seed_rule();
        const char *sig;
        (void) state;

        sig = match(&r, 125, S("landlock: fallback to baseline\n"
                               "cannot start sandbox runner: permission denied\n"));
        assert_ptr_equal(sig, seed_fatal[0]);
        assert_string_equal(sig, "cannot start sandbox runner");
}

static void test_runner_rule__second_signature_matches(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_ptr_equal(match(&r, 125, S("bwrap: execvp: Exec format error\n")), seed_fatal[1]);
}

/* -------------------------------------------------------- exit gate */

static void test_runner_rule__exit_zero_never_matches(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_null(match(&r, 0, S("cannot start sandbox runner\n")));
        r.n_allowed_exit_codes = 0;
        assert_null(match(&r, 0, S("cannot start sandbox runner\n")));
}

static void test_runner_rule__exit_code_not_in_list(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_null(match(&r, 1, S("cannot start sandbox runner\n")));
        assert_null(match(&r, 126, S("cannot start sandbox runner\n")));
        assert_null(match(&r, -125, S("cannot start sandbox runner\n")));
}

static void test_runner_rule__several_allowed_codes(void **state)
{
        static const int32_t codes[] = { 1, 125, -9 };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.allowed_exit_codes = codes;
        r.n_allowed_exit_codes = N(codes);
        assert_non_null(match(&r, 1, S("cannot start sandbox runner")));
        assert_non_null(match(&r, 125, S("cannot start sandbox runner")));
        assert_non_null(match(&r, -9, S("cannot start sandbox runner")));
        assert_null(match(&r, 2, S("cannot start sandbox runner")));
}

static void test_runner_rule__empty_list_allows_any_nonzero(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.allowed_exit_codes = NULL;
        r.n_allowed_exit_codes = 0;
        assert_non_null(match(&r, 1, S("cannot start sandbox runner")));
        assert_non_null(match(&r, 255, S("cannot start sandbox runner")));
        assert_non_null(match(&r, -1, S("cannot start sandbox runner")));
        assert_null(match(&r, 0, S("cannot start sandbox runner")));
}

/* ------------------------------------------------ informational lines */

static void test_runner_rule__signature_only_in_informational_line(void **state)
{
        static const char *const fatal[] = { "fallback" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = fatal;
        r.n_fatal_signatures = N(fatal);
        assert_null(match(&r, 125, S("landlock: fallback to baseline\n")));
        assert_null(match(&r, 125, S("landlock: fallback to baseline")));
        assert_null(match(&r, 125, S("x\nlandlock: fallback to baseline\ny\n")));
}

static void test_runner_rule__informational_match_is_trimmed_and_caseless(void **state)
{
        static const char *const fatal[] = { "fallback" };
        static const char *const info[] = { "  Landlock: FALLBACK to baseline \t" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = fatal;
        r.n_fatal_signatures = N(fatal);
        assert_null(match(&r, 125, S("   LANDLOCK: Fallback To Baseline\t\r\n")));
        assert_null(match(&r, 125, S("\v\flandlock: fallback to baseline")));
        r.informational_lines = info;
        assert_null(match(&r, 125, S("landlock: fallback to baseline\n")));
}

static void test_runner_rule__informational_substring_is_not_removed(void **state)
{
        static const char *const fatal[] = { "fallback to baseline" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = fatal;
        r.n_fatal_signatures = N(fatal);
        /* The informational text is only part of a longer line: kept. */
        assert_ptr_equal(match(&r, 125, S("warning: landlock: fallback to baseline failed\n")),
                         fatal[0]);
        assert_ptr_equal(match(&r, 125, S("landlock: fallback to baseline!\n")), fatal[0]);
        assert_ptr_equal(match(&r, 125, S("landlock:  fallback to baseline\n")), fatal[0]);
        assert_ptr_equal(match(&r, 125, S("landlock: fallback to\0baseline\nfallback to baseline")),
                         fatal[0]);
}

static void test_runner_rule__line_with_nul_is_not_informational(void **state)
{
        static const char *const fatal[] = { "fallback" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = fatal;
        r.n_fatal_signatures = N(fatal);
        assert_non_null(match(&r, 125, S("landlock: fallback to baseline\0\n")));
}

static void test_runner_rule__match_does_not_span_dropped_line(void **state)
{
        static const char *const fatal[] = { "cannot start sandbox runner" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = fatal;
        r.n_fatal_signatures = N(fatal);
        assert_null(match(&r, 125, S("cannot start\nlandlock: fallback to baseline\n"
                                     " sandbox runner\n")));
        assert_null(match(&r, 125, S("cannot start \nsandbox runner\n")));
}

static void test_runner_rule__informational_then_fatal_same_text(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        /* Informational lines around the fatal one, CRLF endings. */
        assert_ptr_equal(match(&r, 125, S("landlock: fallback to baseline\r\n"
                                          "cannot start sandbox runner\r\n"
                                          "landlock: fallback to baseline\r\n")),
                         seed_fatal[0]);
        /* Only informational lines: no match. */
        assert_null(match(&r, 125, S("landlock: fallback to baseline\n"
                                     "LANDLOCK: FALLBACK TO BASELINE\n")));
}

/* ---------------------------------------------------------- signatures */

static void test_runner_rule__signature_is_case_insensitive(void **state)
{
        sbx_runner_rule r = seed_rule();
        static const char *const upper[] = { "CANNOT Start SANDBOX runner" };
        (void) state;

        assert_ptr_equal(match(&r, 125, S("CANNOT START SANDBOX RUNNER\n")), seed_fatal[0]);
        assert_ptr_equal(match(&r, 125, S("Cannot Start Sandbox Runner")), seed_fatal[0]);
        r.fatal_signatures = upper;
        r.n_fatal_signatures = N(upper);
        assert_ptr_equal(match(&r, 125, S("x: cannot start sandbox runner: y")), upper[0]);
}

static void test_runner_rule__first_signature_in_rule_order_wins(void **state)
{
        sbx_runner_rule r = seed_rule();
        static const char *const sigs[] = { "exec format error", "cannot start", "runner" };
        (void) state;

        r.fatal_signatures = sigs;
        r.n_fatal_signatures = N(sigs);
        /* "cannot start" occurs first in the text, but the rule lists
         * "exec format error" first. */
        assert_ptr_equal(match(&r, 125, S("cannot start sandbox runner\nexec format error\n")),
                         sigs[0]);
        assert_ptr_equal(match(&r, 125, S("runner\ncannot start\n")), sigs[1]);
        assert_ptr_equal(match(&r, 125, S("the runner died\n")), sigs[2]);
}

static void test_runner_rule__empty_signature_never_matches(void **state)
{
        static const char *const sigs[] = { "", "" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = sigs;
        r.n_fatal_signatures = N(sigs);
        assert_null(match(&r, 125, S("anything at all\n")));
        assert_null(match(&r, 125, S("\n\n")));
        assert_null(match(&r, 125, S("")));
}

static void test_runner_rule__no_signatures_never_matches(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = NULL;
        r.n_fatal_signatures = 0;
        assert_null(match(&r, 125, S("cannot start sandbox runner\n")));
}

static void test_runner_rule__signature_with_newline_never_matches(void **state)
{
        static const char *const sigs[] = { "cannot start\nsandbox runner" };
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.fatal_signatures = sigs;
        r.n_fatal_signatures = N(sigs);
        assert_null(match(&r, 125, S("cannot start\nsandbox runner\n")));
}

static void test_runner_rule__last_line_without_newline(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_non_null(match(&r, 125, S("x\ncannot start sandbox runner")));
        assert_non_null(match(&r, 125, S("cannot start sandbox runner\r")));
}

static void test_runner_rule__embedded_nul_bytes(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_non_null(match(&r, 125, S("\0\0x\0cannot start sandbox runner\0\n")));
        assert_null(match(&r, 125, S("cannot start\0sandbox runner\n")));
}

static void test_runner_rule__err_len_bounds_the_search(void **state)
{
        static const char text[] = "ok\ncannot start sandbox runner\n";
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_null(match(&r, 125, text, 3));
        assert_null(match(&r, 125, text, sizeof(text) - 3));  /* cut inside "runner" */
        assert_non_null(match(&r, 125, text, sizeof(text) - 2));
}

static void test_runner_rule__empty_and_null_stderr(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        assert_null(match(&r, 125, "", 0));
        assert_null(match(&r, 125, NULL, 0));
        assert_null(match(&r, 125, S("\n")));
}

static void test_runner_rule__signature_longer_than_line(void **state)
{
        static const char *const sigs[] = { "cannot start sandbox runner, really, truly" };
        sbx_runner_rule r = seed_rule();
        char *text;
        (void) state;

        r.fatal_signatures = sigs;
        r.n_fatal_signatures = N(sigs);
        text = malloc(6);       /* exactly sized so ASan sees an overrun */
        assert_non_null(text);
        memcpy(text, "cannot", 6);
        assert_null(match(&r, 125, text, 6));
        free(text);
}

static void test_runner_rule__signature_out_may_be_null(void **state)
{
        sbx_runner_rule r = seed_rule();
        int matched = 0;
        (void) state;

        assert_int_equal(sbx_runner_rule_matches(&r, 125, S("cannot start sandbox runner"),
                                                 &matched, NULL, NULL), SBX_OK);
        assert_int_equal(matched, 1);
        assert_int_equal(sbx_runner_rule_matches(&r, 0, S("cannot start sandbox runner"),
                                                 &matched, NULL, NULL), SBX_OK);
        assert_int_equal(matched, 0);
}

static void test_runner_rule__long_stderr(void **state)
{
        static const char info[] = "landlock: fallback to baseline\r\n";
        static const char fatal[] = "x: exec format error";
        const size_t total = 1024 * 1024, ilen = sizeof(info) - 1;
        size_t reps = total / ilen, i;
        sbx_runner_rule r = seed_rule();
        char *text = malloc(total + sizeof(fatal));
        (void) state;

        assert_non_null(text);
        for (i = 0; i < reps; i++)
                memcpy(text + i * ilen, info, ilen);
        assert_null(match(&r, 125, text, reps * ilen));
        memcpy(text + reps * ilen, fatal, sizeof(fatal) - 1);
        assert_ptr_equal(match(&r, 125, text, reps * ilen + sizeof(fatal) - 1), seed_fatal[1]);

        /* One 1 MiB line, and 1 MiB of empty lines. */
        memset(text, 'a', total);
        assert_null(match(&r, 125, text, total));
        memset(text, '\n', total);
        assert_null(match(&r, 125, text, total));
        free(text);
}

/* ---------------------------------------------------------- arguments */

/* Expect SBX_E_INVALID naming `needle`, with both outputs untouched. */
static void expect_invalid(const sbx_runner_rule *rule, int code, const char *text, size_t len,
                           int use_matched, const char *needle)
{
        int matched = 77;
        const char *sig = sentinel;

        assert_sbx_fails(sbx_runner_rule_matches(rule, code, text, len,
                                                 use_matched ? &matched : NULL, &sig, err),
                         SBX_E_INVALID, needle);
        assert_sbx_fails(sbx_runner_rule_matches(rule, code, text, len,
                                                 use_matched ? &matched : NULL, &sig, err),
                         SBX_E_INVALID, "sbx_runner_rule_matches");
        assert_int_equal(sbx_runner_rule_matches(rule, code, text, len,
                                                 use_matched ? &matched : NULL, &sig, NULL),
                         SBX_E_INVALID);
        assert_int_equal(matched, 77);
        assert_ptr_equal(sig, sentinel);
}

static void test_runner_rule__null_rule_is_invalid(void **state)
{
        (void) state;
        expect_invalid(NULL, 125, S("x"), 1, "rule");
}

static void test_runner_rule__wrong_version_is_invalid(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        r.version = 0;
        expect_invalid(&r, 125, S("x"), 1, "version");
        r.version = SBX_RUNNER_RULE_VERSION + 1;
        expect_invalid(&r, 125, S("x"), 1, "version");
        r.version = UINT32_MAX;
        expect_invalid(&r, 0, S("x"), 1, "version");
}

static void test_runner_rule__null_arrays_with_count_are_invalid(void **state)
{
        sbx_runner_rule r;
        (void) state;

        r = seed_rule();
        r.allowed_exit_codes = NULL;
        expect_invalid(&r, 125, S("x"), 1, "allowed_exit_codes");
        r = seed_rule();
        r.fatal_signatures = NULL;
        expect_invalid(&r, 125, S("x"), 1, "fatal_signatures");
        r = seed_rule();
        r.informational_lines = NULL;
        expect_invalid(&r, 125, S("x"), 1, "informational_lines");
}

static void test_runner_rule__null_entries_are_invalid(void **state)
{
        static const char *const sigs[] = { "ok", NULL };
        static const char *const info[] = { NULL };
        sbx_runner_rule r;
        (void) state;

        r = seed_rule();
        r.fatal_signatures = sigs;
        r.n_fatal_signatures = N(sigs);
        expect_invalid(&r, 125, S("ok"), 1, "fatal_signatures[1]");
        r = seed_rule();
        r.informational_lines = info;
        r.n_informational_lines = N(info);
        expect_invalid(&r, 125, S("x"), 1, "informational_lines[0]");
}

static void test_runner_rule__null_err_text_with_len_is_invalid(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        expect_invalid(&r, 125, NULL, 4, 1, "err_text");
}

static void test_runner_rule__null_matched_out_is_invalid(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        expect_invalid(&r, 125, S("cannot start sandbox runner"), 0, "matched_out");
}

static void test_runner_rule__arguments_checked_even_for_exit_zero(void **state)
{
        sbx_runner_rule r = seed_rule();
        (void) state;

        expect_invalid(&r, 0, NULL, 4, 1, "err_text");
        expect_invalid(&r, 0, S("x"), 0, "matched_out");
        r.fatal_signatures = NULL;
        expect_invalid(&r, 0, S("x"), 1, "fatal_signatures");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_runner_rule__seed_example_matches),
                cmocka_unit_test(test_runner_rule__second_signature_matches),
                cmocka_unit_test(test_runner_rule__exit_zero_never_matches),
                cmocka_unit_test(test_runner_rule__exit_code_not_in_list),
                cmocka_unit_test(test_runner_rule__several_allowed_codes),
                cmocka_unit_test(test_runner_rule__empty_list_allows_any_nonzero),
                cmocka_unit_test(test_runner_rule__signature_only_in_informational_line),
                cmocka_unit_test(test_runner_rule__informational_match_is_trimmed_and_caseless),
                cmocka_unit_test(test_runner_rule__informational_substring_is_not_removed),
                cmocka_unit_test(test_runner_rule__line_with_nul_is_not_informational),
                cmocka_unit_test(test_runner_rule__match_does_not_span_dropped_line),
                cmocka_unit_test(test_runner_rule__informational_then_fatal_same_text),
                cmocka_unit_test(test_runner_rule__signature_is_case_insensitive),
                cmocka_unit_test(test_runner_rule__first_signature_in_rule_order_wins),
                cmocka_unit_test(test_runner_rule__empty_signature_never_matches),
                cmocka_unit_test(test_runner_rule__no_signatures_never_matches),
                cmocka_unit_test(test_runner_rule__signature_with_newline_never_matches),
                cmocka_unit_test(test_runner_rule__last_line_without_newline),
                cmocka_unit_test(test_runner_rule__embedded_nul_bytes),
                cmocka_unit_test(test_runner_rule__err_len_bounds_the_search),
                cmocka_unit_test(test_runner_rule__empty_and_null_stderr),
                cmocka_unit_test(test_runner_rule__signature_longer_than_line),
                cmocka_unit_test(test_runner_rule__signature_out_may_be_null),
                cmocka_unit_test(test_runner_rule__long_stderr),
                cmocka_unit_test(test_runner_rule__null_rule_is_invalid),
                cmocka_unit_test(test_runner_rule__wrong_version_is_invalid),
                cmocka_unit_test(test_runner_rule__null_arrays_with_count_are_invalid),
                cmocka_unit_test(test_runner_rule__null_entries_are_invalid),
                cmocka_unit_test(test_runner_rule__null_err_text_with_len_is_invalid),
                cmocka_unit_test(test_runner_rule__null_matched_out_is_invalid),
                cmocka_unit_test(test_runner_rule__arguments_checked_even_for_exit_zero),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
