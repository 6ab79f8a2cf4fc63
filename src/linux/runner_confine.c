/*
 * runner_confine.c - Confine() for the native and landlock backends: the
 * stage-2 runner (sandbox-run, or $SBX_RUNNER, or the forced runner
 * command) with the profile in the runner grammar, "--", the command.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "compile/runner_args.h"
#include "paths/paths_internal.h"

#ifndef SBX_INSTALL_BINDIR
#  define SBX_INSTALL_BINDIR "/usr/local/bin"
#endif

/* ---------------------------------------------------- vtable: confine */

static sbx_code runner_path(const char *forced, char **out, sbx_error *err)
{
        const char *want = forced, *source = "sbx_local_config.runner_command";
        int r;

        if (want == NULL) {
                want = sbx__secure_getenv("SBX_RUNNER");
                source = "SBX_RUNNER";
                if (want == NULL || want[0] == '\0') {
                        want = SBX_INSTALL_BINDIR "/sandbox-run";
                        source = "the installed runner";
                }
        }
        r = sbx__which(want, sbx__secure_getenv("PATH"), out);
        if (r == -ENOMEM)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_confine: no memory");
        if (r == -EINVAL)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0,
                                 "sbx_confine: runner \"%.200s\" (%s) must be an absolute path "
                                 "or a bare name", want, source);
        if (r < 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, -r,
                                 "sbx_confine: the sandbox runner \"%.200s\" (%s) is not usable: "
                                 "%s; install sandbox-run or set SBX_RUNNER / "
                                 "sbx_local_config.runner_command", want, source, sbx__strerror(-r));
        return SBX_OK;
}

static sbx_code runner_confine(int32_t backend, const sbx_profile *profile, const char *runner,
                               const char *const *argv, char ***argv_out, sbx_error *err)
{
        char *path = NULL;
        sbx_code r;

        r = runner_path(runner, &path, err);
        if (r != SBX_OK)
                return r;
        r = sbx__runner_format(profile, backend, NULL, path, argv, argv_out, err);
        free(path);
        return r;
}

sbx_code sbx__runner_confine_native(const struct sbx_plan *plan, const sbx_profile *profile,
                                    const char *runner, const char *const *argv,
                                    char ***argv_out, sbx_error *err)
{
        (void) plan;    /* the runner recompiles the same plan from the profile */
        return runner_confine(SBX_BACKEND_NATIVE, profile, runner, argv, argv_out, err);
}

sbx_code sbx__runner_confine_landlock(const struct sbx_plan *plan, const sbx_profile *profile,
                                      const char *runner, const char *const *argv,
                                      char ***argv_out, sbx_error *err)
{
        (void) plan;
        return runner_confine(SBX_BACKEND_LANDLOCK, profile, runner, argv, argv_out, err);
}

