/*
 * buf.c - the growable text buffer every layer that writes a document
 * uses (the Seatbelt profile, the plan's text, ...): appends that grow it
 * by doubling, with the size arithmetic checked, and a failure that is
 * sticky, so a writer appends without checking each call and looks once
 * at the end (as curl's dynbuf).  The text is always NUL-terminated.
 * And the one growth rule of the arrays the library builds (sbx__grow).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int sbx__buf_reserve(struct sbx__buf *s, size_t more)
{
        size_t cap;
        char *b;

        if (s->oom)
                return -1;
        if (more >= SIZE_MAX - s->len) {
                s->oom = 1;
                return -1;
        }
        if (s->len + more + 1 <= s->cap)
                return 0;
        cap = s->cap == 0 ? 512 : s->cap;
        while (cap < s->len + more + 1) {
                if (cap > SIZE_MAX / 2) {
                        s->oom = 1;
                        return -1;
                }
                cap *= 2;
        }
        b = realloc(s->b, cap);
        if (b == NULL) {
                s->oom = 1;
                return -1;
        }
        s->b = b;
        s->cap = cap;
        return 0;
}

void sbx__buf_add(struct sbx__buf *s, const char *p, size_t n)
{
        if (sbx__buf_reserve(s, n) < 0)
                return;
        memcpy(s->b + s->len, p, n);
        s->len += n;
        s->b[s->len] = '\0';
}

void sbx__buf_adds(struct sbx__buf *s, const char *p)
{
        sbx__buf_add(s, p, strlen(p));
}

void sbx__buf_printf(struct sbx__buf *s, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(NULL, 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
                s->oom = 1;
                return;
        }
        if (sbx__buf_reserve(s, (size_t) n) < 0)
                return;
        va_start(ap, fmt);
        (void) vsnprintf(s->b + s->len, (size_t) n + 1, fmt, ap);
        va_end(ap);
        s->len += (size_t) n;
}

void sbx__buf_free(struct sbx__buf *s)
{
        free(s->b);
        s->b = NULL;
        s->len = s->cap = 0;
        s->oom = 0;
}

int sbx__grow_impl(void *pp, size_t elem, size_t *cap, size_t need, size_t first)
{
        void *old, *nv;
        size_t n;

        if (need <= *cap)
                return 0;
        n = *cap != 0 ? *cap : first;
        while (n < need) {
                if (n > SIZE_MAX / 2)
                        return -ENOMEM;
                n *= 2;
        }
        if (elem != 0 && n > SIZE_MAX / elem)
                return -ENOMEM;
        /* The array pointer through memcpy: T ** is not void **. */
        memcpy(&old, pp, sizeof(old));
        nv = realloc(old, n * elem);
        if (nv == NULL)
                return -ENOMEM;
        memcpy(pp, &nv, sizeof(nv));
        *cap = n;
        return 0;
}
