/*
 * bench/cli - median wall time of one `sandbox-run -- /bin/true` process,
 * against `bwrap --unshare-all` with equivalent mounts and against a bare
 * fork/exec of /bin/true, all measured in one run and interleaved (round i
 * starts with runner i mod 3), printed with the ratios CLI/bwrap and
 * CLI/bare.  Not a test: nothing here asserts a time.
 *
 *   bench/cli [--sandbox-run PATH] [--bwrap PATH] [ITERATIONS]   (default 200)
 *
 * sandbox-run is PATH, else $SBX_SANDBOX_RUN, else the build tree's.  Every
 * runner starts in a fresh temporary workspace (its cwd), which the CLI runs
 * with `--mode workspace-write --network deny` and bwrap binds writable
 * over a read-only /, with a private /dev, /proc and /tmp, no network,
 * a new session and a clean environment.
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

#include "bench.h"


#define WARMUP 5

enum { R_CLI, R_BWRAP, R_BARE, R_COUNT };

static const char *const r_name[R_COUNT] = {
        [R_CLI] = "sandbox-run (workspace-write)",
        [R_BWRAP] = "bwrap --unshare-all",
        [R_BARE] = "bare fork/exec",
};

/* Run argv to completion; its wall time in *us.  0, or -1 (reported). */
static int run_timed(char *const argv[], double *us)
{
        double t0 = now_us();
        pid_t pid;
        int r, st;

        r = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
        if (r != 0) {
                fprintf(stderr, "bench/cli: cannot run %s: %s\n", argv[0], strerror(r));
                return -1;
        }
        while (waitpid(pid, &st, 0) < 0) {
                if (errno != EINTR) {
                        perror("bench/cli: waitpid");
                        return -1;
                }
        }
        *us = now_us() - t0;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "bench/cli: %s %s (status 0x%x)\n", argv[0],
                        WIFEXITED(st) ? "exited non-zero" : "was killed", (unsigned) st);
                return -1;
        }
        return 0;
}

static const char *find_bwrap(void)
{
        static const char *const paths[] = { "/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap" };
        size_t i;

        for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
                if (access(paths[i], X_OK) == 0)
                        return paths[i];
        return NULL;
}

static double percentile(double *t, int n, int pct)
{
        return t[(long) (n - 1) * pct / 100];
}

static void usage(void)
{
        fprintf(stderr, "usage: bench/cli [--sandbox-run PATH] [--bwrap PATH] [ITERATIONS]\n");
}

int main(int argc, char **argv)
{
        const char *cli = NULL, *bwrap = NULL, *env;
        char ws_template[] = "/tmp/sbx-bench-cli-XXXXXX";
        char *ws;
        double *t[R_COUNT] = { NULL, NULL, NULL }, med[R_COUNT];
        int n = 200, i, k, rc = 1;

        for (i = 1; i < argc; i++) {
                if (strcmp(argv[i], "--sandbox-run") == 0 && i + 1 < argc) {
                        cli = argv[++i];
                } else if (strcmp(argv[i], "--bwrap") == 0 && i + 1 < argc) {
                        bwrap = argv[++i];
                } else if (argv[i][0] >= '0' && argv[i][0] <= '9') {
                        n = atoi(argv[i]);
                } else {
                        usage();
                        return 2;
                }
        }
        if (n < 10)
                n = 10;
        if (cli == NULL && (env = getenv("SBX_SANDBOX_RUN")) != NULL && env[0] != '\0')
                cli = env;
#ifdef SBX_BENCH_SANDBOX_RUN
        if (cli == NULL)
                cli = SBX_BENCH_SANDBOX_RUN;
#endif
        if (cli == NULL || access(cli, X_OK) != 0) {
                fprintf(stderr, "bench/cli: no sandbox-run (give --sandbox-run PATH or set "
                                "SBX_SANDBOX_RUN)\n");
                return 2;
        }
        if (bwrap == NULL)
                bwrap = find_bwrap();
        if (bwrap == NULL || access(bwrap, X_OK) != 0) {
                fprintf(stderr, "bench/cli: bwrap not found (apt-get install bubblewrap, or "
                                "--bwrap PATH)\n");
                return 2;
        }

        ws = mkdtemp(ws_template);
        if (ws == NULL || chdir(ws) != 0) {
                perror("bench/cli: temporary workspace");
                return 1;
        }
        {
                char *const cli_argv[] = { (char *) cli, "--mode", "workspace-write",
                                           "--workspace", ws, "--network", "deny",
                                           "--", "/bin/true", NULL };
                char *const bwrap_argv[] = { (char *) bwrap, "--unshare-all", "--die-with-parent",
                                             "--new-session", "--ro-bind", "/", "/",
                                             "--dev", "/dev", "--proc", "/proc",
                                             "--tmpfs", "/tmp", "--bind", ws, ws, "--chdir", ws,
                                             "--clearenv", "--setenv", "PATH", "/usr/bin:/bin",
                                             "--", "/bin/true", NULL };
                char *const bare_argv[] = { "/bin/true", NULL };
                char *const *const r_argv[R_COUNT] = {
                        [R_CLI] = cli_argv, [R_BWRAP] = bwrap_argv, [R_BARE] = bare_argv,
                };

                for (k = 0; k < R_COUNT; k++) {
                        t[k] = calloc((size_t) n, sizeof(double));
                        if (t[k] == NULL) {
                                perror("bench/cli");
                                goto out;
                        }
                }
                for (i = -WARMUP; i < n; i++) {
                        for (k = 0; k < R_COUNT; k++) {
                                int which = (k + (i < 0 ? 0 : i)) % R_COUNT;
                                double us;

                                if (run_timed(r_argv[which], &us) != 0)
                                        goto out;
                                if (i >= 0)
                                        t[which][i] = us;
                        }
                }
        }
        for (k = 0; k < R_COUNT; k++) {
                qsort(t[k], (size_t) n, sizeof(double), cmp_double);
                med[k] = percentile(t[k], n, 50);
        }

        printf("wall time of one process running /bin/true, %d interleaved runs each "
               "(euid %d)\n", n, (int) geteuid());
        printf("sandbox-run: %s\nbwrap:       %s\nworkspace:   %s\n\n", cli, bwrap, ws);
        printf("%-32s %10s %10s %10s %8s %8s\n", "runner", "median us", "p10 us", "p90 us",
               "x bare", "x bwrap");
        for (k = 0; k < R_COUNT; k++)
                printf("%-32s %10.0f %10.0f %10.0f %8.2f %8.2f\n", r_name[k], med[k],
                       percentile(t[k], n, 10), percentile(t[k], n, 90), med[k] / med[R_BARE],
                       med[k] / med[R_BWRAP]);
        printf("\nCLI/bwrap = %.2f   CLI/bare = %.2f\n", med[R_CLI] / med[R_BWRAP],
               med[R_CLI] / med[R_BARE]);
        rc = 0;
out:
        for (k = 0; k < R_COUNT; k++)
                free(t[k]);
        if (chdir("/") == 0)
                (void) rmdir(ws);
        return rc;
}
