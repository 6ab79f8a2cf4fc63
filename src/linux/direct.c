/*
 * direct.c - the direct (unconfined, acknowledged) spawn: the same one
 * launcher (launch.c) and the same error channel as the confined rungs,
 * without any confinement step.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "linux/ladder.h"
#include "paths/paths_internal.h"
struct direct {
        const char *path;
        char *const *argv;
        char *const *envp;
        const char *cwd;
        int stdio[3];
        const int *keep;
        size_t n_keep;
};

static void direct_child(void *arg, struct sbx__chan *ch) SBX__NORETURN;
static void direct_child(void *arg, struct sbx__chan *ch)
{
        const struct direct *d = arg;
        int r;

        sbx__child_reset_signals();
        {
                int need[67];
                size_t n = 0, k;

                for (k = 0; k < 3; k++)
                        need[n++] = d->stdio[k];
                for (k = 0; k < d->n_keep && n < SBX__ARRAY_SIZE(need); k++)
                        need[n++] = d->keep[k];
                sbx__child_close_others(ch, need, n);
        }
        if (sbx__child_at(ch, STEP_SETSID) || setsid() < 0)
                sbx__child_fail(ch, STEP_SETSID, errno, 0);
        if (d->cwd != NULL && (sbx__child_at(ch, STEP_CHDIR) || chdir(d->cwd) < 0))
                sbx__child_fail(ch, STEP_CHDIR, errno, 0);
        if ((r = sbx__child_arrange_fds(ch, NULL, d->stdio, d->keep, d->n_keep)) < 0)
                sbx__child_fail(ch, STEP_FDS, r, 0);
        (void) sbx__child_at(ch, STEP_EXEC);
        execve(d->path, d->argv, d->envp);
        sbx__child_fail(ch, STEP_EXEC, errno, 0);
}

/* An unconfined (acknowledged) plan: fork/exec with the caller's
 * authority.  Still no inherited fds beyond the ones passed, and a new
 * session. */
sbx_code sbx__direct_spawn(const struct sbx_plan *plan, const char *const *argv,
                           const sbx_spawn_options *opts, sbx_child *child, sbx_error *err)
{
        const char *const *src_env = opts->envp != NULL ? opts->envp : (const char *const *) environ;
        struct sbx__proc proc;
        struct sbx__child_report rep;
        struct direct d;
        char *path = NULL;
        char **envp;
        sbx_code r = SBX_OK;
        int rc;

        if (sbx__sigchld_ignored())
                return sbx__fail(err, SBX_E_INVALID, 0, "sbx_spawn: the process ignores SIGCHLD "
                                 "(SIG_IGN or SA_NOCLDWAIT), so an unconfined child would be "
                                 "reaped before its status is known; restore SIGCHLD's default");
        /* No limits here: the row does not claim SBX__ROW_LIMITS, so the
         * exec layer refused them. */
        envp = sbx__plan_env(plan, src_env, NULL, NULL);
        if (envp == NULL)
                return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
        rc = sbx__command_lookup(argv[0], (const char *const *) envp, &path);
        if (rc < 0) {
                sbx_strv_free(envp);
                if (rc == -ENOMEM)
                        return sbx__fail(err, SBX_E_NOMEM, ENOMEM, "sbx_spawn: no memory");
                return sbx__fail(err, SBX_E_NOT_FOUND, ENOENT, "sbx_spawn: command \"%.200s\" not "
                                 "found in PATH", argv[0]);
        }
        d.path = path;
        d.argv = (char *const *) argv;
        d.envp = envp;
        d.cwd = opts->cwd;
        d.stdio[0] = opts->stdin_fd;
        d.stdio[1] = opts->stdout_fd;
        d.stdio[2] = opts->stderr_fd;
        d.keep = opts->keep_fds;
        d.n_keep = opts->n_keep_fds;
        rc = sbx__launch(0, 0, direct_child, &d, &proc);
        if (rc < 0) {
                r = sbx__fail(err, SBX_E_IO, -rc, "sbx_spawn: cannot start a process: %s",
                              sbx__strerror(-rc));
                goto out;
        }
        rc = sbx__launch_wait_exec(&proc, &rep);
        if (rc != 0) {
                int e = rc == 1 ? rep.err : -rc;

                sbx__proc_abort(&proc);

                r = sbx__fail(err, e == ENOENT || e == ENOTDIR ? SBX_E_NOT_FOUND : SBX_E_IO, e,
                              e == ENOENT || e == ENOTDIR ? "sbx_spawn: command \"%.200s\" not "
                              "found in the filesystem: %s" : "sbx_spawn: cannot execute "
                              "\"%.200s\": %s", argv[0], sbx__strerror(e));
                goto out;
        }
        sbx__proc_close_channel(&proc);
        child->pid = proc.pid;
        child->pidfd = proc.pidfd;
out:
        free(path);
        sbx_strv_free(envp);
        return r;
}

