/*
 * gitscan_internal.h - what posix/gitscan.c (the walk, the repositories),
 * gitprotect.c (the scan's state, the protection) and gitconfig.c (git's
 * configuration: reading, key types, evaluation) share.  Not installed;
 * docs/git.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_GITSCAN_INTERNAL_H
#define SBX_GITSCAN_INTERNAL_H

#include <stddef.h>

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

/* gitprotect.c */
int sbx__gs_fail_at(struct scan *s, const char *path, int r);
int sbx__gs_under_roots(const struct scan *s, const char *path);
int sbx__gs_add(struct scan *s, const char *path, int tree);
int sbx__gs_pjoin(char *out, const char *dir, const char *name);
int sbx__gs_expand(const struct scan *s, const char *base, const char *rel, int which, char *out,
                   size_t *canon);
int sbx__gs_chase(struct scan *s, const char *in, size_t canon, char *out);
int sbx__gs_protect(struct scan *s, const char *path, enum pt how);
/* The symbolic links inside dir, depth levels down (git follows them). */
int sbx__gs_protect_links_in(struct scan *s, const char *dir, int depth);
int sbx__gs_each_target(struct scan *s, const char *base, const char *value,
                        int (*fn)(struct scan *s, const char *target, void *arg), void *arg);
int sbx__gs_protect_value(struct scan *s, const char *base, const char *value, enum pt how);

/* gitconfig.c */
char *sbx__gs_slurp(const char *path, size_t *len);
int sbx__gs_read_config(struct scan *s, const char *path, struct ents *out, int depth);
int sbx__gs_eval_all(struct scan *s, const struct repo *rp, struct ents *e, int rel_only);
void sbx__gs_ents_free(struct ents *e);
int sbx__gs_caller_config(struct scan *s, const char *path);
int sbx__gs_caller_env(struct scan *s, const char *const *envp);

#endif /* SBX_GITSCAN_INTERNAL_H */
