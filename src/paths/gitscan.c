/*
 * gitscan.c - find, below the writable roots, everything git reads as
 * configuration or runs as code, so the backends can make it read-only
 * before a command starts (docs/git.md).
 *
 * A later git run on the host -- a shell prompt, an IDE, the user's next
 * `git commit` -- executes what its configuration names (core.fsmonitor,
 * hooks, filters, core.sshCommand, `!` aliases...).  A confined command
 * that can write any of it plants code that runs outside the sandbox.
 *
 * The configuration is resolved the way git resolves it, by parsing (not
 * by running git: docs/git.md says why):
 *
 *   1. the caller's own configs -- system ($GIT_CONFIG_SYSTEM,
 *      /etc/gitconfig), global ($GIT_CONFIG_GLOBAL, $HOME/.gitconfig,
 *      $XDG_CONFIG_HOME/git/config or ~/.config/git/config, the account
 *      home's too) and the environment's (GIT_CONFIG_COUNT/KEY_n/VALUE_n,
 *      GIT_CONFIG_PARAMETERS) -- are read once, every include.path and
 *      includeIf.*.path followed whatever its condition (a superset of
 *      what any git run reads);
 *   2. every repository that can see a writable root is found: the ones
 *      above each root (git's discovery from the root upward) and, walking
 *      every root (no symlink followed; protected trees not entered),
 *      every `.git` directory, `.git` file ("gitdir:") or symlink, and
 *      every directory holding a HEAD (a bare repository, or one step from
 *      being one), with their commondir, linked worktrees and submodule
 *      git dirs;
 *   3. for each repository, the caller's entries and the repository's own
 *      (config of the common dir, config.worktree of the git dir, each
 *      with its includes) are evaluated in that repository's context: a
 *      relative value resolves where git resolves it for that key (the top
 *      of the worktree -- or core.worktree -- for hooks and programs, the
 *      git dir of a bare repository, the config file's directory for an
 *      include), `~` and `~user` expanded; and once with no repository
 *      (absolute values).
 *
 * Every value is examined, whatever its key.  A key git documents as a
 * command, a program, a hooks or templates directory, or a trusted file
 * has its targets protected even when they do not exist yet (created empty
 * first: a path that does not exist cannot be bound read-only and the
 * command could create it); any other value that names an existing file
 * below a writable root -- a data path such as core.excludesFile, or a key
 * this table does not know -- protects that file.  Symbolic links met on
 * the way are protected too (the command could re-point them).  Only
 * locations inside a writable root are reported: everything else is
 * read-only for the command already.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"

#define MAX_INCLUDE_DEPTH 10
#define MAX_CONFIG_BYTES  (1024 * 1024)
#define MAX_LINKS         40
#define MAX_MODULE_DEPTH  8

/* One key = value: section and key lower case, sub as written (NULL:
 * none), file the config file that holds it (NULL: the environment). */
struct ent {
        char *file, *section, *sub, *key, *value;
        int kind;                       /* enum kind, -1 until first looked up */
};

struct ents {
        struct ent *v;
        size_t n, cap;
};

/* The repository a value is evaluated for (all NULL: none). */
struct repo {
        const char *gitdir;
        const char *worktree;           /* NULL for a bare repository */
        const char *worktree2;          /* core.worktree, resolved, or NULL */
};

struct scan {
        const char *const *roots;
        size_t n_roots;
        const char *homes[2];           /* HOME and the account's, canonical */
        struct ents outer;              /* the caller's configs, read once */
        char **seen;                    /* git dirs already evaluated */
        size_t n_seen, cap_seen;
        struct sbx__gitscan *out;
        char fail[SBX_PATH_MAX];        /* where the scan failed, "" if not there */
};

static int fail_at(struct scan *s, const char *path, int r)
{
        if (s->fail[0] == '\0')
                snprintf(s->fail, sizeof(s->fail), "%s", path);
        return r;
}

static int under_roots(const struct scan *s, const char *path)
{
        size_t i;

        for (i = 0; i < s->n_roots; i++)
                if (sbx__path_has_prefix(path, s->roots[i]))
                        return 1;
        return 0;
}

static int add(struct scan *s, const char *path, int tree)
{
        struct sbx__gitscan *o = s->out;
        size_t i;
        char *dup;

        for (i = 0; i < o->n; i++)
                if (strcmp(o->v[i].path, path) == 0) {
                        o->v[i].tree |= tree;
                        return 0;
                }
        if (o->n == o->cap) {
                size_t cap = o->cap ? o->cap * 2 : 16;
                struct sbx__gitloc *v = realloc(o->v, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                o->v = v;
                o->cap = cap;
        }
        dup = sbx__strdup(path);
        if (dup == NULL)
                return -ENOMEM;
        o->v[o->n].path = dup;
        o->v[o->n].tree = tree;
        o->n++;
        return 0;
}

/* dir + "/" + name into out (SBX_PATH_MAX); 0 or -ENAMETOOLONG. */
static int pjoin(char *out, const char *dir, const char *name)
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
static int expand(const struct scan *s, const char *base, const char *rel, int which, char *out,
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
static int chase(struct scan *s, const char *in, size_t canon, char *out)
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
                if (pjoin(next, cur, comp) < 0)
                        return -ENAMETOOLONG;
                if (missing || lstat(next, &st) < 0) {
                        if (!missing && errno != ENOENT && errno != ENOTDIR)
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
                        if (s != NULL && under_roots(s, next)) {
                                int e = add(s, next, 0);

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

/* How a target is protected. */
enum pt {
        PT_DIR,         /* a directory git runs from: created if missing, whole */
        PT_FILE,        /* a program or trusted file: created empty if missing */
        PT_PROG,        /* PT_FILE, but an existing directory is left alone */
        PT_ARG,         /* a command's argument: created empty if only the
                         * last component is missing */
        PT_EXIST,       /* what exists (a directory whole); nothing created */
        PT_EXIST_FILE   /* an existing non-directory only */
};

static int protect(struct scan *s, const char *path, enum pt how);

/*
 * The symbolic links inside a directory git reads code or configuration
 * from (a git dir, a hooks directory), `depth` levels down: git follows
 * them, so their targets are protected too (`.git/hooks/pre-commit ->
 * ../../scripts/pre-commit`, a symlinked `.git/config`).  objects/, refs/
 * and logs/ hold data only and are not entered.
 */
static int protect_links_in(struct scan *s, const char *dir, int depth)
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
                    pjoin(path, dir, e->d_name) < 0)
                        continue;
                if (e->d_type == DT_DIR)
                        st.st_mode = S_IFDIR;
                else if (e->d_type == DT_LNK)
                        st.st_mode = S_IFLNK;
                else if (lstat(path, &st) < 0)
                        continue;
                if (S_ISLNK(st.st_mode)) {
                        r = chase(s, path, strlen(dir), target);
                        if (r == -ELOOP || r == -ENAMETOOLONG)
                                r = 0;
                        else if (r == 0)
                                r = protect(s, target, PT_EXIST);
                } else if (S_ISDIR(st.st_mode) && depth > 0 && strcmp(e->d_name, "objects") != 0 &&
                           strcmp(e->d_name, "refs") != 0 && strcmp(e->d_name, "logs") != 0) {
                        r = protect_links_in(s, path, depth - 1);
                }
        }
        closedir(d);
        return r;
}

/* Protect the canonical `path` when a writable root holds it. */
static int protect(struct scan *s, const char *path, enum pt how)
{
        struct stat st;
        size_t i;
        int fd, r;

        if (!under_roots(s, path))
                return how == PT_DIR ? protect_links_in(s, path, 0) : 0;
        for (i = 0; i < s->out->n; i++)
                if (s->out->v[i].tree && strcmp(s->out->v[i].path, path) != 0 &&
                    sbx__path_has_prefix(path, s->out->v[i].path))
                        return 0;       /* inside a protected tree already */
        if (lstat(path, &st) == 0) {
                if (!S_ISDIR(st.st_mode))
                        return add(s, path, 0);
                if (how == PT_EXIST_FILE || how == PT_ARG || how == PT_PROG)
                        return 0;
                if ((r = add(s, path, 1)) < 0)
                        return r;
                /* a hooks directory's links are where git runs hooks */
                return how == PT_DIR ? protect_links_in(s, path, 0) : 0;
        }
        if (errno != ENOENT && errno != ENOTDIR)
                return fail_at(s, path, -errno);
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
                return fail_at(s, path, r);
        if (how == PT_DIR) {
                if (mkdir(path, 0755) < 0 && errno != EEXIST)
                        return fail_at(s, path, -errno);
                return add(s, path, 1);
        } else {
                fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd < 0 && errno != EEXIST)
                        return fail_at(s, path, -errno);
                if (fd >= 0)
                        close(fd);
        }
        return add(s, path, how == PT_DIR);
}

/*
 * Protect what `value` names relative to `base`, for each home "~" may
 * mean: the target and every symbolic link on the way.  A value that
 * cannot be resolved (no home, a loop) protects nothing more: what it
 * names cannot be reached by git either.
 */
static int protect_value(struct scan *s, const char *base, const char *value, enum pt how)
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
                if (expand(s, base, value, which, joined, &canon) < 0)
                        continue;
                r = chase(s, joined, canon, target);
                if (r == -ENAMETOOLONG || r == -ELOOP)
                        continue;
                if (r < 0)
                        return fail_at(s, joined, r);
                if ((r = protect(s, target, how)) < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------- config files */

/* Read a small file into a NUL-terminated malloc'd buffer; NULL with
 * errno (ENOENT for a missing file). */
static char *slurp(const char *path, size_t *len)
{
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;
        char *buf;
        size_t n = 0;

        if (fd < 0)
                return NULL;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > MAX_CONFIG_BYTES) {
                close(fd);
                errno = EINVAL;
                return NULL;
        }
        buf = malloc((size_t) st.st_size + 1);
        if (buf == NULL) {
                close(fd);
                errno = ENOMEM;
                return NULL;
        }
        while (n < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + n, (size_t) st.st_size - n);

                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0)
                        break;
                n += (size_t) k;
        }
        close(fd);
        buf[n] = '\0';
        *len = n;
        return buf;
}

static void lower(char *p)
{
        for (; *p != '\0'; p++)
                *p = (char) tolower((unsigned char) *p);
}

static void ents_free(struct ents *e)
{
        size_t i;

        for (i = 0; i < e->n; i++) {
                free(e->v[i].file);
                free(e->v[i].section);
                free(e->v[i].sub);
                free(e->v[i].key);
                free(e->v[i].value);
        }
        free(e->v);
        memset(e, 0, sizeof(*e));
}

static int ents_push(struct ents *e, const char *file, const char *section, const char *sub,
                     const char *key, const char *value)
{
        struct ent *x;

        if (e->n == e->cap) {
                size_t cap = e->cap ? e->cap * 2 : 32;
                struct ent *v = realloc(e->v, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                e->v = v;
                e->cap = cap;
        }
        x = &e->v[e->n];
        memset(x, 0, sizeof(*x));
        x->kind = -1;
        if ((file != NULL && (x->file = sbx__strdup(file)) == NULL) ||
            (x->section = sbx__strdup(section)) == NULL ||
            (sub != NULL && (x->sub = sbx__strdup(sub)) == NULL) ||
            (x->key = sbx__strdup(key)) == NULL || (x->value = sbx__strdup(value)) == NULL) {
                free(x->file);
                free(x->section);
                free(x->sub);
                free(x->key);
                return -ENOMEM;
        }
        e->n++;
        return 0;
}

/* "section.sub.key" (sub may hold dots) into its parts; 0 or -EINVAL. */
static int split_key(const char *name, char *section, size_t ss, char *sub, size_t subsz,
                     char *key, size_t ks, int *has_sub)
{
        const char *first = strchr(name, '.'), *last = strrchr(name, '.');

        if (first == NULL || first == name || last[1] == '\0')
                return -EINVAL;
        if ((size_t) (first - name) >= ss || strlen(last + 1) >= ks)
                return -EINVAL;
        memcpy(section, name, (size_t) (first - name));
        section[first - name] = '\0';
        lower(section);
        snprintf(key, ks, "%s", last + 1);
        lower(key);
        *has_sub = first != last;
        if (*has_sub) {
                if ((size_t) (last - first - 1) >= subsz)
                        return -EINVAL;
                memcpy(sub, first + 1, (size_t) (last - first - 1));
                sub[last - first - 1] = '\0';
        }
        return 0;
}

static int read_config(struct scan *s, const char *path, struct ents *out, int depth);

/* An include.path / includeIf.*.path: the file (relative to the including
 * file's directory, as git resolves it), protected and read. */
static int include(struct scan *s, const char *file, const char *value, struct ents *out,
                   int depth)
{
        char dir[SBX_PATH_MAX], joined[SBX_PATH_MAX], target[SBX_PATH_MAX];
        const char *base = NULL;
        size_t canon;
        int which, r;

        if (file != NULL) {
                const char *slash = strrchr(file, '/');

                if (slash == NULL || (size_t) (slash - file) >= sizeof(dir))
                        return 0;
                memcpy(dir, file, (size_t) (slash - file));
                dir[slash - file] = '\0';
                if (dir[0] == '\0')
                        strcpy(dir, "/");
                base = dir;
        }
        for (which = 0; which < 2; which++) {
                if (which == 1 && (s->homes[1] == NULL || value[0] != '~'))
                        break;
                if (expand(s, base, value, which, joined, &canon) < 0)
                        continue;
                r = chase(s, joined, canon, target);
                if (r == -ENAMETOOLONG || r == -ELOOP)
                        continue;
                if (r < 0)
                        return fail_at(s, joined, r);
                if ((r = protect(s, target, PT_FILE)) < 0)
                        return r;
                if (depth < MAX_INCLUDE_DEPTH && (r = read_config(s, target, out, depth + 1)) < 0)
                        return r;
        }
        return 0;
}

/* One key = value read: includes are followed at once, every other entry
 * kept for evaluation in each repository's context. */
static int entry(struct scan *s, const char *file, struct ents *out, int depth,
                 const char *section, const char *sub, const char *key, const char *value)
{
        if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
            strcmp(key, "path") == 0) {
                if (value[0] == '\0' || (file == NULL && value[0] != '/' && value[0] != '~'))
                        return 0;       /* git refuses a relative include without a file */
                return include(s, file, value, out, depth);
        }
        return ents_push(out, file, section, sub, key, value);
}

/*
 * A tolerant reader of git's config syntax: [section], [section "sub"],
 * [section.sub], key = value with quotes, escapes, comments (# ;) and
 * backslash-newline continuations.  Whatever it cannot read it skips:
 * the scan adds protection, it never removes any.
 */
static int read_config(struct scan *s, const char *path, struct ents *out, int depth)
{
        char section[64] = "", sub[256] = "", key[64], value[SBX_PATH_MAX];
        int have_sub = 0;
        size_t len = 0, i = 0;
        char *text = slurp(path, &len);
        int r = 0;

        if (text == NULL)
                return errno == ENOMEM ? -ENOMEM : 0;
        while (i < len && r == 0) {
                size_t k;

                while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' ||
                                   text[i] == '\n'))
                        i++;
                if (i >= len)
                        break;
                if (text[i] == '#' || text[i] == ';') {
                        while (i < len && text[i] != '\n')
                                i++;
                        continue;
                }
                if (text[i] == '[') {
                        i++;
                        k = 0;
                        while (i < len && (isalnum((unsigned char) text[i]) || text[i] == '-' ||
                                           text[i] == '.') && k + 1 < sizeof(section))
                                section[k++] = text[i++];
                        section[k] = '\0';
                        have_sub = 0;
                        {
                                char *dot = strchr(section, '.');

                                if (dot != NULL) {      /* [section.sub] */
                                        *dot = '\0';
                                        snprintf(sub, sizeof(sub), "%s", dot + 1);
                                        lower(sub);
                                        have_sub = 1;
                                }
                        }
                        lower(section);
                        while (i < len && (text[i] == ' ' || text[i] == '\t'))
                                i++;
                        if (i < len && text[i] == '"') {
                                i++;
                                k = 0;
                                while (i < len && text[i] != '"' && text[i] != '\n') {
                                        if (text[i] == '\\' && i + 1 < len)
                                                i++;
                                        if (k + 1 < sizeof(sub))
                                                sub[k++] = text[i];
                                        i++;
                                }
                                sub[k] = '\0';
                                have_sub = 1;
                        }
                        while (i < len && text[i] != ']' && text[i] != '\n')
                                i++;
                        if (i < len && text[i] == ']')
                                i++;
                        continue;
                }
                /* key [= value] */
                k = 0;
                while (i < len && (isalnum((unsigned char) text[i]) || text[i] == '-') &&
                       k + 1 < sizeof(key))
                        key[k++] = text[i++];
                key[k] = '\0';
                lower(key);
                while (i < len && (text[i] == ' ' || text[i] == '\t'))
                        i++;
                value[0] = '\0';
                if (i < len && text[i] == '=') {
                        int quoted = 0;
                        size_t trail = 0;

                        i++;
                        while (i < len && (text[i] == ' ' || text[i] == '\t'))
                                i++;
                        k = 0;
                        while (i < len) {
                                char c = text[i];

                                if (c == '\n' && !quoted)
                                        break;
                                if (!quoted && (c == '#' || c == ';'))
                                        break;
                                if (c == '"') {
                                        quoted = !quoted;
                                        i++;
                                        trail = 0;
                                        continue;
                                }
                                if (c == '\\' && i + 1 < len) {
                                        char e = text[i + 1];

                                        i += 2;
                                        if (e == '\n')
                                                continue;
                                        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'b' ? '\b' : e;
                                        if (k + 1 < sizeof(value))
                                                value[k++] = c;
                                        trail = 0;
                                        continue;
                                }
                                if (k + 1 < sizeof(value))
                                        value[k++] = c;
                                trail = (c == ' ' || c == '\t' || c == '\r') && !quoted
                                        ? trail + 1 : 0;
                                i++;
                        }
                        k -= trail < k ? trail : k;
                        value[k] = '\0';
                }
                while (i < len && text[i] != '\n')
                        i++;
                if (key[0] != '\0' && section[0] != '\0')
                        r = entry(s, path, out, depth, section, have_sub ? sub : NULL, key, value);
        }
        free(text);
        return r;
}

/* GIT_CONFIG_PARAMETERS: 'key'='value' pairs (or 'key=value'), spaces
 * between, git's own quoting ('\'' for a quote). */
static int read_parameters(struct scan *s, const char *p, struct ents *out)
{
        char buf[2][SBX_PATH_MAX];
        int r = 0;

        while (*p != '\0' && r == 0) {
                size_t n[2] = { 0, 0 };
                int part = 0;

                while (*p == ' ')
                        p++;
                if (*p == '\0')
                        break;
                while (*p != '\0' && *p != ' ') {
                        if (*p == '\'') {
                                p++;
                                while (*p != '\0' && *p != '\'') {
                                        if (n[part] + 1 < SBX_PATH_MAX)
                                                buf[part][n[part]++] = *p;
                                        p++;
                                }
                                if (*p == '\'')
                                        p++;
                        } else if (*p == '\\' && p[1] != '\0') {
                                if (n[part] + 1 < SBX_PATH_MAX)
                                        buf[part][n[part]++] = p[1];
                                p += 2;
                        } else if (*p == '=' && part == 0) {
                                part = 1;
                                p++;
                        } else {
                                if (n[part] + 1 < SBX_PATH_MAX)
                                        buf[part][n[part]++] = *p;
                                p++;
                        }
                }
                buf[0][n[0]] = buf[1][n[1]] = '\0';
                if (part == 0) {        /* 'key=value' in one quote */
                        char *eq = strchr(buf[0], '=');

                        if (eq == NULL)
                                continue;
                        *eq = '\0';
                        memmove(buf[1], eq + 1, strlen(eq + 1) + 1);
                }
                {
                        char section[64], sub[256], key[64];
                        int has_sub;

                        if (split_key(buf[0], section, sizeof(section), sub, sizeof(sub), key,
                                      sizeof(key), &has_sub) == 0)
                                r = entry(s, NULL, out, 0, section, has_sub ? sub : NULL, key,
                                          buf[1]);
                }
        }
        return r;
}

/* ------------------------------------------------------- key types */

/* What git does with a key's value (git's documented types). */
enum kind {
        K_DATA = 0,     /* not typed here: an existing file it names is protected */
        K_SKIP,         /* never a path git reads or runs (safe.directory) */
        K_HOOKS,        /* core.hooksPath */
        K_DIR,          /* a directory git runs or copies code from */
        K_CMD,          /* a command line or program git runs */
        K_CMDLIKE,      /* not typed, but named the way git and its tools name
                         * programs (*.cmd, *.command, *.helper...) */
        K_TRUST,        /* a file git trusts (signers, CAs) */
        K_PATH,         /* a file git reads as data */
        K_WORKTREE,     /* core.worktree */
        K_ALIAS         /* alias.*: "!cmd" or git arguments */
};

/*
 * "section.key" (no subsection), "section.*.key" (a subsection),
 * "section.*" (any key, no subsection).  Both spellings where git reads
 * both (gpg.program and gpg.<format>.program).
 */
static const struct {
        const char *pat;
        enum kind kind;
} KEYS[] = {
        { "core.hookspath", K_HOOKS },
        { "init.templatedir", K_DIR },
        { "core.worktree", K_WORKTREE },
        { "safe.directory", K_SKIP },
        { "alias.*", K_ALIAS },
        { "core.fsmonitor", K_CMD }, { "core.sshcommand", K_CMD }, { "core.editor", K_CMD },
        { "core.pager", K_CMD }, { "core.askpass", K_CMD }, { "core.gitproxy", K_CMD },
        { "core.alternaterefscommand", K_CMD }, { "diff.external", K_CMD },
        { "diff.*.command", K_CMD }, { "diff.*.textconv", K_CMD }, { "diff.tool", K_CMD },
        { "difftool.*.cmd", K_CMD }, { "difftool.*.path", K_CMD },
        { "mergetool.*.cmd", K_CMD }, { "mergetool.*.path", K_CMD },
        { "merge.*.driver", K_CMD }, { "filter.*.clean", K_CMD }, { "filter.*.smudge", K_CMD },
        { "filter.*.process", K_CMD }, { "gpg.program", K_CMD }, { "gpg.*.program", K_CMD },
        { "gpg.*.defaultkeycommand", K_CMD }, { "credential.helper", K_CMD },
        { "credential.*.helper", K_CMD }, { "sequence.editor", K_CMD }, { "pager.*", K_CMD },
        { "uploadpack.packobjectshook", K_CMD }, { "remote.*.uploadpack", K_CMD },
        { "remote.*.receivepack", K_CMD }, { "sendemail.smtpserver", K_CMD },
        { "sendemail.*.smtpserver", K_CMD }, { "sendemail.sendmailcmd", K_CMD },
        { "sendemail.*.sendmailcmd", K_CMD }, { "sendemail.tocmd", K_CMD },
        { "sendemail.*.tocmd", K_CMD }, { "sendemail.cccmd", K_CMD },
        { "sendemail.*.cccmd", K_CMD }, { "sendemail.headercmd", K_CMD },
        { "sendemail.*.headercmd", K_CMD }, { "imap.tunnel", K_CMD },
        { "interactive.difffilter", K_CMD }, { "man.*.cmd", K_CMD }, { "man.*.path", K_CMD },
        { "browser.*.cmd", K_CMD }, { "browser.*.path", K_CMD }, { "web.browser", K_CMD },
        { "guitool.*.cmd", K_CMD }, { "tar.*.command", K_CMD }, { "trailer.*.command", K_CMD },
        { "trailer.*.cmd", K_CMD }, { "hook.*.command", K_CMD }, { "submodule.*.update", K_CMD },
        { "instaweb.httpd", K_CMD },
        { "gpg.*.allowedsignersfile", K_TRUST }, { "gpg.*.revocationfile", K_TRUST },
        { "http.sslcainfo", K_TRUST }, { "http.*.sslcainfo", K_TRUST },
        { "http.sslcapath", K_TRUST }, { "http.*.sslcapath", K_TRUST },
        { "core.excludesfile", K_PATH }, { "core.attributesfile", K_PATH },
        { "commit.template", K_PATH }, { "mailmap.file", K_PATH },
        { "blame.ignorerevsfile", K_PATH }, { "diff.orderfile", K_PATH },
};

static enum kind kind_of(const char *section, const char *sub, const char *key)
{
        char plain[160], any[160];
        size_t i;

        if (sub != NULL)
                snprintf(plain, sizeof(plain), "%s.*.%s", section, key);
        else
                snprintf(plain, sizeof(plain), "%s.%s", section, key);
        snprintf(any, sizeof(any), "%s.*", section);
        static const char *const program_words[] = {
                "cmd", "command", "program", "helper", "hook", "driver", "editor", "pager",
                "tunnel", "askpass", "textconv", "process", "clean", "smudge", "proxycommand",
        };
        size_t kl = strlen(key);

        for (i = 0; i < SBX__ARRAY_SIZE(KEYS); i++)
                if (strcmp(KEYS[i].pat, plain) == 0 || (sub == NULL && strcmp(KEYS[i].pat, any) == 0))
                        return KEYS[i].kind;
        if (strcmp(section, "lfs") == 0 && sub != NULL && strncmp(sub, "customtransfer.", 15) == 0 &&
            strcmp(key, "path") == 0)
                return K_CMD;           /* git-lfs runs it from its filter */
        /* A key of a tool this table does not know (git-lfs, git-annex,
         * a newer git) whose name says it runs something. */
        for (i = 0; i < SBX__ARRAY_SIZE(program_words); i++) {
                size_t wl = strlen(program_words[i]);

                if (kl >= wl && strcmp(key + kl - wl, program_words[i]) == 0)
                        return K_CMDLIKE;
        }
        return K_DATA;
}

/* ------------------------------------------------------- evaluation */

struct ctx {
        const struct repo *repo;
        const char *file;               /* the entry's config file, or NULL */
        int depth;
        int rel_only;                   /* absolute values were done already */
};

static void dir_of(const char *file, char *dir)
{
        const char *slash = file != NULL ? strrchr(file, '/') : NULL;

        if (slash == NULL || (size_t) (slash - file) >= SBX_PATH_MAX) {
                dir[0] = '\0';
                return;
        }
        memcpy(dir, file, (size_t) (slash - file));
        dir[slash - file] = '\0';
        if (dir[0] == '\0')
                strcpy(dir, "/");
}

/*
 * Protect `value` from every base git may resolve it against.  `exact`
 * bases are where git resolves it for the key (there a missing target is
 * created with `how`); the others protect only what exists.
 */
static int protect_from(struct scan *s, const struct ctx *c, const char *value, enum pt how,
                        int hooks)
{
        const struct repo *rp = c->repo;
        const char *exact[2] = { NULL, NULL }, *more[2] = { NULL, NULL };
        char dir[SBX_PATH_MAX];
        enum pt soft = how == PT_EXIST_FILE || how == PT_ARG || how == PT_PROG ? PT_EXIST_FILE
                       : PT_EXIST;
        size_t i;
        int r;

        if (value[0] == '/' || value[0] == '~')
                return c->rel_only ? 0 : protect_value(s, NULL, value, how);
        dir_of(c->file, dir);
        /* git runs hooks and programs, and reads relative paths, from the
         * top of the worktree (core.worktree when set); a bare
         * repository's from its git dir. */
        exact[0] = rp->worktree != NULL ? rp->worktree : rp->gitdir;
        exact[1] = rp->worktree2;
        more[0] = hooks ? NULL : rp->gitdir;
        more[1] = dir[0] != '\0' ? dir : NULL;
        for (i = 0; i < 2; i++)
                if (exact[i] != NULL && (r = protect_value(s, exact[i], value, how)) < 0)
                        return r;
        for (i = 0; i < 2; i++)
                if (more[i] != NULL && (exact[0] == NULL || strcmp(more[i], exact[0]) != 0) &&
                    (exact[1] == NULL || strcmp(more[i], exact[1]) != 0) &&
                    (r = protect_value(s, more[i], value, soft)) < 0)
                        return r;
        return 0;
}

/* A word that may name a file: "./x", "a/b", "/x", "~/x", "~user". */
static int pathlike(const char *w)
{
        return w[0] == '~' || strchr(w, '/') != NULL;
}

/* "NAME=value": a shell assignment, which keeps the command position. */
static int assignment(const char *w)
{
        size_t i = 0;

        if (!isalpha((unsigned char) w[0]) && w[0] != '_')
                return 0;
        while (isalnum((unsigned char) w[i]) || w[i] == '_')
                i++;
        return w[i] == '=';
}

/*
 * The words of a command line, each handed to fn with 1 when it is in a
 * command's position (the program git, or the shell, runs): split twice,
 * once the way a shell would (quotes kept together) and once at every
 * quote, space and operator, so that a path inside `sh -c '...'` is a word
 * too.  A word "x=y" ("--file=y", "VAR=y") also hands over y.
 */
static int words(const char *value, int (*fn)(void *, const char *, int), void *arg)
{
        static const char ops[] = ";|&(){}`\n";
        char w[SBX_PATH_MAX];
        int pass, r;

        for (pass = 0; pass < 2; pass++) {
                const char *p = value;
                int cmdpos = 1;

                if (pass == 1 && strpbrk(value, "'\"") == NULL)
                        break;          /* no quote: the same words again */

                while (*p != '\0') {
                        size_t n = 0;
                        char q = 0;

                        while (*p != '\0' && strchr(" \t;|&(){}<>`$\n", *p) != NULL) {
                                if (strchr(ops, *p) != NULL || *p == '$')
                                        cmdpos = 1;
                                p++;
                        }
                        if (*p == '\0')
                                break;
                        while (*p != '\0') {
                                if (q == 0 && strchr(" \t;|&(){}<>`\n", *p) != NULL)
                                        break;
                                if (*p == '\'' || *p == '"') {
                                        if (pass == 1) {
                                                p++;
                                                break;
                                        }
                                        if (q == 0)
                                                q = *p;
                                        else if (q == *p)
                                                q = 0;
                                        else if (n + 1 < sizeof(w))
                                                w[n++] = *p;
                                        p++;
                                        continue;
                                }
                                if (*p == '\\' && p[1] != '\0' && q != '\'')
                                        p++;
                                if (n + 1 < sizeof(w))
                                        w[n++] = *p;
                                p++;
                        }
                        w[n] = '\0';
                        if (n == 0)
                                continue;
                        if ((r = fn(arg, w, cmdpos)) < 0)
                                return r;
                        {
                                const char *eq = strchr(w, '=');

                                if (eq != NULL && eq[1] != '\0' && (r = fn(arg, eq + 1, 0)) < 0)
                                        return r;
                        }
                        if (!assignment(w))
                                cmdpos = 0;
                }
        }
        return 0;
}

struct wctx {
        struct scan *s;
        const struct ctx *c;
        enum pt how;
};

static int word_path(void *arg, const char *w, int program)
{
        struct wctx *x = arg;
        enum pt how = (x->how == PT_FILE || x->how == PT_PROG) && !program ? PT_ARG : x->how;

        return pathlike(w) ? protect_from(x->s, x->c, w, how, 0) : 0;
}

static int eval(struct scan *s, const struct ctx *c, const char *section, const char *sub,
                const char *key, const char *value, int kind);

/* alias.x = "-c k=v --exec-path=d status": git applies these options. */
static int git_args(struct scan *s, const struct ctx *c, const char *value)
{
        char w[SBX_PATH_MAX];
        const char *p = value;
        int next_config = 0, next_dir = 0, r;

        while (*p != '\0') {
                size_t n = 0;
                char q = 0;

                while (*p == ' ' || *p == '\t')
                        p++;
                if (*p == '\0')
                        break;
                while (*p != '\0' && (q != 0 || (*p != ' ' && *p != '\t'))) {
                        if ((*p == '\'' || *p == '"') && (q == 0 || q == *p)) {
                                q = q == 0 ? *p : 0;
                                p++;
                                continue;
                        }
                        if (*p == '\\' && p[1] != '\0')
                                p++;
                        if (n + 1 < sizeof(w))
                                w[n++] = *p;
                        p++;
                }
                w[n] = '\0';
                if (next_config || strncmp(w, "-c", 2) == 0) {
                        const char *kv = next_config ? w : w + 2;
                        char name[256], section[64], sub[256], key[64];
                        const char *eq;
                        int has_sub;

                        next_config = 0;
                        if (*kv == '\0') {
                                next_config = 1;
                                continue;
                        }
                        eq = strchr(kv, '=');
                        if (eq == NULL || (size_t) (eq - kv) >= sizeof(name))
                                continue;
                        memcpy(name, kv, (size_t) (eq - kv));
                        name[eq - kv] = '\0';
                        if (split_key(name, section, sizeof(section), sub, sizeof(sub), key,
                                      sizeof(key), &has_sub) == 0 &&
                            (r = eval(s, c, section, has_sub ? sub : NULL, key, eq + 1, -1)) < 0)
                                return r;
                        continue;
                }
                if (next_dir || strncmp(w, "--exec-path=", 12) == 0) {
                        const char *d = next_dir ? w : w + 12;

                        next_dir = 0;
                        if ((r = protect_from(s, c, d, PT_DIR, 0)) < 0)
                                return r;
                        continue;
                }
                if (strcmp(w, "--exec-path") == 0) {
                        next_dir = 1;
                        continue;
                }
                if ((r = words(w, word_path, &(struct wctx){ s, c, PT_EXIST_FILE })) < 0)
                        return r;
        }
        return 0;
}

/* One entry evaluated for one repository (kind -1: look it up). */
static int eval(struct scan *s, const struct ctx *c, const char *section, const char *sub,
                const char *key, const char *value, int kind)
{
        enum kind k;

        if (value[0] == '\0')
                return 0;
        if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
            strcmp(key, "path") == 0) {
                /* from an alias's -c: read it and evaluate it here */
                struct ents inc = { NULL, 0, 0 };
                size_t i;
                int r;

                if (c->depth >= MAX_INCLUDE_DEPTH || (value[0] != '/' && value[0] != '~'))
                        return 0;
                r = include(s, NULL, value, &inc, c->depth);
                for (i = 0; r == 0 && i < inc.n; i++) {
                        struct ctx c2 = { c->repo, inc.v[i].file, c->depth + 1, c->rel_only };

                        r = eval(s, &c2, inc.v[i].section, inc.v[i].sub, inc.v[i].key,
                                 inc.v[i].value, -1);
                }
                ents_free(&inc);
                return r;
        }
        k = kind >= 0 ? (enum kind) kind : kind_of(section, sub, key);
        switch (k) {
        case K_SKIP:
        case K_WORKTREE:        /* a base (eval_repo), git runs nothing there */
                return 0;
        case K_HOOKS:
                return protect_from(s, c, value, PT_DIR, 1);
        case K_DIR:
                return protect_from(s, c, value, PT_DIR, 0);
        case K_TRUST:
                return protect_from(s, c, value, PT_FILE, 0);
        case K_PATH:
                return protect_from(s, c, value, PT_EXIST, 0);
        case K_ALIAS:
                if (value[0] == '!')
                        return words(value + 1, word_path, &(struct wctx){ s, c, PT_FILE });
                return git_args(s, c, value);
        case K_CMD:
                /* "!cmd" (credential helpers, submodule.*.update) is a
                 * shell command; a bare first word is a PATH lookup. */
                return words(value[0] == '!' ? value + 1 : value, word_path,
                             &(struct wctx){ s, c, PT_FILE });
        case K_CMDLIKE:
                return words(value[0] == '!' ? value + 1 : value, word_path,
                             &(struct wctx){ s, c, PT_PROG });
        case K_DATA:
        default:
                return words(value, word_path, &(struct wctx){ s, c, PT_EXIST_FILE });
        }
}

static int eval_all(struct scan *s, const struct repo *rp, struct ents *e, int rel_only)
{
        size_t i;
        int r;

        for (i = 0; i < e->n; i++) {
                struct ctx c = { rp, e->v[i].file, 0, rel_only };
                struct ent *x = &e->v[i];

                if (x->kind < 0)
                        x->kind = (int) kind_of(x->section, x->sub, x->key);
                if ((r = eval(s, &c, x->section, x->sub, x->key, x->value, x->kind)) < 0)
                        return r;
        }
        return 0;
}

/* ------------------------------------------------------- repositories */

/* The first line of a small file, NUL-terminated, malloc'd; NULL if none. */
static char *first_line(const char *path, int *err)
{
        size_t len = 0;
        char *text = slurp(path, &len);

        *err = 0;
        if (text == NULL) {
                *err = errno == ENOMEM ? -ENOMEM : 0;
                return NULL;
        }
        text[strcspn(text, "\r\n")] = '\0';
        return text;
}

/* The git dir a "gitdir: <path>" file names, resolved; 0 or -errno. */
static int gitfile_target(const char *file, const char *dir, char *out)
{
        char joined[SBX_PATH_MAX];
        int e;
        char *text = first_line(file, &e), *v;

        if (text == NULL)
                return e < 0 ? e : -ENOENT;
        if (strncmp(text, "gitdir:", 7) != 0) {
                free(text);
                return -ENOENT;
        }
        v = text + 7;
        while (*v == ' ' || *v == '\t')
                v++;
        e = -ENOENT;
        if (*v != '\0') {
                if (v[0] == '/')
                        e = snprintf(joined, sizeof(joined), "%s", v) < (int) sizeof(joined)
                            ? 0 : -ENAMETOOLONG;
                else
                        e = snprintf(joined, sizeof(joined), "%s/%s", dir, v) <
                            (int) sizeof(joined) ? 0 : -ENAMETOOLONG;
                if (e == 0)
                        e = chase(NULL, joined, 0, out);
        }
        free(text);
        return e;
}

static int scan_repo(struct scan *s, const char *gitdir, const char *worktree, int depth);

/* 1 if gitdir was evaluated already (with the same worktree), else
 * remembered; -ENOMEM. */
static int seen(struct scan *s, const char *gitdir, const char *worktree)
{
        char key[2 * SBX_PATH_MAX + 2];
        size_t i;

        snprintf(key, sizeof(key), "%s\n%s", gitdir, worktree != NULL ? worktree : "");
        for (i = 0; i < s->n_seen; i++)
                if (strcmp(s->seen[i], key) == 0)
                        return 1;
        if (s->n_seen == s->cap_seen) {
                size_t cap = s->cap_seen ? s->cap_seen * 2 : 16;
                char **v = realloc(s->seen, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                s->seen = v;
                s->cap_seen = cap;
        }
        if ((s->seen[s->n_seen] = sbx__strdup(key)) == NULL)
                return -ENOMEM;
        s->n_seen++;
        return 0;
}

/* A submodule's git dir below modules/ (names may hold slashes). */
static int scan_modules(struct scan *s, const char *dir, int depth)
{
        char sub[SBX_PATH_MAX], head[SBX_PATH_MAX];
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth >= MAX_MODULE_DEPTH || (d = opendir(dir)) == NULL)
                return 0;
        while (r == 0 && (e = readdir(d)) != NULL) {
                struct stat st;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int) sizeof(sub) ||
                    lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (pjoin(head, sub, "HEAD") == 0 && lstat(head, &st) == 0 && !S_ISDIR(st.st_mode))
                        r = scan_repo(s, sub, NULL, depth + 1);
                else
                        r = scan_modules(s, sub, depth + 1);
        }
        closedir(d);
        return r;
}

/* Linked worktrees: worktrees/<id>, whose "gitdir" file names the
 * worktree's .git file (its directory is the worktree's top). */
static int scan_worktrees(struct scan *s, const char *common, int depth)
{
        char dir[SBX_PATH_MAX], sub[SBX_PATH_MAX], path[SBX_PATH_MAX], top[SBX_PATH_MAX];
        struct dirent *e;
        DIR *d;
        int r = 0;

        if (depth >= MAX_MODULE_DEPTH ||
            snprintf(dir, sizeof(dir), "%s/worktrees", common) >= (int) sizeof(dir) ||
            (d = opendir(dir)) == NULL)
                return 0;
        while (r == 0 && (e = readdir(d)) != NULL) {
                struct stat st;
                char *line;
                int err;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
                    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int) sizeof(sub) ||
                    lstat(sub, &st) < 0 || !S_ISDIR(st.st_mode))
                        continue;
                if (pjoin(path, sub, "gitdir") < 0)
                        continue;
                line = first_line(path, &err);
                if (err < 0) {
                        r = err;
                        break;
                }
                top[0] = '\0';
                if (line != NULL && line[0] == '/' && chase(NULL, line, 0, top) == 0) {
                        char *slash = strrchr(top, '/');

                        if (slash != NULL && slash != top)
                                *slash = '\0';
                        else
                                top[0] = '\0';
                }
                free(line);
                r = scan_repo(s, sub, top[0] != '\0' ? top : NULL, depth + 1);
        }
        closedir(d);
        return r;
}

/*
 * A repository with git dir `gitdir` and worktree `worktree` (NULL: bare,
 * or a directory holding a HEAD): the git dir and its common dir are
 * protected whole, and every config entry git would read there --
 * the caller's and the repository's own -- is evaluated for it.
 */
static int scan_repo(struct scan *s, const char *gitdir, const char *worktree, int depth)
{
        char path[SBX_PATH_MAX], common[SBX_PATH_MAX], wt2[SBX_PATH_MAX];
        struct ents local = { NULL, 0, 0 };
        struct repo repo = { gitdir, worktree, NULL };
        size_t i;
        char *line;
        int r, err;

        if ((r = seen(s, gitdir, worktree)) != 0)
                return r < 0 ? r : 0;
        if ((r = protect(s, gitdir, PT_DIR)) < 0)
                return r;
        strcpy(common, gitdir);
        if (pjoin(path, gitdir, "commondir") < 0)
                return -ENAMETOOLONG;
        line = first_line(path, &err);
        if (err < 0)
                return err;
        if (line != NULL && line[0] != '\0') {
                char joined[SBX_PATH_MAX];

                if (snprintf(joined, sizeof(joined), "%s%s%s", line[0] == '/' ? "" : gitdir,
                             line[0] == '/' ? "" : "/", line) < (int) sizeof(joined) &&
                    chase(NULL, joined, line[0] == '/' ? 0 : strlen(gitdir), common) == 0)
                        r = protect(s, common, PT_DIR);
                else
                        strcpy(common, gitdir);
        }
        free(line);
        if (r < 0)
                return r;
        /* git follows links inside its git dir: hooks, config, info/ */
        if ((r = protect_links_in(s, gitdir, 1)) < 0 ||
            (strcmp(common, gitdir) != 0 && (r = protect_links_in(s, common, 1)) < 0))
                goto out;
        if ((r = pjoin(path, common, "config")) < 0 || (r = read_config(s, path, &local, 0)) < 0)
                goto out;
        /* config.worktree whether or not extensions.worktreeConfig is set
         * (a superset: the extension may be switched on later). */
        if ((r = pjoin(path, gitdir, "config.worktree")) < 0 || (r = read_config(s, path, &local, 0)) < 0)
                goto out;
        /* core.worktree, relative to the git dir: where git runs from. */
        for (i = 0; i < local.n; i++)
                if (strcmp(local.v[i].section, "core") == 0 && local.v[i].sub == NULL &&
                    strcmp(local.v[i].key, "worktree") == 0 && local.v[i].value[0] != '\0') {
                        char joined[SBX_PATH_MAX];

                        size_t canon;

                        if (expand(s, gitdir, local.v[i].value, 0, joined, &canon) == 0 &&
                            chase(NULL, joined, canon, wt2) == 0)
                                repo.worktree2 = wt2;
                }
        /* the caller's absolute values resolve alike everywhere: done once */
        if ((r = eval_all(s, &repo, &s->outer, 1)) < 0 || (r = eval_all(s, &repo, &local, 0)) < 0)
                goto out;
        if ((r = scan_worktrees(s, common, depth)) < 0)
                goto out;
        if ((r = pjoin(path, common, "modules")) == 0)
                r = scan_modules(s, path, depth);
out:
        ents_free(&local);
        return r;
}

struct dirstack {
        char **v;
        size_t n, cap;
};

static int push_dir(struct dirstack *d, const char *dir, const char *name)
{
        size_t l = strlen(dir), m = strlen(name);
        char *p;

        if (l + m + 2 > SBX_PATH_MAX)
                return -ENAMETOOLONG;
        if (d->n == d->cap) {
                size_t cap = d->cap ? d->cap * 2 : 64;
                char **v = realloc(d->v, cap * sizeof(*v));

                if (v == NULL)
                        return -ENOMEM;
                d->v = v;
                d->cap = cap;
        }
        p = malloc(l + m + 2);
        if (p == NULL)
                return -ENOMEM;
        memcpy(p, dir, l);
        if (l == 1 && dir[0] == '/')
                l = 0;
        p[l] = '/';
        memcpy(p + l + 1, name, m + 1);
        d->v[d->n++] = p;
        return 0;
}

/* 1 if dir holds a non-directory git would open as dir/HEAD (on a
 * case-insensitive file system "head" is one). */
static int holds_head(const char *dir)
{
        char path[SBX_PATH_MAX];
        struct stat st;

        if (snprintf(path, sizeof(path), "%s/HEAD", strcmp(dir, "/") == 0 ? "" : dir) >=
            (int) sizeof(path))
                return 0;
        return lstat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* .git at `path` in directory `dir`: a git dir, a "gitdir:" file or a
 * symbolic link (the pointer itself protected too). */
static int dot_git(struct scan *s, const char *path, const char *dir, unsigned char type)
{
        char target[SBX_PATH_MAX];
        int r;

        if (type == DT_DIR)
                return scan_repo(s, path, dir, 0);
        if (under_roots(s, path) && (r = add(s, path, 0)) < 0)
                return r;
        if (type == DT_REG && gitfile_target(path, dir, target) == 0)
                return scan_repo(s, target, dir, 0);
        if (type != DT_LNK)
                return 0;
        if ((r = chase(s, path, strlen(dir), target)) < 0)
                return r == -ELOOP || r == -ENAMETOOLONG ? 0 : fail_at(s, path, r);
        return scan_repo(s, target, dir, 0);
}

/* One directory of the walk: its repository entries, and its
 * subdirectories pushed for later. */
static int scan_dir(struct scan *s, struct dirstack *stack, const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        int r = 0, head = 0;
        char path[SBX_PATH_MAX];

        if (d == NULL) {
                /* Vanished or unreadable: the command cannot read it either
                 * (same user) unless it is a permission the sandbox lacks
                 * too; a directory we cannot list we cannot vouch for. */
                if (errno == ENOENT || errno == ENOTDIR)
                        return 0;
                return fail_at(s, dir, -errno);
        }
        while (r == 0 && (errno = 0, e = readdir(d)) != NULL) {
                unsigned char type = e->d_type;
                struct stat st;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
                             e->d_name) >= (int) sizeof(path)) {
                        r = fail_at(s, dir, -ENAMETOOLONG);
                        break;
                }
                if (type == DT_UNKNOWN) {
                        if (lstat(path, &st) < 0)
                                continue;
                        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
                               : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
                }
                if (strcmp(e->d_name, ".git") == 0) {
                        r = dot_git(s, path, dir, type);
                        continue;
                }
                if (strcasecmp(e->d_name, "HEAD") == 0 && type != DT_DIR) {
                        head = 1;
                        continue;
                }
                if (type == DT_DIR)
                        r = push_dir(stack, dir, e->d_name);
        }
        if (r == 0 && errno != 0 && e == NULL)
                r = fail_at(s, dir, -errno);
        closedir(d);
        /* A directory holding a HEAD is a git dir or one step from being
         * one (objects/ and refs/, or a commondir): protected whole. */
        if (r == 0 && head && holds_head(dir))
                r = scan_repo(s, dir, NULL, 0);
        return r;
}

static int walk(struct scan *s, const char *root)
{
        struct dirstack stack = { NULL, 0, 0 };
        int r = 0;

        if (strlen(root) >= SBX_PATH_MAX)
                return -ENAMETOOLONG;
        stack.v = malloc(sizeof(*stack.v));
        if (stack.v == NULL)
                return -ENOMEM;
        stack.cap = 1;
        stack.v[0] = sbx__strdup(root);
        if (stack.v[0] == NULL) {
                free(stack.v);
                return -ENOMEM;
        }
        stack.n = 1;
        while (stack.n > 0) {
                char *dir = stack.v[--stack.n];
                int skip = 0;
                size_t i;

                /* A location already protected as a whole is not walked. */
                for (i = 0; i < s->out->n && !skip; i++)
                        if (s->out->v[i].tree && sbx__path_has_prefix(dir, s->out->v[i].path))
                                skip = 1;
                if (r == 0 && !skip)
                        r = scan_dir(s, &stack, dir);
                free(dir);
        }
        free(stack.v);
        return r;
}

/*
 * The repositories git finds from a root upward (its discovery from a
 * directory the user may cd into): for each ancestor, a .git there, or
 * the ancestor itself holding a HEAD.  Their files lie outside the
 * writable roots, but what their configs name may not.
 */
static int enclosing(struct scan *s, const char *root)
{
        char dir[SBX_PATH_MAX], path[SBX_PATH_MAX];
        int r;

        if (strlen(root) >= sizeof(dir))
                return -ENAMETOOLONG;
        strcpy(dir, root);
        while (strcmp(dir, "/") != 0) {
                char *slash = strrchr(dir, '/');
                struct stat st;

                if (slash == NULL)
                        break;
                if (slash == dir)
                        slash[1] = '\0';
                else
                        *slash = '\0';
                if (pjoin(path, dir, ".git") == 0 && lstat(path, &st) == 0 &&
                    (r = dot_git(s, path, dir, S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode)
                                 ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN)) < 0)
                        return r;
                if (holds_head(dir) && (r = scan_repo(s, dir, NULL, 0)) < 0)
                        return r;
        }
        return 0;
}

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

/* The caller's config file at `path` (may not exist): protected -- created
 * empty inside a writable root, where the command could create it -- and
 * read. */
static int caller_config(struct scan *s, const char *path)
{
        char target[SBX_PATH_MAX];
        int r;

        if (path == NULL || path[0] != '/')
                return 0;
        r = chase(s, path, 0, target);
        if (r == -ELOOP || r == -ENAMETOOLONG)
                return 0;
        if (r < 0)
                return fail_at(s, path, r);
        if ((r = protect(s, target, PT_FILE)) < 0)
                return r;
        return read_config(s, target, &s->outer, 0);
}

/* The environment's own configuration: GIT_CONFIG_COUNT entries,
 * GIT_CONFIG_PARAMETERS, and the GIT_* variables that name what git runs,
 * each taken as the key git documents as its equivalent. */
static int caller_env(struct scan *s, const char *const *envp)
{
        static const struct {
                const char *var, *section, *key;
        } vars[] = {
                { "GIT_SSH", "core", "sshcommand" }, { "GIT_SSH_COMMAND", "core", "sshcommand" },
                { "GIT_EDITOR", "core", "editor" }, { "GIT_SEQUENCE_EDITOR", "sequence", "editor" },
                { "GIT_PAGER", "core", "pager" }, { "GIT_ASKPASS", "core", "askpass" },
                { "SSH_ASKPASS", "core", "askpass" },
                { "GIT_EXTERNAL_DIFF", "diff", "external" }, { "GIT_PROXY_COMMAND", "core", "gitproxy" },
                { "GIT_TEMPLATE_DIR", "init", "templatedir" }, { "GIT_EXEC_PATH", "init", "templatedir" },
        };
        const char *v;
        size_t i;
        long n;
        int r = 0;

        for (i = 0; i < SBX__ARRAY_SIZE(vars) && r == 0; i++)
                if ((v = sbx__env_get(envp, vars[i].var)) != NULL && v[0] != '\0')
                        r = ents_push(&s->outer, NULL, vars[i].section, NULL, vars[i].key, v);
        v = sbx__env_get(envp, "GIT_CONFIG_COUNT");
        n = v != NULL ? strtol(v, NULL, 10) : 0;
        for (i = 0; r == 0 && n > 0 && i < (size_t) n && i < 1000; i++) {
                char name[64], section[64], sub[256], key[64];
                const char *k, *val;
                int has_sub;

                snprintf(name, sizeof(name), "GIT_CONFIG_KEY_%zu", i);
                k = sbx__env_get(envp, name);
                snprintf(name, sizeof(name), "GIT_CONFIG_VALUE_%zu", i);
                val = sbx__env_get(envp, name);
                if (k == NULL || val == NULL ||
                    split_key(k, section, sizeof(section), sub, sizeof(sub), key, sizeof(key),
                              &has_sub) < 0)
                        continue;
                r = entry(s, NULL, &s->outer, 0, section, has_sub ? sub : NULL, key, val);
        }
        if (r == 0 && (v = sbx__env_get(envp, "GIT_CONFIG_PARAMETERS")) != NULL)
                r = read_parameters(s, v, &s->outer);
        return r;
}

int sbx__git_discover(const char *const *roots, size_t n_roots, const char *const *envp,
                      struct sbx__gitscan *out)
{
        struct scan s;
        struct repo none = { NULL, NULL, NULL };
        char *home = NULL, *account = NULL;
        char buf[SBX_PATH_MAX];
        const char *v;
        size_t i;
        int r = 0, h;

        memset(out, 0, sizeof(*out));
        memset(&s, 0, sizeof(s));
        s.roots = roots;
        s.n_roots = n_roots;
        s.out = out;
        if (envp == NULL)
                envp = (const char *const[]){ NULL };
        if ((r = sbx__caller_home(envp, &home)) == -ENOMEM ||
            (r = sbx__account_home(&account)) == -ENOMEM)
                goto out;
        r = 0;
        s.homes[0] = home;
        if (account != NULL && (home == NULL || strcmp(home, account) != 0))
                s.homes[home != NULL ? 1 : 0] = account;

        /* 1. The caller's configs: system, global (every file git may
         * read as global), the environment's. */
        v = sbx__env_get(envp, "GIT_CONFIG_SYSTEM");
        if (v != NULL && (r = caller_config(&s, v)) < 0)
                goto out;
        if ((r = caller_config(&s, "/etc/gitconfig")) < 0 ||
            (r = caller_config(&s, "/usr/local/etc/gitconfig")) < 0)
                goto out;
        v = sbx__env_get(envp, "GIT_CONFIG_GLOBAL");
        if (v != NULL && (r = caller_config(&s, v)) < 0)
                goto out;
        v = sbx__env_get(envp, "XDG_CONFIG_HOME");
        if (v != NULL && v[0] == '/') {
                if (pjoin(buf, v, "git/config") == 0 && (r = caller_config(&s, buf)) < 0)
                        goto out;
        }
        for (h = 0; h < 2; h++) {
                if (s.homes[h] == NULL)
                        continue;
                if (pjoin(buf, s.homes[h], ".gitconfig") == 0 && (r = caller_config(&s, buf)) < 0)
                        goto out;
                if (pjoin(buf, s.homes[h], ".config/git/config") == 0 &&
                    (r = caller_config(&s, buf)) < 0)
                        goto out;
        }
        if ((r = caller_env(&s, envp)) < 0)
                goto out;

        /* 2 and 3. Absolute values once; then every repository that can
         * see a root: above it, then below it. */
        if ((r = eval_all(&s, &none, &s.outer, 0)) < 0)
                goto out;
        for (i = 0; i < n_roots && r == 0; i++)
                r = enclosing(&s, roots[i]);
        for (i = 0; i < n_roots && r == 0; i++)
                r = walk(&s, roots[i]);
out:
        if (r < 0 && s.fail[0] != '\0')
                out->fail = sbx__strdup(s.fail);
        ents_free(&s.outer);
        for (i = 0; i < s.n_seen; i++)
                free(s.seen[i]);
        free(s.seen);
        free(home);
        free(account);
        return r;
}
