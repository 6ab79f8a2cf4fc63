/*
 * backend.h - the internal backend vtable (STYLE.md 37) and the child
 * handle every backend's spawn fills.  Only src/platform.c knows which
 * backends exist.  Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stdint.h>
#include <sys/types.h>

#include "internal.h"
#include "compile/plan_internal.h"

struct sbx_backend {
        int32_t     id;                 /* sbx_backend_id */
        const char *name;               /* "native", "landlock", "bwrap", "unavailable" */
        /* Cheap after the first call; really runs `true` under a read-only
         * plan.  SBX_OK = usable. */
        sbx_code  (*probe)(sbx_error *err);
        /* SBX_G_* this backend achieves for plan (hardening extras included). */
        uint32_t  (*guarantees)(const struct sbx_plan *plan);
        /* argv rewriting: runner + profile args + "--" + argv, malloc'd
         * NULL-terminated vector (free with sbx_strv_free). */
        sbx_code  (*confine)(const struct sbx_plan *plan, const sbx_profile *profile,
                             const char *runner, const char *const *argv,
                             char ***argv_out, sbx_error *err);
        /* fork/exec under the plan. */
        sbx_code  (*spawn)(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
        const char *const *denial_signatures;   /* NULL-terminated */
};

/* The backend for id (never NULL for a valid id; NULL otherwise). */
const struct sbx_backend *sbx__backend_get(int32_t id);
/* The detected (or forced) backend; runs detection once. */
sbx_code sbx__backend_chosen(const struct sbx_backend **out, sbx_error *err);
/* The forced runner command, or NULL. */
const char *sbx__runner_command(void);

/* A running (or finished) confined child, whatever the backend. */
struct sbx_child {
        pid_t    pid;           /* the process we waitpid() on */
        int32_t  backend;       /* sbx_backend_id */
        uint32_t required;      /* SBX_G_* the plan required */
        uint32_t achieved;      /* SBX_G_* this spawn enforced */
        int      waited;        /* 1 once reaped */
        int      status;        /* wait status once reaped */
        char    *scratch;       /* host scratch directory to remove, or NULL */
        char    *cgroup[2];     /* cgroup directories to remove, or NULL */
};

/* Allocate a zeroed child (pid -1); NULL on ENOMEM. */
sbx_child *sbx__child_new(int32_t backend);
/* Remove a directory tree (scratch cleanup); best effort, never follows
 * symlinks out of it.  0 or -errno. */
int sbx__rm_rf(const char *path);

/* ----- backend entry points (src/linux/spawn.c) ----- */
sbx_code sbx__native_probe(sbx_error *err);
sbx_code sbx__landlock_probe(sbx_error *err);
uint32_t sbx__native_guarantees(const struct sbx_plan *plan);
uint32_t sbx__landlock_guarantees(const struct sbx_plan *plan);
sbx_code sbx__native_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
sbx_code sbx__landlock_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);
sbx_code sbx__direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);

#endif /* SBX_BACKEND_H */
