/*
 * seccomp_spawn.h - one bounded spawn for test_seccomp_spawn.c and
 * test_seccomp_sticky.c.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_TEST_SECCOMP_SPAWN_H
#define SBX_TEST_SECCOMP_SPAWN_H

#include "spawn_util.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

/* --------------------------------------------------------------- spawns */

struct socks {
        const char *const *v;
        size_t n;
};

SU void set_sockets(sbx_profile_config *cfg, const void *arg)
{
        const struct socks *x = arg;

        cfg->unix_sockets = x->v;
        cfg->n_unix_sockets = x->n;
}

/*
 * One spawn of `sh -c 'echo x > ws/out-N; mkdir ws/.git'` under profile,
 * bounded.  0 if it
 * ran and exited 0 (and wrote its file), else -1 with why; no cmocka call
 * (it runs in forked test processes too).
 */
SU int spawn_once(const struct fx *f, int32_t backend, const sbx_profile *profile,
                      uint32_t flags, int n, char *why, size_t size)
{
        char cmd[2 * PATH_MAX + 128], out[PATH_MAX + 32];
        const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
        sbx_spawn_options so = SBX_SPAWN_OPTIONS_INIT;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_error e = { 0, 0, { 0 } };
        struct pollfd pf;
        int pidfd, status = -1;
        sbx_code rc;

        snprintf(out, sizeof(out), "%s/out-%d", f->ws, n);
        (void) unlink(out);
        if (n < 0)
                snprintf(cmd, sizeof(cmd), "true");     /* read-only */
        else
                /* and an attack the git veto refuses (the supervisor's
                 * filter at work); its result is checked from the host */
                snprintf(cmd, sizeof(cmd), "echo x > '%s'; mkdir '%s/.git' 2>/dev/null; exit 0",
                         out, f->ws);
        rc = sbx_plan_compile(profile, &plan, &e);
        if (rc != SBX_OK) {
                snprintf(why, size, "sbx_plan_compile: %s", e.message);
                return -1;
        }
        so.backend = backend;
        so.envp = f->envp;
        so.flags = flags;
        rc = sbx_spawn(plan, argv, &so, &child, &e);
        sbx_plan_free(plan);
        if (rc != SBX_OK) {
                snprintf(why, size, "sbx_spawn: %s: %s", sbx_code_name(rc), e.message);
                return -1;
        }
        pidfd = (int) syscall(SYS_pidfd_open, sbx_child_pid(child), 0);
        if (pidfd >= 0) {
                pf.fd = pidfd;
                pf.events = POLLIN;
                if (poll(&pf, 1, WAIT_MS) != 1)
                        (void) sbx_child_kill(child, SIGKILL, NULL);
                close(pidfd);
        }
        if (sbx_child_wait(child, &status, &e) != SBX_OK) {
                snprintf(why, size, "sbx_child_wait: %s", e.message);
                sbx_child_free(child);
                return -1;
        }
        sbx_child_free(child);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || (n >= 0 && !exists(out))) {
                snprintf(why, size, "the command %s (its file %s)", describe_status(status),
                         exists(out) ? "exists" : "is missing");
                return -1;
        }
        return 0;
}

SU int usable(struct fx *f, int32_t backend)
{
        sbx_profile *p = make_profile(f, SBX_MODE_WORKSPACE_WRITE, 0);
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_profile *q = NULL;
        sbx_error e = { 0, 0, { 0 } };
        char why[1024];
        int ok;

        if (backend == SBX_BACKEND_BWRAP) {
                assert_int_equal(sbx_profile_config_get(p, &cfg, &e), SBX_OK);
                cfg.accept_unprotected_git = 1;
                assert_int_equal(sbx_profile_new(&cfg, &q, &e), SBX_OK);
                sbx_profile_free(p);
                p = q;
        }
        ok = spawn_once(f, backend, p, 0, 0, why, sizeof(why)) == 0;
        sbx_profile_free(p);
        if (!ok)
                cannot_test("the %s backend does not run here: %s", sbx_backend_name(backend), why);
        return ok;
}

#endif
