/*
 * runner_args.h - the stage-2 runner grammar (compile/runner_args.c).
 * Not installed.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_COMPILE_RUNNER_ARGS_H
#define SBX_COMPILE_RUNNER_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"
#include "compile/plan_internal.h"

/* argv[1] of a stage-2 runner invocation. */
#define SBX__STAGE2_FLAG "--sbx-stage2"

/* ------------------------------------------------ stage-2 runner grammar */

/*
 *   RUNNER --sbx-stage2
 *          --backend native|landlock
 *          --workspace PATH
 *          --workspace-read A --workspace-write A --host-read A --host-write A
 *          --network A --command A          (A = deny|gated|allow)
 *          --home isolated|real
 *          --isolation sandboxed
 *          [--root PATH:READ:WRITE]...      (READ/WRITE = deny|gated|allow)
 *          [--force-workspace 1] [--accept-unprotected-git 1]
 *          [--unix-socket PATH]...          (at most SBX__RUNNER_MAX_SOCKETS)
 *          [--memory BYTES] [--pids N]      (decimal, > 0)
 *          -- COMMAND [ARGS...]
 *
 * Every flag takes exactly one following argument; the single-valued ones
 * appear exactly once, in any order.  A --root value is split at its last
 * two ':' (so a path may itself contain ':').  Anything else is an error.
 */

/* More --unix-socket flags than a profile may hold are refused early. */
#define SBX__RUNNER_MAX_SOCKETS 64

struct sbx__runner_limits {
        uint64_t memory_max;    /* bytes; 0 = none */
        uint64_t pids_max;      /* 0 = none */
};

/* The stage-2 argv for `profile` (sandboxed) run by `runner` (an absolute
 * path) with backend native or landlock.  limits may be NULL.  *out is a
 * NULL-terminated vector for sbx_strv_free.  Errors: SBX_E_INVALID,
 * SBX_E_NOMEM. */
sbx_code sbx__runner_format(const sbx_profile *profile, int32_t backend,
                            const struct sbx__runner_limits *limits, const char *runner,
                            const char *const *argv, char ***out, sbx_error *err);

struct sbx__runner_args {
        sbx_profile_config cfg;         /* strings borrow from the parsed argv */
        sbx_root_access   *roots;       /* malloc'd, cfg.additional_roots */
        const char       **sockets;     /* malloc'd, cfg.unix_sockets (strings borrowed) */
        int32_t            backend;     /* SBX_BACKEND_NATIVE or _LANDLOCK */
        struct sbx__runner_limits limits;
        const char *const *command;     /* borrows: the argv after "--" */
        size_t             n_command;
};

/* Parse a full stage-2 argv (argv[0] the runner, argv[1] SBX__STAGE2_FLAG).
 * On success *out owns `roots` (release with sbx__runner_args_free) and
 * borrows every string from argv.  Errors: SBX_E_INVALID (names the flag),
 * SBX_E_NOMEM. */
sbx_code sbx__runner_parse(int argc, const char *const *argv, struct sbx__runner_args *out,
                           sbx_error *err);
void sbx__runner_args_free(struct sbx__runner_args *a);

#endif /* SBX_COMPILE_RUNNER_ARGS_H */
