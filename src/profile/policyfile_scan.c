/*
 * policyfile_scan.c - the line of every key of a policy file.
 *
 * json-c parses the document (posix/policyfile.c) but reports lines only for
 * syntax errors, silently keeps the last of two equal keys, and accepts a
 * few things JSON is not (single-quoted keys, raw control characters in
 * strings, NaN, Infinity, a key cut at "\u0000").  This scanner walks the
 * text json-c accepted once more, records "path -> line" for every member
 * and array entry (the paths sbx_policy_file_line takes), and refuses
 * those leniencies, so that every semantic error can name its line and a
 * duplicated key is an error.  It checks structure as it goes and never
 * trusts json-c's acceptance for memory safety: anything unexpected is
 * "not valid JSON" with its line.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/policyfile_internal.h"
#include "profile/profile_internal.h"

struct scan {
        const char *name;
        const char *s;
        size_t      len, pos;
        uint32_t    line;
        struct sbx__pf_keys *keys;
        sbx_error  *err;
        char        path[SBX__PF_MAX_DEPTH * (SBX__PF_MAX_KEY + 24) + 1];
};

char *sbx__pf_message_name(const char *name)
{
        size_t n = strlen(name), skip = 0, o = 0, i;
        char *m;

        if (n > SBX__PF_NAME_KEEP)
                skip = n - SBX__PF_NAME_KEEP;
        m = malloc(n - skip + 4);
        if (m == NULL)
                return NULL;
        if (skip > 0) {
                memcpy(m, "...", 3);
                o = 3;
        }
        for (i = skip; i < n; i++)
                m[o++] = (name[i] >= 0x20 && name[i] < 0x7f) ? name[i] : '?';
        m[o] = '\0';
        return m;
}

static sbx_code fail(struct scan *sc, uint32_t line, const char *what)
{
        char shown[64];

        return sbx__fail(sc->err, SBX_E_INVALID, 0, "%s:%u: %s%s%s", sc->name,
                         (unsigned) line, sbx__printable(sc->path, shown, sizeof(shown)),
                         sc->path[0] != '\0' ? ": " : "", what);
}

static sbx_code nomem(struct scan *sc)
{
        return sbx__fail(sc->err, SBX_E_NOMEM, ENOMEM, "%s: no memory", sc->name);
}

static int at_end(const struct scan *sc)
{
        return sc->pos >= sc->len;
}

static char cur(const struct scan *sc)
{
        return at_end(sc) ? '\0' : sc->s[sc->pos];
}

static void skip_ws(struct scan *sc)
{
        while (!at_end(sc)) {
                char c = sc->s[sc->pos];

                if (c == '\n')
                        sc->line++;
                else if (c != ' ' && c != '\t' && c != '\r')
                        return;
                sc->pos++;
        }
}

static sbx_code record(struct scan *sc, uint32_t line)
{
        struct sbx__pf_keys *k = sc->keys;
        char *p;

        if (SBX__GROW(k->v, k->cap, k->n + 1, 32) < 0)
                return nomem(sc);
        p = sbx__strdup(sc->path);
        if (p == NULL)
                return nomem(sc);
        k->v[k->n].path = p;
        k->v[k->n].line = line;
        k->n++;
        return SBX_OK;
}

static int hexval(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

static int read_u4(struct scan *sc, uint32_t *cp)
{
        size_t i;

        *cp = 0;
        if (sc->len - sc->pos < 4)
                return -1;
        for (i = 0; i < 4; i++) {
                int h = hexval(sc->s[sc->pos + i]);

                if (h < 0)
                        return -1;
                *cp = (*cp << 4) | (uint32_t) h;
        }
        sc->pos += 4;
        return 0;
}

static size_t put_utf8(char *o, uint32_t cp)
{
        if (cp < 0x80) {
                o[0] = (char) cp;
                return 1;
        }
        if (cp < 0x800) {
                o[0] = (char) (0xC0 | (cp >> 6));
                o[1] = (char) (0x80 | (cp & 0x3F));
                return 2;
        }
        if (cp < 0x10000) {
                o[0] = (char) (0xE0 | (cp >> 12));
                o[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
                o[2] = (char) (0x80 | (cp & 0x3F));
                return 3;
        }
        o[0] = (char) (0xF0 | (cp >> 18));
        o[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char) (0x80 | (cp & 0x3F));
        return 4;
}

/*
 * A string at sc->pos (the opening quote).  With key != NULL its decoded
 * bytes (at most SBX__PF_MAX_KEY) go there, NUL-terminated, and \u0000 is
 * refused (json-c would cut the key there).
 */
static sbx_code string(struct scan *sc, char *key, size_t *key_len)
{
        uint32_t line = sc->line;
        size_t o = 0;

        if (cur(sc) == '\'')
                return fail(sc, line, "strings and keys take double quotes in JSON");
        if (cur(sc) != '"')
                return fail(sc, line, "not valid JSON (a string was expected)");
        sc->pos++;
        for (;;) {
                char buf[4];
                size_t n = 1;
                unsigned char c;

                if (at_end(sc))
                        return fail(sc, line, "not valid JSON (an unterminated string)");
                c = (unsigned char) sc->s[sc->pos++];
                if (c == '"')
                        break;
                if (c < 0x20)
                        return fail(sc, sc->line, "a control character in a string (write "
                                    "it as an escape such as \\t or \\n)");
                buf[0] = (char) c;
                if (c == '\\') {
                        uint32_t cp, lo;

                        if (at_end(sc))
                                return fail(sc, line, "not valid JSON (an unterminated string)");
                        c = (unsigned char) sc->s[sc->pos++];
                        switch (c) {
                        case '"': case '\\': case '/':
                                buf[0] = (char) c;
                                break;
                        case 'b': buf[0] = '\b'; break;
                        case 'f': buf[0] = '\f'; break;
                        case 'n': buf[0] = '\n'; break;
                        case 'r': buf[0] = '\r'; break;
                        case 't': buf[0] = '\t'; break;
                        case 'u':
                                if (read_u4(sc, &cp) < 0)
                                        return fail(sc, sc->line, "not valid JSON (a bad \\u "
                                                    "escape)");
                                if (cp >= 0xD800 && cp <= 0xDBFF) {
                                        if (cur(sc) != '\\' || sc->pos + 1 >= sc->len ||
                                            sc->s[sc->pos + 1] != 'u')
                                                return fail(sc, sc->line, "a lone UTF-16 "
                                                            "surrogate in a \\u escape");
                                        sc->pos += 2;
                                        if (read_u4(sc, &lo) < 0 || lo < 0xDC00 || lo > 0xDFFF)
                                                return fail(sc, sc->line, "a lone UTF-16 "
                                                            "surrogate in a \\u escape");
                                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                                        return fail(sc, sc->line, "a lone UTF-16 surrogate in "
                                                    "a \\u escape");
                                }
                                if (cp == 0 && key != NULL)
                                        return fail(sc, sc->line, "a key holds \\u0000");
                                n = put_utf8(buf, cp);
                                break;
                        default:
                                return fail(sc, sc->line, "not valid JSON (a bad escape)");
                        }
                }
                if (key != NULL) {
                        if (o + n > SBX__PF_MAX_KEY)
                                return fail(sc, line, "a key longer than 255 bytes");
                        memcpy(key + o, buf, n);
                        o += n;
                }
        }
        if (key != NULL) {
                key[o] = '\0';
                *key_len = o;
        }
        return SBX_OK;
}

/* true, false, null or an RFC 8259 number. */
static sbx_code scalar(struct scan *sc)
{
        static const char *const words[] = { "true", "false", "null" };
        size_t start = sc->pos, i, n;
        const char *p;

        while (!at_end(sc) && strchr(",]} \t\r\n", sc->s[sc->pos]) == NULL)
                sc->pos++;
        n = sc->pos - start;
        p = sc->s + start;
        for (i = 0; i < SBX__ARRAY_SIZE(words); i++)
                if (n == strlen(words[i]) && memcmp(p, words[i], n) == 0)
                        return SBX_OK;
        i = 0;
        if (i < n && p[i] == '-')
                i++;
        if (i < n && p[i] == '0') {
                i++;
        } else if (i < n && p[i] >= '1' && p[i] <= '9') {
                while (i < n && p[i] >= '0' && p[i] <= '9')
                        i++;
        } else {
                goto bad;
        }
        if (i < n && p[i] == '.') {
                i++;
                if (i >= n || p[i] < '0' || p[i] > '9')
                        goto bad;
                while (i < n && p[i] >= '0' && p[i] <= '9')
                        i++;
        }
        if (i < n && (p[i] == 'e' || p[i] == 'E')) {
                i++;
                if (i < n && (p[i] == '+' || p[i] == '-'))
                        i++;
                if (i >= n || p[i] < '0' || p[i] > '9')
                        goto bad;
                while (i < n && p[i] >= '0' && p[i] <= '9')
                        i++;
        }
        if (i == n)
                return SBX_OK;
bad:
        return fail(sc, sc->line, "not a JSON value (NaN and Infinity are not numbers in JSON; "
                    "a string takes double quotes)");
}

static sbx_code value(struct scan *sc, unsigned depth);

/* Append ".key" (or "key" at the top) or "[i]" to sc->path; the old
 * length is returned for restoring. */
static size_t path_push(struct scan *sc, const char *key, size_t idx)
{
        size_t old = strlen(sc->path);

        if (key != NULL)
                (void) snprintf(sc->path + old, sizeof(sc->path) - old, "%s%s",
                                old > 0 ? "." : "", key);
        else
                (void) snprintf(sc->path + old, sizeof(sc->path) - old, "[%zu]", idx);
        return old;
}

static sbx_code object(struct scan *sc, unsigned depth)
{
        char key[SBX__PF_MAX_KEY + 1];
        char **seen = NULL;
        uint32_t *seen_line = NULL;
        size_t n = 0, cap = 0, i;
        sbx_code c = SBX_OK;

        sc->pos++;                      /* '{' */
        skip_ws(sc);
        if (cur(sc) == '}') {
                sc->pos++;
                return SBX_OK;
        }
        for (;;) {
                uint32_t line;
                size_t klen, old;

                skip_ws(sc);
                line = sc->line;
                if (n == SBX__PF_MAX_MEMBERS) {
                        c = fail(sc, line, "more than 1024 members in one object");
                        goto out;
                }
                c = string(sc, key, &klen);
                if (c != SBX_OK)
                        goto out;
                old = path_push(sc, key, 0);
                for (i = 0; i < n; i++)
                        if (strcmp(seen[i], key) == 0) {
                                char what[64];

                                (void) snprintf(what, sizeof(what), "duplicate key (the first "
                                                "is on line %u)", (unsigned) seen_line[i]);
                                c = fail(sc, line, what);
                                goto out;
                        }
                if (n == cap) {
                        size_t nc = cap ? cap * 2 : 16;
                        char **ns = realloc(seen, nc * sizeof(*ns));
                        uint32_t *nl;

                        if (ns == NULL) {
                                c = nomem(sc);
                                goto out;
                        }
                        seen = ns;
                        nl = realloc(seen_line, nc * sizeof(*nl));
                        if (nl == NULL) {
                                c = nomem(sc);
                                goto out;
                        }
                        seen_line = nl;
                        cap = nc;
                }
                seen[n] = sbx__strdup(key);
                if (seen[n] == NULL) {
                        c = nomem(sc);
                        goto out;
                }
                seen_line[n++] = line;
                if (depth < SBX__PF_MAX_DEPTH && (c = record(sc, line)) != SBX_OK)
                        goto out;
                skip_ws(sc);
                if (cur(sc) != ':') {
                        c = fail(sc, sc->line, "not valid JSON (':' expected)");
                        goto out;
                }
                sc->pos++;
                c = value(sc, depth + 1);
                if (c != SBX_OK)
                        goto out;
                sc->path[old] = '\0';
                skip_ws(sc);
                if (cur(sc) == ',') {
                        sc->pos++;
                        continue;
                }
                if (cur(sc) == '}') {
                        sc->pos++;
                        break;
                }
                c = fail(sc, sc->line, "not valid JSON (',' or '}' expected)");
                goto out;
        }
out:
        for (i = 0; i < n; i++)
                free(seen[i]);
        free(seen);
        free(seen_line);
        return c;
}

static sbx_code array(struct scan *sc, unsigned depth)
{
        size_t i = 0, old;
        sbx_code c;

        sc->pos++;                      /* '[' */
        skip_ws(sc);
        if (cur(sc) == ']') {
                sc->pos++;
                return SBX_OK;
        }
        for (;; i++) {
                skip_ws(sc);
                old = path_push(sc, NULL, i);
                if (depth < SBX__PF_MAX_DEPTH && (c = record(sc, sc->line)) != SBX_OK)
                        return c;
                c = value(sc, depth + 1);
                if (c != SBX_OK)
                        return c;
                sc->path[old] = '\0';
                skip_ws(sc);
                if (cur(sc) == ',') {
                        sc->pos++;
                        continue;
                }
                if (cur(sc) == ']') {
                        sc->pos++;
                        return SBX_OK;
                }
                return fail(sc, sc->line, "not valid JSON (',' or ']' expected)");
        }
}

static sbx_code value(struct scan *sc, unsigned depth)
{
        /* json-c refuses documents nested deeper than 32; so does this. */
        if (depth > 32)
                return fail(sc, sc->line, "nested too deeply");
        skip_ws(sc);
        switch (cur(sc)) {
        case '{':
                return object(sc, depth);
        case '[':
                return array(sc, depth);
        case '"':
        case '\'':
                return string(sc, NULL, NULL);
        case '\0':
                return fail(sc, sc->line, "not valid JSON (a value was expected)");
        default:
                return scalar(sc);
        }
}

sbx_code sbx__pf_scan(const char *name, const char *text, size_t len, struct sbx__pf_keys *out,
                      sbx_error *err)
{
        struct scan sc;
        sbx_code c;

        memset(&sc, 0, sizeof(sc));
        sc.name = name;
        sc.s = text;
        sc.len = len;
        sc.line = 1;
        sc.keys = out;
        sc.err = err;
        skip_ws(&sc);
        c = record(&sc, sc.line);       /* "": the top-level value */
        if (c != SBX_OK)
                return c;
        c = value(&sc, 0);
        if (c != SBX_OK)
                return c;
        skip_ws(&sc);
        if (!at_end(&sc))
                return fail(&sc, sc.line, "not valid JSON (text after the object)");
        return SBX_OK;
}

void sbx__pf_keys_free(struct sbx__pf_keys *k)
{
        size_t i;

        if (k == NULL)
                return;
        for (i = 0; i < k->n; i++)
                free(k->v[i].path);
        free(k->v);
        memset(k, 0, sizeof(*k));
}

uint32_t sbx__pf_keys_line(const struct sbx__pf_keys *k, const char *path)
{
        size_t i;

        for (i = 0; i < k->n; i++)
                if (strcmp(k->v[i].path, path) == 0)
                        return k->v[i].line;
        return 0;
}

uint32_t sbx__pf_line_of(const char *text, size_t off)
{
        uint32_t line = 1;
        size_t i;

        for (i = 0; i < off; i++)
                line += text[i] == '\n';
        return line;
}
