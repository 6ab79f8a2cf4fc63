/*
 * gitscan.c - the git scan on Windows: it finds nothing.  The Windows
 * backend does not claim protected-paths, so a plan that requires it is
 * refused before a spawn and one that accepts unprotected git needs
 * nothing found: "found nothing" is what the spawn enforces (posix/gitscan.c
 * is the scan; docs/windows.md).
 * SPDX-License-Identifier: Apache-2.0
 */
#include <string.h>

#include "paths/paths_internal.h"

int sbx__git_discover(const char *const *roots, size_t n_roots, const char *const *envp,
                      struct sbx__gitscan *out)
{
        (void) roots;
        (void) n_roots;
        (void) envp;
        memset(out, 0, sizeof(*out));
        return 0;
}
