/*
 * plan.c - compile a profile into a backend-neutral plan: the filesystem
 * rule list, the collapsed writable roots, the network / command / HOME /
 * TMPDIR / environment decisions and the guarantees the plan requires.
 *
 * Pure: strings only, no file system or other OS calls (the profile's paths
 * are already canonical).  The rules and their reasons are in
 * docs/compile.md; the struct in plan_internal.h.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile/plan_internal.h"
#include "paths/paths_internal.h"
#include "profile/profile_internal.h"

#define R SBX__FS_READ
#define W SBX__FS_WRITE
#define X SBX__FS_EXEC

/* ------------------------------------------------------------ tables */

const char *const sbx__plan_env_allow[] = {
        "PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "COLORTERM", "NO_COLOR",
        "USER", "LOGNAME", "SHELL",
};
const size_t sbx__plan_n_env_allow = SBX__ARRAY_SIZE(sbx__plan_env_allow);

/*
 * Paths every backend needs to exec anything.  They are not host-data
 * access (seed: "backend implementation necessities").  `loader` entries
 * are only added when the host is not readable (otherwise the host rule
 * already covers them); the device nodes are always added.
 */
static const struct runtime_path {
        const char *path;
        int32_t     scope;
        uint32_t    access;
        int         loader;
} runtime_paths[] = {
        { "/usr",               SBX__FS_TREE,  R | X, 1 },
        { "/bin",               SBX__FS_TREE,  R | X, 1 },
        { "/sbin",              SBX__FS_TREE,  R | X, 1 },
        { "/lib",               SBX__FS_TREE,  R | X, 1 },
        { "/lib32",             SBX__FS_TREE,  R | X, 1 },
        { "/lib64",             SBX__FS_TREE,  R | X, 1 },
        { "/libx32",            SBX__FS_TREE,  R | X, 1 },
        { "/etc/ld.so.cache",   SBX__FS_EXACT, R | X, 1 },
        { "/etc/ld.so.conf",    SBX__FS_EXACT, R | X, 1 },
        { "/etc/ld.so.conf.d",  SBX__FS_TREE,  R | X, 1 },
        { "/etc/alternatives",  SBX__FS_TREE,  R | X, 1 },
        { "/etc/localtime",     SBX__FS_EXACT, R | X, 1 },
        { "/dev/null",          SBX__FS_EXACT, R | W, 0 },
        { "/dev/zero",          SBX__FS_EXACT, R | W, 0 },
        { "/dev/full",          SBX__FS_EXACT, R | W, 0 },
        { "/dev/random",        SBX__FS_EXACT, R,     0 },
        { "/dev/urandom",       SBX__FS_EXACT, R,     0 },
};

/* The protected names below every writable root. */
static const struct protected_name {
        const char *suffix;
        int32_t     scope;
} protected_names[] = {
        /* The whole git directory of a repository at the root: everything
         * git reads code or configuration from (hooks, config, commondir,
         * config.worktree, info/, modules/, worktrees/...) is inside it, so
         * a confined command cannot plant what a later git run outside the
         * sandbox would execute.  Repositories deeper in a root, "gitdir:"
         * targets and core.hooksPath directories are found on disk at spawn
         * time (sbx_plan_discover); creating a new .git is vetoed by the
         * backend (docs/git.md). */
        { "/.git", SBX__FS_TREE },
};

/* ------------------------------------------------------- guarantees */

const char *sbx_guarantee_name(uint32_t bit)
{
        switch (bit) {
        case SBX_G_READ_BOUNDARY:
                return "read-boundary";
        case SBX_G_WRITE_BOUNDARY:
                return "write-boundary";
        case SBX_G_ENV_SCRUB:
                return "env-scrub";
        case SBX_G_PROCESS_ISOLATION:
                return "process-isolation";
        case SBX_G_NETWORK_DENY:
                return "network-deny";
        case SBX_G_TARGET_NETWORK:
                return "target-network";
        case SBX_G_ADDRESS_NETWORK:
                return "address-network";
        case SBX_G_RESOURCE_LIMITS:
                return "resource-limits";
        case SBX_G_HOME_ISOLATION:
                return "home-isolation";
        case SBX_G_PROTECTED_PATHS:
                return "protected-paths";
        case SBX_G_SYSCALL_FILTER:
                return "syscall-filter";
        case SBX_G_NO_NEW_PRIVS:
                return "no-new-privs";
        case SBX_G_TTY_ISOLATION:
                return "tty-isolation";
        case SBX_G_FD_ISOLATION:
                return "fd-isolation";
        default:
                return "invalid";
        }
}

/* ------------------------------------------------------------ helpers */

static int access_valid(int32_t a)
{
        return a == SBX_ACCESS_DENY || a == SBX_ACCESS_GATED || a == SBX_ACCESS_ALLOW;
}

static const char *access_text(int32_t a)
{
        switch (a) {
        case SBX_ACCESS_DENY:
                return "deny";
        case SBX_ACCESS_GATED:
                return "gated";
        case SBX_ACCESS_ALLOW:
                return "allow";
        default:
                return "invalid";
        }
}

/* The base-plan access bits of a configured root: Gated and Deny are both
 * "not granted" (a grant opens Gated later, per spawn). */
static uint32_t root_bits(int32_t read, int32_t write)
{
        uint32_t a = 0;

        if (read == SBX_ACCESS_ALLOW)
                a |= R | X;
        if (write == SBX_ACCESS_ALLOW)
                a |= W;
        return a;
}

/* A growable rule vector. */

/* Append a rule taking ownership of `path` (freed on failure).  0 or -ENOMEM. */
static int rules_take(struct sbx__rules *r, char *path, uint32_t access, int32_t scope,
                      uint32_t origin)
{
        if (path == NULL)
                return -ENOMEM;
        if (SBX__GROW(r->v, r->cap, r->n + 1, 32) < 0) {
                free(path);
                return -ENOMEM;
        }
        r->v[r->n].path = path;
        r->v[r->n].access = access;
        r->v[r->n].scope = scope;
        r->v[r->n].origin = origin;
        r->n++;
        return 0;
}

int sbx__rules_add(struct sbx__rules *r, const char *path, uint32_t access, int32_t scope,
                     uint32_t origin)
{
        return rules_take(r, sbx__strdup(path), access, scope, origin);
}

/* root + suffix without a doubled slash for "/"; NULL on ENOMEM. */
static char *join(const char *root, const char *suffix)
{
        size_t a = strlen(root), b = strlen(suffix);
        char *s;

        if (a == 1 && root[0] == '/')
                a = 0;
        s = malloc(a + b + 1);
        if (s == NULL)
                return NULL;
        memcpy(s, root, a);
        memcpy(s + a, suffix, b + 1);
        return s;
}

/* Which rule wins when two share a path: a configured root (its own access
 * is what the profile says) beats the host rule, which beats the derived
 * protected and runtime rules. */
static int origin_rank(uint32_t origin)
{
        switch (origin) {
        case SBX__ORIGIN_WORKSPACE:
        case SBX__ORIGIN_ADDITIONAL:
                return 0;
        case SBX__ORIGIN_HOST:
                return 1;
        case SBX__ORIGIN_PROTECTED:
        case SBX__ORIGIN_SECRET:
        case SBX__ORIGIN_SCRATCH:
                return 2;
        default:
                return 3;
        }
}

static int cmp_rule_rank(const void *a, const void *b)
{
        const struct sbx_plan_fs_rule *x = a, *y = b;
        int c = strcmp(x->path, y->path);

        if (c != 0)
                return c;
        return origin_rank(x->origin) - origin_rank(y->origin);
}

/* 1 if rule `outer` contains path (TREE prefix or EXACT equality). */
static int rule_contains(const struct sbx_plan_fs_rule *outer, const char *path)
{
        if (outer->scope == SBX__FS_EXACT)
                return strcmp(outer->path, path) == 0;
        return sbx__path_has_prefix(path, outer->path);
}

const struct sbx_plan_fs_rule *sbx__plan_rule_for(const struct sbx_plan *plan,
                                                  const char *path)
{
        const struct sbx_plan_fs_rule *best = NULL;
        size_t i, best_len = 0;

        if (plan == NULL || path == NULL)
                return NULL;
        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];
                size_t len;

                if (!rule_contains(r, path))
                        continue;
                len = strlen(r->path);
                if (best == NULL || len > best_len) {
                        best = r;
                        best_len = len;
                }
        }
        return best;
}

/* "LC_*" on the allow-list means the POSIX and glibc locale categories,
 * not any name that starts with LC_ (LC_SECRET=... is not a locale). */
static int locale_category(const char *name)
{
        static const char *const cats[] = {
                "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "LC_TIME", "LC_COLLATE", "LC_MONETARY",
                "LC_MESSAGES", "LC_PAPER", "LC_NAME", "LC_ADDRESS", "LC_TELEPHONE",
                "LC_MEASUREMENT", "LC_IDENTIFICATION",
        };
        size_t i;

        for (i = 0; i < SBX__ARRAY_SIZE(cats); i++)
                if (strcmp(name, cats[i]) == 0)
                        return 1;
        return 0;
}

int sbx__plan_env_allowed(const struct sbx_plan *plan, const char *name)
{
        size_t i;

        if (plan == NULL || name == NULL || name[0] == '\0' || strchr(name, '=') != NULL)
                return 0;
        if (plan->env_passthrough)
                return 1;
        for (i = 0; i < sbx__plan_n_env_allow; i++) {
                const char *e = sbx__plan_env_allow[i];

                if (strcmp(e, "LC_*") == 0) {
                        if (locale_category(name))
                                return 1;
                } else if (strcmp(name, e) == 0) {
                        return 1;
                }
        }
        return 0;
}

/* ----------------------------------------------------------- compile */

void sbx_plan_free(sbx_plan *plan)
{
        size_t i;

        if (plan == NULL)
                return;
        for (i = 0; i < plan->n_rules; i++)
                free(plan->rules[i].path);
        free(plan->rules);
        if (plan->writable != NULL) {
                for (i = 0; plan->writable[i] != NULL; i++)
                        free(plan->writable[i]);
                free(plan->writable);
        }
        for (i = 0; i < plan->n_unix_sockets; i++)
                free(plan->unix_sockets[i]);
        free(plan->unix_sockets);
        for (i = 0; i < plan->n_net_allow; i++)
                free(plan->net_allow[i]);
        free(plan->net_allow);
        free(plan->scratch_dir);
        for (i = 0; i < plan->n_env_set; i++)
                free(plan->env_set[i]);
        free(plan->env_set);
        free(plan->workspace_root);
        free(plan);
}

int sbx__plan_copy_allow(struct sbx_plan *plan, const char *const *v, size_t n)
{
        size_t i;

        plan->net_allow = NULL;
        plan->n_net_allow = 0;
        if (n == 0)
                return 0;
        plan->net_allow = calloc(n, sizeof(*plan->net_allow));
        if (plan->net_allow == NULL)
                return -ENOMEM;
        for (i = 0; i < n; i++) {
                plan->net_allow[i] = sbx__strdup(v[i]);
                if (plan->net_allow[i] == NULL)
                        return -ENOMEM;
                plan->n_net_allow = i + 1;
        }
        return 0;
}

static int cmp_strp(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

int sbx__plan_add_allow(struct sbx_plan *plan, const char *const *v, size_t n)
{
        char **nv;
        size_t i, j, m = plan->n_net_allow;

        nv = realloc(plan->net_allow, (m + n + 1) * sizeof(*nv));
        if (nv == NULL)
                return -ENOMEM;
        plan->net_allow = nv;
        for (i = 0; i < n; i++) {
                for (j = 0; j < m && strcmp(nv[j], v[i]) != 0; j++)
                        ;
                if (j < m)
                        continue;
                nv[m] = sbx__strdup(v[i]);
                if (nv[m] == NULL) {
                        while (m > plan->n_net_allow)
                                free(nv[--m]);
                        return -ENOMEM;
                }
                m++;
        }
        plan->n_net_allow = m;
        qsort(nv, m, sizeof(*nv), cmp_strp);
        if (plan->network != SBX__NET_ALLOW && m > 0) {
                plan->required &= ~(uint32_t) SBX_G_NETWORK_DENY;
                plan->required |= SBX_G_TARGET_NETWORK | SBX_G_ADDRESS_NETWORK;
        }
        return 0;
}

/* plan->unix_sockets := a copy of v[0..n).  0 or -ENOMEM (then the plan
 * holds what was copied, for sbx_plan_free). */
int sbx__plan_copy_sockets(struct sbx_plan *plan, const char *const *v, size_t n)
{
        size_t i;

        plan->unix_sockets = NULL;
        plan->n_unix_sockets = 0;
        if (n == 0)
                return 0;
        plan->unix_sockets = calloc(n, sizeof(*plan->unix_sockets));
        if (plan->unix_sockets == NULL)
                return -ENOMEM;
        for (i = 0; i < n; i++) {
                plan->unix_sockets[i] = sbx__strdup(v[i]);
                if (plan->unix_sockets[i] == NULL)
                        return -ENOMEM;
                plan->n_unix_sockets = i + 1;
        }
        return 0;
}

/* Check the fields the compiler relies on.  The profile layer validated
 * them; a failure here is a broken invariant, and we fail closed. */
static sbx_code check_profile(const char *fn, const sbx_profile *p, sbx_error *err)
{
        size_t i;

        if (p->workspace_root == NULL || p->workspace_root[0] != '/' ||
            !access_valid(p->workspace_read) || !access_valid(p->workspace_write) ||
            !access_valid(p->host_read) || !access_valid(p->host_write) ||
            !access_valid(p->network) || !access_valid(p->command) ||
            (p->home != SBX_HOME_ISOLATED && p->home != SBX_HOME_REAL) ||
            (p->isolation != SBX_ISOLATION_SANDBOXED &&
             p->isolation != SBX_ISOLATION_UNCONFINED) ||
            (p->roots == NULL && p->n_roots > 0)) {
                SBX__INVARIANT(0, "%s: profile with invalid fields", fn);
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile has invalid fields", fn);
        }
        for (i = 0; i < p->n_roots; i++) {
                if (p->roots[i].path == NULL || p->roots[i].path[0] != '/' ||
                    !access_valid(p->roots[i].read) || !access_valid(p->roots[i].write)) {
                        SBX__INVARIANT(0, "%s: profile root %zu is invalid", fn, i);
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: profile additional root %zu is invalid", fn, i);
                }
        }
        if (p->isolation == SBX_ISOLATION_UNCONFINED) {
                int narrow = p->workspace_read != SBX_ACCESS_ALLOW ||
                             p->workspace_write != SBX_ACCESS_ALLOW ||
                             p->host_read != SBX_ACCESS_ALLOW ||
                             p->host_write != SBX_ACCESS_ALLOW ||
                             p->network != SBX_ACCESS_ALLOW || p->home != SBX_HOME_REAL;

                for (i = 0; i < p->n_roots; i++)
                        if (p->roots[i].read != SBX_ACCESS_ALLOW ||
                            p->roots[i].write != SBX_ACCESS_ALLOW)
                                narrow = 1;
                if (narrow) {
                        /* A direct process cannot enforce a narrower value. */
                        SBX__INVARIANT(0, "%s: unconfined profile with a narrower field", fn);
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: unconfined profile has a field other than "
                                         "Allow or an isolated HOME", fn);
                }
        }
        return SBX_OK;
}

/*
 * 1 if the plan hides secret s: it applies now (sbx__profile_secret_applies),
 * or it lies in a root whose read is Gated and would apply once a grant
 * opens that root.  A grant opens what the root with read Allow shows and
 * no more, so the carve-out is in the plan before any grant (access 0
 * below a root of access 0 hides nothing more until then).
 */
static int secret_hidden(const sbx_profile *p, const struct sbx_profile_secret *s)
{
        const char *root;

        if (sbx__profile_secret_applies(p, s))
                return 1;
        if (s->path == NULL || sbx__profile_path_access(p, s->path, 0) != SBX_ACCESS_GATED)
                return 0;
        root = sbx__profile_deepest_root(p, s->path);
        if (root == NULL)
                return 0;       /* only the host access reaches it (as when it is Allow) */
        /* As sbx__profile_secret_applies: an isolated account home stays
         * hidden whole below a root strictly above it. */
        if (p->home == SBX_HOME_ISOLATED && s->account && s->home != NULL &&
            sbx__path_has_prefix(s->path, s->home) && strcmp(root, s->home) != 0 &&
            sbx__path_has_prefix(s->home, root))
                return 0;
        return 1;
}

/* Every rule of a sandboxed profile, unsorted.  0 or -ENOMEM / -ERANGE. */
static int build_rules(const sbx_profile *p, struct sbx__rules *r)
{
        int host_readable = p->host_read == SBX_ACCESS_ALLOW;
        size_t i, k;
        int rc;

        if (host_readable) {
                rc = sbx__rules_add(r, "/", root_bits(p->host_read, p->host_write), SBX__FS_TREE,
                               SBX__ORIGIN_HOST);
                if (rc < 0)
                        return rc;
        }
        /* The workspace and every additional root, even with access 0: that
         * is an explicit carve-out backends must hide. */
        rc = sbx__rules_add(r, p->workspace_root, root_bits(p->workspace_read, p->workspace_write),
                       SBX__FS_TREE, SBX__ORIGIN_WORKSPACE);
        if (rc < 0)
                return rc;
        for (i = 0; i < p->n_roots; i++) {
                rc = sbx__rules_add(r, p->roots[i].path, root_bits(p->roots[i].read, p->roots[i].write),
                               SBX__FS_TREE, SBX__ORIGIN_ADDITIONAL);
                if (rc < 0)
                        return rc;
        }
        /* Protected names below every writable configured root.  A name that
         * is itself a configured root is dropped later (the root wins). */
        for (i = 0; i <= p->n_roots; i++) {
                const char *root;
                int32_t rd, wr;

                if (i == p->n_roots) {
                        root = p->workspace_root;
                        rd = p->workspace_read;
                        wr = p->workspace_write;
                } else {
                        root = p->roots[i].path;
                        rd = p->roots[i].read;
                        wr = p->roots[i].write;
                }
                if (wr != SBX_ACCESS_ALLOW)
                        continue;
                for (k = 0; k < SBX__ARRAY_SIZE(protected_names); k++) {
                        char *path = join(root, protected_names[k].suffix);

                        if (path != NULL && strlen(path) >= SBX_PATH_MAX) {
                                free(path);
                                return -ERANGE;
                        }
                        rc = rules_take(r, path, root_bits(rd, SBX_ACCESS_DENY),
                                        protected_names[k].scope, SBX__ORIGIN_PROTECTED);
                        if (rc < 0)
                                return rc;
                }
        }
        /* Well-known secret locations (~/.ssh, ~/.aws...) of the home
         * directories inside readable roots stay hidden (docs/secrets.md). */
        for (k = 0; k < p->n_secrets; k++) {
                if (!secret_hidden(p, &p->secrets[k]))
                        continue;
                rc = sbx__rules_add(r, p->secrets[k].path, 0, SBX__FS_TREE, SBX__ORIGIN_SECRET);
                if (rc < 0)
                        return rc;
        }
        for (k = 0; k < SBX__ARRAY_SIZE(runtime_paths); k++) {
                if (runtime_paths[k].loader && host_readable)
                        continue;
                rc = sbx__rules_add(r, runtime_paths[k].path, runtime_paths[k].access,
                               runtime_paths[k].scope, SBX__ORIGIN_RUNTIME);
                if (rc < 0)
                        return rc;
        }
        return 0;
}

/* Sort by path (then rank) and keep one rule per path: the best-ranked. */
void sbx__rules_sort(struct sbx__rules *r)
{
        size_t i, kept = 0;

        if (r->n > 1)
                qsort(r->v, r->n, sizeof(*r->v), cmp_rule_rank);
        for (i = 0; i < r->n; i++) {
                if (kept > 0 && strcmp(r->v[kept - 1].path, r->v[i].path) == 0) {
                        free(r->v[i].path);
                        continue;
                }
                r->v[kept++] = r->v[i];
        }
        r->n = kept;
}

/* The guarantees a sandboxed plan requires (docs/compile.md has the table). */
static uint32_t required_for(const sbx_profile *p, const struct sbx_plan *plan)
{
        uint32_t req = SBX_G_ENV_SCRUB;
        int read_carve = 0, write_carve = 0, protected_rule = 0;
        size_t i, j;

        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *ri = &plan->rules[i];
                const struct sbx_plan_fs_rule *outer = NULL;
                size_t outer_len = 0;

                if (ri->origin == SBX__ORIGIN_PROTECTED)
                        protected_rule = 1;
                if (ri->origin != SBX__ORIGIN_WORKSPACE && ri->origin != SBX__ORIGIN_ADDITIONAL &&
                    ri->origin != SBX__ORIGIN_SECRET)
                        continue;
                /* Ancestors sort before their descendants. */
                for (j = 0; j < i; j++) {
                        const struct sbx_plan_fs_rule *rj = &plan->rules[j];
                        size_t len = strlen(rj->path);

                        if (rj->scope == SBX__FS_TREE && (outer == NULL || len > outer_len) &&
                            sbx__path_has_prefix(ri->path, rj->path)) {
                                outer = rj;
                                outer_len = len;
                        }
                }
                if (outer == NULL)
                        continue;
                if ((outer->access & R) && !(ri->access & R))
                        read_carve = 1;
                if ((outer->access & W) && !(ri->access & W))
                        write_carve = 1;
        }
        if (p->host_read != SBX_ACCESS_ALLOW || read_carve || p->home == SBX_HOME_ISOLATED)
                req |= SBX_G_READ_BOUNDARY;
        if (p->host_write != SBX_ACCESS_ALLOW || write_carve)
                req |= SBX_G_WRITE_BOUNDARY;
        if (p->home == SBX_HOME_ISOLATED)
                req |= SBX_G_HOME_ISOLATION;
        /* With an allowlist the network is the proxy's: only its targets
         * (and their addresses) are reached, and that is not "deny". */
        if (p->network != SBX_ACCESS_ALLOW && p->n_allow_hosts > 0)
                req |= SBX_G_TARGET_NETWORK | SBX_G_ADDRESS_NETWORK;
        else if (p->network != SBX_ACCESS_ALLOW)
                req |= SBX_G_NETWORK_DENY;
        if (protected_rule && !sbx__profile_accept_unprotected_git(p))
                req |= SBX_G_PROTECTED_PATHS;
        return req;
}

/* The collapsed writable roots of the rules (runtime device nodes are
 * necessities, not roots).  0 or -ENOMEM. */
int sbx__plan_build_writable(struct sbx_plan *plan)
{
        char **v;
        size_t i, n = 0, kept = 0;

        v = calloc(plan->n_rules + 1, sizeof(*v));
        if (v == NULL)
                return -ENOMEM;
        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];

                if (!(r->access & W) || r->origin == SBX__ORIGIN_RUNTIME)
                        continue;
                v[n] = sbx__strdup(r->path);
                if (v[n] == NULL) {
                        for (i = 0; i < n; i++)
                                free(v[i]);
                        free(v);
                        return -ENOMEM;
                }
                n++;
        }
        if (sbx__roots_collapse(v, n, &kept) != SBX_OK) {
                /* Rule paths are absolute and non-NULL: cannot happen. */
                for (i = 0; i < n; i++)
                        free(v[i]);
                free(v);
                return -EINVAL;
        }
        v[kept] = NULL;
        plan->writable = v;
        plan->n_writable = kept;
        return 0;
}

sbx_code sbx_plan_compile(const sbx_profile *profile, sbx_plan **out, sbx_error *err)
{
        const char *fn = "sbx_plan_compile";
        struct sbx__rules r = { NULL, 0, 0 };
        struct sbx_plan *plan;
        sbx_code c;
        int rc;

        if (profile == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: profile is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        c = check_profile(fn, profile, err);
        if (c != SBX_OK)
                return c;
        plan = calloc(1, sizeof(*plan));
        if (plan == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        plan->workspace_root = sbx__strdup(profile->workspace_root);
        if (plan->workspace_root == NULL)
                goto nomem;
        plan->command = profile->command;

        if (profile->isolation == SBX_ISOLATION_UNCONFINED) {
                /* No boundary: nothing but the command decision applies. */
                plan->direct = 1;
                plan->network = SBX__NET_ALLOW;
                plan->home = SBX__ENV_DIR_CALLER;
                plan->tmpdir = SBX__ENV_DIR_CALLER;
                plan->env_passthrough = 1;
                plan->writable = calloc(1, sizeof(*plan->writable));
                if (plan->writable == NULL)
                        goto nomem;
                plan->required = 0;
                *out = plan;
                return SBX_OK;
        }

        switch (profile->network) {
        case SBX_ACCESS_ALLOW:
                plan->network = SBX__NET_ALLOW;
                break;
        case SBX_ACCESS_GATED:
                plan->network = SBX__NET_DENY_UNLESS_GRANT;
                break;
        default:
                plan->network = SBX__NET_DENY;
                break;
        }
        plan->home = profile->home == SBX_HOME_REAL ? SBX__ENV_DIR_CALLER : SBX__ENV_DIR_SCRATCH;
        plan->tmpdir = SBX__ENV_DIR_SCRATCH;
        plan->env_passthrough = 0;
        {
                size_t n_sockets = 0;
                const char *const *sockets = sbx__profile_unix_sockets(profile, &n_sockets);

                if (sbx__plan_copy_sockets(plan, sockets, n_sockets) < 0)
                        goto nomem;
        }
        {
                size_t n_allow = 0;
                const char *const *allow = sbx__profile_allow_hosts(profile, &n_allow);

                if (sbx__plan_copy_allow(plan, allow, n_allow) < 0)
                        goto nomem;
        }

        rc = build_rules(profile, &r);
        /* Hand the rules to the plan first so one free path cleans up. */
        plan->rules = r.v;
        plan->n_rules = r.n;
        if (rc == -ERANGE) {
                sbx_plan_free(plan);
                return sbx__fail(err, SBX_E_RANGE, 0,
                                 "%s: a protected path (<root>/.git) would be longer "
                                 "than %d bytes", fn, SBX_PATH_MAX - 1);
        }
        if (rc < 0)
                goto nomem;
        sbx__rules_sort(&r);
        plan->rules = r.v;
        plan->n_rules = r.n;
        plan->required = required_for(profile, plan);
        plan->accept_unprotected_git = sbx__profile_accept_unprotected_git(profile);
        for (size_t i = 0; i < plan->n_rules; i++)
                if (plan->rules[i].origin == SBX__ORIGIN_PROTECTED)
                        plan->protects_git = 1;
        rc = sbx__plan_build_writable(plan);
        if (rc == -EINVAL) {
                sbx_plan_free(plan);
                return sbx__fail(err, SBX_E_INTERNAL, 0, "%s: writable roots collapse failed",
                                 fn);
        }
        if (rc < 0)
                goto nomem;
        *out = plan;
        return SBX_OK;

nomem:
        sbx_plan_free(plan);
        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
}

sbx_code sbx_plan_guarantees(const sbx_plan *plan, sbx_guarantee_report *out, sbx_error *err)
{
        const char *fn = "sbx_plan_guarantees";

        if (plan == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan is NULL", fn);
        if (out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: out is NULL", fn);
        if (out->version != SBX_GUARANTEE_REPORT_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: out->version is %u, expected %u "
                                 "(use SBX_GUARANTEE_REPORT_INIT)",
                                 fn, (unsigned) out->version,
                                 (unsigned) SBX_GUARANTEE_REPORT_VERSION);
        out->required = plan->required;
        out->achieved = 0;
        out->enforcement = SBX_ENFORCEMENT_NONE;
        return SBX_OK;
}

/* ---------------------------------------------------------- describe */

static void sb_put_escaped(struct sbx__buf *s, const char *p)
{
        static const char hex[] = "0123456789abcdef";
        const char *run = p;

        for (; *p != '\0'; p++) {
                unsigned char ch = (unsigned char) *p;
                char esc[4];
                size_t n;

                if (ch == '\\') {
                        esc[0] = '\\';
                        esc[1] = '\\';
                        n = 2;
                } else if (ch == '\n') {
                        esc[0] = '\\';
                        esc[1] = 'n';
                        n = 2;
                } else if (ch < 0x20 || ch == 0x7f) {
                        esc[0] = '\\';
                        esc[1] = 'x';
                        esc[2] = hex[ch >> 4];
                        esc[3] = hex[ch & 0xf];
                        n = 4;
                } else {
                        continue;
                }
                sbx__buf_add(s, run, (size_t) (p - run));
                sbx__buf_add(s, esc, n);
                run = p + 1;
        }
        sbx__buf_add(s, run, (size_t) (p - run));
}

char *sbx__plan_escape(const char *str)
{
        struct sbx__buf s = { NULL, 0, 0, 0 };

        if (str == NULL)
                return NULL;
        sbx__buf_add(&s, "", 0);
        sb_put_escaped(&s, str);
        if (s.oom) {
                free(s.b);
                return NULL;
        }
        return s.b;
}

static const char *network_text(int32_t n)
{
        switch (n) {
        case SBX__NET_ALLOW:
                return "allow";
        case SBX__NET_DENY_UNLESS_GRANT:
                return "deny-unless-grant";
        default:
                return "deny";
        }
}

static const char *dir_text(int32_t d)
{
        return d == SBX__ENV_DIR_CALLER ? "caller" : "scratch";
}

static const char *origin_text(uint32_t o)
{
        switch (o) {
        case SBX__ORIGIN_HOST:
                return "host";
        case SBX__ORIGIN_WORKSPACE:
                return "workspace";
        case SBX__ORIGIN_ADDITIONAL:
                return "additional";
        case SBX__ORIGIN_PROTECTED:
                return "protected";
        case SBX__ORIGIN_RUNTIME:
                return "runtime";
        case SBX__ORIGIN_SECRET:
                return "secret";
        case SBX__ORIGIN_SCRATCH:
                return "scratch";
        default:
                return "invalid";
        }
}

sbx_code sbx_plan_describe(const sbx_plan *plan, char **text_out, sbx_error *err)
{
        const char *fn = "sbx_plan_describe";
        struct sbx__buf s = { NULL, 0, 0, 0 };
        size_t i;
        uint32_t bit;

        if (plan == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: plan is NULL", fn);
        if (text_out == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: text_out is NULL", fn);

        sbx__buf_adds(&s, "plan v1\n");
        sbx__buf_adds(&s, plan->direct ? "isolation unconfined\n" : "isolation sandboxed\n");
        sbx__buf_adds(&s, "command ");
        sbx__buf_adds(&s, access_text(plan->command));
        sbx__buf_adds(&s, "\nnetwork ");
        sbx__buf_adds(&s, network_text(plan->network));
        sbx__buf_adds(&s, "\nhome ");
        sbx__buf_adds(&s, dir_text(plan->home));
        sbx__buf_adds(&s, "\ntmpdir ");
        sbx__buf_adds(&s, dir_text(plan->tmpdir));
        sbx__buf_adds(&s, "\nenv");
        if (plan->env_passthrough) {
                sbx__buf_adds(&s, " passthrough");
        } else {
                for (i = 0; i < sbx__plan_n_env_allow; i++) {
                        sbx__buf_adds(&s, " ");
                        sbx__buf_adds(&s, sbx__plan_env_allow[i]);
                }
        }
        sbx__buf_adds(&s, "\n");
        for (i = 0; i < plan->n_rules; i++) {
                const struct sbx_plan_fs_rule *r = &plan->rules[i];
                char bits[4];

                bits[0] = (r->access & R) ? 'r' : '-';
                bits[1] = (r->access & W) ? 'w' : '-';
                bits[2] = (r->access & X) ? 'x' : '-';
                bits[3] = '\0';
                sbx__buf_adds(&s, "fs ");
                sb_put_escaped(&s, r->path);
                sbx__buf_adds(&s, r->scope == SBX__FS_EXACT ? " exact " : " tree ");
                sbx__buf_adds(&s, bits);
                sbx__buf_adds(&s, " ");
                sbx__buf_adds(&s, origin_text(r->origin));
                sbx__buf_adds(&s, "\n");
        }
        for (i = 0; i < plan->n_writable; i++) {
                sbx__buf_adds(&s, "writable ");
                sb_put_escaped(&s, plan->writable[i]);
                sbx__buf_adds(&s, "\n");
        }
        sbx__buf_adds(&s, "requires");
        if (plan->required == 0)
                sbx__buf_adds(&s, " none");
        for (bit = 1; bit != 0 && bit <= SBX_G_ALL; bit <<= 1) {
                if (plan->required & bit) {
                        sbx__buf_adds(&s, " ");
                        sbx__buf_adds(&s, sbx_guarantee_name(bit));
                }
        }
        sbx__buf_adds(&s, "\n");
        if (s.oom) {
                free(s.b);
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        *text_out = s.b;
        return SBX_OK;
}
