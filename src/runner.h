/*
 * runner.h - the argv-rewriting side of the backends: the stage-2 runner
 * grammar (Confine for the native and landlock backends, parsed back by
 * sbx_init), the bwrap backend's entry points, and the small helpers they
 * share (string vectors, PATH lookup, the per-backend runner failure
 * rules).  Not installed.  docs/backends.md describes the grammar.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_RUNNER_H
#define SBX_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* argv[1] of a stage-2 runner invocation. */
#define SBX__STAGE2_FLAG "--sbx-stage2"

/* ------------------------------------------------------ string vectors */

/* A growable, NULL-terminated vector of malloc'd strings.  A failed push
 * marks the vector failed; sbx__strv_finish then returns NULL. */
struct sbx__strv {
        char  **v;
        size_t  n, cap;
        int     failed;
};
#define SBX__STRV_INIT { NULL, 0, 0, 0 }

void sbx__strv_push(struct sbx__strv *s, const char *str);
/* Push the concatenation a + b. */
void sbx__strv_push2(struct sbx__strv *s, const char *a, const char *b);
/* The vector (NULL-terminated, free with sbx_strv_free), or NULL after an
 * allocation failure (everything freed).  *n_out (may be NULL) the count. */
char **sbx__strv_finish(struct sbx__strv *s, size_t *n_out);
void sbx__strv_discard(struct sbx__strv *s);

/* ------------------------------------------------------------- helpers */

/* secure_getenv where the C library has it (glibc), else getenv unless
 * the process is set-id. */
const char *sbx__secure_getenv(const char *name);

/*
 * Resolve a program: a name with a '/' must be absolute and is used as is;
 * a bare name is searched in `path_list` (a PATH value; NULL or empty =
 * "/usr/local/bin:/usr/bin:/bin").  The result must be an executable
 * regular file (access X_OK).  *out is malloc'd.  0, -ENOENT (not found),
 * -EINVAL (relative with a slash), -EACCES / other -errno (not
 * executable), -ENOMEM.
 */
int sbx__which(const char *name, const char *path_list, char **out);

/* The runner failure rules of a backend (NULL/0 for unknown ids and for
 * unavailable).  Static, never freed.  Defined in platform.c. */
const sbx_runner_rule *sbx__backend_runner_rules(int32_t backend, size_t *n_out);

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
 *          [--memory BYTES] [--pids N]      (decimal, > 0)
 *          -- COMMAND [ARGS...]
 *
 * Every flag takes exactly one following argument; the single-valued ones
 * appear exactly once, in any order.  A --root value is split at its last
 * two ':' (so a path may itself contain ':').  Anything else is an error.
 */

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

/* The vtable `confine` of the native and landlock backends: the runner is
 * `runner` (the forced runner command) or $SBX_RUNNER or
 * SBX_INSTALL_BINDIR "/sandbox-run", and must be executable. */
sbx_code sbx__runner_confine_native(const struct sbx_plan *plan, const sbx_profile *profile,
                                    const char *runner, const char *const *argv,
                                    char ***argv_out, sbx_error *err);
sbx_code sbx__runner_confine_landlock(const struct sbx_plan *plan, const sbx_profile *profile,
                                      const char *runner, const char *const *argv,
                                      char ***argv_out, sbx_error *err);

/* ------------------------------------------------ bwrap (src/linux/bwrap.c) */

/* Cached: finds bwrap (the forced runner command, else "bwrap" in $PATH)
 * and really runs `true` under the flags every confined run uses. */
sbx_code sbx__bwrap_probe(sbx_error *err);
uint32_t sbx__bwrap_guarantees(const struct sbx_plan *plan);
sbx_code sbx__bwrap_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                            const char *runner, const char *const *argv,
                            char ***argv_out, sbx_error *err);
sbx_code sbx__bwrap_spawn(const struct sbx_plan *plan, const char *const *argv,
                          const sbx_spawn_options *opts, sbx_child **out, sbx_error *err);

/*
 * The bwrap argv for plan, deterministic for given inputs (the golden
 * tests call it directly): `bwrap` the binary (argv[0]), `envp` the
 * environment the --setenv list is taken from, `home` the caller's
 * canonical home directory (NULL = none known), `cwd` a --chdir target
 * (NULL = inherit the caller's).  It lstat()s rule paths (a missing one is
 * skipped).  Errors: SBX_E_INVALID, SBX_E_IO, SBX_E_RANGE, SBX_E_NOMEM.
 */
sbx_code sbx__bwrap_build(const struct sbx_plan *plan, const char *bwrap,
                          const char *const *argv, const char *const *envp, const char *home,
                          const char *cwd, char ***argv_out, sbx_error *err);

#endif /* SBX_RUNNER_H */
