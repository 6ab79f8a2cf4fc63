/*
 * test_runner_rule.c - sbx_runner_rule_matches, the three-stage runner
 * failure filter.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit/sbx_test.h"
#include "policy/runner_start.h"

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

/* ------------------------------------------ the runner's own start */

/*
 * sbx__runner_start_rules: a confined argv's rules are the backend's plus
 * two naming its runner (argv[0]): the loader cannot load it (127), or it
 * cannot be executed (126 / 127).  The command's own 126 / 127 never
 * matches.
 */
static const int32_t native_codes[] = { 125 };
static const char *const native_fatal[] = { "cannot start sandbox runner" };

static sbx_runner_rule *start_rules(const char *runner, size_t *n)
{
        sbx_runner_rule base = SBX_RUNNER_RULE_INIT, *rules;

        base.allowed_exit_codes = native_codes;
        base.n_allowed_exit_codes = N(native_codes);
        base.fatal_signatures = native_fatal;
        base.n_fatal_signatures = N(native_fatal);
        rules = sbx__runner_start_rules(&base, 1, runner, n);
        assert_non_null(rules);
        assert_int_equal(*n, 3);
        assert_ptr_equal(rules[0].fatal_signatures, native_fatal);     /* base first */
        assert_int_equal(rules[0].n_allowed_exit_codes, 1);
        return rules;
}

/* The first rule that matches, or -1. */
static int which_rule(const sbx_runner_rule *rules, size_t n, int code, const char *text,
                      size_t len)
{
        size_t i;

        for (i = 0; i < n; i++)
                if (match(&rules[i], code, text, len) != NULL)
                        return (int) i;
        return -1;
}

static void test_runner_rule__runner_start_lines(void **state)
{
        static const struct {
                int code;
                const char *text;
                int rule;               /* -1: not a runner failure */
        } cases[] = {
                /* The runner itself: the loader, then the exec, as sh,
                 * bash and GNU env (C and UTF-8 quotes) report them. */
                { 127, "/opt/sbx/bin/sandbox-run: error while loading shared libraries: "
                       "libsandbox.so.0: cannot open shared object file: No such file or "
                       "directory\n", 1 },
                { 127, "sh: 1: /opt/sbx/bin/sandbox-run: not found\n", 2 },
                { 127, "sh: 1: exec: /opt/sbx/bin/sandbox-run: not found\n", 2 },
                { 127, "bash: /opt/sbx/bin/sandbox-run: No such file or directory\n", 2 },
                { 126, "sh: 1: /opt/sbx/bin/sandbox-run: Permission denied\n", 2 },
                { 126, "bash: /opt/sbx/bin/sandbox-run: cannot execute binary file: Exec "
                       "format error\n", 2 },
                { 127, "env: '/opt/sbx/bin/sandbox-run': No such file or directory\n", 2 },
                { 126, "env: \xe2\x80\x98/opt/sbx/bin/sandbox-run\xe2\x80\x99: Permission "
                       "denied\n", 2 },
                { 127, "timeout: failed to run command \xe2\x80\x98/opt/sbx/bin/sandbox-run"
                       "\xe2\x80\x99: No such file or directory\n", 2 },
                { 125, "sandbox-run: cannot start sandbox runner: bad flag\n", 0 },
                /* The command's own 126 / 127: the runner's report of a
                 * command it cannot start, a shell's, the command's own
                 * loader failure. */
                { 127, "sandbox-run: nosuchcmd: command not found\n", -1 },
                { 127, "sandbox-run: /w/tool: No such file or directory\n", -1 },
                { 126, "sandbox-run: /w/run.sh: Permission denied\n", -1 },
                { 127, "sh: 1: nosuchcmd: not found\n", -1 },
                { 127, "/w/bin/tool: error while loading shared libraries: libfoo.so.1: "
                       "cannot open shared object file: No such file or directory\n", -1 },
                /* Another path that only starts like the runner's. */
                { 127, "sh: 1: /opt/sbx/bin/sandbox-run-helper: not found\n", -1 },
                { 127, "/opt/sbx/bin/sandbox-runner: error while loading shared libraries: "
                       "x\n", -1 },
                /* The runner's lines with another status are not ours. */
                { 1, "/opt/sbx/bin/sandbox-run: error while loading shared libraries: x\n",
                  -1 },
                { 126, "/opt/sbx/bin/sandbox-run: error while loading shared libraries: x\n",
                  -1 },
                { 2, "bash: /opt/sbx/bin/sandbox-run: No such file or directory\n", -1 },
                { 0, "sh: 1: /opt/sbx/bin/sandbox-run: not found\n", -1 },
        };
        sbx_runner_rule *rules;
        size_t n, i;
        (void) state;

        rules = start_rules("/opt/sbx/bin/sandbox-run", &n);
        for (i = 0; i < N(cases); i++) {
                int got = which_rule(rules, n, cases[i].code, cases[i].text,
                                     strlen(cases[i].text));

                if (got != cases[i].rule)
                        fail_msg("case %zu (exit %d, \"%s\"): rule %d, want %d", i,
                                 cases[i].code, cases[i].text, got, cases[i].rule);
        }
        free(rules);
}

/* Fixtures for the real runs: a temp dir holding copies of /bin/true. */
static char rt_dir[64];

static void rt_path(char *buf, size_t n, const char *name)
{
        if (snprintf(buf, n, "%s/%s", rt_dir, name) >= (int) n)
                fail_msg("path too long");
}

/* A copy of /bin/true that the loader cannot start: its libc.so.6 is
 * renamed to libQ.so.6, which does not exist. */
static void write_unloadable(const char *path, mode_t mode)
{
        static char img[4 << 20];
        const char from[] = "libc.so.6", to[] = "libQ.so.6";
        size_t len = 0, i, hits = 0;
        ssize_t r;
        int fd;

        fd = open("/bin/true", O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        while ((r = read(fd, img + len, sizeof(img) - len)) > 0)
                len += (size_t) r;
        close(fd);
        assert_true(len > 0 && len < sizeof(img));
        for (i = 0; i + sizeof(from) <= len; i++)
                if (memcmp(img + i, from, sizeof(from)) == 0) {     /* with its NUL */
                        memcpy(img + i, to, sizeof(to));
                        hits++;
                }
        if (hits == 0)
                fail_msg("/bin/true names no libc.so.6: cannot build the fixture");
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, img, len), (ssize_t) len);
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

/* Run argv with LC_ALL=lc_all; its stderr into buf.  Returns the exit
 * status (a signal fails the test). */
static int run_capture(const char *const argv[], const char *lc_all, char *buf, size_t bufsz,
                       size_t *len)
{
        int p[2], status = 0;
        ssize_t r;
        pid_t pid;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        fflush(NULL);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                if (dup2(p[1], 2) < 0 || setenv("LC_ALL", lc_all, 1) != 0)
                        _exit(121);
                execv(argv[0], (char *const *) argv);
                _exit(122);
        }
        close(p[1]);
        *len = 0;
        while ((r = read(p[0], buf + *len, bufsz - 1 - *len)) > 0)
                *len += (size_t) r;
        buf[*len] = '\0';
        close(p[0]);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_true(WEXITSTATUS(status) != 121 && WEXITSTATUS(status) != 122);
        return WEXITSTATUS(status);
}

/* Run argv and check its status and whether the rules call it a runner
 * failure. */
static void expect_run(const sbx_runner_rule *rules, size_t n, const char *const argv[],
                       const char *lc_all, int want_status, int want_runner_failure)
{
        char buf[4096];
        size_t len;
        int st = run_capture(argv, lc_all, buf, sizeof(buf), &len);
        int got = which_rule(rules, n, st, buf, len) >= 0;

        if (st != want_status || got != want_runner_failure)
                fail_msg("%s %s %s (LC_ALL=%s): exit %d (want %d), stderr \"%s\": %s a runner "
                         "failure", argv[0], argv[1] != NULL ? argv[1] : "",
                         argv[1] != NULL && argv[2] != NULL ? argv[2] : "", lc_all, st,
                         want_status, buf, got ? "is" : "is not");
}

static void test_runner_rule__runner_that_cannot_start_is_recognised(void **state)
{
        char tmpl[] = "/tmp/sbx-runstart-XXXXXX";
        char runner[128], tool[128], lookalike[128];
        sbx_runner_rule *rules;
        size_t n;
        (void) state;

        assert_non_null(mkdtemp(tmpl));
        (void) snprintf(rt_dir, sizeof(rt_dir), "%s", tmpl);
        rt_path(runner, sizeof(runner), "sandbox-run");
        rt_path(tool, sizeof(tool), "tool");
        rt_path(lookalike, sizeof(lookalike), "sandbox-run-helper");
        rules = start_rules(runner, &n);

        {
                /* The loader cannot load the runner: exec'd directly (the
                 * host's own spawn) and through a shell. */
                const char *const direct[] = { runner, "--sbx-stage2", NULL };
                const char *const via_sh[] = { "/bin/sh", "-c", "\"$1\" --sbx-stage2", "sh",
                                               runner, NULL };

                write_unloadable(runner, 0755);
                expect_run(rules, n, direct, "C", 127, 1);
                expect_run(rules, n, via_sh, "C", 127, 1);
        }
        {
                /* Not executable: 126 from sh and env. */
                const char *const via_sh[] = { "/bin/sh", "-c", "\"$1\"", "sh", runner, NULL };
                const char *const via_env[] = { "/usr/bin/env", runner, NULL };

                assert_int_equal(chmod(runner, 0644), 0);
                expect_run(rules, n, via_sh, "C", 126, 1);
                expect_run(rules, n, via_env, "C", 126, 1);
                expect_run(rules, n, via_env, "C.UTF-8", 126, 1);
        }
        {
                /* Gone: 127 from sh and env. */
                const char *const via_sh[] = { "/bin/sh", "-c", "\"$1\"", "sh", runner, NULL };
                const char *const via_env[] = { "/usr/bin/env", runner, NULL };

                assert_int_equal(unlink(runner), 0);
                expect_run(rules, n, via_sh, "C", 127, 1);
                expect_run(rules, n, via_env, "C", 127, 1);
                expect_run(rules, n, via_env, "C.UTF-8", 127, 1);
        }
        {
                /* The command's own 127s are not the runner's: a command
                 * the loader cannot start, a command not found, and a
                 * missing path that only starts with the runner's. */
                const char *const own_loader[] = { tool, NULL };
                const char *const not_found[] = { "/bin/sh", "-c", "sbx-no-such-command-7",
                                                  NULL };
                const char *const lookalike_sh[] = { "/bin/sh", "-c", "\"$1\"", "sh", lookalike,
                                                     NULL };

                write_unloadable(tool, 0755);
                expect_run(rules, n, own_loader, "C", 127, 0);
                expect_run(rules, n, not_found, "C", 127, 0);
                expect_run(rules, n, lookalike_sh, "C", 127, 0);
                assert_int_equal(unlink(tool), 0);
        }
        free(rules);
        assert_int_equal(rmdir(rt_dir), 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_runner_rule__seed_example_matches),
                cmocka_unit_test(test_runner_rule__runner_start_lines),
                cmocka_unit_test(test_runner_rule__runner_that_cannot_start_is_recognised),
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
