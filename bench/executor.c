/*
 * bench/executor - median latency of sbx_executor_run of /bin/true (argv
 * form) through an executor that has already run, per backend (rung 1
 * native, rung 2 landlock), against a bare posix_spawn + waitpid in the
 * same process and run, printed with ratios to bare.  The runners are
 * interleaved: round i starts with runner i mod k, so a busy machine
 * moves all of them alike.  A backend whose executor set cannot be
 * built is skipped with the reason.
 * Not a test: nothing here asserts a time.
 *
 *   bench/executor [iterations]   (default 100, at least 10)
 *
 * The profiles are read-only and workspace-write over the current
 * directory (which must be a workspace both accept: not /, a home
 * directory or an ancestor of one); workspace-write protects git, so each
 * of its commands loads the supervisor's filter (docs/executors.md "Warm
 * executors").  Each set's scratch root is a fresh directory below
 * $TMPDIR (or /tmp), removed at the end.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sandbox.h>

#include "bench.h"


#define N_RUNNERS 5     /* bare; native and landlock, read-only and workspace-write */
#define WARM_UP   5

struct runner {
        const char *name;
        int32_t backend;                /* -1: bare */
        int     write;                  /* 1: workspace-write, else read-only */
        char tmpl[PATH_MAX];            /* its scratch root (mkdtemp), or "" */
        sbx_executor_set *set;
        sbx_executor *ex;
        char why[SBX_ERROR_SIZE];       /* why it was skipped, or "" */
        double *t;
};

static int run_bare(void)
{
        char *const argv[] = { "/bin/true", NULL };

        return run_argv(argv);
}

static int run_executor(struct runner *r)
{
        const char *const argv[] = { "/bin/true", NULL };
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result res;
        sbx_error e;
        int ok;

        o.argv = argv;
        if (sbx_executor_run(r->ex, &o, &res, &e) != SBX_OK) {
                fprintf(stderr, "executor: %s: sbx_executor_run: %s\n", r->name, e.message);
                return -1;
        }
        ok = res.exited && res.exit_code == 0;
        if (!ok)
                fprintf(stderr, "executor: %s: /bin/true did not exit 0 (exit %d, signal %d): "
                        "%.200s\n", r->name, res.exit_code, res.signal, res.err);
        sbx_run_result_free(&res);
        return ok ? 0 : -1;
}

/* Build r's set and executor; on failure r->why says why. */
static void setup(struct runner *r, const sbx_profile *profile)
{
        const char *tmpdir = getenv("TMPDIR");
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        char root[PATH_MAX];
        sbx_error e;

        if (tmpdir == NULL || tmpdir[0] != '/')
                tmpdir = "/tmp";
        if ((size_t) snprintf(r->tmpl, sizeof(r->tmpl), "%s/sbx-bench-executor-XXXXXX",
                              tmpdir) >= sizeof(r->tmpl) || mkdtemp(r->tmpl) == NULL ||
            realpath(r->tmpl, root) == NULL) {
                snprintf(r->why, sizeof(r->why), "scratch root: %s", strerror(errno));
                r->tmpl[0] = '\0';
                return;
        }
        so.scratch_root = root;
        so.max_executors = 1;
        so.backend = r->backend;
        if (sbx_executor_set_new(profile, &so, &r->set, &e) != SBX_OK ||
            sbx_executor_set_get(r->set, "bench", &r->ex, &e) != SBX_OK)
                snprintf(r->why, sizeof(r->why), "%.40s: %.200s", sbx_code_name(e.code),
                         e.message);
}

static int teardown(struct runner *r)
{
        sbx_error e;
        int rc = 0;

        if (r->set != NULL && sbx_executor_set_close(r->set, &e) != SBX_OK) {
                fprintf(stderr, "executor: %s: sbx_executor_set_close: %s\n", r->name,
                        e.message);
                rc = -1;
        }
        sbx_executor_set_free(r->set);
        if (r->tmpl[0] != '\0' && rmdir(r->tmpl) != 0) {
                fprintf(stderr, "executor: removing %s: %s\n", r->tmpl, strerror(errno));
                rc = -1;
        }
        free(r->t);
        return rc;
}

int main(int argc, char **argv)
{
        int n = argc > 1 ? atoi(argv[1]) : 100, i, k, rc = 0;
        struct runner rs[N_RUNNERS] = {
                { "bare fork/exec", -1, 0, "", NULL, NULL, "", NULL },
                { "rung 1 (native), read-only", SBX_BACKEND_NATIVE, 0, "", NULL, NULL, "", NULL },
                { "rung 2 (landlock), read-only", SBX_BACKEND_LANDLOCK, 0, "", NULL, NULL, "", NULL },
                { "rung 1, workspace-write", SBX_BACKEND_NATIVE, 1, "", NULL, NULL, "", NULL },
                { "rung 2, workspace-write", SBX_BACKEND_LANDLOCK, 1, "", NULL, NULL, "", NULL },
        };
        char cwd[PATH_MAX];
        sbx_profile *profile = NULL, *wprofile = NULL;
        sbx_error e;
        double bare;

        if (n < 10)
                n = 10;
        if (realpath(".", cwd) == NULL) {
                perror("executor: the current directory");
                return 1;
        }
        if (sbx_profile_from_mode(SBX_MODE_READ_ONLY, cwd, &profile, &e) != SBX_OK ||
            sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, cwd, &wprofile, &e) != SBX_OK) {
                fprintf(stderr, "executor: %s\n", e.message);
                return 1;
        }
        for (k = 0; k < N_RUNNERS; k++) {
                if (rs[k].backend >= 0)
                        setup(&rs[k], rs[k].write ? wprofile : profile);
                if (rs[k].why[0] == '\0' &&
                    (rs[k].t = calloc((size_t) n, sizeof(double))) == NULL) {
                        fprintf(stderr, "executor: no memory\n");
                        rc = 1;
                        goto out;
                }
        }
        /* WARM_UP rounds first: the executors have run before they are timed. */
        for (i = -WARM_UP; i < n; i++)
                for (k = 0; k < N_RUNNERS; k++) {
                        struct runner *r = &rs[(i + WARM_UP + k) % N_RUNNERS];
                        double t0;
                        int x;

                        if (r->why[0] != '\0')
                                continue;
                        t0 = now_us();
                        x = r->backend < 0 ? run_bare() : run_executor(r);
                        if (x != 0) {
                                rc = 1;
                                goto out;
                        }
                        if (i >= 0)
                                r->t[i] = now_us() - t0;
                }
        for (k = 0; k < N_RUNNERS; k++)
                if (rs[k].t != NULL)
                        qsort(rs[k].t, (size_t) n, sizeof(double), cmp_double);
        bare = rs[0].t[n / 2];

        printf("sbx_executor_run of /bin/true through an executor that has run before (%d "
               "warm-up\nruns), median of %d runs each, interleaved (network denied)\n\n", WARM_UP, n);
        printf("%-30s %12s %10s %10s\n", "executor", "median (us)", "x bare", "target");
        for (k = 0; k < N_RUNNERS; k++) {
                double m;

                if (rs[k].t == NULL) {
                        printf("%-30s %12s  (%s)\n", rs[k].name, "skipped", rs[k].why);
                        continue;
                }
                m = rs[k].t[n / 2];
                if (k == 0)
                        printf("%-30s %12.0f %10.2f\n", rs[k].name, m, 1.0);
                else
                        printf("%-30s %12.0f %10.2f %10s\n", rs[k].name, m, m / bare,
                               rs[k].write ? "" : m / bare <= 1.3 ? "met" : "not met");
        }
        printf("\ntarget: a warm executor's run / bare <= 1.3 on both rungs (read-only).  "
               "Each run\nis a fork of the executor's zygote plus output capture; "
               "workspace-write runs\nalso load the git supervisor's filter per command "
               "(no target).\n");
out:
        for (k = 0; k < N_RUNNERS; k++)
                if (teardown(&rs[k]) != 0)
                        rc = 1;
        sbx_profile_free(profile);
        sbx_profile_free(wprofile);
        return rc;
}
