/*
 * util.c - small portable helpers: strings, ASCII case, lexical paths, hex,
 * wiping a secret, and the size grammar (sbx_size_parse).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

const char *sbx_version_string(void)
{
#define SBX__STR2(x) #x
#define SBX__STR(x) SBX__STR2(x)
        return SBX__STR(SBX_VERSION_MAJOR) "." SBX__STR(SBX_VERSION_MINOR) "."
               SBX__STR(SBX_VERSION_PATCH);
#undef SBX__STR
#undef SBX__STR2
}

char *sbx__strdup(const char *s)
{
        size_t n = strlen(s) + 1;
        char *d = malloc(n);

        if (d != NULL)
                memcpy(d, s, n);
        return d;
}

int sbx__ascii_lower(int c)
{
        return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int sbx__ascii_isspace(int c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int sbx__memcasemem(const char *hay, size_t hay_len, const char *needle)
{
        size_t n = strlen(needle), i, j;

        if (n == 0 || n > hay_len)
                return 0;
        for (i = 0; i + n <= hay_len; i++) {
                for (j = 0; j < n; j++)
                        if (sbx__ascii_lower((unsigned char) hay[i + j]) !=
                            sbx__ascii_lower((unsigned char) needle[j]))
                                break;
                if (j == n)
                        return 1;
        }
        return 0;
}

int sbx__is_blank(const char *s)
{
        for (; *s != '\0'; s++)
                if (!sbx__ascii_isspace((unsigned char) *s))
                        return 0;
        return 1;
}

const char *sbx__path_next(const char **p, size_t *len)
{
        const char *seg;

        while (**p == '/')
                (*p)++;
        if (**p == '\0')
                return NULL;
        seg = *p;
        while (**p != '\0' && **p != '/')
                (*p)++;
        *len = (size_t) (*p - seg);
        return seg;
}

void sbx__path_pop(char *buf, size_t *o)
{
        while (*o > 1 && buf[*o - 1] != '/')
                (*o)--;
        if (*o > 1)
                (*o)--;
        buf[*o] = '\0';
}

sbx_code sbx__path_clean(const char *path, int allow_dotdot, char *out, size_t outsz)
{
        size_t o = 0, len;
        const char *p = path, *seg;

        if (path == NULL || path[0] != '/' || outsz < 2)
                return SBX_E_INVALID;
        out[o++] = '/';
        out[o] = '\0';
        while ((seg = sbx__path_next(&p, &len)) != NULL) {
                if (len == 1 && seg[0] == '.')
                        continue;
                if (len == 2 && seg[0] == '.' && seg[1] == '.') {
                        if (!allow_dotdot)
                                return SBX_E_INVALID;
                        sbx__path_pop(out, &o);
                        continue;
                }
                if (o > 1) {
                        if (o + 1 >= outsz)
                                return SBX_E_RANGE;
                        out[o++] = '/';
                }
                if (o + len >= outsz)
                        return SBX_E_RANGE;
                memcpy(out + o, seg, len);
                o += len;
        }
        out[o] = '\0';
        return SBX_OK;
}

void sbx__hex_encode(const void *in, size_t n, char *out)
{
        static const char hex[] = "0123456789abcdef";
        const unsigned char *b = in;
        size_t i;

        for (i = 0; i < n; i++) {
                out[2 * i] = hex[b[i] >> 4];
                out[2 * i + 1] = hex[b[i] & 15];
        }
        out[2 * n] = '\0';
}

void sbx__wipe(void *p, size_t n)
{
        /* Through a volatile pointer, so the compiler cannot drop the
         * stores to memory that is never read again. */
        volatile unsigned char *v = p;

        while (n-- > 0)
                *v++ = 0;
}

int sbx__parse_size(const char *s, uint64_t *out)
{
        uint64_t v = 0, mul = 1;
        const char *p = s;

        if (s == NULL || *p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
                        return -ERANGE;
                v = v * 10 + (uint64_t) (*p - '0');
        }
        if (*p != '\0') {
                if (p[1] != '\0')
                        return -EINVAL;
                switch (*p) {
                case 'k': case 'K': mul = 1ull << 10; break;
                case 'm': case 'M': mul = 1ull << 20; break;
                case 'g': case 'G': mul = 1ull << 30; break;
                case 't': case 'T': mul = 1ull << 40; break;
                default: return -EINVAL;
                }
        }
        if (v == 0)
                return -EINVAL;
        if (v > UINT64_MAX / mul)
                return -ERANGE;
        *out = v * mul;
        return 0;
}

sbx_code sbx_size_parse(const char *text, uint64_t *out, sbx_error *err)
{
        uint64_t v;
        int r;

        if (text == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_size_parse: text or out is NULL");
        r = sbx__parse_size(text, &v);
        if (r == -ERANGE)
                return sbx__fail(err, SBX_E_RANGE, 0, "sbx_size_parse: \"%.64s\" is more than "
                                 "2^64 - 1 bytes", text);
        if (r < 0)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_size_parse: \"%.64s\" is not a "
                                 "size (digits, then at most one of K, M, G, T; not 0)", text);
        *out = v;
        return SBX_OK;
}
