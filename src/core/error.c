/*
 * error.c - sbx_error, code names and texts, sbx_free, invariants.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

/* The length of the UTF-8 sequence at s (at most n bytes) when it is a
 * well-formed encoding of a character that prints, else 0: no overlong
 * form, surrogate or value past U+10FFFF, and no C1 control (U+0080 ..
 * U+009F: a terminal may act on one), line or paragraph separator, or
 * bidirectional override (they reorder what the reader sees). */
static size_t printable_utf8(const unsigned char *s, size_t n)
{
        uint32_t cp;
        size_t len = sbx__utf8_decode(s, n, &cp);

        if (len == 0 || cp < 0x20 || cp == 0x7f)
                return 0;
        if (len == 1)
                return 1;
        if (cp <= 0x9f || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
            (cp >= 0x2066 && cp <= 0x2069))
                return 0;
        return len;
}

size_t sbx__error_text(const char *src, char *dst, size_t size)
{
        static const char hex[] = "0123456789abcdef";
        const unsigned char *s = (const unsigned char *) src;
        size_t n = strlen(src), i = 0, o = 0;

        if (size == 0)
                return 0;
        while (i < n) {
                size_t l = printable_utf8(s + i, n - i);

                if (l > 0) {
                        if (o + l >= size)
                                break;
                        memcpy(dst + o, s + i, l);
                        o += l;
                        i += l;
                        continue;
                }
                if (o + 4 >= size)
                        break;
                dst[o++] = '\\';
                if (s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
                        dst[o++] = s[i] == '\n' ? 'n' : s[i] == '\t' ? 't' : 'r';
                } else {
                        dst[o++] = 'x';
                        dst[o++] = hex[s[i] >> 4];
                        dst[o++] = hex[s[i] & 0xf];
                }
                i++;
        }
        dst[o] = '\0';
        return o;
}

sbx_code sbx__errno_code(int e, sbx_code otherwise)
{
        switch (e) {
        case ENOMEM:
                return SBX_E_NOMEM;
        case EMFILE: case ENFILE: case EAGAIN: case ENOBUFS: case ENOSPC:
                return SBX_E_IO;
        default:
                return otherwise;
        }
}

sbx_code sbx__fail(sbx_error *err, sbx_code code, int sys_errno, const char *fmt, ...)
{
        char raw[SBX_ERROR_SIZE];
        va_list ap;

        if (err != NULL) {
                err->code = (int32_t) code;
                err->sys_errno = sys_errno;
                va_start(ap, fmt);
                (void) vsnprintf(raw, sizeof(raw), fmt, ap);
                va_end(ap);
                /* Every message in printable text: a caller's string it
                 * echoes (argv[0], a path) may hold a newline, an escape
                 * sequence or bytes that are not UTF-8. */
                (void) sbx__error_text(raw, err->message, sizeof(err->message));
        }
        return code;
}

/* The codes are 0 .. SBX__CODE_END - 1: each is in range, and the switch
 * below refuses a duplicate. */
#define SBX__CODE_DENSE(name, value, text) \
        _Static_assert((value) >= 0 && (value) < SBX__CODE_END, "sbx_code " #name " out of range");
SBX_CODE_MAP(SBX__CODE_DENSE)
#undef SBX__CODE_DENSE

const char *sbx_code_name(int32_t code)
{
        switch (code) {
#define SBX__CODE_NAME(name, value, text) case value: return "SBX_" #name;
        SBX_CODE_MAP(SBX__CODE_NAME)
#undef SBX__CODE_NAME
        default:
                return "SBX_E_UNKNOWN";
        }
}

const char *sbx_strerror(int32_t code)
{
        switch (code) {
#define SBX__CODE_TEXT(name, value, text) case value: return text;
        SBX_CODE_MAP(SBX__CODE_TEXT)
#undef SBX__CODE_TEXT
        default:
                return "unknown error";
        }
}

/* strerror(3) may share one buffer between threads (POSIX says it is not
 * thread-safe); the reentrant forms write the caller's.  glibc's GNU
 * strerror_r returns its own immutable text or fills buf; the XSI one
 * (musl, macOS) returns 0 or an error; Windows' strerror has a buffer per
 * thread. */
const char *sbx__strerror_r(int errnum, char *buf, size_t len)
{
        if (buf == NULL || len == 0)
                return "unknown error";
#if defined(_WIN32)
        (void) snprintf(buf, len, "%s", strerror(errnum));
        return buf;
#elif defined(__GLIBC__) && defined(_GNU_SOURCE)
        return strerror_r(errnum, buf, len);
#else
        if (strerror_r(errnum, buf, len) != 0)
                (void) snprintf(buf, len, "error %d", errnum);
        return buf;
#endif
}

void sbx_free(void *ptr)
{
        free(ptr);
}

void sbx_strv_free(char **strv)
{
        size_t i;

        if (strv == NULL)
                return;
        for (i = 0; strv[i] != NULL; i++)
                free(strv[i]);
        free(strv);
}

#ifdef NDEBUG
#  define SBX__INVARIANTS_DEFAULT 0
#else
#  define SBX__INVARIANTS_DEFAULT 1
#endif

static atomic_int invariants_on = SBX__INVARIANTS_DEFAULT;

void sbx_invariants_set_enabled(int enabled)
{
        atomic_store(&invariants_on, enabled ? 1 : 0);
}

int sbx_invariants_enabled(void)
{
        return atomic_load(&invariants_on);
}

void sbx__invariant_fail(const char *fmt, ...)
{
        char line[512];
        va_list ap;
        int n;

        n = snprintf(line, sizeof(line), "[sandbox invariant] ");
        va_start(ap, fmt);
        (void) vsnprintf(line + n, sizeof(line) - (size_t) n - 1, fmt, ap);
        va_end(ap);
        n = (int) strlen(line);
        line[n++] = '\n';
        /* One write(2): no stdio buffering between us and abort(). */
        (void) !write(STDERR_FILENO, line, (size_t) n);
        abort();
}
