/*
 * gitprotect.c - the spawn-time git scan's state and what it records
 * (docs/git.md): where it failed, the writable roots, the list of
 * protected locations, `~` expansion, following symbolic links inside the
 * roots, and the protection of a path or of every target a value names.
 * A leaf under gitconfig.c (the configuration) and gitscan.c (the walk and
 * the repositories), which both protect what they find; split from
 * gitscan.c so that those two do not call each other.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/gitscan_internal.h"

/* ------------------------------------------------------------ state */

int sbx__gs_fail_at(struct scan *s, const char *path, int r)
{
        if (s->fail[0] == '\0')
                snprintf(s->fail, sizeof(s->fail), "%s", path);
        return r;
}

int sbx__gs_under_roots(const struct scan *s, const char *path)
{
        size_t i;

        for (i = 0; i < s->n_roots; i++)
                if (sbx__path_has_prefix(path, s->roots[i]))
                        return 1;
        return 0;
}

int sbx__gs_add(struct scan *s, const char *path, int tree)
{
        struct sbx__gitscan *o = s->out;
        size_t i;
        char *dup;

        for (i = 0; i < o->n; i++)
                if (strcmp(o->v[i].path, path) == 0) {
                        o->v[i].tree |= tree;
                        return 0;
                }
        if (SBX__GROW(o->v, o->cap, o->n + 1, 16) < 0)
                return -ENOMEM;
        dup = sbx__strdup(path);
        if (dup == NULL)
                return -ENOMEM;
        o->v[o->n].path = dup;
        o->v[o->n].tree = tree;
        o->n++;
        return 0;
}

/* dir + "/" + name into out (SBX_PATH_MAX); 0 or -ENAMETOOLONG. */
int sbx__gs_pjoin(char *out, const char *dir, const char *name)
{
        int n = snprintf(out, SBX_PATH_MAX, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, name);

        return n < 0 || n >= SBX_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* ------------------------------------------------------- resolution */

/*
 * "~/x" and "~user/x" as git expands them (HOME; the password database),
 * an absolute path as is, anything else joined to base.  0, -ENOENT (no
 * such home, or relative with no base), -ENAMETOOLONG.  `which` picks the
 * home for "~/" (0: HOME, 1: the account's).
 */
int sbx__gs_expand(const struct scan *s, const char *base, const char *rel, int which, char *out,
                  size_t *canon)
{
        int n;

        *canon = 0;     /* how much of out is known canonical */

        if (rel[0] == '~') {
                const char *slash = strchr(rel, '/');
                size_t ul = slash != NULL ? (size_t) (slash - rel - 1) : strlen(rel) - 1;
                const char *rest = slash != NULL ? slash + 1 : "";

                if (ul == 0) {
                        if (s->homes[which] == NULL)
                                return -ENOENT;
                        n = snprintf(out, SBX_PATH_MAX, "%s/%s", s->homes[which], rest);
                        *canon = strlen(s->homes[which]);
                } else {
                        char user[256], buf[16384];
                        struct passwd pw, *res = NULL;

                        if (which != 0 || ul >= sizeof(user))
                                return -ENOENT;
                        memcpy(user, rel + 1, ul);
                        user[ul] = '\0';
                        if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || res == NULL ||
                            pw.pw_dir == NULL || pw.pw_dir[0] != '/')
                                return -ENOENT;
                        n = snprintf(out, SBX_PATH_MAX, "%s/%s", pw.pw_dir, rest);
                }
        } else if (rel[0] == '/') {
                if (which != 0)
                        return -ENOENT;
                n = snprintf(out, SBX_PATH_MAX, "%s", rel);
        } else {
                if (base == NULL || which != 0)
                        return -ENOENT;
                n = snprintf(out, SBX_PATH_MAX, "%s/%s", base, rel);
                *canon = strlen(base);
        }
        if (n < 0 || n >= SBX_PATH_MAX)
                return -ENAMETOOLONG;
        return 0;
}

/*
 * Resolve the absolute path `in` as the kernel would, component by
 * component: every symbolic link followed (a dangling one too: its target
 * is where a later open lands) and, when s is not NULL, added to the
 * scan's list when a writable root holds it (re-pointing a link would
 * redirect git), ".." taken
 * physically; once a component is missing the rest is appended lexically.
 * The first `canon` bytes of `in` are known canonical (a repository's
 * top, a config file's directory: found by the walk or resolved already)
 * and are not looked at again.  `out` gets the canonical result.  0, -ELOOP, -ENAMETOOLONG, -errno of an
 * lstat that fails otherwise than ENOENT/ENOTDIR.
 */
int sbx__gs_chase(struct scan *s, const char *in, size_t canon, char *out)
{
        char rest[SBX_PATH_MAX], cur[SBX_PATH_MAX], comp[NAME_MAX + 1];
        size_t rl, hops = 0;
        int missing = 0;

        if (strlen(in) >= sizeof(rest))
                return -ENAMETOOLONG;
        strcpy(rest, in);
        strcpy(cur, "/");
        rl = 0;         /* rest[rl..] is what is left */
        if (canon > 1 && canon < sizeof(cur) && in[0] == '/' && (in[canon] == '/' || in[canon] == '\0')) {
                memcpy(cur, in, canon);
                cur[canon] = '\0';
                rl = canon;
        }
        for (;;) {
                size_t k = 0, cl = strlen(cur);
                struct stat st;
                char next[SBX_PATH_MAX];

                while (rest[rl] == '/')
                        rl++;
                if (rest[rl] == '\0')
                        break;
                while (rest[rl] != '\0' && rest[rl] != '/') {
                        if (k + 1 >= sizeof(comp))
                                return -ENAMETOOLONG;
                        comp[k++] = rest[rl++];
                }
                comp[k] = '\0';
                if (strcmp(comp, ".") == 0)
                        continue;
                if (strcmp(comp, "..") == 0) {
                        char *slash = strrchr(cur, '/');

                        if (slash != NULL && slash != cur)
                                *slash = '\0';
                        else
                                strcpy(cur, "/");
                        continue;
                }
                if (cl + 1 + k + 1 > sizeof(next))
                        return -ENAMETOOLONG;
                if (sbx__gs_pjoin(next, cur, comp) < 0)
                        return -ENAMETOOLONG;
                if (missing || lstat(next, &st) < 0) {
                        /* Unreachable (EACCES...) outside the roots: git,
                         * the same user, cannot get there either; inside
                         * one the scan cannot vouch for it. */
                        if (!missing && errno != ENOENT && errno != ENOTDIR &&
                            (s == NULL || sbx__gs_under_roots(s, next)))
                                return -errno;
                        missing = 1;
                        strcpy(cur, next);
                        continue;
                }
                if (S_ISLNK(st.st_mode)) {
                        char target[SBX_PATH_MAX];
                        ssize_t n;
                        size_t tl, left = strlen(rest + rl);

                        if (++hops > MAX_LINKS)
                                return -ELOOP;
                        if (s != NULL && sbx__gs_under_roots(s, next)) {
                                int e = sbx__gs_add(s, next, 0);

                                if (e < 0)
                                        return e;
                        }
                        n = readlink(next, target, sizeof(target) - 1);
                        if (n < 0)
                                return -errno;
                        target[n] = '\0';
                        tl = (size_t) n;
                        if (tl + 1 + left + 1 > sizeof(rest))
                                return -ENAMETOOLONG;
                        /* rest = target + "/" + what was left */
                        memmove(rest + tl + 1, rest + rl, left + 1);
                        memcpy(rest, target, tl);
                        rest[tl] = '/';
                        rl = 0;
                        if (target[0] == '/')
                                strcpy(cur, "/");
                        continue;
                }
                strcpy(cur, next);
        }
        strcpy(out, cur);
        return 0;
}

/* ------------------------------------------------------- protection */

/* mkdir -p of the directories of `path` below its writable root. */
static int make_parents(const char *path)
{
        char buf[SBX_PATH_MAX];
        size_t i;

        if (strlen(path) >= sizeof(buf))
                return -ENAMETOOLONG;
        strcpy(buf, path);
        for (i = 1; buf[i] != '\0'; i++) {
                if (buf[i] != '/')
                        continue;
                buf[i] = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST) {
                        buf[i] = '/';
                        return -errno;
                }
                buf[i] = '/';
        }
        return 0;
}


/*
 * The symbolic links inside a directory git reads code or configuration
 * from (a git dir, a hooks directory), `depth` levels down: git follows
 * them, so their targets are protected too (`.git/hooks/pre-commit ->
 * ../../scripts/pre-commit`, a symlinked `.git/config`).  objects/, refs/
 * and logs/ hold data only and are not entered.
 */
int sbx__gs_protect_links_in(struct scan *s, const char *dir, int depth)
{
        char path[SBX_PATH_MAX], target[SBX_PATH_MAX];
        struct dirent *e;
        DIR *d = opendir(dir);
        int r = 0;

        if (d == NULL)
                return 0;
        while (r == 0 && (e = readdir(d)) != NULL) {
                struct stat st;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                    e->d_type == DT_REG || (e->d_type == DT_DIR && depth == 0) ||
                    sbx__gs_pjoin(path, dir, e->d_name) < 0)
                        continue;
                if (e->d_type == DT_DIR)
                        st.st_mode = S_IFDIR;
                else if (e->d_type == DT_LNK)
                        st.st_mode = S_IFLNK;
                else if (lstat(path, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        r = sbx__gs_chase(s, path, strlen(dir), target);
                        if (r == -ELOOP || r == -ENAMETOOLONG)
                                r = 0;
                        else if (r == 0)
                                r = sbx__gs_protect(s, target, PT_EXIST);
                } else if (S_ISDIR(st.st_mode) && depth > 0 && strcmp(e->d_name, "objects") != 0 &&
                           strcmp(e->d_name, "refs") != 0 && strcmp(e->d_name, "logs") != 0) {
                        r = sbx__gs_protect_links_in(s, path, depth - 1);
                }
        }
        closedir(d);
        return r;
}

/* Protect the canonical `path` when a writable root holds it. */
int sbx__gs_protect(struct scan *s, const char *path, enum pt how)
{
        struct stat st;
        size_t i;
        int fd, r;

        if (!sbx__gs_under_roots(s, path))
                return how == PT_DIR ? sbx__gs_protect_links_in(s, path, 0) : 0;
        for (i = 0; i < s->out->n; i++)
                if (s->out->v[i].tree && strcmp(s->out->v[i].path, path) != 0 &&
                    sbx__path_has_prefix(path, s->out->v[i].path))
                        return 0;       /* inside a protected tree already */
        if (lstat(path, &st) == 0) {
                if (!S_ISDIR(st.st_mode))
                        return sbx__gs_add(s, path, 0);
                if (how == PT_EXIST_FILE || how == PT_ARG || how == PT_PROG)
                        return 0;
                if ((r = sbx__gs_add(s, path, 1)) < 0)
                        return r;
                /* a hooks directory's links are where git runs hooks */
                return how == PT_DIR ? sbx__gs_protect_links_in(s, path, 0) : 0;
        }
        if (errno != ENOENT && errno != ENOTDIR)
                return sbx__gs_fail_at(s, path, -errno);
        if (how == PT_EXIST || how == PT_EXIST_FILE)
                return 0;
        if (how == PT_ARG) {
                /* "sh ./x.sh": a script beside existing files; not
                 * "--format=%h/%s" made into directories. */
                char parent[SBX_PATH_MAX];
                char *slash;

                strcpy(parent, path);
                slash = strrchr(parent, '/');
                if (slash == NULL || strpbrk(slash, "%*?[$=") != NULL)
                        return 0;
                *slash = '\0';
                if (parent[0] == '\0' || stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
                        return 0;
        }
        if ((r = make_parents(path)) < 0)
                return sbx__gs_fail_at(s, path, r);
        if (how == PT_DIR) {
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return sbx__gs_fail_at(s, path, -errno);
                return sbx__gs_add(s, path, 1);
        } else {
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd < 0 && errno != EEXIST)
                        return sbx__gs_fail_at(s, path, -errno);
                if (fd >= 0)
                        close(fd);
        }
        return sbx__gs_add(s, path, how == PT_DIR);
}

/*
 * Call fn with every target `value` names relative to `base`, once for each
 * home "~" may mean, after its symbolic links on the way were chased.  A
 * value that cannot be resolved (no home, a loop) yields nothing: what it
 * names cannot be reached by git either.
 */
int sbx__gs_each_target(struct scan *s, const char *base, const char *value,
                        int (*fn)(struct scan *s, const char *target, void *arg), void *arg)
{
        char joined[SBX_PATH_MAX], target[SBX_PATH_MAX];
        size_t canon;
        int which, r;

        if (value[0] == '\0')
                return 0;
        for (which = 0; which < 2; which++) {
                if (which == 1 && (s->homes[1] == NULL || value[0] != '~' ||
                                   (value[1] != '/' && value[1] != '\0')))
                        break;
                if (sbx__gs_expand(s, base, value, which, joined, &canon) < 0)
                        continue;
                r = sbx__gs_chase(s, joined, canon, target);
                if (r == -ENAMETOOLONG || r == -ELOOP)
                        continue;
                if (r < 0)
                        return sbx__gs_fail_at(s, joined, r);
                if ((r = fn(s, target, arg)) < 0)
                        return r;
        }
        return 0;
}

static int protect_target(struct scan *s, const char *target, void *arg)
{
        return sbx__gs_protect(s, target, *(const enum pt *) arg);
}

/* Protect what `value` names relative to `base`: the target and every
 * symbolic link on the way. */
int sbx__gs_protect_value(struct scan *s, const char *base, const char *value, enum pt how)
{
        return sbx__gs_each_target(s, base, value, protect_target, &how);
}
