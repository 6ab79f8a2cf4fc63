/*
 * executor.h - executor sets, executors and their grants (executor.c,
 * grant.c, run.c): the internals they share.  docs/executors.md.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_EXEC_EXECUTOR_H
#define SBX_EXEC_EXECUTOR_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "exec/exec.h"

#define SBX__GRANT_TTL_DEFAULT_MS (15 * 60 * 1000)
#define SBX__EXECUTORS_MAX        4096

/* The grant classes (grant.c's table is in this order). */
enum sbx__grant_class {
        SBX__GC_FS_PATH_READ, SBX__GC_FS_TREE_READ, SBX__GC_FS_HOST_READ,
        SBX__GC_FS_PATH_WRITE, SBX__GC_FS_TREE_WRITE, SBX__GC_FS_HOST_WRITE,
        SBX__GC_NET_PROXY_TARGET, SBX__GC_NET_BROAD, SBX__GC_COMMAND_START,
        SBX__GC_N
};

/* One minted token's record, held by its executor, never persisted. */
struct sbx__grant {
        char     token[SBX_GRANT_TOKEN_SIZE];
        int      cls;                   /* enum sbx__grant_class */
        char    *execution_id;
        char    *command;               /* the exact normalized command */
        char    *cwd;                   /* canonical */
        char    *target;                /* normalized */
        char     profile_fp[SBX_FINGERPRINT_SIZE];
        char     route_fp[SBX_FINGERPRINT_SIZE];
        uint32_t achieved;
        int64_t  expires_at_ms;         /* Unix ms */
        /* filesystem classes: the deepest existing ancestor of the target
         * (the target itself when it exists) */
        dev_t    anc_dev;
        ino_t    anc_ino;
        int      used;                  /* consumed by a spawn: a replay now */
};

/* A command being run (for cancel and close). */
struct sbx__running {
        const struct sbx_executor *ex;
        sbx_child *child;
        const char *execution_id;       /* borrowed from the run's options */
        atomic_int cancelled;           /* set by cancel/close; the run's own thread
                                         * kills its tree (one thread per handle) */
        struct sbx__running *next;
};

struct sbx_executor {
        struct sbx_executor_set *set;
        char   *key;
        char   *dir;                    /* <set dir>/<n>: home/ and tmp/ */
        struct sbx__grant *grants;      /* guarded by set->lock */
        size_t  n_grants, cap_grants;
        /* An index of grants by token: slot -> index + 1 (0 = empty),
         * open addressing, n_slots a power of two >= 2 * cap_grants. */
        uint32_t *slots;
        size_t  n_slots;
        int64_t next_prune_ms;          /* no record is forgettable before */
        /* The warm zygote (spawn.c), used by one run at a time: a run that
         * finds it busy runs cold. */
        pthread_mutex_t warm_lock;
        struct sbx__warm_slot warm;
};

struct sbx_executor_set {
        pthread_mutex_t lock;
        pthread_cond_t  idle;           /* signalled when n_running drops */
        sbx_profile *profile;
        sbx_plan    *plan;
        int32_t      backend;
        uint32_t     achieved;
        int32_t      mode;              /* for the denial marker */
        int64_t      ttl_ms;
        uint32_t     max;
        char        *set_dir;           /* created by the set, removed by close */
        char        *reg_entry;         /* its link in the user's scratch registry */
        char         profile_fp[SBX_FINGERPRINT_SIZE];
        char         route_fp[SBX_FINGERPRINT_SIZE];
        struct sbx_executor **ex;
        size_t       n_ex;
        struct sbx__running *running;
        size_t       n_running;
        int          closed;            /* 1 closing, 2 closed (runs and zygotes gone) */
        int          removed;           /* close removed the set's directories */
};

/*
 * grant.c: verify every token for one run of `command` in `cwd` for
 * execution_id and, when all hold (and, with need_cmd, one of them is
 * the command's start), consume them and give back what they open: *w
 * (malloc'd, *n_w entries), *net_allow, *cmd_allow.  Called with
 * set->lock held; *targets (malloc'd, the records' strings) the
 * network.proxy-target.v1 targets, allowlist entries for this run.  Errors: the SBX_E_GRANT_* of the first token that does
 * not bind, SBX_E_GRANT_REQUIRED (nothing consumed then), SBX_E_NOMEM.
 */
sbx_code sbx__grants_take(struct sbx_executor *ex, const char *const *tokens, size_t n,
                          const char *execution_id, const char *command, const char *cwd,
                          int need_cmd, struct sbx__widen **w, size_t *n_w, int *net_allow,
                          int *cmd_allow, const char ***targets, size_t *n_targets,
                          sbx_error *err);
/* grant.c: give the tokens back after a spawn that failed before the
 * command ran (set->lock held); a token the spawn refused as changed is
 * not given back by the caller. */
void sbx__grants_restore(struct sbx_executor *ex, const char *const *tokens, size_t n);
/* grant.c: free every record (revocation). */
void sbx__grants_clear(struct sbx_executor *ex);

/*
 * executor.c: `plan` with every set directory of this user's scratch
 * registry hidden (but the spawn's own set's, which its plan handles): *out
 * a new plan (sbx_plan_free), or NULL when there is nothing to hide (and
 * for a direct plan).  Every spawn and Confine calls it.  Errors:
 * SBX_E_NOMEM.
 */
sbx_code sbx__scratch_hide(const sbx_plan *plan, const char *fn, sbx_plan **out,
                           sbx_error *err);

#endif /* SBX_EXEC_EXECUTOR_H */
