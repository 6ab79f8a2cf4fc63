/*
 * seatbelt.c - the macOS backend's exec path (docs/seatbelt.md): the plan
 * compiled to SBPL (src/compile/sbpl.c), then
 *
 *     /usr/bin/sandbox-exec -p <profile> -- argv...
 *
 * started with posix_spawn in its own process group, with the plan's
 * filtered environment and a per-spawn scratch directory (tmp/ and home/)
 * that release removes.  Built on Apple only; on Linux a lint test checks
 * that it parses (-DSBX_DARWIN_SYNTAX_CHECK, tests/CMakeLists.txt).  Never
 * run on a Mac: unverified.  Kept small enough to review by eye.
 *
 * Confine is not offered: its argv would need a TMPDIR and HOME that
 * outlive the call, with nobody to remove them.
 * SPDX-License-Identifier: Apache-2.0
 */
#if defined(__APPLE__) || defined(SBX_DARWIN_SYNTAX_CHECK)

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "compile/sbpl.h"
#include "paths/paths_internal.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

extern char **environ;

sbx_code sbx__seatbelt_probe(sbx_error *err)
{
        if (access(SANDBOX_EXEC, X_OK) != 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, errno,
                                 "seatbelt: %s is missing", SANDBOX_EXEC);
        return SBX_OK;
}

/* What the compiled profile expresses (docs/seatbelt.md, docs/backends.md).
 * Not claimed: protected-paths (a rename of .git itself is not blocked),
 * process isolation (sysctl lists every process), syscall filter, no new
 * privileges (a setuid program may run), fd and tty isolation. */
uint32_t sbx__seatbelt_guarantees(const struct sbx_plan *plan)
{
        uint32_t g = SBX_G_READ_BOUNDARY | SBX_G_WRITE_BOUNDARY | SBX_G_ENV_SCRUB;

        if (plan->network != SBX__NET_ALLOW)
                g |= SBX_G_NETWORK_DENY;
        if (plan->home == SBX__ENV_DIR_SCRATCH)
                g |= SBX_G_HOME_ISOLATION;
        return g;
}

sbx_code sbx__seatbelt_confine(const struct sbx_plan *plan, const sbx_profile *profile,
                               const char *runner, const char *const *argv, char ***argv_out,
                               sbx_error *err)
{
        (void) plan;
        (void) profile;
        (void) runner;
        (void) argv;
        (void) argv_out;
        return sbx__fail(err, SBX_E_UNSUPPORTED, 0, "seatbelt: Confine is not available; "
                         "use sbx_spawn (docs/seatbelt.md)");
}

sbx_code sbx__seatbelt_spawn(const struct sbx_plan *plan, const char *const *argv,
                             const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        static const char fn[] = "sbx_spawn";
        struct sbx__sbpl_opts so;
        struct sbx__strv v = SBX__STRV_INIT;
        char base[SBX_PATH_MAX], dir[SBX_PATH_MAX], tmp[SBX_PATH_MAX + 8];
        char home[SBX_PATH_MAX + 8], *profile = NULL, *caller_home = NULL;
        char **args = NULL, **env = NULL;
        const char *t = getenv("TMPDIR");
        const char *const *src = opts->envp != NULL ? opts->envp : (const char *const *) environ;
        posix_spawn_file_actions_t fa;
        posix_spawnattr_t at;
        short flags = POSIX_SPAWN_SETPGROUP;
        pid_t pid = -1;
        sbx_code r;
        size_t i;
        int e;

        if (opts->n_keep_fds > 0 || opts->memory_max > 0 || opts->pids_max > 0)
                return sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, 0, "%s: the seatbelt backend "
                                 "passes no extra fds and applies no limits", fn);
        /* The scratch directory, by its resolved (/private/var/...) name. */
        if (realpath(t != NULL && t[0] == '/' ? t : "/tmp", base) == NULL ||
            snprintf(dir, sizeof(dir), "%s/sbx-run-XXXXXX", base) >= (int) sizeof(dir) ||
            mkdtemp(dir) == NULL)
                return sbx__fail(err, SBX_E_IO, errno, "%s: seatbelt: no scratch directory", fn);
        (void) snprintf(tmp, sizeof(tmp), "%s/tmp", dir);
        (void) snprintf(home, sizeof(home), "%s/home", dir);
        if (mkdir(tmp, 0700) != 0 || mkdir(home, 0700) != 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: seatbelt: %s: %s", fn, dir,
                              sbx__strerror(errno));
                goto fail;
        }
        if (sbx__caller_home(src, &caller_home) < 0) {
                r = sbx__fail(err, SBX_E_IO, errno, "%s: seatbelt: the caller's HOME cannot be "
                              "resolved", fn);
                goto fail;
        }
        memset(&so, 0, sizeof(so));
        so.tmpdir = tmp;
        so.scratch_home = home;
        so.caller_home = caller_home;
        so.runtime = sbx__sbpl_runtime_default;
        so.n_runtime = sbx__sbpl_n_runtime_default;
        r = sbx__sbpl_compile(plan, &so, &profile, err);
        if (r != SBX_OK)
                goto fail;
        /* sandbox-exec -p PROFILE -- argv... */
        sbx__strv_push(&v, SANDBOX_EXEC);
        sbx__strv_push(&v, "-p");
        sbx__strv_push(&v, profile);
        sbx__strv_push(&v, "--");
        for (i = 0; argv[i] != NULL; i++)
                sbx__strv_push(&v, argv[i]);
        args = sbx__strv_finish(&v, NULL);
        env = sbx__plan_env(plan, src, plan->home == SBX__ENV_DIR_SCRATCH ? home : NULL, tmp);
        if (args == NULL || env == NULL) {
                r = sbx__fail(err, SBX_E_NOMEM, ENOMEM, "%s: no memory", fn);
                goto fail;
        }
        (void) posix_spawn_file_actions_init(&fa);
        (void) posix_spawnattr_init(&at);
        if (opts->stdin_fd >= 0)
                (void) posix_spawn_file_actions_adddup2(&fa, opts->stdin_fd, 0);
        if (opts->stdout_fd >= 0)
                (void) posix_spawn_file_actions_adddup2(&fa, opts->stdout_fd, 1);
        if (opts->stderr_fd >= 0)
                (void) posix_spawn_file_actions_adddup2(&fa, opts->stderr_fd, 2);
#if defined(__APPLE__)
        /* macOS 10.15+: the command starts in cwd (default: the workspace). */
        (void) posix_spawn_file_actions_addchdir_np(&fa, opts->cwd != NULL ? opts->cwd
                                                                         : plan->workspace_root);
#endif
#ifdef POSIX_SPAWN_CLOEXEC_DEFAULT
        flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;   /* only stdio reaches the command */
#endif
        (void) posix_spawnattr_setflags(&at, flags);
        (void) posix_spawnattr_setpgroup(&at, 0);
        e = posix_spawn(&pid, SANDBOX_EXEC, &fa, &at, args, env);
        (void) posix_spawn_file_actions_destroy(&fa);
        (void) posix_spawnattr_destroy(&at);
        if (e != 0) {
                r = sbx__fail(err, SBX_E_SANDBOX_UNAVAILABLE, e, "%s: cannot start %s: %s", fn,
                              SANDBOX_EXEC, sbx__strerror(e));
                goto fail;
        }
        child->pid = pid;
        child->required = plan->required;
        child->achieved = sbx__seatbelt_guarantees(plan);
        /* The row's private state: the scratch directory to remove (NULL:
         * left behind, not fatal). */
        child->os = sbx__strdup(dir);
        r = SBX_OK;
        goto out;
fail:
        (void) sbx__rm_rf(dir);
out:
        sbx_strv_free(args);
        sbx_strv_free(env);
        free(profile);
        free(caller_home);
        return r;
}

static int darwin_child_wait(sbx_child *child, int timeout_ms, int *status)
{
        struct timespec nap = { 0, 10 * 1000 * 1000 };
        int waited = 0;
        pid_t r;

        for (;;) {
                r = waitpid(child->pid, status, timeout_ms < 0 ? 0 : WNOHANG);
                if (r == child->pid)
                        break;
                if (r < 0 && errno != EINTR)
                        return -errno;
                if (r == 0) {
                        if (waited >= timeout_ms)
                                return -ETIMEDOUT;
                        (void) nanosleep(&nap, NULL);
                        waited += 10;
                }
        }
        (void) kill(-child->pid, SIGKILL);      /* what it left in its group */
        return 0;
}

static int darwin_child_kill(sbx_child *child, int sig)
{
        /* The process group: sandbox-exec execs the command in place. */
        if (kill(-child->pid, sig) < 0 && errno != ESRCH)
                return -errno;
        return 0;
}

static void darwin_child_release(sbx_child *child)
{
        if (child->os != NULL) {
                (void) sbx__rm_rf(child->os);
                free(child->os);
                child->os = NULL;
        }
}

const struct sbx__child_ops sbx__darwin_child_ops = {
        .wait = darwin_child_wait, .kill = darwin_child_kill, .release = darwin_child_release,
};

#endif /* __APPLE__ || SBX_DARWIN_SYNTAX_CHECK */
