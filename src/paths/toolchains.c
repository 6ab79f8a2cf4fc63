/*
 * toolchains.c - sbx_toolchain_roots: what of each toolchain below a home
 * a command needs to run it, for hosts that hide the home but not the
 * tools (docs/secrets.md, "Toolchains").  Default-deny: each toolchain
 * names the subtrees it runs from (its bin, its versions' runtime trees,
 * its shims); nothing else of its directory is returned, so the registry
 * and publishing configuration that sits beside them (an nvm node's
 * etc/npmrc, a pyenv Python's pip.conf, ~/.cargo/config.toml) stays hidden
 * with the rest of the home.  Reads the host: stat, readdir and realpath
 * of the candidates.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "paths/paths_internal.h"

/* ---------------------------------------------------------------- table */

/*
 * How a pattern's match is exposed:
 *   TREE     the match and everything below it;
 *   VERSION  the match is an installed version (of node, Python, Ruby, a
 *            JDK, GHC, ...): only its runtime subtrees below are
 *            exposed, never its other entries (etc/, top-level config
 *            files such as pip.conf, a .git);
 *   PROGRAM  the match only when it is an executable regular file (a
 *            directory that is itself on PATH, holding programs beside
 *            other files).
 */
enum { TREE, VERSION, PROGRAM };

/* The runtime subtrees of an installed version.  Keep docs/secrets.md in
 * step. */
static const char *const version_dirs[] = {
        "bin", "include", "lib", "lib64", "libexec", "share",
};

struct expose {
        const char *pattern;    /* relative to the toolchain's root; "~/..." to the home */
        int         kind;
};

/*
 * A pattern is a relative path whose components are literal names or
 * globs ('*' any run, '?' one character).  A glob never matches a name
 * that starts with '.', nor a name that another pattern of the same
 * toolchain spells literally at the same place: that pattern alone says
 * what of it is exposed (go's pkg/mod/<module> is exposed, its
 * pkg/mod/cache only as cache/download).
 */
struct toolchain {
        const char          *root;      /* relative to the home; must be a directory */
        const struct expose *expose;    /* up to a NULL pattern */
};

#define PYENV_LIKE(d)                                                   \
        { "bin", TREE }, { "libexec", TREE }, { "shims", TREE },       \
        { d ".d", TREE }, { "version", TREE },                          \
        { "plugins/*/bin", TREE }, { "plugins/*/libexec", TREE },       \
        { "plugins/*/shims", TREE }, { "plugins/*/etc/" d ".d", TREE }, \
        { "versions/*", VERSION }

static const struct expose rustup[] = {
        { "toolchains", TREE }, { "settings.toml", TREE }, { NULL, 0 } };
static const struct expose cargo[] = {
        { "bin", TREE }, { "registry/index", TREE }, { "registry/cache", TREE },
        { "registry/src", TREE }, { "git/checkouts", TREE }, { NULL, 0 } };
static const struct expose pyenv[] = {
        PYENV_LIKE("pyenv"),
        { "versions/*/pyvenv.cfg", TREE },
        { "versions/*/envs/*", VERSION }, { "versions/*/envs/*/pyvenv.cfg", TREE },
        { NULL, 0 } };
static const struct expose local_bin[] = { { "", TREE }, { NULL, 0 } };
static const struct expose local_lib[] = { { "python*/site-packages", TREE }, { NULL, 0 } };
static const struct expose pipx[] = {
        { "venvs/*", VERSION }, { "venvs/*/pyvenv.cfg", TREE },
        { "shared", VERSION }, { "shared/pyvenv.cfg", TREE }, { NULL, 0 } };
static const struct expose nvm[] = { { "versions/*/*", VERSION }, { NULL, 0 } };
static const struct expose fnm[] = {
        { "node-versions/*/installation", VERSION }, { NULL, 0 } };
static const struct expose volta[] = {
        { "bin", TREE }, { "tools/image/*/*", VERSION },
        { "tools/user/platform.json", TREE }, { "tools/user/bins", TREE },
        { "tools/user/packages", TREE }, { NULL, 0 } };
static const struct expose bun[] = {
        { "bin", TREE }, { "install/global/node_modules", TREE }, { NULL, 0 } };
static const struct expose deno[] = { { "bin", TREE }, { NULL, 0 } };
static const struct expose pnpm[] = {
        { "*", PROGRAM }, { "store", TREE }, { "global/*/node_modules", TREE },
        { "nodejs/*", VERSION }, { NULL, 0 } };
static const struct expose go[] = {
        { "bin", TREE }, { "pkg/mod/*", TREE }, { "pkg/mod/cache/download", TREE },
        { NULL, 0 } };
static const struct expose rbenv[] = { PYENV_LIKE("rbenv"), { NULL, 0 } };
static const struct expose asdf[] = {
        { "bin", TREE }, { "lib", TREE }, { "libexec", TREE }, { "shims", TREE },
        { "plugins/*/bin", TREE }, { "plugins/*/lib", TREE },
        { "installs/*/*", VERSION }, { "~/.tool-versions", TREE }, { NULL, 0 } };
static const struct expose mise[] = {
        { "shims", TREE }, { "installs/*/*", VERSION }, { "plugins/*/bin", TREE },
        { "plugins/*/lib", TREE }, { NULL, 0 } };
static const struct expose sdkman[] = {
        /* a JDK reads conf/security and these at startup; not
         * conf/management (jmxremote.password) */
        { "candidates/java/*", VERSION }, { "candidates/java/*/conf/security", TREE },
        { "candidates/java/*/conf/logging.properties", TREE },
        { "candidates/java/*/conf/net.properties", TREE },
        { "candidates/java/*/conf/sound.properties", TREE },
        { "candidates/java/*/jmods", TREE }, { "candidates/java/*/release", TREE },
        { "candidates/maven/*/bin", TREE }, { "candidates/maven/*/boot", TREE },
        { "candidates/maven/*/lib", TREE },
        { "candidates/*/*", VERSION }, { NULL, 0 } };
static const struct expose ghcup[] = {
        { "bin", TREE }, { "ghc/*", VERSION }, { "hls/*", VERSION }, { NULL, 0 } };
static const struct expose elan[] = {
        { "bin", TREE }, { "toolchains", TREE }, { "settings.toml", TREE },
        { NULL, 0 } };

/* Keep docs/secrets.md ("Toolchains") in step with this table. */
static const struct toolchain toolchains[] = {
        { ".rustup", rustup },
        { ".cargo", cargo },
        { ".pyenv", pyenv },
        { ".local/bin", local_bin },
        { ".local/lib", local_lib },
        { ".local/share/pipx", pipx },
        { ".local/pipx", pipx },
        { ".nvm", nvm },
        { ".local/share/fnm", fnm },
        { ".volta", volta },
        { ".bun", bun },
        { ".deno", deno },
        { ".local/share/pnpm", pnpm },
        { "go", go },
        { ".rbenv", rbenv },
        { ".asdf", asdf },
        { ".local/share/mise", mise },
        { ".sdkman", sdkman },
        { ".ghcup", ghcup },
        { ".elan", elan },
};

/* More results than this is SBX_E_RANGE: as many roots as a profile holds. */
#define TOOLCHAIN_MAX 256

/* ------------------------------------------------------------ matching */

/* A glob component: '*' any run, '?' one character; a name starting with
 * '.' is matched only by a literal '.'. */
static int glob_match(const char *pat, const char *name)
{
        if (name[0] == '.' && pat[0] != '.')
                return 0;
        while (*pat != '\0') {
                if (*pat == '*') {
                        while (*pat == '*')
                                pat++;
                        if (*pat == '\0')
                                return 1;
                        for (; *name != '\0'; name++)
                                if (glob_match(pat, name))
                                        return 1;
                        return 0;
                }
                if (*name == '\0' || (*pat != '?' && *pat != *name))
                        return 0;
                pat++;
                name++;
        }
        return *name == '\0';
}

static int is_glob(const char *s, size_t len)
{
        return memchr(s, '*', len) != NULL || memchr(s, '?', len) != NULL;
}

/* Component i of pattern p (NUL-free view): *s, *len.  0 if p has fewer. */
static int component(const char *p, size_t i, const char **s, size_t *len)
{
        while (*p == '/')
                p++;
        for (; i > 0; i--) {
                p = strchr(p, '/');
                if (p == NULL)
                        return 0;
                p++;
        }
        if (*p == '\0')
                return 0;
        *s = p;
        *len = strcspn(p, "/");
        return 1;
}

/* 1 if patterns a and b have the same first n components. */
static int same_prefix(const char *a, const char *b, size_t n)
{
        size_t i;

        for (i = 0; i < n; i++) {
                const char *x, *y;
                size_t xl, yl;

                if (!component(a, i, &x, &xl) || !component(b, i, &y, &yl) || xl != yl ||
                    memcmp(x, y, xl) != 0)
                        return 0;
        }
        return 1;
}

/* 1 if name may stand for component i of pattern e[k] (same base: the
 * root, or the home for "~/" patterns, already stripped). */
static int component_ok(const struct expose *e, size_t k, size_t i, const char *name)
{
        const char *c, *o;
        size_t cl, ol, j;
        char pat[256];
        int home = strncmp(e[k].pattern, "~/", 2) == 0;

        if (!component(e[k].pattern + (home ? 2 : 0), i, &c, &cl) || cl >= sizeof(pat))
                return 0;
        if (!is_glob(c, cl))
                return strlen(name) == cl && memcmp(name, c, cl) == 0;
        memcpy(pat, c, cl);
        pat[cl] = '\0';
        if (!glob_match(pat, name))
                return 0;
        /* A name another pattern spells literally here is that one's. */
        for (j = 0; e[j].pattern != NULL; j++) {
                int jh = strncmp(e[j].pattern, "~/", 2) == 0;
                const char *pj = e[j].pattern + (jh ? 2 : 0);

                if (j == k || jh != home ||
                    !same_prefix(e[k].pattern + (home ? 2 : 0), pj, i) ||
                    !component(pj, i, &o, &ol) || is_glob(o, ol))
                        continue;
                if (strlen(name) == ol && memcmp(name, o, ol) == 0)
                        return 0;
        }
        return 1;
}

static size_t n_components(const char *p)
{
        const char *s;
        size_t len, n = 0;

        while (component(p, n, &s, &len))
                n++;
        return n;
}

/*
 * 1 if rel (a path relative to the base, components split by '/', "" for
 * the base itself) lies at or below what pattern e[k] exposes: for TREE
 * the match, for PROGRAM the match when it is an executable regular file
 * (canon, its canonical path), for VERSION one of version_dirs below it.
 */
static int pattern_covers(const struct expose *e, size_t k, const char *rel,
                          const char *canon)
{
        int home = strncmp(e[k].pattern, "~/", 2) == 0;
        size_t n = n_components(e[k].pattern + (home ? 2 : 0)), i, m;
        char name[256];
        const char *s;
        size_t len;

        for (i = 0; i < n; i++) {
                if (!component(rel, i, &s, &len) || len >= sizeof(name))
                        return 0;
                memcpy(name, s, len);
                name[len] = '\0';
                if (!component_ok(e, k, i, name))
                        return 0;
        }
        if (e[k].kind == TREE)
                return 1;
        if (e[k].kind == PROGRAM) {
                struct stat st;

                /* The program itself, an executable regular file. */
                return !component(rel, n, &s, &len) && canon != NULL &&
                       stat(canon, &st) == 0 && S_ISREG(st.st_mode) &&
                       (st.st_mode & 0111) != 0;
        }
        if (!component(rel, n, &s, &len))
                return 0;               /* the version directory itself */
        for (m = 0; m < SBX__ARRAY_SIZE(version_dirs); m++)
                if (strlen(version_dirs[m]) == len && memcmp(s, version_dirs[m], len) == 0)
                        return 1;
        return 0;
}

/* rel of path below base ("" when equal), or NULL when not inside. */
static const char *below(const char *path, const char *base)
{
        size_t bl = strlen(base);

        if (strncmp(path, base, bl) != 0)
                return NULL;
        if (path[bl] == '\0')
                return path + bl;
        return path[bl] == '/' ? path + bl + 1 : NULL;
}

/* 1 if canonical path canon lies at or below an exposure of toolchain e
 * whose root is canon_root, checked on the canonical spelling itself: a
 * link among the matches exposes only what the table allows where it
 * leads. */
static int exposed(const struct expose *e, const char *canon_root, const char *canon_home,
                   const char *canon)
{
        const char *in_root = below(canon, canon_root), *in_home = below(canon, canon_home);
        size_t k;

        for (k = 0; e[k].pattern != NULL; k++) {
                int home = strncmp(e[k].pattern, "~/", 2) == 0;
                const char *rel = home ? in_home : in_root;

                if (rel != NULL && pattern_covers(e, k, rel, canon))
                        return 1;
        }
        return 0;
}

/* ------------------------------------------------------------ expansion */

struct walk {
        const char          *fn;
        const struct expose *e;
        const char          *canon_root, *canon_home;
        char               **v;
        size_t               n, cap;
        int                  err;       /* -ENOMEM, -ERANGE */
};

/* Keep the existing path if its canonical form is exposed. */
static void keep(struct walk *w, const char *path, int program)
{
        char canon[SBX_PATH_MAX];
        struct stat st;
        size_t i;

        if (w->err != 0 || stat(path, &st) < 0 ||
            (program && (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)) ||
            sbx__path_canonical_buf(w->fn, "toolchain", path, canon, NULL) != SBX_OK ||
            !exposed(w->e, w->canon_root, w->canon_home, canon))
                return;
        for (i = 0; i < w->n; i++)
                if (strcmp(w->v[i], canon) == 0)
                        return;
        if (w->n == TOOLCHAIN_MAX) {
                w->err = -ERANGE;
                return;
        }
        if (w->n + 1 >= w->cap) {
                size_t cap = w->cap ? w->cap * 2 : 32;
                char **v = realloc(w->v, cap * sizeof(*v));

                if (v == NULL) {
                        w->err = -ENOMEM;
                        return;
                }
                w->v = v;
                w->cap = cap;
        }
        if ((w->v[w->n] = sbx__strdup(canon)) == NULL) {
                w->err = -ENOMEM;
                return;
        }
        w->n++;
        w->v[w->n] = NULL;
}

/* Match pattern e[k] from component i on, below the existing directory
 * (or file, at the end) at path. */
static void expand(struct walk *w, size_t k, size_t i, const char *path)
{
        int home = strncmp(w->e[k].pattern, "~/", 2) == 0;
        const char *pat = w->e[k].pattern + (home ? 2 : 0), *c;
        char next[SBX_PATH_MAX], name[256];
        size_t cl, m;
        DIR *d;
        struct dirent *de;

        if (w->err != 0)
                return;
        if (!component(pat, i, &c, &cl)) {
                if (w->e[k].kind != VERSION) {
                        keep(w, path, w->e[k].kind == PROGRAM);
                        return;
                }
                for (m = 0; m < SBX__ARRAY_SIZE(version_dirs); m++)
                        if ((size_t) snprintf(next, sizeof(next), "%s/%s", path,
                                              version_dirs[m]) < sizeof(next))
                                keep(w, next, 0);
                return;
        }
        if (cl >= sizeof(name))
                return;
        if (!is_glob(c, cl)) {
                memcpy(name, c, cl);
                name[cl] = '\0';
                if ((size_t) snprintf(next, sizeof(next), "%s/%s", path, name) < sizeof(next))
                        expand(w, k, i + 1, next);
                return;
        }
        d = opendir(path);
        if (d == NULL)
                return;                 /* not a directory, or not ours to read */
        while (w->err == 0 && (de = readdir(d)) != NULL) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
                    !component_ok(w->e, k, i, de->d_name))
                        continue;
                if ((size_t) snprintf(next, sizeof(next), "%s/%s", path, de->d_name) <
                    sizeof(next))
                        expand(w, k, i + 1, next);
        }
        (void) closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(const char *const *) a, *(const char *const *) b);
}

sbx_code sbx_toolchain_roots(const char *home, char ***out, size_t *n_out, sbx_error *err)
{
        static const char fn[] = "sbx_toolchain_roots";
        char canon_home[SBX_PATH_MAX], path[SBX_PATH_MAX], canon_root[SBX_PATH_MAX];
        struct walk w;
        size_t i, k, n;
        sbx_code c;

        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        *out = NULL;
        if (n_out != NULL)
                *n_out = 0;
        if (home != NULL && home[0] != '/')
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: home must be absolute", fn);
        memset(&w, 0, sizeof(w));
        w.fn = fn;
        w.cap = 32;
        w.v = calloc(w.cap, sizeof(*w.v));
        if (w.v == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        if (home == NULL)
                home = sbx__secure_getenv("HOME");
        if (home == NULL || home[0] != '/' ||
            sbx__path_canonical_buf(fn, "home", home, canon_home, NULL) != SBX_OK ||
            strcmp(canon_home, "/") == 0)
                goto done;              /* no home of its own: nothing below it */
        w.canon_home = canon_home;
        for (i = 0; i < SBX__ARRAY_SIZE(toolchains) && w.err == 0; i++) {
                const char *rel;
                struct stat st;

                if ((size_t) snprintf(path, sizeof(path), "%s/%s", canon_home,
                                      toolchains[i].root) >= sizeof(path) ||
                    stat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
                    sbx__path_canonical_buf(fn, "toolchain", path, canon_root, NULL) != SBX_OK)
                        continue;
                /* A root that leads out of the home is shown, or not, by
                 * the host access already. */
                rel = below(canon_root, canon_home);
                if (rel == NULL || rel[0] == '\0')
                        continue;
                w.e = toolchains[i].expose;
                w.canon_root = canon_root;
                for (k = 0; w.e[k].pattern != NULL && w.err == 0; k++)
                        expand(&w, k, 0, strncmp(w.e[k].pattern, "~/", 2) == 0 ? canon_home
                                                                              : canon_root);
        }
done:
        if (w.err != 0) {
                sbx_strv_free(w.v);
                if (w.err == -ENOMEM)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                return sbx__fail(err, SBX_E_RANGE, 0, "%s: the toolchains below \"%s\" have "
                                 "more than %d subtrees to expose", fn, canon_home,
                                 TOOLCHAIN_MAX);
        }
        /* Sorted, each once, nothing inside another (a program of pnpm's
         * that is a link into one of its nodejs bin directories). */
        c = sbx__roots_collapse(w.v, w.n, &n);
        if (c != SBX_OK) {
                sbx_strv_free(w.v);
                return sbx__fail(err, c, 0, "%s: internal error", fn);
        }
        qsort(w.v, n, sizeof(*w.v), cmp_str);
        *out = w.v;
        if (n_out != NULL)
                *n_out = n;
        return SBX_OK;
}
