/*
 * localcfg.c - the process's local configuration (sbx_local_config_set):
 * a forced backend and the runner command.  Whoever reads it first
 * (detection in src/backend/table.c, a backend's probe, a confine)
 * freezes it, so it can never change under a cached probe result.  Here,
 * below the OS backends, because both the table and a backend's probe
 * (bwrap runs the runner) read it, and calls only go down.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "compile/plan_internal.h"

static pthread_mutex_t cfg_lock = PTHREAD_MUTEX_INITIALIZER;
static int frozen;                      /* under cfg_lock: the config was read */
static int32_t cfg_backend = SBX_BACKEND_AUTO;
static char *cfg_runner;                /* never freed once frozen */

int32_t sbx__local_backend(void)
{
        int32_t b;

        (void) pthread_mutex_lock(&cfg_lock);
        frozen = 1;
        b = cfg_backend;
        (void) pthread_mutex_unlock(&cfg_lock);
        return b;
}

const char *sbx__local_runner(void)
{
        const char *r;

        (void) pthread_mutex_lock(&cfg_lock);
        frozen = 1;
        r = cfg_runner;
        (void) pthread_mutex_unlock(&cfg_lock);
        return r;
}

sbx_code sbx_local_config_set(const sbx_local_config *cfg, sbx_error *err)
{
        static const char fn[] = "sbx_local_config_set";
        char *runner = NULL;

        if (cfg == NULL)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg is NULL", fn);
        if (cfg->version != SBX_LOCAL_CONFIG_VERSION)
                return sbx__fail(err, SBX_E_INVALID, 0,
                                 "%s: cfg->version is %u, expected %u (use SBX_LOCAL_CONFIG_INIT)",
                                 fn, (unsigned) cfg->version, (unsigned) SBX_LOCAL_CONFIG_VERSION);
        if (cfg->backend < SBX_BACKEND_AUTO || cfg->backend > SBX_BACKEND_WINDOWS)
                return sbx__fail(err, SBX_E_INVALID, 0, "%s: cfg->backend %d is not a backend",
                                 fn, (int) cfg->backend);
        if (cfg->runner_command != NULL) {
                size_t n = strlen(cfg->runner_command);

                if (n == 0)
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: cfg->runner_command is empty (NULL = default)", fn);
                if (n >= SBX_PATH_MAX)
                        return sbx__fail(err, SBX_E_RANGE, 0,
                                         "%s: cfg->runner_command is longer than %d bytes", fn,
                                         SBX_PATH_MAX - 1);
                if (strchr(cfg->runner_command, '/') != NULL && cfg->runner_command[0] != '/')
                        return sbx__fail(err, SBX_E_INVALID, 0,
                                         "%s: cfg->runner_command must be an absolute path or "
                                         "a bare name searched in PATH", fn);
                runner = sbx__strdup(cfg->runner_command);
                if (runner == NULL)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
        }
        (void) pthread_mutex_lock(&cfg_lock);
        if (frozen) {
                (void) pthread_mutex_unlock(&cfg_lock);
                free(runner);
                return sbx__fail(err, SBX_E_TOO_LATE, 0,
                                 "%s: backend detection already ran (or a backend was probed) "
                                 "in this process; set the local config before the first "
                                 "confine, spawn, detect or guarantees call", fn);
        }
        free(cfg_runner);
        cfg_runner = runner;
        cfg_backend = cfg->backend;
        (void) pthread_mutex_unlock(&cfg_lock);
        return SBX_OK;
}
