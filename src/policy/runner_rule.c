/*
 * runner_rule.c - telling "the sandbox runner failed" and "the sandbox said
 * no" apart from an ordinary command failure, and the model-facing denial
 * marker.  Pure and portable: no OS calls, no allocation.
 *
 * stderr is treated as raw bytes (NUL included) of a known length.  Matching
 * is ASCII case-insensitive and never depends on the locale.  The cost is
 * O(err_len * (total signature length + total informational length)) in the
 * worst case, with no per-line quadratic behaviour.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "core/internal.h"

/* ------------------------------------------------------------- helpers */

/* 1 if the NUL-terminated needle occurs in hay[0..hay_len).  The needle's
 * length is bounded first, so a long needle against many short lines costs
 * O(line) per line rather than O(needle). */
static int contains(const char *hay, size_t hay_len, const char *needle)
{
        size_t n;

        for (n = 0; n <= hay_len && needle[n] != '\0'; n++)
                ;
        if (n == 0 || n > hay_len)
                return 0;
        return sbx__memcasemem(hay, hay_len, needle);
}

/* Trim ASCII whitespace from both ends of s[0..*len); returns the new start. */
static const char *trim(const char *s, size_t *len)
{
        size_t n = *len;

        while (n > 0 && sbx__ascii_isspace((unsigned char) s[0])) {
                s++;
                n--;
        }
        while (n > 0 && sbx__ascii_isspace((unsigned char) s[n - 1]))
                n--;
        *len = n;
        return s;
}

/* 1 if line[0..len) (already trimmed) equals info trimmed, ignoring ASCII
 * case.  A NUL in the line never matches the end of info. */
static int equals_trimmed(const char *line, size_t len, const char *info)
{
        size_t i;

        while (sbx__ascii_isspace((unsigned char) *info))
                info++;
        for (i = 0; i < len; i++, info++) {
                if (*info == '\0')
                        return 0;
                if (sbx__ascii_lower((unsigned char) line[i]) !=
                    sbx__ascii_lower((unsigned char) *info))
                        return 0;
        }
        for (; *info != '\0'; info++)
                if (!sbx__ascii_isspace((unsigned char) *info))
                        return 0;
        return 1;
}

static int is_informational(const sbx_runner_rule *rule, const char *line, size_t len)
{
        size_t i;

        line = trim(line, &len);
        for (i = 0; i < rule->n_informational_lines; i++)
                if (equals_trimmed(line, len, rule->informational_lines[i]))
                        return 1;
        return 0;
}

static int exit_code_allowed(const sbx_runner_rule *rule, int exit_code)
{
        size_t i;

        if (exit_code == 0)
                return 0;
        if (rule->n_allowed_exit_codes == 0)
                return 1;
        for (i = 0; i < rule->n_allowed_exit_codes; i++)
                if ((long long) rule->allowed_exit_codes[i] == (long long) exit_code)
                        return 1;
        return 0;
}

/* Validate a string vector argument: NULL only when empty, no NULL entry. */
static sbx_code check_strv(const char *fn, const char *what, const char *const *v, size_t n,
                           sbx_error *err)
{
        size_t i;

        if (v == NULL && n > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s is NULL but its count is %zu",
                                 fn, what, n);
        for (i = 0; i < n; i++)
                if (v[i] == NULL)
                        return sbx__fail(err, SBX_E_INVALID, 0, "%s: %s[%zu] is NULL",
                                         fn, what, i);
        return SBX_OK;
}

static sbx_code check_rule(const char *fn, const sbx_runner_rule *rule, sbx_error *err)
{
        sbx_code r;

        if (rule == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: rule is NULL", fn);
        if (rule->version != SBX_RUNNER_RULE_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: rule->version is %u, expected %u (use SBX_RUNNER_RULE_INIT)",
                                 fn, (unsigned) rule->version, (unsigned) SBX_RUNNER_RULE_VERSION);
        if (rule->allowed_exit_codes == NULL && rule->n_allowed_exit_codes > 0)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: rule->allowed_exit_codes is NULL but its count is %zu",
                                 fn, rule->n_allowed_exit_codes);
        r = check_strv(fn, "rule->fatal_signatures", rule->fatal_signatures,
                       rule->n_fatal_signatures, err);
        if (r != SBX_OK)
                return r;
        return check_strv(fn, "rule->informational_lines", rule->informational_lines,
                          rule->n_informational_lines, err);
}

/* ---------------------------------------------------------- runner rule */

sbx_code sbx_runner_rule_matches(const sbx_runner_rule *rule, int exit_code,
                                 const char *err_text, size_t err_len,
                                 int *matched_out, const char **signature_out,
                                 sbx_error *err)
{
        static const char fn[] = "sbx_runner_rule_matches";
        const char *found = NULL;
        size_t best, pos, i;
        sbx_code r;

        r = check_rule(fn, rule, err);
        if (r != SBX_OK)
                return r;
        if (err_text == NULL && err_len > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: err_text is NULL but err_len is %zu",
                                 fn, err_len);
        if (matched_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: matched_out is NULL", fn);

        /* (1) The exit-code gate. */
        if (!exit_code_allowed(rule, exit_code))
                goto out;

        /*
         * (2) + (3) in one pass over the lines: a line that is not
         * informational is searched for the signatures that come before the
         * best one found so far, so the first signature in rule order that
         * occurs in any remaining line wins.  Searching line by line means a
         * match never spans a line break (nor, therefore, a dropped line).
         */
        best = rule->n_fatal_signatures;
        pos = 0;
        while (pos < err_len && best > 0) {
                const char *line = err_text + pos;
                const char *nl = memchr(line, '\n', err_len - pos);
                size_t len;

                if (nl != NULL) {
                        len = (size_t) (nl - line);
                        pos += len + 1;
                        if (len > 0 && line[len - 1] == '\r')
                                len--;          /* a "\r\n" ending is a '\n' */
                } else {
                        len = err_len - pos;
                        pos = err_len;
                }
                if (is_informational(rule, line, len))
                        continue;
                for (i = 0; i < best; i++) {
                        if (contains(line, len, rule->fatal_signatures[i])) {
                                best = i;
                                break;
                        }
                }
        }
        if (best < rule->n_fatal_signatures)
                found = rule->fatal_signatures[best];

out:
        *matched_out = found != NULL;
        if (signature_out != NULL)
                *signature_out = found;
        return SBX_OK;
}

/* -------------------------------------------------------- denial marker */

sbx_code sbx_denial_marker(int32_t mode, char *buf, size_t buflen, sbx_error *err)
{
        static const char head[] = "[sandbox: file access denied under ";
        static const char tail[] = " mode]";
        const char *name;
        size_t nhead = sizeof(head) - 1, ntail = sizeof(tail) - 1, nname, need;

        if (!sbx_mode_is_valid(mode))
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "sbx_denial_marker: mode %d is not a valid mode", (int) mode);
        if (buf == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_denial_marker: buf is NULL");
        name = sbx_mode_name(mode);
        nname = strlen(name);
        need = nhead + nname + ntail + 1;
        if (buflen < need)
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "sbx_denial_marker: buflen %zu is too small, %zu bytes needed",
                                 buflen, need);
        memcpy(buf, head, nhead);
        memcpy(buf + nhead, name, nname);
        memcpy(buf + nhead + nname, tail, ntail + 1);   /* with the NUL */
        return SBX_OK;
}

sbx_code sbx_denied_by_sandbox(int exit_code, const char *err_text, size_t err_len,
                               const char *const *signatures, size_t n_signatures,
                               int *denied_out, const char **signature_out,
                               sbx_error *err)
{
        static const char fn[] = "sbx_denied_by_sandbox";
        const char *found = NULL;
        size_t i;
        sbx_code r;

        if (err_text == NULL && err_len > 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: err_text is NULL but err_len is %zu",
                                 fn, err_len);
        r = check_strv(fn, "signatures", signatures, n_signatures, err);
        if (r != SBX_OK)
                return r;
        if (denied_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: denied_out is NULL", fn);

        if (exit_code == 0 || err_len == 0)
                goto out;
        for (i = 0; i < n_signatures; i++) {
                if (contains(err_text, err_len, signatures[i])) {
                        found = signatures[i];
                        break;
                }
        }

out:
        *denied_out = found != NULL;
        if (signature_out != NULL)
                *signature_out = found;
        return SBX_OK;
}
