/*
 * gitscan.c - find, below the writable roots, everything git reads as
 * configuration or runs as code, so the backends can make it read-only
 * before a command starts (docs/git.md).
 *
 * A later git run on the host -- a shell prompt, an IDE, the user's next
 * `git status` -- executes what a repository's configuration names
 * (core.fsmonitor, hooks, filters, core.sshCommand...).  A confined command
 * that can write any of it plants code that runs outside the sandbox.  The
 * scan walks every writable root (no symlink is followed) and reports:
 *
 *   - every `.git` directory (the whole git dir) and every `.git` file (a
 *     "gitdir:" pointer) with the git dir it names and that dir's
 *     commondir target;
 *   - every directory that already is a bare repository (HEAD + objects/ +
 *     refs/), and every other file named HEAD (with objects/ and refs/
 *     next to it a directory becomes a bare repository git would use);
 *   - from each repository's config, config.worktree and the caller's
 *     global and system configs (includes followed): core.hooksPath, every
 *     included file, and the program of every command-valued key that names
 *     a path (core.fsmonitor = ./tools/fsmon.sh).
 *
 * Only locations inside a writable root are reported: everything else is
 * read-only for the command already.  A location that does not exist yet
 * is created empty first (an empty hooks directory, an empty included
 * file: what git treats as "nothing there"), because a path that does not
 * exist cannot be bound read-only and the command could create it.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths/paths_internal.h"

#define MAX_INCLUDE_DEPTH 10
#define MAX_CONFIG_BYTES  (1024 * 1024)

struct scan {
        const char *const *roots;
        size_t n_roots;
        const char *home;
        struct sbx__gitscan *out;
        char fail[SBX_PATH_MAX];        /* where the scan failed, "" if not there */
};

static int fail_at(struct scan *s, const char *path, int r)
{
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

/* Lexically normalise an absolute path in place ("." and ".." and "//"). */
static void normalise(char *p)
{
        char *out = p, *in = p;

        while (*in != '\0') {
                while (*in == '/')
                        in++;
                if (*in == '\0')
                        break;
                if (in[0] == '.' && (in[1] == '/' || in[1] == '\0')) {
                        in += 1;
                        continue;
                }
                if (in[0] == '.' && in[1] == '.' && (in[2] == '/' || in[2] == '\0')) {
                        in += 2;
                        while (out > p && *--out != '/')
                                ;
                        continue;
                }
                *out++ = '/';
                while (*in != '\0' && *in != '/')
                        *out++ = *in++;
        }
        if (out == p)
                *out++ = '/';
        *out = '\0';
}

/*
 * The canonical form of `rel` taken relative to directory `base` ("~/" is
 * the caller's home): symlinks resolved as far as the path exists, the
 * missing tail appended lexically.  0, -ENAMETOOLONG, -ENOENT (no home).
 */
static int resolve(const struct scan *s, const char *base, const char *rel, char *out)
{
        char buf[SBX_PATH_MAX], head[SBX_PATH_MAX], tail[SBX_PATH_MAX];
        int n;

        if (rel[0] == '~' && rel[1] == '/') {
                if (s->home == NULL)
                        return -ENOENT;
                n = snprintf(buf, sizeof(buf), "%s/%s", s->home, rel + 2);
        } else if (rel[0] == '/') {
                n = snprintf(buf, sizeof(buf), "%s", rel);
        } else {
                n = snprintf(buf, sizeof(buf), "%s/%s", base, rel);
        }
        if (n < 0 || (size_t) n >= sizeof(buf))
                return -ENAMETOOLONG;
        normalise(buf);
        /* realpath of the longest existing prefix, then the rest. */
        strcpy(head, buf);
        tail[0] = '\0';
        for (;;) {
                char *slash;

                if (realpath(head, out) != NULL) {
                        if (tail[0] != '\0') {
                                size_t l = strlen(out);

                                if (l + strlen(tail) + 1 >= SBX_PATH_MAX)
                                        return -ENAMETOOLONG;
                                if (strcmp(out, "/") == 0)
                                        l = 0;
                                strcpy(out + l, tail);
                        }
                        return 0;
                }
                if (errno != ENOENT && errno != ENOTDIR)
                        return -errno;
                slash = strrchr(head, '/');
                if (slash == NULL || slash == head) {
                        strcpy(out, buf);
                        return 0;
                }
                if (strlen(slash) + strlen(tail) >= sizeof(tail))
                        return -ENAMETOOLONG;
                memmove(tail + strlen(slash), tail, strlen(tail) + 1);
                memcpy(tail, slash, strlen(slash));
                *slash = '\0';
        }
}

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

/* Protect `path` (resolved, absolute) when a writable root holds it; a
 * missing one is created empty first (a directory when tree). */
static int protect(struct scan *s, const char *path, int tree)
{
        struct stat st;
        int fd, r;

        if (!under_roots(s, path))
                return 0;
        if (lstat(path, &st) < 0) {
                if (errno != ENOENT)
                        return fail_at(s, path, -errno);
                if ((r = make_parents(path)) < 0)
                        return fail_at(s, path, r);
                if (tree) {
                        if (mkdir(path, 0755) < 0 && errno != EEXIST)
                                return fail_at(s, path, -errno);
                } else {
                        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
                        if (fd < 0 && errno != EEXIST)
                                return fail_at(s, path, -errno);
                        if (fd >= 0)
                                close(fd);
                }
        }
        return add(s, path, tree);
}

/* ------------------------------------------------------ config files */

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

/* Keys whose value is a command git runs (the first word is the program).
 * Matched on "section.key" or "section.*.key" (lower case). */
static int command_key(const char *section, const char *sub, const char *key)
{
        static const char *const plain[] = {
                "core.fsmonitor", "core.sshcommand", "core.editor", "core.pager",
                "core.askpass", "diff.external", "gpg.program", "sequence.editor",
                "credential.helper", "uploadpack.packobjectshook", "sendemail.smtpserver",
                "sendemail.sendmailcmd",
        };
        static const char *const with_sub[] = {
                "diff.command", "diff.textconv", "filter.clean", "filter.smudge",
                "filter.process", "merge.driver", "gpg.program", "credential.helper",
                "difftool.cmd", "mergetool.cmd", "remote.receivepack", "remote.uploadpack",
        };
        char buf[128];
        size_t i;

        if (snprintf(buf, sizeof(buf), "%s.%s", section, key) >= (int) sizeof(buf))
                return 0;
        if (sub == NULL) {
                for (i = 0; i < SBX__ARRAY_SIZE(plain); i++)
                        if (strcmp(buf, plain[i]) == 0)
                                return 1;
                return strcmp(section, "pager") == 0;
        }
        for (i = 0; i < SBX__ARRAY_SIZE(with_sub); i++)
                if (strcmp(buf, with_sub[i]) == 0)
                        return 1;
        return 0;
}

struct repo {
        const char *worktree;           /* NULL for a global config */
};

static int scan_config(struct scan *s, const char *path, const struct repo *repo, int depth);

/* One key = value of a config file. */
static int config_entry(struct scan *s, const char *file, const struct repo *repo, int depth,
                        const char *section, const char *sub, const char *key, const char *value)
{
        char dir[SBX_PATH_MAX], target[SBX_PATH_MAX];
        const char *slash;
        int r;

        if (value == NULL || value[0] == '\0')
                return 0;
        slash = strrchr(file, '/');
        if (slash == NULL || (size_t) (slash - file) >= sizeof(dir))
                return 0;
        memcpy(dir, file, (size_t) (slash - file));
        dir[slash - file] = '\0';
        if (dir[0] == '\0')
                strcpy(dir, "/");

        if ((strcmp(section, "include") == 0 || strcmp(section, "includeif") == 0) &&
            strcmp(key, "path") == 0) {
                if ((r = resolve(s, dir, value, target)) < 0)
                        return r == -ENOENT ? 0 : r;
                if ((r = protect(s, target, 0)) < 0)
                        return r;
                return depth < MAX_INCLUDE_DEPTH ? scan_config(s, target, repo, depth + 1) : 0;
        }
        if (strcmp(section, "core") == 0 && sub == NULL && strcmp(key, "hookspath") == 0) {
                if (value[0] != '/' && value[0] != '~' && repo->worktree == NULL)
                        return 0;       /* relative in a global config: per repository */
                r = resolve(s, repo->worktree != NULL ? repo->worktree : dir, value, target);
                if (r < 0)
                        return r == -ENOENT ? 0 : r;
                return protect(s, target, 1);
        }
        if (command_key(section, sub, key)) {
                char prog[SBX_PATH_MAX];
                size_t n = 0;
                const char *v = value;

                if (*v == '!')
                        v++;
                while (*v == ' ' || *v == '\t')
                        v++;
                while (v[n] != '\0' && v[n] != ' ' && v[n] != '\t' && n + 1 < sizeof(prog)) {
                        prog[n] = v[n];
                        n++;
                }
                prog[n] = '\0';
                if (strchr(prog, '/') == NULL)
                        return 0;       /* a PATH lookup (docs/git.md) */
                /* git runs these from the top of the worktree. */
                r = resolve(s, repo->worktree != NULL ? repo->worktree : dir, prog, target);
                if (r < 0)
                        return r == -ENOENT ? 0 : r;
                return protect(s, target, 0);
        }
        return 0;
}

static void lower(char *p)
{
        for (; *p != '\0'; p++)
                *p = (char) tolower((unsigned char) *p);
}

/*
 * A tolerant reader of git's config syntax: [section], [section "sub"],
 * [section.sub], key = value with quotes, escapes, comments (# ;) and
 * backslash-newline continuations.  Whatever it cannot read it skips:
 * the scan adds protection, it never removes any.
 */
static int scan_config(struct scan *s, const char *path, const struct repo *repo, int depth)
{
        char section[64] = "", sub[256], key[64], value[SBX_PATH_MAX];
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
                if (key[0] != '\0' && section[0] != '\0') {
                        char lsub[256];

                        snprintf(lsub, sizeof(lsub), "%s", have_sub ? sub : "");
                        r = config_entry(s, path, repo, depth, section, have_sub ? lsub : NULL,
                                         key, value);
                }
        }
        free(text);
        return r;
}

/* ------------------------------------------------------- repositories */

/* The git dir a "gitdir: <path>" file names, resolved; 0 or -errno. */
static int gitfile_target(struct scan *s, const char *file, const char *dir, char *out)
{
        size_t len = 0, n;
        char *text = slurp(file, &len);
        int r;

        if (text == NULL)
                return errno == ENOMEM ? -ENOMEM : -ENOENT;
        if (strncmp(text, "gitdir:", 7) != 0) {
                free(text);
                return -ENOENT;
        }
        n = strcspn(text + 7, "\r\n");
        text[7 + n] = '\0';
        {
                char *v = text + 7;

                while (*v == ' ' || *v == '\t')
                        v++;
                r = *v != '\0' ? resolve(s, dir, v, out) : -ENOENT;
        }
        free(text);
        return r;
}

/* A repository with git dir `gitdir` and worktree `worktree` (NULL: bare). */
static int scan_repo(struct scan *s, const char *gitdir, const char *worktree)
{
        char path[SBX_PATH_MAX], common[SBX_PATH_MAX];
        struct repo repo = { worktree };
        size_t len = 0;
        char *text;
        int r;

        if ((r = protect(s, gitdir, 1)) < 0)
                return r;
        strcpy(common, gitdir);
        if (snprintf(path, sizeof(path), "%s/commondir", gitdir) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        text = slurp(path, &len);
        if (text != NULL) {
                text[strcspn(text, "\r\n")] = '\0';
                r = text[0] != '\0' ? resolve(s, gitdir, text, common) : 0;
                free(text);
                if (r < 0)
                        return r;
                if ((r = protect(s, common, 1)) < 0)
                        return r;
        } else if (errno == ENOMEM) {
                return -ENOMEM;
        }
        if (snprintf(path, sizeof(path), "%s/config", common) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        if ((r = scan_config(s, path, &repo, 0)) < 0)
                return r;
        if (snprintf(path, sizeof(path), "%s/config.worktree", gitdir) >= (int) sizeof(path))
                return -ENAMETOOLONG;
        return scan_config(s, path, &repo, 0);
}

static int is_dir_at(const char *dir, const char *name)
{
        char path[SBX_PATH_MAX];
        struct stat st;

        if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int) sizeof(path))
                return 0;
        return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
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

/* One directory of the walk: its repository entries, and its
 * subdirectories pushed for later. */
static int scan_dir(struct scan *s, struct dirstack *stack, const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *e;
        int r = 0, has_head = 0;
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
                        if (type == DT_DIR) {
                                r = scan_repo(s, path, dir);
                        } else {
                                char target[SBX_PATH_MAX];

                                /* The pointer itself, a symlink included. */
                                r = add(s, path, 0);
                                if (r == 0 && type == DT_REG &&
                                    gitfile_target(s, path, dir, target) == 0)
                                        r = scan_repo(s, target, dir);
                                else if (r == 0 && type == DT_LNK &&
                                         realpath(path, target) != NULL)
                                        r = scan_repo(s, target, dir);
                        }
                        continue;
                }
                if (strcmp(e->d_name, "HEAD") == 0 && type != DT_DIR) {
                        has_head = 1;
                        continue;
                }
                if (type == DT_DIR)
                        r = push_dir(stack, dir, e->d_name);
        }
        if (r == 0 && errno != 0 && e == NULL)
                r = fail_at(s, dir, -errno);
        closedir(d);
        if (r == 0 && has_head) {
                if (is_dir_at(dir, "objects") && is_dir_at(dir, "refs")) {
                        r = scan_repo(s, dir, NULL);            /* a bare repository */
                } else {
                        snprintf(path, sizeof(path), "%s/HEAD", strcmp(dir, "/") == 0 ? "" : dir);
                        r = add(s, path, 0);
                }
        }
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

int sbx__git_discover(const char *const *roots, size_t n_roots, const char *home,
                      const char *const *global_configs, size_t n_global,
                      struct sbx__gitscan *out)
{
        struct scan s;
        struct repo global = { NULL };
        size_t i;
        int r = 0;

        memset(out, 0, sizeof(*out));
        memset(&s, 0, sizeof(s));
        s.roots = roots;
        s.n_roots = n_roots;
        s.home = home;
        s.out = out;
        /* The caller's own configs: protected themselves when a writable
         * root holds them (a forced home workspace), and read for absolute
         * hooks paths and includes. */
        for (i = 0; i < n_global && r == 0; i++) {
                char target[SBX_PATH_MAX];
                struct stat st;

                if (global_configs[i] == NULL || resolve(&s, "/", global_configs[i], target) < 0)
                        continue;
                if (lstat(target, &st) == 0 && (r = protect(&s, target, 0)) == 0)
                        r = scan_config(&s, target, &global, 0);
        }
        for (i = 0; i < n_roots && r == 0; i++)
                r = walk(&s, roots[i]);
        if (r < 0 && s.fail[0] != '\0')
                out->fail = sbx__strdup(s.fail);
        return r;
}
