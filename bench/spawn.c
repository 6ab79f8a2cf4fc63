/*
 * bench/spawn - median latency of running /bin/true:
 *   bare fork/exec, rung 1 (native), rung 2 (landlock), and
 *   bwrap --unshare-all with an equivalent read-only policy,
 * all measured in one run, printed with ratios to bare and to bwrap.
 * Not a test: nothing here asserts a time.
 *
 *   bench/spawn [iterations] [sets]      (default 200, 0)
 *
 * With `sets`, that many executor sets (one executor each, roots outside
 * /tmp) are open during the measurement: every spawn of the user then
 * hides their directories (the scratch registry, docs/executors.md).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sandbox.h>

#include "bench.h"


static char *bwrap_path(void)
{
        static const char *const dirs[] = { "/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap" };
        size_t i;

        for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
                if (access(dirs[i], X_OK) == 0)
                        return (char *) dirs[i];
        return NULL;
}

struct ctx {
        const sbx_plan *plan;
        int32_t backend;
};

static int run_sandbox(const struct ctx *c)
{
        const char *const argv[] = { "/bin/true", NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_child *child = NULL;
        sbx_error e;
        int st = -1;

        o.backend = c->backend;
        o.envp = envp;
        o.cwd = "/";
        if (sbx_spawn(c->plan, argv, &o, &child, &e) != SBX_OK) {
                fprintf(stderr, "spawn: %s\n", e.message);
                return -1;
        }
        sbx_child_wait(child, &st, NULL);
        sbx_child_free(child);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Median in microseconds of n runs of kind (0 bare, 1 sandbox, 2 bwrap). */
static double measure(int kind, const struct ctx *c, char *const *bw, int n)
{
        char *const bare[] = { "/bin/true", NULL };
        double *t = calloc((size_t) n, sizeof(double)), med;
        int i;

        for (i = -5; i < n; i++) {      /* 5 warm-up runs */
                double t0 = now_us();
                int r = kind == 0 ? run_argv(bare) : kind == 1 ? run_sandbox(c) : run_argv(bw);

                if (r != 0) {
                        free(t);
                        return -1;
                }
                if (i >= 0)
                        t[i] = now_us() - t0;
        }
        qsort(t, (size_t) n, sizeof(double), cmp_double);
        med = t[n / 2];
        free(t);
        return med;
}

int main(int argc, char **argv)
{
        int n = argc > 1 ? atoi(argv[1]) : 200, n_sets = argc > 2 ? atoi(argv[2]) : 0, k;
        sbx_executor_set *sets[64];
        char roots[64][40];
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_error e;
        char *bw = bwrap_path();
        char *const bwrap_argv[] = { bw, "--unshare-all", "--die-with-parent", "--new-session",
                                     "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                     "--tmpfs", "/tmp", "--tmpfs", "/dev/shm", "--clearenv",
                                     "--", "/bin/true", NULL };
        struct ctx r1, r2;
        double bare, t1, t2, tb = -1;
        char ws[] = "/var/tmp/sbx-bench-XXXXXX";

        if (n < 10)
                n = 10;
        /* A workspace of its own: "/" is a broad workspace the profile
         * refuses without force_workspace. */
        if (mkdtemp(ws) == NULL) {
                perror("bench: mkdtemp");
                return 1;
        }
        if (sbx_profile_from_mode(SBX_MODE_READ_ONLY, ws, &profile, &e) != SBX_OK ||
            sbx_plan_compile(profile, &plan, &e) != SBX_OK) {
                fprintf(stderr, "bench: %s\n", e.message);
                (void) rmdir(ws);
                return 1;
        }
        if (n_sets < 0 || n_sets > 64)
                n_sets = n_sets < 0 ? 0 : 64;
        for (k = 0; k < n_sets; k++) {
                sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
                sbx_executor *ex;

                snprintf(roots[k], sizeof(roots[k]), "/var/tmp/sbx-bench-set-XXXXXX");
                so.scratch_root = mkdtemp(roots[k]);
                so.max_executors = 1;
                if (so.scratch_root == NULL || sbx_executor_set_new(profile, &so, &sets[k], &e) != SBX_OK ||
                    sbx_executor_set_get(sets[k], "x", &ex, &e) != SBX_OK) {
                        fprintf(stderr, "bench: executor set: %s\n", e.message);
                        return 1;
                }
        }
        r1.plan = r2.plan = plan;
        r1.backend = SBX_BACKEND_NATIVE;
        r2.backend = SBX_BACKEND_LANDLOCK;

        bare = measure(0, NULL, NULL, n);
        t1 = measure(1, &r1, NULL, n);
        t2 = measure(1, &r2, NULL, n);
        if (bw != NULL)
                tb = measure(2, NULL, bwrap_argv, n);

        printf("spawn latency of /bin/true, median of %d runs (read-only policy, network denied, "
               "%d executor sets open)\n\n", n, n_sets);
        printf("%-34s %12s %10s %10s\n", "runner", "median (us)", "x bare", "x bwrap");
        printf("%-34s %12.0f %10.2f %10s\n", "bare fork/exec", bare, 1.0, "");
#define ROW(name, t) \
        do { \
                if ((t) < 0) \
                        printf("%-34s %12s\n", name, "failed"); \
                else if (tb > 0) \
                        printf("%-34s %12.0f %10.2f %10.2f\n", name, t, (t) / bare, (t) / tb); \
                else \
                        printf("%-34s %12.0f %10.2f %10s\n", name, t, (t) / bare, "n/a"); \
        } while (0)
        ROW("rung 1 (namespaces+landlock+seccomp)", t1);
        ROW("rung 2 (landlock+seccomp)", t2);
        if (bw != NULL)
                ROW("bwrap --unshare-all", tb);
        else
                printf("%-34s %12s\n", "bwrap --unshare-all", "not installed");
        printf("\ntargets: rung 1 / bwrap < 1.0; rung 2 / bare <= 1.5\n");
        for (k = 0; k < n_sets; k++) {
                sbx_executor_set_free(sets[k]);
                (void) rmdir(roots[k]);
        }
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        (void) rmdir(ws);
        return (t1 < 0 || t2 < 0) ? 1 : 0;
}
