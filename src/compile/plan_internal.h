/*
 * plan_internal.h - the compiled plan (struct sbx_plan), shared with the
 * backends that turn it into bwrap argv, Landlock rules, SBPL text and so
 * on.  Not installed.  docs/compile.md describes every field.
 *
 * A plan is immutable once sbx_plan_compile() returns it: backends read the
 * fields directly and never modify them.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_COMPILE_PLAN_INTERNAL_H
#define SBX_COMPILE_PLAN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* Access bits of a filesystem rule. */
#define SBX__FS_READ  (1u << 0)
#define SBX__FS_WRITE (1u << 1)
#define SBX__FS_EXEC  (1u << 2)

/* Scope of a filesystem rule. */
#define SBX__FS_EXACT 1         /* this path only */
#define SBX__FS_TREE  2         /* this path and everything below it */

/* Where a rule came from (also the secondary sort key). */
#define SBX__ORIGIN_HOST       1u  /* "/" from host_read / host_write */
#define SBX__ORIGIN_WORKSPACE  2u  /* the workspace root */
#define SBX__ORIGIN_ADDITIONAL 3u  /* a configured additional root */
#define SBX__ORIGIN_PROTECTED  4u  /* <writable root>/.git and what discovery adds */
#define SBX__ORIGIN_RUNTIME    5u  /* loader, libraries, /dev/null...: a backend necessity */
#define SBX__ORIGIN_SECRET     6u  /* a home's well-known secret location: hidden (access 0) */
#define SBX__ORIGIN_SCRATCH    7u  /* another sandbox's scratch: hidden (access 0); it holds an
                                    * empty directory SBX__SCRATCH_EMPTY for as long as it
                                    * exists (sbx__plan_hide) */
#define SBX__SCRATCH_EMPTY ".empty"

/* The network decision. */
#define SBX__NET_DENY              1  /* private network namespace, loopback only */
#define SBX__NET_DENY_UNLESS_GRANT 2  /* Gated: closed until a network grant */
#define SBX__NET_ALLOW             3  /* the host network */

/* HOME and TMPDIR decisions. */
#define SBX__ENV_DIR_SCRATCH 1  /* a per-executor owner-only directory */
#define SBX__ENV_DIR_CALLER  2  /* the caller's value, unchanged */

/*
 * One filesystem rule.  The rules of a plan are sorted by strcmp(path) then
 * origin, and no two rules share a path.  For a path, the deepest rule that
 * contains it decides (an EXACT rule contains only its own path; a TREE
 * rule its path and everything below it); a path no rule contains is
 * denied.  access 0 is an explicit carve-out: the path must be hidden even
 * though a shallower rule grants it.
 */
struct sbx_plan_fs_rule {
        char    *path;          /* canonical absolute path */
        uint32_t access;        /* SBX__FS_READ | SBX__FS_WRITE | SBX__FS_EXEC */
        int32_t  scope;         /* SBX__FS_EXACT or SBX__FS_TREE */
        uint32_t origin;        /* SBX__ORIGIN_* */
};

struct sbx_plan {
        int32_t  direct;        /* 1: unconfined, no boundary at all */
        int32_t  command;       /* sbx_access of command.execute */
        int32_t  network;       /* SBX__NET_* */
        int32_t  home;          /* SBX__ENV_DIR_* for HOME */
        int32_t  tmpdir;        /* SBX__ENV_DIR_* for TMPDIR */
        int32_t  env_passthrough; /* 1: the environment is passed unchanged */
        char    *workspace_root;  /* canonical; a copy of the profile's */

        struct sbx_plan_fs_rule *rules;  /* sorted; empty for a direct plan */
        size_t   n_rules;

        /* Collapsed writable roots (canonical, deduplicated, nested roots
         * collapsed, sorted), NULL-terminated; never NULL itself. */
        char   **writable;
        size_t   n_writable;

        uint32_t required;      /* SBX_G_* the plan requires */
        /* 1: the plan has protected rules; backends that can protect git
         * apply them (and the name veto) whether or not required says so. */
        int32_t  protects_git;
        /* 1: the profile accepts running where git cannot be protected:
         * protected-paths is not required (it is still achieved where a
         * backend can). */
        int32_t  accept_unprotected_git;
        /* Host pathname unix sockets the command may connect to (the
         * profile's, canonical, sorted by strcmp); NULL when none, and for
         * a direct plan (which reaches everything). */
        char   **unix_sockets;
        size_t   n_unix_sockets;
        /* An executor's directory holding home/ and tmp/, used as the
         * spawn's HOME (when isolated) and TMPDIR instead of per-spawn
         * scratch (sbx__plan_widen); NULL otherwise.  Owned. */
        char    *scratch_dir;
        /* The network allowlist (canonical rules of policy/netrule.h,
         * sorted): with the network not Allow, the command reaches these,
         * and only through the egress proxy (sbx__plan_proxied); a
         * network.proxy-target.v1 grant adds one for one spawn.  NULL when
         * none.  Owned. */
        char   **net_allow;
        size_t   n_net_allow;
        /* "NAME=VALUE" entries one spawn adds to the filtered environment
         * (sbx_spawn_options.env_set, copied by sbx__plan_env_set); NULL
         * when none.  Owned. */
        char   **env_set;
        size_t   n_env_set;
};

/*
 * The environment allow-list of a sandboxed plan, in describe order.  An
 * entry ending in '*' is a prefix ("LC_*" passes LC_ALL, LC_CTYPE, ...).
 * HOME and TMPDIR are not in the list: the executor sets them from the
 * plan's home / tmpdir decisions.
 */
extern const char *const sbx__plan_env_allow[];
extern const size_t sbx__plan_n_env_allow;

/*
 * 1 if the variable `name` (a name only, no '=') passes into the child
 * under `plan`: always for a direct plan; for a sandboxed plan only names
 * on the allow-list.  0 for NULL, an empty name or a name containing '='.
 * Pure.
 */
int sbx__plan_env_allowed(const struct sbx_plan *plan, const char *name);

/*
 * The one environment filter (env.c): the entries of `src` that pass
 * sbx__plan_env_allowed, then HOME=home and TMPDIR=tmpdir when not NULL
 * (replacing the caller's; without a replacement a sandboxed plan drops
 * the caller's HOME and TMPDIR, a direct plan keeps them).  A
 * NULL-terminated malloc'd vector (sbx_strv_free), NULL on ENOMEM.
 */
char **sbx__plan_env(const struct sbx_plan *plan, const char *const *src, const char *home,
                     const char *tmpdir);

/*
 * The rule that decides for canonical path `path`: the deepest rule
 * containing it, or NULL (denied).  Pure.
 */
const struct sbx_plan_fs_rule *sbx__plan_rule_for(const struct sbx_plan *plan,
                                                  const char *path);

/*
 * A copy of `in` with `paths[i]` (canonical; trees[i] 1 = TREE) added as
 * protected rules where a writable rule holds them.  0 or -ENOMEM.  Pure.
 */
int sbx__plan_add_protected(const struct sbx_plan *in, const char *const *paths,
                            const int *trees, size_t n, struct sbx_plan **out);

/* A growing rule list (plan.c), shared with widen.c. */
struct sbx__rules {
        struct sbx_plan_fs_rule *v;
        size_t n, cap;
};
/* Append a copy of path's rule.  0 or -ENOMEM (path not kept). */
int sbx__rules_add(struct sbx__rules *r, const char *path, uint32_t access, int32_t scope,
                   uint32_t origin);
/* Sort by path (then rank) and keep one rule per path. */
void sbx__rules_sort(struct sbx__rules *r);
/* plan->writable from its rules.  0, -EINVAL, -ENOMEM. */
int sbx__plan_build_writable(struct sbx_plan *plan);
/* plan->unix_sockets := a copy of v[0..n).  0 or -ENOMEM (then the plan
 * holds what was copied, for sbx_plan_free). */
int sbx__plan_copy_sockets(struct sbx_plan *plan, const char *const *v, size_t n);
/* Add v[0..n) (canonical rules) to plan's allowlist for one spawn, kept
 * sorted and without repeats; the plan then requires target- and
 * address-network instead of network-deny (unless its network is Allow).
 * 0 or -ENOMEM (the plan is unchanged then). */
int sbx__plan_add_allow(struct sbx_plan *plan, const char *const *v, size_t n);
/* plan->net_allow := a copy of v[0..n) (same contract). */
int sbx__plan_copy_allow(struct sbx_plan *plan, const char *const *v, size_t n);
/* The port of the egress proxy's listener on 127.0.0.1 inside a proxied
 * spawn's own network namespace (nothing else is there). */
#define SBX__PROXY_PORT 3128
/* Transparent mode: the listener every other outbound TCP connection is
 * redirected to, and the DNS answerer's UDP port (127.0.0.1, the same
 * namespace). */
#define SBX__TPROXY_PORT 3129
#define SBX__DNS_PORT    3153
/* 1 if plan's network goes through the egress proxy: an allowlist, the
 * network not Allow, a sandboxed plan. */
#define sbx__plan_proxied(p) \
        ((p)->n_net_allow > 0 && (p)->network != SBX__NET_ALLOW && !(p)->direct)

/* One widening of a plan for one spawn (a grant, an executor's dirs). */
struct sbx__widen {
        const char *path;       /* canonical; NULL for the host rule ("/") */
        uint32_t    access;     /* SBX__FS_* added */
        int32_t     scope;      /* SBX__FS_EXACT or SBX__FS_TREE */
};

/*
 * A copy of `in` widened for one spawn: each w[i] adds its access to the
 * rule at its path (or the host rule), else becomes a new rule holding it
 * and the access of the rule that contained the path (a carve-out below
 * keeps its own, deeper rule); network_allow opens the network (the plan
 * then no longer requires network-deny); command_allow lets a Gated
 * command start; scratch_dir (may be NULL) is copied into the plan with
 * read-write tree rules for its home/ and tmp/ and its parent hidden (the
 * other executors' directories).  0, -EINVAL (a direct
 * plan), -ENOMEM.  Pure.
 */
int sbx__plan_widen(const struct sbx_plan *in, const struct sbx__widen *w, size_t n,
                    int network_allow, int command_allow, const char *scratch_dir,
                    struct sbx_plan **out);

/*
 * Where scratch lives (docs/backends.md "Scratch and /tmp"), each formatted
 * with the effective uid: the one parent of a user's rung-2 spawn scratch
 * (sbx-run-<pid>-XXXXXX below it), and the user's scratch registry (links
 * to executor set directories), in /dev/shm, else /tmp.  Every spawn hides
 * all three where its plan would expose them (sbx__scratch_hide).
 */
#define SBX__RUN_SCRATCH_FMT "/tmp/sbx-run-%lu"
#define SBX__REGISTRY_FMT    "%s/sbx-scratch-%lu"

/*
 * A copy of `in` with each of paths[0..n) (canonical directories: other
 * sandboxes' scratch, docs/executors.md) hidden: a carve-out (access 0,
 * TREE, origin origins[i]: SBX__ORIGIN_SCRATCH for a set directory, which
 * may vanish at any time, SBX__ORIGIN_SECRET for a fixed place; all secret
 * when origins is NULL) where a rule grants read or write; a path nothing
 * grants, or one with a rule of its own, is left as it is.  The writable
 * roots are unchanged; a plan that gets a carve-out requires read-boundary.
 * 0, -EINVAL (a direct plan), -ENOMEM.  Pure.
 */
int sbx__plan_hide(const struct sbx_plan *in, const char *const *paths, const uint32_t *origins,
                   size_t n, struct sbx_plan **out);

/* 1 if a and b confine alike: every field a backend enforces is equal
 * (the command's access, which only admission reads, is not compared).
 * Pure. */
int sbx__plan_same(const struct sbx_plan *a, const struct sbx_plan *b);

/* A copy of `in` that also sets env (n "NAME=VALUE" entries, checked by
 * the caller) in the command's environment.  0 or -ENOMEM.  Pure. */
int sbx__plan_env_set(const struct sbx_plan *in, const char *const *env, size_t n,
                      struct sbx_plan **out);

/*
 * The describe escaping of one path, malloc'd (NULL on allocation
 * failure): '\\' -> "\\\\", '\n' -> "\\n", any other byte < 0x20 and 0x7F
 * -> "\\xHH" (lower-case hex); every other byte is copied, so one path can
 * never spell two lines.
 */
char *sbx__plan_escape(const char *s);

/* The local configuration (localcfg.c): the forced backend (AUTO = none)
 * and runner command (NULL = default).  Reading either freezes it:
 * sbx_local_config_set fails from then on. */
int32_t sbx__local_backend(void);
const char *sbx__local_runner(void);

#endif /* SBX_COMPILE_PLAN_INTERNAL_H */
