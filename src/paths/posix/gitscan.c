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

#include "paths/gitscan_internal.h"

/* ------------------------------------------------------- repositories */

/* The first line of a small file, NUL-terminated, malloc'd; NULL if none. */
static char *first_line(const char *path, int *err)
{
        size_t len = 0;
        char *text = sbx__gs_slurp(path, &len);

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
                        e = sbx__gs_chase(NULL, joined, 0, out);
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
                if (sbx__gs_pjoin(head, sub, "HEAD") == 0 && lstat(head, &st) == 0 && !S_ISDIR(st.st_mode))
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
                if (sbx__gs_pjoin(path, sub, "gitdir") < 0)
                        continue;
                line = first_line(path, &err);
                if (err < 0) {
                        r = err;
                        break;
                }
                top[0] = '\0';
                if (line != NULL && line[0] == '/' && sbx__gs_chase(NULL, line, 0, top) == 0) {
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
        if ((r = sbx__gs_protect(s, gitdir, PT_DIR)) < 0)
                return r;
        strcpy(common, gitdir);
        if (sbx__gs_pjoin(path, gitdir, "commondir") < 0)
                return -ENAMETOOLONG;
        line = first_line(path, &err);
        if (err < 0)
                return err;
        if (line != NULL && line[0] != '\0') {
                char joined[SBX_PATH_MAX];

                if (snprintf(joined, sizeof(joined), "%s%s%s", line[0] == '/' ? "" : gitdir,
                             line[0] == '/' ? "" : "/", line) < (int) sizeof(joined) &&
                    sbx__gs_chase(NULL, joined, line[0] == '/' ? 0 : strlen(gitdir), common) == 0)
                        r = sbx__gs_protect(s, common, PT_DIR);
                else
                        strcpy(common, gitdir);
        }
        free(line);
        if (r < 0)
                return r;
        /* git follows links inside its git dir: hooks, config, info/ */
        if ((r = sbx__gs_protect_links_in(s, gitdir, 1)) < 0 ||
            (strcmp(common, gitdir) != 0 && (r = sbx__gs_protect_links_in(s, common, 1)) < 0))
                goto out;
        if ((r = sbx__gs_pjoin(path, common, "config")) < 0 || (r = sbx__gs_read_config(s, path, &local, 0)) < 0)
                goto out;
        /* config.worktree whether or not extensions.worktreeConfig is set
         * (a superset: the extension may be switched on later). */
        if ((r = sbx__gs_pjoin(path, gitdir, "config.worktree")) < 0 || (r = sbx__gs_read_config(s, path, &local, 0)) < 0)
                goto out;
        /* core.worktree, relative to the git dir: where git runs from. */
        for (i = 0; i < local.n; i++)
                if (strcmp(local.v[i].section, "core") == 0 && local.v[i].sub == NULL &&
                    strcmp(local.v[i].key, "worktree") == 0 && local.v[i].value[0] != '\0') {
                        char joined[SBX_PATH_MAX];

                        size_t canon;

                        if (sbx__gs_expand(s, gitdir, local.v[i].value, 0, joined, &canon) == 0 &&
                            sbx__gs_chase(NULL, joined, canon, wt2) == 0)
                                repo.worktree2 = wt2;
                }
        /* the caller's absolute values resolve alike everywhere: done once */
        if ((r = sbx__gs_eval_all(s, &repo, &s->outer, 1)) < 0 || (r = sbx__gs_eval_all(s, &repo, &local, 0)) < 0)
                goto out;
        if ((r = scan_worktrees(s, common, depth)) < 0)
                goto out;
        if ((r = sbx__gs_pjoin(path, common, "modules")) == 0)
                r = scan_modules(s, path, depth);
out:
        sbx__gs_ents_free(&local);
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
        if (SBX__GROW(d->v, d->cap, d->n + 1, 64) < 0)
                return -ENOMEM;
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
        if (sbx__gs_under_roots(s, path) && (r = sbx__gs_add(s, path, 0)) < 0)
                return r;
        if (type == DT_REG && gitfile_target(path, dir, target) == 0)
                return scan_repo(s, target, dir, 0);
        if (type != DT_LNK)
                return 0;
        if ((r = sbx__gs_chase(s, path, strlen(dir), target)) < 0)
                return r == -ELOOP || r == -ENAMETOOLONG ? 0 : sbx__gs_fail_at(s, path, r);
        return scan_repo(s, target, dir, 0);
}

/* "HEAD" in any case, trailing dots and spaces allowed: holds_head()
 * then asks the file system whether git would open it as HEAD. */
static int head_like(const char *name)
{
        size_t l = strlen(name);

        while (l > 0 && (name[l - 1] == '.' || name[l - 1] == ' '))
                l--;
        return l == 4 && strncasecmp(name, "HEAD", 4) == 0;
}

/* 1 if name is a case or trailing-dot variant of ".git" that the file
 * system answers for "dir/.git" too (vfat, a casefolded directory). */
static int is_dot_git_alias(const char *dir, const char *name)
{
        char a[SBX_PATH_MAX], b[SBX_PATH_MAX];
        struct stat sa, sb;
        size_t l = strlen(name);

        while (l > 0 && (name[l - 1] == '.' || name[l - 1] == ' '))
                l--;
        if (l != 4 || strncasecmp(name, ".git", 4) != 0 || strcmp(name, ".git") == 0)
                return 0;
        return sbx__gs_pjoin(a, dir, name) == 0 && sbx__gs_pjoin(b, dir, ".git") == 0 &&
               lstat(a, &sa) == 0 && lstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
               sa.st_ino == sb.st_ino;
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
                return sbx__gs_fail_at(s, dir, -errno);
        }
        while (r == 0 && (errno = 0, e = readdir(d)) != NULL) {
                unsigned char type = e->d_type;
                struct stat st;

                if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                        continue;
                if (snprintf(path, sizeof(path), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
                             e->d_name) >= (int) sizeof(path)) {
                        r = sbx__gs_fail_at(s, dir, -ENAMETOOLONG);
                        break;
                }
                if (type == DT_UNKNOWN) {
                        if (lstat(path, &st) < 0)
                                continue;
                        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG
                               : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN;
                }
                if (strcmp(e->d_name, ".git") == 0 || is_dot_git_alias(dir, e->d_name)) {
                        /* ".GIT", ".git." where the file system folds
                         * them: what git opens as dir/.git */
                        if (strcmp(e->d_name, ".git") != 0 &&
                            sbx__gs_pjoin(path, dir, ".git") < 0)
                                continue;
                        r = dot_git(s, path, dir, type);
                        continue;
                }
                if (head_like(e->d_name) && type != DT_DIR) {
                        head = 1;
                        continue;
                }
                if (type == DT_DIR)
                        r = push_dir(stack, dir, e->d_name);
        }
        if (r == 0 && errno != 0 && e == NULL)
                r = sbx__gs_fail_at(s, dir, -errno);
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
                if (sbx__gs_pjoin(path, dir, ".git") == 0 && lstat(path, &st) == 0 &&
                    (r = dot_git(s, path, dir, S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode)
                                 ? DT_REG : S_ISLNK(st.st_mode) ? DT_LNK : DT_UNKNOWN)) < 0)
                        return r;
                if (holds_head(dir) && (r = scan_repo(s, dir, NULL, 0)) < 0)
                        return r;
        }
        return 0;
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
        if (v != NULL && (r = sbx__gs_caller_config(&s, v)) < 0)
                goto out;
        if ((r = sbx__gs_caller_config(&s, "/etc/gitconfig")) < 0 ||
            (r = sbx__gs_caller_config(&s, "/usr/local/etc/gitconfig")) < 0)
                goto out;
        v = sbx__env_get(envp, "GIT_CONFIG_GLOBAL");
        if (v != NULL && (r = sbx__gs_caller_config(&s, v)) < 0)
                goto out;
        v = sbx__env_get(envp, "XDG_CONFIG_HOME");
        if (v != NULL && v[0] == '/') {
                if (sbx__gs_pjoin(buf, v, "git/config") == 0 && (r = sbx__gs_caller_config(&s, buf)) < 0)
                        goto out;
        }
        for (h = 0; h < 2; h++) {
                if (s.homes[h] == NULL)
                        continue;
                if (sbx__gs_pjoin(buf, s.homes[h], ".gitconfig") == 0 && (r = sbx__gs_caller_config(&s, buf)) < 0)
                        goto out;
                if (sbx__gs_pjoin(buf, s.homes[h], ".config/git/config") == 0 &&
                    (r = sbx__gs_caller_config(&s, buf)) < 0)
                        goto out;
        }
        if ((r = sbx__gs_caller_env(&s, envp)) < 0)
                goto out;

        /* 2 and 3. Absolute values once; then every repository that can
         * see a root: above it, then below it. */
        if ((r = sbx__gs_eval_all(&s, &none, &s.outer, 0)) < 0)
                goto out;
        for (i = 0; i < n_roots && r == 0; i++)
                r = enclosing(&s, roots[i]);
        for (i = 0; i < n_roots && r == 0; i++)
                r = walk(&s, roots[i]);
out:
        if (r < 0 && s.fail[0] != '\0')
                out->fail = sbx__strdup(s.fail);
        sbx__gs_ents_free(&s.outer);
        for (i = 0; i < s.n_seen; i++)
                free(s.seen[i]);
        free(s.seen);
        free(home);
        free(account);
        return r;
}
