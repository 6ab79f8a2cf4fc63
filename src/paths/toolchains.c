/*
 * toolchains.c - sbx_toolchain_roots: the toolchain locations below a home
 * that a person's PATH points into, for hosts that hide the home but not
 * the tools (docs/paths.md).  Reads the host: stat and realpath of the
 * candidates.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths/paths_internal.h"

/* Keep docs/paths.md in step with this list. */
static const char *const toolchain_dirs[] = {
        "/.cargo", "/.rustup",                          /* Rust */
        "/.pyenv", "/.local/bin", "/.local/lib",        /* Python, pipx, user site */
        "/.nvm", "/.volta", "/.bun", "/.deno",          /* JavaScript */
        "/.local/share/fnm", "/.local/share/pnpm",
        "/go/bin", "/go/pkg/mod",                       /* Go */
        "/.rbenv", "/.asdf", "/.local/share/mise",      /* version managers */
        "/.sdkman", "/.ghcup", "/.elan",                /* JVM, Haskell, Lean */
};

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

sbx_code sbx_toolchain_roots(const char *home, char ***out, size_t *n_out, sbx_error *err)
{
        static const char fn[] = "sbx_toolchain_roots";
        char canon_home[SBX_PATH_MAX], path[SBX_PATH_MAX], canon[SBX_PATH_MAX];
        char **v;
        size_t n = 0, i, k, hl;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        *out = NULL;
        if (n_out != NULL)
                *n_out = 0;
        if (home != NULL && home[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: home must be absolute", fn);
        v = calloc(SBX__ARRAY_SIZE(toolchain_dirs) + 1, sizeof(*v));
        if (v == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (home == NULL)
                home = sbx__secure_getenv("HOME");
        if (home == NULL || home[0] != '/' ||
            sbx__path_canonical_buf(fn, "home", home, canon_home, NULL) != SBX_OK ||
            strcmp(canon_home, "/") == 0)
                goto done;              /* no home of its own: nothing below it */
        hl = strlen(canon_home);
        for (i = 0; i < SBX__ARRAY_SIZE(toolchain_dirs); i++) {
                struct stat st;
                int dup = 0;

                if ((size_t) snprintf(path, sizeof(path), "%s%s", canon_home,
                                      toolchain_dirs[i]) >= sizeof(path) ||
                    stat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
                    sbx__path_canonical_buf(fn, "toolchain", path, canon, NULL) != SBX_OK)
                        continue;
                /* A link out of the home is shown, or not, by the host
                 * access already. */
                if (strncmp(canon, canon_home, hl) != 0 || canon[hl] != '/')
                        continue;
                for (k = 0; k < n; k++)
                        dup |= strcmp(v[k], canon) == 0;
                if (dup)
                        continue;
                if ((v[n] = sbx__strdup(canon)) == NULL) {
                        sbx_strv_free(v);
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                }
                n++;
        }
done:
        qsort(v, n, sizeof(*v), cmp_str);
        *out = v;
        if (n_out != NULL)
                *n_out = n;
        return SBX_OK;
}
