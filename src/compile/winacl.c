/*
 * winacl.c - the ACL plan of one Windows spawn: from a compiled plan and
 * the per-spawn temp directory to the access entries src/windows/acl.c
 * adds for the spawn's restricting SID (and removes again afterwards).
 * Pure: no I/O, no Windows headers; tested on Linux
 * (tests/unit/compile/test_winacl.c).  docs/windows.md, "The ACL plan".
 *
 * A restricted token passes an access check only when both its normal
 * SIDs and its restricting SIDs are granted.  The restricting set holds a
 * random per-spawn SID that no other token has, so an ALLOW entry for it
 * opens exactly the planned directories, and a DENY entry for it closes a
 * carve-out below one even where the user's own SID is in the set.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/windows.h"

static uint32_t rights_of(uint32_t access)
{
        uint32_t r = 0;

        if (access & SBX__FS_READ)
                r |= SBX__WINACL_READ;
        if (access & SBX__FS_WRITE)
                r |= SBX__WINACL_WRITE;
        if (access & SBX__FS_EXEC)
                r |= SBX__WINACL_EXEC;
        return r;
}

static int is_host(const char *path)
{
        return path[0] == '/' && path[1] == '\0';
}

/* The deepest TREE rule strictly above rule i (the host rule included),
 * or NULL.  Rules are sorted, so ancestors come first. */
static const struct sbx_plan_fs_rule *outer_of(const struct sbx_plan *plan, size_t i)
{
        const struct sbx_plan_fs_rule *best = NULL;
        size_t j, len, best_len = 0;

        for (j = 0; j < i; j++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[j];

                if (r->scope != SBX__FS_TREE || r->origin == SBX__ORIGIN_RUNTIME)
                        continue;
                len = strlen(r->path);
                if (best != NULL && len <= best_len)
                        continue;
                if (is_host(r->path) || sbx__path_has_prefix(plan->rules[i].path, r->path)) {
                        best = r;
                        best_len = len;
                }
        }
        return best;
}

static int cmp_entry(const void *a, const void *b)
{
        const struct sbx__winacl_entry *x = a, *y = b;
        int c = strcmp(x->path, y->path);

        if (c != 0)
                return c;
        return x->kind - y->kind;       /* ALLOW (1) before DENY (2) */
}

/* Append one entry (merging rights into an equal path and kind). */
static sbx_code add(struct sbx__winacl_plan *p, size_t cap, const char *win, uint32_t rights,
                    int32_t kind, int32_t inherit, uint32_t origin)
{
        size_t i;

        for (i = 0; i < p->n; i++) {
                if (p->v[i].kind == kind && strcmp(p->v[i].path, win) == 0) {
                        p->v[i].rights |= rights;
                        p->v[i].inherit |= inherit;
                        return SBX_OK;
                }
        }
        if (p->n >= cap)
                return SBX_E_INTERNAL;
        memcpy(p->v[p->n].path, win, strlen(win) + 1);
        p->v[p->n].rights = rights;
        p->v[p->n].kind = kind;
        p->v[p->n].inherit = inherit;
        p->v[p->n].origin = origin;
        p->n++;
        return SBX_OK;
}

sbx_code sbx__winacl_plan(const struct sbx_plan *plan, const char *tempdir,
                          const char *caller_home, struct sbx__winacl_plan *out,
                          sbx_error *err)
{
        static const char fn[] = "sbx__winacl_plan";
        struct sbx__winacl_plan p = { NULL, 0, 0 };
        char win[SBX__WINPATH_BUF];
        size_t i, cap;
        sbx_code r = SBX_OK;

        if (plan == NULL || out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan and out must not be NULL", fn);
        if (plan->direct)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: a direct plan has no boundary", fn);
        cap = 2 * plan->n_rules + 2;
        p.v = calloc(cap, sizeof(*p.v));
        if (p.v == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        p.restricting = SBX__WINSID_SPAWN | SBX__WINSID_EVERYONE | SBX__WINSID_USERS |
                        SBX__WINSID_LOGON;

        for (i = 0; i < plan->n_rules && r == SBX_OK; i++) {
                const struct sbx_plan_fs_rule *ri = &plan->rules[i], *outer;
                uint32_t allow, deny;
                int32_t inherit = ri->scope == SBX__FS_TREE;

                if (ri->origin == SBX__ORIGIN_RUNTIME)
                        continue;       /* Linux spellings: a backend necessity there */
                if (is_host(ri->path)) {
                        if (ri->access & SBX__FS_WRITE)
                                p.restricting |= SBX__WINSID_USER;
                        continue;
                }
                outer = outer_of(plan, i);
                allow = rights_of(ri->access);
                deny = outer != NULL ? rights_of(outer->access) & ~allow : 0;
                if (allow == 0 && deny == 0)
                        continue;
                r = sbx__winpath_from_posix(ri->path, win, sizeof(win), err);
                if (r != SBX_OK)
                        break;
                if (allow != 0)
                        r = add(&p, cap, win, allow, SBX__WINACL_ALLOW, inherit, ri->origin);
                if (r == SBX_OK && deny != 0)
                        r = add(&p, cap, win, deny, SBX__WINACL_DENY, inherit, ri->origin);
        }
        /* An isolated HOME hides the caller's: a DENY of what the rule
         * holding it grants (sbpl.c does the same). */
        if (r == SBX_OK && plan->home == SBX__ENV_DIR_SCRATCH && caller_home != NULL &&
            !is_host(caller_home)) {
                const struct sbx_plan_fs_rule *holder = sbx__plan_rule_for(plan, caller_home);

                if (holder != NULL && strcmp(holder->path, caller_home) != 0 &&
                    rights_of(holder->access) != 0) {
                        r = sbx__winpath_from_posix(caller_home, win, sizeof(win), err);
                        if (r == SBX_OK)
                                r = add(&p, cap, win, rights_of(holder->access),
                                        SBX__WINACL_DENY, 1, SBX__ORIGIN_SECRET);
                }
        }
        if (r == SBX_OK && tempdir != NULL) {
                r = sbx__winpath_check(tempdir, win, sizeof(win), err);
                if (r == SBX_OK)
                        r = add(&p, cap, win, SBX__WINACL_READ | SBX__WINACL_WRITE |
                                SBX__WINACL_EXEC, SBX__WINACL_ALLOW, 1,
                                SBX__WINACL_ORIGIN_TEMP);
        }
        if (r == SBX_E_INTERNAL)
                r = sbx__fail(err, SBX_E_INTERNAL, 0, "%s: entry table overflow", fn);
        if (r != SBX_OK) {
                free(p.v);
                return r;
        }
        if (p.n > 1)
                qsort(p.v, p.n, sizeof(*p.v), cmp_entry);
        *out = p;
        return SBX_OK;
}

void sbx__winacl_plan_free(struct sbx__winacl_plan *p)
{
        if (p == NULL)
                return;
        free(p->v);
        p->v = NULL;
        p->n = 0;
}

char *sbx__winacl_describe(const struct sbx__winacl_plan *p)
{
        static const struct { uint32_t bit; const char *name; } sids[] = {
                { SBX__WINSID_SPAWN, "spawn" }, { SBX__WINSID_EVERYONE, "everyone" },
                { SBX__WINSID_USERS, "users" }, { SBX__WINSID_LOGON, "logon" },
                { SBX__WINSID_USER, "user" },
        };
        size_t i, cap, len = 0;
        char *s;
        int n;

        if (p == NULL)
                return NULL;
        cap = 64 + p->n * (SBX__WINPATH_BUF + 24);
        s = malloc(cap);
        if (s == NULL)
                return NULL;
        s[0] = '\0';
        for (i = 0; i < p->n; i++) {
                const struct sbx__winacl_entry *e = &p->v[i];

                n = snprintf(s + len, cap - len, "%s %c%c%c %s %s\n",
                             e->kind == SBX__WINACL_ALLOW ? "allow" : "deny",
                             (e->rights & SBX__WINACL_READ) ? 'r' : '-',
                             (e->rights & SBX__WINACL_WRITE) ? 'w' : '-',
                             (e->rights & SBX__WINACL_EXEC) ? 'x' : '-',
                             e->inherit ? "tree" : "exact", e->path);
                if (n < 0 || (size_t) n >= cap - len) {
                        free(s);
                        return NULL;
                }
                len += (size_t) n;
        }
        n = snprintf(s + len, cap - len, "restricting:");
        len += n > 0 ? (size_t) n : 0;
        for (i = 0; i < SBX__ARRAY_SIZE(sids); i++) {
                if (!(p->restricting & sids[i].bit))
                        continue;
                n = snprintf(s + len, cap - len, " %s", sids[i].name);
                len += n > 0 ? (size_t) n : 0;
        }
        (void) snprintf(s + len, cap - len, "\n");
        return s;
}
