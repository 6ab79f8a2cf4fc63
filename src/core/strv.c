/*
 * strv.c - growable string vectors and secure_getenv, used by every layer
 * that builds an argv or an environment.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"

/* ------------------------------------------------------ string vectors */

void sbx__strv_push(struct sbx__strv *s, const char *str)
{
        char *copy;

        if (s->failed)
                return;
        if (s->n + 1 >= s->cap) {
                size_t cap = s->cap ? s->cap * 2 : 32;
                char **v = realloc(s->v, cap * sizeof(*v));

                if (v == NULL) {
                        s->failed = 1;
                        return;
                }
                s->v = v;
                s->cap = cap;
        }
        copy = sbx__strdup(str);
        if (copy == NULL) {
                s->failed = 1;
                return;
        }
        s->v[s->n++] = copy;
        s->v[s->n] = NULL;
}

void sbx__strv_push2(struct sbx__strv *s, const char *a, const char *b)
{
        size_t na = strlen(a), nb = strlen(b);
        char *t;

        if (s->failed)
                return;
        t = malloc(na + nb + 1);
        if (t == NULL) {
                s->failed = 1;
                return;
        }
        memcpy(t, a, na);
        memcpy(t + na, b, nb + 1);
        sbx__strv_push(s, t);
        free(t);
}

void sbx__strv_discard(struct sbx__strv *s)
{
        size_t i;

        for (i = 0; i < s->n; i++)
                free(s->v[i]);
        free(s->v);
        s->v = NULL;
        s->n = s->cap = 0;
}

char **sbx__strv_finish(struct sbx__strv *s, size_t *n_out)
{
        char **v;

        if (!s->failed && s->v == NULL) {
                s->v = calloc(1, sizeof(*s->v));
                if (s->v == NULL)
                        s->failed = 1;
        }
        if (s->failed) {
                sbx__strv_discard(s);
                return NULL;
        }
        v = s->v;
        if (n_out != NULL)
                *n_out = s->n;
        s->v = NULL;
        s->n = s->cap = 0;
        return v;
}


const char *sbx__secure_getenv(const char *name)
{
#if defined(__GLIBC__)
        return secure_getenv(name);
#else
        if (getuid() != geteuid() || getgid() != getegid())
                return NULL;
        return getenv(name);
#endif
}

