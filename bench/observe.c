/*
 * bench/observe - what the denial observer (SBX_SPAWN_OBSERVE) costs a
 * file-heavy command: the median wall time (sbx_spawn to sbx_child_wait)
 * of a workload run confined under a workspace-write profile, plain and
 * observed, per backend (rung 1 native, rung 2 landlock), printed with
 * the ratio observed / plain (of the medians, and the median of each
 * round's ratio).  The workloads:
 *
 *   untar    tar -xf src.tar in the workspace (keeping neither owners,
 *            modes nor times, which rung 2 refuses to set), src.tar being
 *            a tarball of /usr/include the bench builds once (hard-linked
 *            into each workspace);
 *   compile  cc -O0 -c on 40 small C files that each include six system
 *            headers, one after the other (sh -c 'for f in *.c; ...').
 *
 * Every run gets a fresh workspace below /tmp (made, profiled and
 * compiled into a plan untimed, removed afterwards).  Plain and observed
 * runs alternate (plain, observed, plain, observed, ...) after one
 * untimed warm-up pair, so both see the same machine.  The observer
 * records only what the plan denies, and these workloads touch nothing it
 * denies: the events the observed runs recorded are printed, not
 * asserted.  Not a test: nothing here asserts a time.
 *
 *   bench/observe [rounds]        (default 5, at least 1)
 *
 * Needs user namespaces or root (rung 1) and Landlock (both rungs).
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sandbox.h>

#include "bench.h"


#define N_FILES     40          /* C files of the compile workload */
#define WARM_UP     1           /* untimed plain + observed pairs */
#define TIMEOUT_MS  600000u     /* per run: a hung observer ends as an error */
#define N_SAMPLES   5           /* events kept to show, should any appear */

enum { W_UNTAR, W_COMPILE, N_WORKLOADS };

struct bench {
        char base[PATH_MAX];    /* /tmp/sbx-bench-observe-XXXXXX (realpath) */
        char tarball[PATH_MAX]; /* base/src.tar */
        char tar[PATH_MAX];     /* absolute paths of the tools */
        char cc[PATH_MAX];
        char sh[PATH_MAX];
        char compile_cmd[PATH_MAX + 128];
        long long tar_bytes;
        /* What the observed runs recorded. */
        unsigned long long events, dropped, observed_runs;
        sbx_event samples[N_SAMPLES];
        size_t n_samples;
};

static const char *const workload_name[N_WORKLOADS] = {
        "untar /usr/include",
        "compile 40 files (cc -O0 -c)",
};

static const struct {
        const char *name;
        int32_t backend;
} backends[] = {
        { "rung 1 (native)", SBX_BACKEND_NATIVE },
        { "rung 2 (landlock)", SBX_BACKEND_LANDLOCK },
};
#define N_BACKENDS (sizeof(backends) / sizeof(backends[0]))

/* The first executable name in /usr/bin, /bin, /usr/local/bin into out. */
static int find_tool(const char *name, char *out, size_t size)
{
        static const char *const dirs[] = { "/usr/bin", "/bin", "/usr/local/bin" };
        size_t i;

        for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
                if ((size_t) snprintf(out, size, "%s/%s", dirs[i], name) >= size)
                        continue;
                if (access(out, X_OK) == 0)
                        return 0;
        }
        fprintf(stderr, "observe: %s not found in /usr/bin, /bin or /usr/local/bin\n", name);
        return -1;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void) st;
        (void) ftw;
        if ((type == FTW_DP ? rmdir(path) : unlink(path)) != 0) {
                fprintf(stderr, "observe: removing %s: %s\n", path, strerror(errno));
                return -1;
        }
        return 0;
}

/* Remove dir and everything below it (never following a link). */
static int rm_tree(const char *dir)
{
        if (nftw(dir, rm_entry, 32, FTW_DEPTH | FTW_PHYS) != 0) {
                fprintf(stderr, "observe: removing %s failed\n", dir);
                return -1;
        }
        return 0;
}

static int write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");

        if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0) {
                fprintf(stderr, "observe: writing %s: %s\n", path, strerror(errno));
                if (f != NULL)
                        (void) fclose(f);
                return -1;
        }
        return 0;
}

/* Fill a fresh workspace with what workload w reads (untimed). */
static int prepare(const struct bench *b, int w, const char *ws)
{
        char path[PATH_MAX], text[1024];
        int i;

        if (w == W_UNTAR) {
                if ((size_t) snprintf(path, sizeof(path), "%s/src.tar", ws) >= sizeof(path) ||
                    link(b->tarball, path) != 0) {
                        fprintf(stderr, "observe: linking %s into %s: %s\n", b->tarball, ws,
                                strerror(errno));
                        return -1;
                }
                return 0;
        }
        for (i = 0; i < N_FILES; i++) {
                if ((size_t) snprintf(path, sizeof(path), "%s/f%02d.c", ws, i) >= sizeof(path))
                        return -1;
                (void) snprintf(text, sizeof(text),
                        "#include <stdio.h>\n"
                        "#include <stdlib.h>\n"
                        "#include <string.h>\n"
                        "#include <unistd.h>\n"
                        "#include <sys/stat.h>\n"
                        "#include <pthread.h>\n"
                        "\n"
                        "int f%02d(const char *p);\n"
                        "\n"
                        "int f%02d(const char *p)\n"
                        "{\n"
                        "        struct stat st;\n"
                        "        char *q = strdup(p);\n"
                        "        int n = q != NULL && stat(q, &st) == 0 ? (int) st.st_size : -1;\n"
                        "\n"
                        "        free(q);\n"
                        "        if (n < 0)\n"
                        "                (void) fprintf(stderr, \"%%s: %%ld\\n\", p, (long) getpid());\n"
                        "        return n + (int) sizeof(pthread_mutex_t);\n"
                        "}\n", i, i);
                if (write_file(path, text) != 0)
                        return -1;
        }
        return 0;
}

/*
 * One run of workload w on backend, observed or not, in a fresh
 * workspace: *us_out the wall time from sbx_spawn to the reap.  0 or -1
 * (said on stderr).
 */
static int run_once(struct bench *b, int w, int32_t backend, int observe, double *us_out)
{
        /* Rung 2 refuses chmod and utimes everywhere (docs/backends.md): tar
         * must neither restore modes (beyond what open's mode and the umask
         * give) nor times. */
        const char *const untar[] = { b->tar, "--no-same-owner", "--no-same-permissions", "-m",
                                      "-xf", "src.tar", NULL };
        const char *const compile[] = { b->sh, "-c", b->compile_cmd, NULL };
        const char *const envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };
        sbx_spawn_options o = SBX_SPAWN_OPTIONS_INIT;
        sbx_profile *profile = NULL;
        sbx_plan *plan = NULL;
        sbx_child *child = NULL;
        sbx_event ev[N_SAMPLES];
        char ws[PATH_MAX];
        const char *what = "";
        sbx_error e;
        uint64_t dropped = 0;
        size_t n = 0, got = 0, i;
        double t0, t1;
        int st = -1, rc = -1, made = 0;

        e.message[0] = '\0';
        if ((size_t) snprintf(ws, sizeof(ws), "%s/ws-XXXXXX", b->base) >= sizeof(ws) ||
            mkdtemp(ws) == NULL) {
                fprintf(stderr, "observe: mkdtemp below %s: %s\n", b->base, strerror(errno));
                return -1;
        }
        made = 1;
        if (prepare(b, w, ws) != 0)
                goto out;
        if (sbx_profile_from_mode(SBX_MODE_WORKSPACE_WRITE, ws, &profile, &e) != SBX_OK) {
                what = "sbx_profile_from_mode";
                goto fail;
        }
        if (sbx_plan_compile(profile, &plan, &e) != SBX_OK) {
                what = "sbx_plan_compile";
                goto fail;
        }
        o.backend = backend;
        o.envp = envp;
        o.timeout_ms = TIMEOUT_MS;
        o.flags = observe == 2 ? SBX_SPAWN_OBSERVE_READS : observe ? SBX_SPAWN_OBSERVE : 0;

        t0 = now_us();
        if (sbx_spawn(plan, w == W_UNTAR ? untar : compile, &o, &child, &e) != SBX_OK) {
                what = "sbx_spawn";
                goto fail;
        }
        if (sbx_child_wait(child, &st, &e) != SBX_OK) {
                what = "sbx_child_wait";
                goto fail;
        }
        t1 = now_us();

        if (sbx_child_timed_out(child)) {
                fprintf(stderr, "observe: %s, %s%s: timed out after %u s\n",
                        workload_name[w], sbx_backend_name(backend),
                        observe ? ", observed" : "", TIMEOUT_MS / 1000);
                goto out;
        }
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
                fprintf(stderr, "observe: %s, %s%s: the command %s %d\n", workload_name[w],
                        sbx_backend_name(backend), observe ? ", observed" : "",
                        WIFEXITED(st) ? "exited" : "was killed by signal",
                        WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? WTERMSIG(st) : -1);
                goto out;
        }
        if (observe) {
                /* Count first (what the library kept and dropped), then
                 * copy a few to show. */
                if (sbx_child_events(child, NULL, 0, &n, &dropped, &e) != SBX_OK ||
                    (n > 0 && sbx_child_events(child, ev, N_SAMPLES, &got, NULL, &e) != SBX_OK)) {
                        what = "sbx_child_events";
                        goto fail;
                }
                b->observed_runs++;
                b->events += n;
                b->dropped += dropped;
                for (i = 0; i < got && b->n_samples < N_SAMPLES; i++)
                        b->samples[b->n_samples++] = ev[i];
        }
        *us_out = t1 - t0;
        rc = 0;
        goto out;
fail:
        fprintf(stderr, "observe: %s, %s%s: %s: %s (%s)\n", workload_name[w],
                sbx_backend_name(backend), observe ? ", observed" : "", what, e.message,
                sbx_code_name(e.code));
out:
        sbx_child_free(child);
        sbx_plan_free(plan);
        sbx_profile_free(profile);
        if (made && rm_tree(ws) != 0)
                rc = -1;
        return rc;
}

/* Build base/src.tar from /usr/include on the host (untimed). */
static int make_tarball(struct bench *b)
{
        char *const argv[] = { b->tar, "-C", "/usr", "-cf", b->tarball, "include", NULL };
        struct stat st;

        if ((size_t) snprintf(b->tarball, sizeof(b->tarball), "%s/src.tar", b->base) >=
            sizeof(b->tarball))
                return -1;
        if (run_argv(argv) != 0) {
                fprintf(stderr, "observe: %s -C /usr -cf %s include failed\n", b->tar,
                        b->tarball);
                return -1;
        }
        if (stat(b->tarball, &st) != 0) {
                fprintf(stderr, "observe: %s: %s\n", b->tarball, strerror(errno));
                return -1;
        }
        b->tar_bytes = (long long) st.st_size;
        return 0;
}

static int parse_rounds(int argc, char **argv, int *out)
{
        char *end;
        long v;

        *out = 5;
        if (argc < 2)
                return 0;
        errno = 0;
        v = strtol(argv[1], &end, 10);
        if (argc > 2 || errno != 0 || end == argv[1] || *end != '\0' || v < 1 || v > 10000) {
                fprintf(stderr, "usage: observe [rounds]   (1..10000, default 5)\n");
                return -1;
        }
        *out = (int) v;
        return 0;
}

int main(int argc, char **argv)
{
        static struct bench b;
        char tmpl[] = "/tmp/sbx-bench-observe-XXXXXX";
        /* plain, observed, observed with reads; the two ratios per round */
        double *t[5] = { NULL, NULL, NULL, NULL, NULL };
        double med[N_WORKLOADS][N_BACKENDS][5];
        int rounds, w, i, k, rc = 1;
        size_t bi;

        if (parse_rounds(argc, argv, &rounds) != 0)
                return 1;
        if (find_tool("tar", b.tar, sizeof(b.tar)) != 0 ||
            find_tool("cc", b.cc, sizeof(b.cc)) != 0 ||
            find_tool("sh", b.sh, sizeof(b.sh)) != 0)
                return 1;
        if ((size_t) snprintf(b.compile_cmd, sizeof(b.compile_cmd),
                              "for f in *.c; do %s -O0 -c \"$f\" || exit 1; done",
                              b.cc) >= sizeof(b.compile_cmd))
                return 1;
        if (mkdtemp(tmpl) == NULL) {
                fprintf(stderr, "observe: mkdtemp %s: %s\n", tmpl, strerror(errno));
                return 1;
        }
        if (realpath(tmpl, b.base) == NULL) {
                fprintf(stderr, "observe: realpath %s: %s\n", tmpl, strerror(errno));
                (void) rmdir(tmpl);
                return 1;
        }
        if (make_tarball(&b) != 0)
                goto out;
        for (k = 0; k < 5; k++)
                if ((t[k] = calloc((size_t) rounds, sizeof(double))) == NULL) {
                        fprintf(stderr, "observe: no memory\n");
                        goto out;
                }

        for (w = 0; w < N_WORKLOADS; w++)
                for (bi = 0; bi < N_BACKENDS; bi++) {
                        for (i = -WARM_UP; i < rounds; i++)
                                for (k = 0; k < 3; k++) {       /* plain, observed, + reads */
                                        double us;

                                        if (run_once(&b, w, backends[bi].backend, k, &us) != 0)
                                                goto out;
                                        if (i >= 0)
                                                t[k][i] = us;
                                        if (i >= 0 && k > 0)
                                                t[2 + k][i] = t[k][i] / t[0][i];
                                }
                        for (k = 0; k < 5; k++) {
                                qsort(t[k], (size_t) rounds, sizeof(double), cmp_double);
                                med[w][bi][k] = t[k][rounds / 2];
                        }
                }

        printf("SBX_SPAWN_OBSERVE overhead: workspace-write profile, wall time from sbx_spawn\n"
               "to the reap, median of %d rounds (plain and observed interleaved, %d warm-up\n"
               "round), a fresh workspace below /tmp per run\n\n", rounds, WARM_UP);
        printf("  untar:   %s --no-same-owner --no-same-permissions -m -xf src.tar\n"
               "           (/usr/include, %.1f MiB)\n",
               b.tar, (double) b.tar_bytes / (1024.0 * 1024.0));
        printf("  compile: %s -c '%s'  (%d files)\n\n", b.sh, b.compile_cmd, N_FILES);
        printf("%-30s %-18s %10s %10s %10s %7s %7s %7s %7s\n", "workload", "backend",
               "plain ms", "obs ms", "+reads ms", "obs x", "paired", "reads x", "paired");
        for (w = 0; w < N_WORKLOADS; w++)
                for (bi = 0; bi < N_BACKENDS; bi++)
                        printf("%-30s %-18s %10.1f %10.1f %10.1f %7.2f %7.2f %7.2f %7.2f\n",
                               workload_name[w], backends[bi].name, med[w][bi][0] / 1000.0,
                               med[w][bi][1] / 1000.0, med[w][bi][2] / 1000.0,
                               med[w][bi][1] / med[w][bi][0], med[w][bi][3],
                               med[w][bi][2] / med[w][bi][0], med[w][bi][4]);
        printf("\nobs: SBX_SPAWN_OBSERVE (writes, execs, connects); +reads: "
               "SBX_SPAWN_OBSERVE_READS.\nx: median / median plain; paired: the median of "
               "each round's ratio (the three\nruns of a round ran back to back).\n");
        printf("\nevents recorded by the %llu observed runs: %llu (dropped %llu); "
               "expected 0\n", b.observed_runs, b.events, b.dropped);
        for (i = 0; i < (int) b.n_samples; i++)
                printf("  event: %s %s (errno %d, pid %d)\n", sbx_event_op_name(b.samples[i].op),
                       b.samples[i].target, (int) b.samples[i].err, (int) b.samples[i].pid);
        rc = 0;
out:
        for (k = 0; k < 5; k++)
                free(t[k]);
        if (rm_tree(b.base) != 0)
                rc = 1;
        return rc;
}
