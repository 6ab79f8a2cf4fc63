/*
 * discover.c - sbx_plan_discover: the plan with the git locations found on
 * disk added as protected rules (src/paths/posix/gitscan.c, docs/git.md).  Every
 * spawn of a plan that protects paths goes through it, so a repository
 * nested in the workspace, a "gitdir:" target or a core.hooksPath
 * directory is as read-only as <workspace>/.git.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/plan_internal.h"
#include "exec/exec.h"
#include "paths/paths_internal.h"

extern char **environ;

sbx_code sbx__plan_discover(const sbx_plan *plan, const char *fn, sbx_plan **out, sbx_error *err)
{
        struct sbx__gitscan g;
        const char **roots = NULL, **paths = NULL;
        int *trees = NULL;
        size_t i, n_roots = 0;
        sbx_code c = SBX_OK;
        int r;

        *out = NULL;
        memset(&g, 0, sizeof(g));
        roots = calloc(plan->n_rules + 1, sizeof(*roots));
        if (roots == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        /* The configured writable roots (not the host rule: a profile that
         * lets the command write the whole host protects nothing). */
        if (!plan->direct)
                for (i = 0; i < plan->n_rules; i++) {
                        const struct sbx_plan_fs_rule *ri = &plan->rules[i];

                        if ((ri->access & SBX__FS_WRITE) && ri->scope == SBX__FS_TREE &&
                            (ri->origin == SBX__ORIGIN_WORKSPACE ||
                             ri->origin == SBX__ORIGIN_ADDITIONAL))
                                roots[n_roots++] = ri->path;
                }
        /* The caller's environment: the one the user's own git runs with
         * (HOME, XDG_CONFIG_HOME, GIT_CONFIG_*), not the command's. */
        r = n_roots > 0 ? sbx__git_discover(roots, n_roots, (const char *const *) environ, &g)
                        : 0;
        if (r < 0) {
                c = sbx__fail(err, r == -ENOMEM ? SBX_E_NOMEM : SBX_E_IO, -r,
                              "%s: cannot examine \"%.300s\" for git repositories to protect "
                              "(%s); refusing to run with git unprotected", fn,
                              g.fail != NULL ? g.fail : roots[0], sbx__strerror(-r));
                goto out;
        }
        paths = calloc(g.n + 1, sizeof(*paths));
        trees = calloc(g.n + 1, sizeof(*trees));
        if (paths == NULL || trees == NULL) {
                c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto out;
        }
        for (i = 0; i < g.n; i++) {
                paths[i] = g.v[i].path;
                trees[i] = g.v[i].tree;
        }
        if (sbx__plan_add_protected(plan, paths, trees, g.n, out) < 0)
                c = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
out:
        sbx__gitscan_free(&g);
        free(roots);
        free(paths);
        free(trees);
        return c;
}

sbx_code sbx_plan_discover(const sbx_plan *plan, sbx_plan **out, sbx_error *err)
{
        if (plan == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_plan_discover: plan and out must "
                                 "not be NULL");
        return sbx__plan_discover(plan, "sbx_plan_discover", out, err);
}
