/*
 * fuzz_runner_rule.c - libFuzzer harness for sbx_runner_rule_matches,
 * sbx_denied_by_sandbox and sbx_denial_marker.
 *
 * Input layout:
 *   byte 0      exit code (as int8_t, so 0 and negative codes occur)
 *   byte 1      low 2 bits: how many allowed exit codes (0..3) from the list
 *               { exit code, 125, -1 }; the rest picks a mode and buffer
 *               size for sbx_denial_marker
 *   then        a rule spec up to the first 0x02 byte: entries separated by
 *               0x01; an entry starting with '#' is an informational line
 *               (without the '#'), any other a fatal signature.  Without a
 *               0x02 byte the rule has no entries.
 *   the rest    stderr (any bytes, NUL included)
 *
 * Properties (a violation traps): every call succeeds; a returned signature
 * is one of the rule's own pointers; matched and signature agree; exit 0
 * never matches; and the result equals a slow, independent reference
 * implementation of the documented algorithm.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sandbox.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define MAX_ENTRIES 64

/* ------------------------------------------------------- reference */

static int ref_lower(int c)
{
        return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

static int ref_space(int c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Naive: does needle (NUL-terminated, non-empty) occur in hay[0..n)? */
static int ref_contains(const char *hay, size_t n, const char *needle)
{
        size_t m = strlen(needle), i, j;

        if (m == 0)
                return 0;
        for (i = 0; i + m <= n; i++) {
                for (j = 0; j < m; j++)
                        if (ref_lower((uint8_t) hay[i + j]) != ref_lower((uint8_t) needle[j]))
                                break;
                if (j == m)
                        return 1;
        }
        return 0;
}

/* Trimmed, case-insensitive equality of line[0..n) and info. */
static int ref_info_equal(const char *line, size_t n, const char *info)
{
        size_t m = strlen(info), i;

        while (n > 0 && ref_space((uint8_t) line[0])) {
                line++;
                n--;
        }
        while (n > 0 && ref_space((uint8_t) line[n - 1]))
                n--;
        while (m > 0 && ref_space((uint8_t) info[0])) {
                info++;
                m--;
        }
        while (m > 0 && ref_space((uint8_t) info[m - 1]))
                m--;
        if (n != m)
                return 0;
        for (i = 0; i < n; i++)
                if (ref_lower((uint8_t) line[i]) != ref_lower((uint8_t) info[i]))
                        return 0;
        return 1;
}

/* The documented algorithm, signatures outermost, as literally as possible.
 * Returns the index of the winning signature or -1. */
static long ref_match(const sbx_runner_rule *r, int code, const char *t, size_t len)
{
        size_t s, k, start, end, n;
        int ok = r->n_allowed_exit_codes == 0;

        if (code == 0)
                return -1;
        for (k = 0; k < r->n_allowed_exit_codes; k++)
                if (r->allowed_exit_codes[k] == code)
                        ok = 1;
        if (!ok)
                return -1;
        for (s = 0; s < r->n_fatal_signatures; s++) {
                for (start = 0; start < len; start = end + 1) {
                        int info = 0;

                        for (end = start; end < len && t[end] != '\n'; end++)
                                ;
                        n = end - start;
                        if (end < len && n > 0 && t[end - 1] == '\r')
                                n--;
                        for (k = 0; k < r->n_informational_lines; k++)
                                if (ref_info_equal(t + start, n, r->informational_lines[k]))
                                        info = 1;
                        if (!info && ref_contains(t + start, n, r->fatal_signatures[s]))
                                return (long) s;
                }
        }
        return -1;
}

/* ---------------------------------------------------------- harness */

static void check_marker(uint8_t sel, uint8_t size_byte)
{
        static const char *const names[] = { "", "read-only", "workspace-write",
                                              "danger-full-access" };
        int32_t mode = (int32_t) (sel % 5);     /* 0 and 4 are invalid */
        size_t buflen = size_byte % 80, need;
        char buf[80];
        sbx_code r;

        memset(buf, 'Z', sizeof(buf));
        r = sbx_denial_marker(mode, buf, buflen, NULL);
        if (mode < 1 || mode > 3) {
                CHECK(r == SBX_E_INVALID);
                CHECK(buf[0] == 'Z');
                return;
        }
        need = strlen("[sandbox: file access denied under  mode]") + strlen(names[mode]) + 1;
        if (buflen < need) {
                CHECK(r == SBX_E_RANGE);
                CHECK(buf[0] == 'Z');
                return;
        }
        CHECK(r == SBX_OK);
        CHECK(strlen(buf) == need - 1);
        CHECK(memcmp(buf, "[sandbox: file access denied under ", 35) == 0);
        CHECK(memcmp(buf + 35, names[mode], strlen(names[mode])) == 0);
        CHECK(strcmp(buf + need - 7, " mode]") == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *sigs[MAX_ENTRIES], *info[MAX_ENTRIES];
        int32_t codes[3];
        sbx_runner_rule rule = SBX_RUNNER_RULE_INIT;
        const uint8_t *rest, *sep;
        const char *sig = NULL;
        size_t rest_len, spec_len, i, start, n_sigs = 0, n_info = 0;
        char *spec, *text;
        int code, matched = -1;
        long want;

        if (size < 2)
                return 0;
        code = (int8_t) data[0];
        codes[0] = code;
        codes[1] = 125;
        codes[2] = -1;
        check_marker((uint8_t) (data[1] >> 2), data[0]);

        rest = data + 2;
        rest_len = size - 2;
        sep = memchr(rest, 0x02, rest_len);
        spec_len = sep != NULL ? (size_t) (sep - rest) : 0;

        /* Split the spec on 0x01 into NUL-terminated entries. */
        spec = malloc(spec_len + 1);
        CHECK(spec != NULL);
        if (spec_len > 0)
                memcpy(spec, rest, spec_len);
        spec[spec_len] = '\0';
        for (start = 0, i = 0; i <= spec_len; i++) {
                if (i < spec_len && spec[i] != 0x01)
                        continue;
                spec[i] = '\0';
                if (spec[start] == '#') {
                        if (n_info < MAX_ENTRIES)
                                info[n_info++] = spec + start + 1;
                } else if (n_sigs < MAX_ENTRIES) {
                        sigs[n_sigs++] = spec + start;
                }
                start = i + 1;
        }
        if (sep == NULL)
                n_sigs = n_info = 0;

        /* stderr: an exactly-sized heap copy so ASan sees any overrun. */
        if (sep != NULL) {
                rest_len -= spec_len + 1;
                rest = sep + 1;
        }
        text = malloc(rest_len > 0 ? rest_len : 1);
        CHECK(text != NULL);
        if (rest_len > 0)
                memcpy(text, rest, rest_len);

        rule.allowed_exit_codes = (data[1] & 3) ? codes : NULL;
        rule.n_allowed_exit_codes = data[1] & 3;
        rule.fatal_signatures = n_sigs > 0 ? sigs : NULL;
        rule.n_fatal_signatures = n_sigs;
        rule.informational_lines = n_info > 0 ? info : NULL;
        rule.n_informational_lines = n_info;

        CHECK(sbx_runner_rule_matches(&rule, code, text, rest_len, &matched, &sig, NULL) ==
              SBX_OK);
        CHECK(matched == 0 || matched == 1);
        want = ref_match(&rule, code, text, rest_len);
        if (matched) {
                CHECK(want >= 0 && sig == sigs[want]);
        } else {
                CHECK(want == -1 && sig == NULL);
        }

        /* Exit 0 never matches. */
        CHECK(sbx_runner_rule_matches(&rule, 0, text, rest_len, &matched, &sig, NULL) ==
              SBX_OK);
        CHECK(matched == 0 && sig == NULL);

        /* The same signatures as denial signatures, over the whole text. */
        CHECK(sbx_denied_by_sandbox(code, text, rest_len, rule.fatal_signatures, n_sigs,
                                    &matched, &sig, NULL) == SBX_OK);
        want = -1;
        if (code != 0)
                for (i = 0; i < n_sigs && want < 0; i++)
                        if (ref_contains(text, rest_len, sigs[i]))
                                want = (long) i;
        if (matched) {
                CHECK(matched == 1 && want >= 0 && sig == sigs[want]);
        } else {
                CHECK(want == -1 && sig == NULL);
        }

        free(text);
        free(spec);
        return 0;
}
