/*
 * gitfound.c - what the git scan found (struct sbx__gitscan), released the
 * same way whichever platform's scan filled it: posix/gitscan.c finds the
 * configuration git runs, win32/gitscan.c finds nothing (docs/git.md,
 * docs/windows.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <stdlib.h>

#include "paths/paths_internal.h"

void sbx__gitscan_free(struct sbx__gitscan *g)
{
        size_t i;

        if (g == NULL)
                return;
        for (i = 0; i < g->n; i++)
                free(g->v[i].path);
        free(g->v);
        free(g->fail);
        g->v = NULL;
        g->n = g->cap = 0;
        g->fail = NULL;
}
