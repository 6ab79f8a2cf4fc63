/*
 * llrules.c - the Landlock rule list of a spawn.  Rung 1 uses the plan
 * coarsely (its mounts do the narrowing); rung 2 expands every tree rule
 * that has an existing narrower path below it (carve-outs, protected
 * paths, the hidden HOME, the host's /tmp), because Landlock can only add
 * rights.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/ladder.h"

/* A growable Landlock rule list that owns its path strings. */
struct llvec {
        struct sbx__ll_rule *v;
        char  **own;
        size_t  n, cap;
        size_t  nmerged;        /* rules after ll_merge (own[] keeps n strings) */
        int     nofollow;       /* set on what ll_push adds now (sbx__ll_rule) */
};

static int ll_push(struct llvec *lv, const char *path, uint32_t access, int tree)
{
        if (lv->n == lv->cap) {
                size_t cap = lv->cap ? lv->cap * 2 : 64;
                struct sbx__ll_rule *v = realloc(lv->v, cap * sizeof(*v));
                char **own;

                if (v == NULL)
                        return -ENOMEM;
                lv->v = v;
                own = realloc(lv->own, cap * sizeof(*own));
                if (own == NULL)
                        return -ENOMEM;
                lv->own = own;
                lv->cap = cap;
        }
        lv->own[lv->n] = sbx__strdup(path);
        if (lv->own[lv->n] == NULL)
                return -ENOMEM;
        lv->v[lv->n] = (struct sbx__ll_rule){ lv->own[lv->n], access, tree, lv->nofollow };
        lv->n++;
        return 0;
}

static void ll_free(struct llvec *lv)
{
        size_t i;

        for (i = 0; i < lv->n; i++)
                free(lv->own[i]);
        free(lv->own);
        free(lv->v);
}

static int ll_cmp(const void *a, const void *b)
{
        return strcmp(((const struct sbx__ll_rule *) a)->path, ((const struct sbx__ll_rule *) b)->path);
}

/* Landlock rights add up along a path, so two rules for one path are their
 * union: merge them (an expanded directory entry may also have a rule). */
static void ll_merge(struct llvec *lv)
{
        size_t i, o = 0;

        /* own[] and v[] are parallel only until here; v[].path points into
         * own[] and is what the prepare step reads. */
        qsort(lv->v, lv->n, sizeof(*lv->v), ll_cmp);
        for (i = 0; i < lv->n; i++) {
                if (o > 0 && strcmp(lv->v[o - 1].path, lv->v[i].path) == 0) {
                        lv->v[o - 1].access |= lv->v[i].access;
                        lv->v[o - 1].tree |= lv->v[i].tree;
                        lv->v[o - 1].nofollow |= lv->v[i].nofollow;
                        continue;
                }
                lv->v[o++] = lv->v[i];
        }
        lv->nmerged = o;
}

struct narrow {
        const char *path;
        uint32_t    access;
};

/*
 * Landlock can only add rights below a rule, never remove them.  To give a
 * tree rule `access` everywhere except below some narrower paths, the
 * directory itself gets no rule and each entry gets the rule instead,
 * recursing into entries that lead to a narrower path.  Symlink entries
 * get nothing (a rule would land on their target).  The cost, documented
 * in docs/backends.md: no new entry can be created directly in an
 * expanded directory.
 */
static int expand_tree(struct llvec *lv, const char *dir, uint32_t access,
                       const struct narrow *nw, size_t nn, int depth)
{
        char full[SBX_PATH_MAX];
        struct dirent *de;
        struct stat st;
        DIR *d;
        int r = 0;

        if (depth > 64)
                return -ELOOP;
        d = opendir(dir);
        if (d == NULL)
                return errno == ENOENT ? 0 : -errno;
        while ((de = readdir(d)) != NULL) {
                int skip = 0, leads = 0;
                size_t k;

                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                if ((size_t) snprintf(full, sizeof(full), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
                                      de->d_name) >= sizeof(full)) {
                        r = -ENAMETOOLONG;
                        break;
                }
                for (k = 0; k < nn; k++) {
                        if ((access & ~nw[k].access & (SBX__FS_READ | SBX__FS_WRITE)) == 0)
                                continue;       /* not narrower: its own rule adds */
                        if (strcmp(nw[k].path, full) == 0)
                                skip = 1;
                        else if (sbx__under(nw[k].path, full))
                                leads = 1;
                }
                if (skip || lstat(full, &st) < 0 || S_ISLNK(st.st_mode))
                        continue;
                if (leads && S_ISDIR(st.st_mode))
                        r = expand_tree(lv, full, access, nw, nn, depth + 1);
                else
                        r = ll_push(lv, full, access, S_ISDIR(st.st_mode));
                if (r < 0)
                        break;
        }
        closedir(d);
        return r;
}

int sbx__run_scratch_parent(char *out, size_t size)
{
        struct stat st;

        (void) snprintf(out, size, SBX__RUN_SCRATCH_FMT, (unsigned long) geteuid());
        if (mkdir(out, 0700) < 0 && errno != EEXIST)
                return -errno;
        if (lstat(out, &st) < 0)
                return -errno;
        /* /tmp is shared: a link or another user's directory is refused. */
        if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0)
                return -EPERM;
        return 0;
}

/*
 * The objects the merged rules grant writes at, for the supervisor's
 * metadata calls (notify.c): a chmod is done only at or below one of
 * them, as Landlock would allow a write there.  Identities, not paths:
 * a Landlock rule holds its inode, so neither can change or be reused
 * while the sandbox lives.  A rule whose path is gone is skipped, as
 * Landlock skips it.
 */
static int writable_ids(struct sbx__prep *p, const struct llvec *lv)
{
        struct sbx__prot *v = calloc(lv->nmerged + 1, sizeof(*v));
        struct stat st;
        size_t i, n = 0;

        if (v == NULL)
                return -ENOMEM;
        for (i = 0; i < lv->nmerged; i++) {
                /* Devices (/dev/tty) are written, never re-moded. */
                if (!(lv->v[i].access & SBX__FS_WRITE) || stat(lv->v[i].path, &st) < 0 ||
                    S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
                        continue;
                v[n].dev = st.st_dev;
                v[n].ino = st.st_ino;
                v[n].tree = lv->v[i].tree && S_ISDIR(st.st_mode);
                n++;
        }
        free(p->notify_wr);
        p->notify_wr = v;
        p->notify_ctx.wr = v;
        p->notify_ctx.n_wr = n;
        return 0;
}

/* Landlock rules: rung 1 uses the plan coarsely (its mounts do the
 * narrowing); rung 2 expands every tree rule that has an existing narrower
 * path below it (carve-outs, protected paths, the hidden HOME). */
sbx_code sbx__build_landlock(struct sbx__prep *p, const struct sbx_plan *plan, const char *scratch,
                               const char *home, uint32_t opts, sbx_error *err)
{
        struct llvec lv = { NULL, NULL, 0, 0, 0, 0 };
        struct narrow *nw = NULL;
        int resolver = 0;
        size_t i, k, nn = 0;
        uint32_t missing = 0;
        char buf[SBX_PATH_MAX], host_tmp[PATH_MAX];
        struct stat st;
        sbx_code r = SBX_OK;
        int e = 0;

        nw = calloc(plan->n_rules + 5, sizeof(*nw));
        if (nw == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        if (p->rung == 2) {
                for (i = 0; i < plan->n_rules; i++) {
                        const struct sbx_plan_fs_rule *rule = &plan->rules[i];

                        /* Protected paths are not narrowed here: the
                         * supervisor keeps them read-only (notify.c), so
                         * the workspace root stays a plain tree rule and
                         * new entries can be created in it. */
                        if (rule->origin == SBX__ORIGIN_PROTECTED)
                                continue;
                        if (lstat(rule->path, &st) == 0 && rule->origin != SBX__ORIGIN_HOST)
                                nw[nn++] = (struct narrow){ rule->path, rule->access };
                }
                if (home != NULL && plan->home == SBX__ENV_DIR_SCRATCH && strcmp(home, "/") != 0 &&
                    lstat(home, &st) == 0)
                        nw[nn++] = (struct narrow){ home, 0 };
                if (p->home2 != NULL && plan->home == SBX__ENV_DIR_SCRATCH &&
                    lstat(p->home2, &st) == 0)
                        nw[nn++] = (struct narrow){ p->home2, 0 };
                /* Host IPC under /run is hidden on both rungs (see
                 * build_mounts); the resolver's directory stays readable
                 * when the network is allowed. */
                /* The host's /dev holds other terminals (/dev/pts/N, a
                 * typed password), consoles and, for root, block devices:
                 * hidden, with only the plan's runtime nodes (null, zero,
                 * full, random, urandom) and /dev/tty given back below. */
                if (lstat("/dev", &st) == 0 && S_ISDIR(st.st_mode))
                        nw[nn++] = (struct narrow){ "/dev", 0 };
                /* The host's /tmp holds every other sandbox's scratch (the
                 * per-spawn HOME/TMPDIR of each rung-2 spawn, executor sets
                 * rooted there) and the user's own private files (Kerberos
                 * ticket caches, editor and agent sockets): hidden whole,
                 * by construction rather than by listing what is in it.
                 * What the spawn may use comes back below as rules of its
                 * own: its scratch HOME and TMPDIR, and every plan rule
                 * inside /tmp (a workspace, a writable or readable root),
                 * which Landlock reaches without any right on /tmp itself
                 * (path walk needs no Landlock right). */
                if (realpath("/tmp", host_tmp) != NULL && strcmp(host_tmp, "/") != 0 &&
                    stat(host_tmp, &st) == 0 && S_ISDIR(st.st_mode))
                        nw[nn++] = (struct narrow){ host_tmp, 0 };
                if (lstat("/run", &st) == 0 && S_ISDIR(st.st_mode)) {
                        nw[nn++] = (struct narrow){ "/run", 0 };
                        if (plan->network == SBX__NET_ALLOW && lstat(SBX__RESOLVER_DIR, &st) == 0)
                                resolver = 1;
                }
        }
        for (i = 0; i < plan->n_rules && e == 0; i++) {
                const struct sbx_plan_fs_rule *rule = &plan->rules[i];
                int expand = 0;

                if (rule->access == 0)
                        continue;       /* carve-outs: mounts (rung 1) / expansion (rung 2) */
                if (p->rung == 2 && rule->origin == SBX__ORIGIN_PROTECTED)
                        continue;       /* the supervisor's (notify.c); its read is the root's */
                if (p->rung == 1) {
                        /* The mounts narrow (read-only re-mounts, protected
                         * paths); Landlock, which can only widen below a
                         * rule, gets the rules that do not narrow. */
                        int narrower = 0;

                        for (k = 0; k < plan->n_rules; k++) {
                                const struct sbx_plan_fs_rule *up = &plan->rules[k];

                                if (up->scope == SBX__FS_TREE && up->access != 0 &&
                                    (sbx__under(rule->path, up->path) || (strcmp(up->path, "/") == 0 &&
                                                                     strcmp(rule->path, "/") != 0)) &&
                                    (up->access & ~rule->access &
                                     (SBX__FS_READ | SBX__FS_WRITE)) != 0)
                                        narrower = 1;
                        }
                        if (narrower)
                                continue;
                }
                if (p->rung == 2 && rule->scope == SBX__FS_TREE)
                        for (k = 0; k < nn; k++)
                                if (sbx__under(nw[k].path, rule->path) &&
                                    (rule->access & ~nw[k].access &
                                     (SBX__FS_READ | SBX__FS_WRITE)) != 0)
                                        expand = 1;
                /* A configured root or a grant was canonical when the plan
                 * was made: a link in its path now is refused, not followed. */
                lv.nofollow = rule->origin == SBX__ORIGIN_WORKSPACE ||
                              rule->origin == SBX__ORIGIN_ADDITIONAL;
                if (expand)
                        e = expand_tree(&lv, rule->path, rule->access, nw, nn, 0);
                else
                        e = ll_push(&lv, rule->path, rule->access, rule->scope == SBX__FS_TREE);
                lv.nofollow = 0;
        }
        if (e == 0 && resolver)
                e = ll_push(&lv, SBX__RESOLVER_DIR, SBX__FS_READ, 1);
        if (e == 0)
                e = ll_push(&lv, "/dev/tty", SBX__FS_READ | SBX__FS_WRITE, 0);
        if (e == 0 && scratch != NULL) {
                snprintf(buf, sizeof(buf), "%s/home", scratch);
                e = ll_push(&lv, buf, SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 1);
                snprintf(buf, sizeof(buf), "%s/tmp", scratch);
                if (e == 0)
                        e = ll_push(&lv, buf, SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC, 1);
        }
        if (e < 0) {
                r = sbx__fail(err, e == -ENOMEM ? SBX_E_NOMEM : SBX_E_IO, -e,
                              "sbx_spawn: cannot prepare the Landlock rules: %s",
                              sbx__strerror(-e));
                goto out;
        }
        ll_merge(&lv);
        if (p->rung == 2 && (p->notify_ctx.flags & SBX__NF_META) && writable_ids(p, &lv) < 0) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
                goto out;
        }
        r = sbx__landlock_prepare(lv.v, lv.nmerged, opts | SBX__LL_SKIP_MISSING, &p->ruleset_fd,
                                  &missing, err);
        if (r == SBX_OK)
                p->achieved &= ~missing;
out:
        ll_free(&lv);
        free(nw);
        return r;
}

