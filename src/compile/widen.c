/*
 * widen.c - plans derived from a compiled plan for one spawn: the git
 * locations discovery found, added as protected rules
 * (sbx__plan_add_protected), an executor run's grants and directories
 * (sbx__plan_widen), and other sandboxes' scratch hidden (sbx__plan_hide).
 * Pure.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/plan_internal.h"
#include "paths/paths_internal.h"

#define R SBX__FS_READ
#define W SBX__FS_WRITE
#define X SBX__FS_EXEC

/* plan->env_set := a copy of v[0..n).  0 or -ENOMEM (the plan then holds
 * what was copied). */
static int copy_env(struct sbx_plan *plan, const char *const *v, size_t n)
{
        size_t i;

        if (n == 0)
                return 0;
        plan->env_set = calloc(n, sizeof(*plan->env_set));
        if (plan->env_set == NULL)
                return -ENOMEM;
        for (i = 0; i < n; i++) {
                if ((plan->env_set[i] = sbx__strdup(v[i])) == NULL)
                        return -ENOMEM;
                plan->n_env_set = i + 1;
        }
        return 0;
}

/*
 * A copy of `in`: its scalars and strings, and its rules into *r (to be
 * added to, sorted and handed to the copy); its writable roots too when
 * keep_writable, else none yet (the caller rebuilds them).  NULL when out
 * of memory (nothing is left allocated then).
 */
static struct sbx_plan *copy_base(const struct sbx_plan *in, struct sbx__rules *r,
                                  int keep_writable)
{
        struct sbx_plan *plan = calloc(1, sizeof(*plan));
        size_t i;

        if (plan == NULL)
                return NULL;
        *plan = *in;
        plan->rules = NULL;
        plan->n_rules = 0;
        plan->writable = NULL;
        plan->n_writable = 0;
        plan->workspace_root = sbx__strdup(in->workspace_root);
        plan->scratch_dir = in->scratch_dir != NULL ? sbx__strdup(in->scratch_dir) : NULL;
        plan->env_set = NULL;
        plan->n_env_set = 0;
        if (sbx__plan_copy_sockets(plan, (const char *const *) in->unix_sockets,
                                   in->n_unix_sockets) < 0 ||
            sbx__plan_copy_allow(plan, (const char *const *) in->net_allow,
                                 in->n_net_allow) < 0 ||
            plan->workspace_root == NULL || (in->scratch_dir != NULL && plan->scratch_dir == NULL) ||
            copy_env(plan, (const char *const *) in->env_set, in->n_env_set) < 0)
                goto nomem;
        if (keep_writable) {
                plan->writable = calloc(in->n_writable + 1, sizeof(*plan->writable));
                if (plan->writable == NULL)
                        goto nomem;
                for (i = 0; i < in->n_writable; i++)
                        if ((plan->writable[i] = sbx__strdup(in->writable[i])) == NULL)
                                goto nomem;
                plan->n_writable = in->n_writable;
        }
        for (i = 0; i < in->n_rules; i++) {
                const struct sbx_plan_fs_rule *ri = &in->rules[i];

                if (sbx__rules_add(r, ri->path, ri->access, ri->scope, ri->origin) < 0)
                        goto nomem;
        }
        return plan;
nomem:
        plan->rules = r->v;
        plan->n_rules = r->n;
        r->v = NULL;
        r->n = r->cap = 0;
        sbx_plan_free(plan);
        return NULL;
}

/*
 * A copy of `in` with the discovered locations added as protected rules:
 * each one inside a writable rule gets that rule's access without write
 * (read follows the root), with its scope.  A path that already has a rule
 * keeps it (a configured root wins, as for the protected names).  0,
 * -ENOMEM.  Pure.
 */
int sbx__plan_add_protected(const struct sbx_plan *in, const char *const *paths,
                            const int *trees, size_t n, struct sbx_plan **out)
{
        struct sbx__rules r = { NULL, 0, 0 };
        struct sbx_plan *plan;
        size_t i;
        int added = 0;

        *out = NULL;
        plan = copy_base(in, &r, 1);
        if (plan == NULL)
                return -ENOMEM;
        for (i = 0; i < n; i++) {
                const struct sbx_plan_fs_rule *up = sbx__plan_rule_for(in, paths[i]);

                if (up == NULL || !(up->access & W) || strcmp(up->path, paths[i]) == 0)
                        continue;
                if (sbx__rules_add(&r, paths[i], up->access & ~W, trees[i] ? SBX__FS_TREE
                                                                       : SBX__FS_EXACT,
                              SBX__ORIGIN_PROTECTED) < 0)
                        goto nomem_rules;
                added = 1;
        }
        sbx__rules_sort(&r);
        plan->rules = r.v;
        plan->n_rules = r.n;
        if (added) {
                plan->protects_git = 1;
                if (!plan->accept_unprotected_git)
                        plan->required |= SBX_G_PROTECTED_PATHS;
        }
        *out = plan;
        return 0;

nomem_rules:
        plan->rules = r.v;
        plan->n_rules = r.n;
        sbx_plan_free(plan);
        return -ENOMEM;
}

/* The grants' rules: each widens the rule of its path (NULL: the host
 * rule) or becomes one.  *host_read: a grant made the host readable.
 * 0, -ENOMEM. */
static int widen_rules(const struct sbx_plan *in, struct sbx__rules *r,
                       const struct sbx__widen *w, size_t n, int *host_read)
{
        size_t i, j;

        for (i = 0; i < n; i++) {
                const struct sbx_plan_fs_rule *up;
                int found = 0;

                for (j = 0; j < r->n; j++) {
                        int hit = w[i].path == NULL ? r->v[j].origin == SBX__ORIGIN_HOST
                                                    : strcmp(r->v[j].path, w[i].path) == 0;

                        if (hit) {
                                r->v[j].access |= w[i].access;
                                if (w[i].scope == SBX__FS_TREE)
                                        r->v[j].scope = SBX__FS_TREE;
                                found = 1;
                        }
                }
                if (w[i].path == NULL && (w[i].access & R))
                        *host_read = 1;
                if (found)
                        continue;
                if (w[i].path == NULL) {        /* no host rule: the host was not readable */
                        if (sbx__rules_add(r, "/", w[i].access, SBX__FS_TREE,
                                           SBX__ORIGIN_HOST) < 0)
                                return -ENOMEM;
                        continue;
                }
                up = sbx__plan_rule_for(in, w[i].path);
                if (sbx__rules_add(r, w[i].path, w[i].access | (up != NULL ? up->access : 0),
                                   w[i].scope, SBX__ORIGIN_ADDITIONAL) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* The host made readable for this spawn is what the profile with host
 * read Allow compiles to: the loader's runtime rules (the entries plan.c
 * adds only while the host is unreadable, the runtime rules with exec)
 * go, or their read-only binds and Landlock rules would keep /usr
 * unwritable under a host write grant and, on rung 1, drop the exec right
 * under it.  One below a configured root (say a denied /etc, or a
 * workspace at /) stays: the host rule does not decide there. */
static void drop_runtime_rules(struct sbx__rules *r)
{
        size_t i, j, k;

        for (i = 0; i < r->n; i++) {
                if (r->v[i].origin != SBX__ORIGIN_RUNTIME || !(r->v[i].access & X))
                        continue;
                for (k = 0; k < r->n; k++)
                        if ((r->v[k].origin == SBX__ORIGIN_WORKSPACE ||
                             r->v[k].origin == SBX__ORIGIN_ADDITIONAL) &&
                            sbx__path_has_prefix(r->v[i].path, r->v[k].path))
                                break;
                if (k == r->n)
                        r->v[i].origin = 0;     /* dropped below */
        }
        for (i = 0, j = 0; i < r->n; i++) {
                if (r->v[i].origin == 0) {
                        free(r->v[i].path);
                        continue;
                }
                r->v[j++] = r->v[i];
        }
        r->n = j;
}

/* A tree made writable for this spawn gets what every writable root gets:
 * its .git read-only, and the spawn's discovery and name veto
 * (protects_git) for the rest (docs/git.md).  *any_write: a grant writes.
 * 0, -ENOMEM, -ENAMETOOLONG. */
static int protect_granted_git(const struct sbx_plan *in, struct sbx__rules *r,
                               const struct sbx__widen *w, size_t n, int *any_write)
{
        char sub[SBX_PATH_MAX + 8];
        size_t i;

        for (i = 0; i < n; i++) {
                const struct sbx_plan_fs_rule *up;
                size_t len;

                if (!(w[i].access & W))
                        continue;
                *any_write = 1;
                if (w[i].scope != SBX__FS_TREE)
                        continue;
                len = w[i].path != NULL ? strlen(w[i].path) : 1;
                if (len + 6 > sizeof(sub))
                        return -ENAMETOOLONG;
                (void) snprintf(sub, sizeof(sub), "%s/.git",
                                w[i].path == NULL || strcmp(w[i].path, "/") == 0 ? "" : w[i].path);
                up = sbx__plan_rule_for(in, sub);
                if (sbx__rules_add(r, sub, (up != NULL ? up->access : R) & ~W, SBX__FS_TREE,
                                   SBX__ORIGIN_PROTECTED) < 0)
                        return -ENOMEM;
        }
        return 0;
}

/* An executor's scratch directory: its home and tmp writable, everything
 * else below the scratch root hidden -- the other executors' directories,
 * the other sets' (a scratch root may be shared), a dead host's
 * leftovers.  The executor's directory is <scratch root>/<set>/<n>.
 * 0, -ENOMEM. */
static int scratch_rules(struct sbx_plan *plan, struct sbx__rules *r, const char *scratch_dir)
{
        const char *slash = strrchr(scratch_dir, '/');
        char sub[SBX_PATH_MAX + 8];
        size_t i;

        free(plan->scratch_dir);
        plan->scratch_dir = sbx__strdup(scratch_dir);
        if (plan->scratch_dir == NULL)
                return -ENOMEM;
        if (slash != NULL && slash > scratch_dir &&
            (size_t) (slash - scratch_dir) < sizeof(sub)) {
                char *up2;

                memcpy(sub, scratch_dir, (size_t) (slash - scratch_dir));
                sub[slash - scratch_dir] = '\0';
                up2 = strrchr(sub, '/');
                if (up2 != NULL && up2 > sub)
                        *up2 = '\0';   /* the set's directory -> the scratch root */
                if (sbx__rules_add(r, sub, 0, SBX__FS_TREE, SBX__ORIGIN_SECRET) < 0)
                        return -ENOMEM;
        }
        for (i = 0; i < 2; i++) {
                (void) snprintf(sub, sizeof(sub), "%s/%s", scratch_dir, i == 0 ? "home" : "tmp");
                if (sbx__rules_add(r, sub, R | W, SBX__FS_TREE, SBX__ORIGIN_ADDITIONAL) < 0)
                        return -ENOMEM;
        }
        return 0;
}

int sbx__plan_widen(const struct sbx_plan *in, const struct sbx__widen *w, size_t n,
                    int network_allow, int command_allow, const char *scratch_dir,
                    struct sbx_plan **out)
{
        struct sbx__rules r = { NULL, 0, 0 };
        struct sbx_plan *plan;
        int any_write = 0, host_read = 0, e;

        *out = NULL;
        if (in->direct && (n > 0 || scratch_dir != NULL))
                return -EINVAL;
        plan = copy_base(in, &r, 0);
        if (plan == NULL)
                return -ENOMEM;
        e = widen_rules(in, &r, w, n, &host_read);
        if (e == 0 && host_read)
                drop_runtime_rules(&r);
        if (e == 0)
                e = protect_granted_git(in, &r, w, n, &any_write);
        if (e == 0 && scratch_dir != NULL)
                e = scratch_rules(plan, &r, scratch_dir);
        sbx__rules_sort(&r);
        plan->rules = r.v;
        plan->n_rules = r.n;
        if (e < 0) {
                sbx_plan_free(plan);
                return e;
        }
        if (any_write) {
                plan->protects_git = 1;
                if (!plan->accept_unprotected_git)
                        plan->required |= SBX_G_PROTECTED_PATHS;
        }
        if (network_allow) {
                plan->network = SBX__NET_ALLOW;
                plan->required &= ~(uint32_t) (SBX_G_NETWORK_DENY | SBX_G_TARGET_NETWORK |
                                               SBX_G_ADDRESS_NETWORK);
        }
        if (command_allow)
                plan->command = SBX_ACCESS_ALLOW;
        if (sbx__plan_build_writable(plan) < 0) {
                sbx_plan_free(plan);
                return -ENOMEM;
        }
        *out = plan;
        return 0;
}

int sbx__plan_hide(const struct sbx_plan *in, const char *const *paths, const uint32_t *origins,
                   size_t n, struct sbx_plan **out)
{
        struct sbx__rules r = { NULL, 0, 0 };
        struct sbx_plan *plan;
        size_t i;
        int added = 0;

        *out = NULL;
        if (in->direct)
                return -EINVAL;
        plan = copy_base(in, &r, 1);
        if (plan == NULL)
                return -ENOMEM;
        for (i = 0; i < n; i++) {
                const struct sbx_plan_fs_rule *up = sbx__plan_rule_for(in, paths[i]);

                /* Nothing to hide where nothing is granted, and a path
                 * with a rule of its own keeps it. */
                if (up == NULL || (up->access & (R | W)) == 0 || strcmp(up->path, paths[i]) == 0)
                        continue;
                if (sbx__rules_add(&r, paths[i], 0, SBX__FS_TREE,
                                   origins != NULL ? origins[i] : SBX__ORIGIN_SECRET) < 0) {
                        plan->rules = r.v;
                        plan->n_rules = r.n;
                        sbx_plan_free(plan);
                        return -ENOMEM;
                }
                added = 1;
        }
        sbx__rules_sort(&r);
        plan->rules = r.v;
        plan->n_rules = r.n;
        /* A read carve-out: the boundary that enforces it is required. */
        if (added)
                plan->required |= SBX_G_READ_BOUNDARY;
        *out = plan;
        return 0;
}

int sbx__plan_env_set(const struct sbx_plan *in, const char *const *env, size_t n,
                      struct sbx_plan **out)
{
        struct sbx__rules r = { NULL, 0, 0 };
        struct sbx_plan *plan;
        size_t i;

        *out = NULL;
        plan = copy_base(in, &r, 1);
        if (plan == NULL)
                return -ENOMEM;
        plan->rules = r.v;
        plan->n_rules = r.n;
        for (i = 0; i < plan->n_env_set; i++)
                free(plan->env_set[i]);
        free(plan->env_set);
        plan->env_set = NULL;
        plan->n_env_set = 0;
        if (copy_env(plan, env, n) < 0) {
                sbx_plan_free(plan);
                return -ENOMEM;
        }
        *out = plan;
        return 0;
}

static int str_same(const char *a, const char *b)
{
        return a == b || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

int sbx__plan_same(const struct sbx_plan *a, const struct sbx_plan *b)
{
        size_t i;

        if (a->direct != b->direct || a->network != b->network || a->home != b->home ||
            a->tmpdir != b->tmpdir || a->env_passthrough != b->env_passthrough ||
            a->required != b->required || a->protects_git != b->protects_git ||
            a->accept_unprotected_git != b->accept_unprotected_git ||
            a->n_rules != b->n_rules || a->n_unix_sockets != b->n_unix_sockets ||
            a->n_env_set != b->n_env_set || a->n_net_allow != b->n_net_allow ||
            !str_same(a->workspace_root, b->workspace_root) ||
            !str_same(a->scratch_dir, b->scratch_dir))
                return 0;
        for (i = 0; i < a->n_rules; i++)
                if (a->rules[i].access != b->rules[i].access ||
                    a->rules[i].scope != b->rules[i].scope ||
                    a->rules[i].origin != b->rules[i].origin ||
                    strcmp(a->rules[i].path, b->rules[i].path) != 0)
                        return 0;
        for (i = 0; i < a->n_unix_sockets; i++)
                if (strcmp(a->unix_sockets[i], b->unix_sockets[i]) != 0)
                        return 0;
        for (i = 0; i < a->n_env_set; i++)
                if (strcmp(a->env_set[i], b->env_set[i]) != 0)
                        return 0;
        for (i = 0; i < a->n_net_allow; i++)
                if (strcmp(a->net_allow[i], b->net_allow[i]) != 0)
                        return 0;
        return 1;
}
