/*
 * bench/grants - the cost of single-spawn grants: ns per
 * sbx_executor_issue_grant (command.start.v1 for a fixed command), and
 * per issue + a verification that fails (sbx_executor_run with a token
 * bound to another execution id: SBX_E_GRANT_WRONG_EXECUTION, answered
 * after the token's lookup and checks and before anything is spawned;
 * there is no verify-only call).  Both are timed in batches while the
 * executor's live grants grow from 0 to N, and reported at three sizes
 * with what each live grant adds per op: a failed verification
 * consumes nothing and a record is forgotten only ten minutes after it
 * expires (the TTL is 15 minutes), so every iteration leaves one more
 * live record behind.  A first row times one batch each on fresh
 * executors (0..100 live grants).
 * Not a test: nothing here asserts a time.
 *
 *   bench/grants [iterations]     (default 20000, at least 2000)
 *
 * The profile is read-only over the current directory (which must be a
 * workspace a read-only profile accepts: not /, a home directory or an
 * ancestor of one) with command.execute Gated; the scratch root is a
 * fresh directory below $TMPDIR (or /tmp), removed at the end.
 *
 * SPDX-License-Identifier: Apache-2.0
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sandbox.h>

#include "bench.h"

#define BATCH   100                     /* ops per timed batch */
#define WINDOW  10                      /* batches per reported size */
#define FRESH   20                      /* fresh executors per kind, one batch each */

static const char *const bench_argv[] = { "/bin/true", NULL };
static const char bench_command[] = "'/bin/true'";   /* bench_argv, normalized */

static double now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

static double median(const double *v, size_t n)
{
        double *t = malloc(n * sizeof(*t)), m;

        if (t == NULL)
                return -1;
        memcpy(t, v, n * sizeof(*t));
        qsort(t, n, sizeof(*t), cmp_double);
        m = t[n / 2];
        free(t);
        return m;
}

/* One size: ns/op, and what each live grant adds over the fresh row. */
static void row(const char *label, double live, double issue_ns, double verify_ns,
                double fresh_issue, double fresh_verify)
{
        printf("%-16s %8.0f %10.0f %10.0f", label, issue_ns, verify_ns, verify_ns - issue_ns);
        if (live > 0)
                printf(" %11.1f %11.1f", (issue_ns - fresh_issue) / live,
                       (verify_ns - issue_ns - (fresh_verify - fresh_issue)) / live);
        else
                printf(" %11s %11s", "", "");
        printf(" %8s\n", verify_ns < 10000 ? "met" : "not met");
}

static int issue(sbx_executor *ex, char *token, sbx_error *e)
{
        sbx_grant_request g = SBX_GRANT_REQUEST_INIT;

        g.execution_id = "bench-exec";
        g.command = bench_command;
        g.kind = "command.execute";
        g.scope = bench_command;
        g.grant_class = SBX_GRANT_CLASS_COMMAND_START;
        g.target = bench_command;
        if (sbx_executor_issue_grant(ex, &g, token, SBX_GRANT_TOKEN_SIZE, e) != SBX_OK) {
                fprintf(stderr, "grants: sbx_executor_issue_grant: %s\n", e->message);
                return -1;
        }
        return 0;
}

/* Present token with another execution id: refused before any spawn. */
static int failed_verify(sbx_executor *ex, const char *token, sbx_error *e)
{
        const char *const tokens[] = { token };
        sbx_run_options o = SBX_RUN_OPTIONS_INIT;
        sbx_run_result res;
        sbx_code r;

        o.execution_id = "bench-other";
        o.argv = bench_argv;
        o.tokens = tokens;
        o.n_tokens = 1;
        r = sbx_executor_run(ex, &o, &res, e);
        if (r == SBX_E_GRANT_WRONG_EXECUTION)
                return 0;
        if (r == SBX_OK)
                sbx_run_result_free(&res);
        fprintf(stderr, "grants: sbx_executor_run answered %s, not SBX_E_GRANT_WRONG_EXECUTION"
                " (%s)\n", sbx_code_name(r), r == SBX_OK ? "it ran" : e->message);
        return -1;
}

/* n ops of kind (0 issue, 1 issue + failed verify) on a fresh executor,
 * timed per batch: per_batch[b] is ns/op of batch b. */
static int measure(sbx_executor *ex, int kind, int n, double *per_batch)
{
        char token[SBX_GRANT_TOKEN_SIZE];
        sbx_error e;
        int b, i;

        for (b = 0; b < n / BATCH; b++) {
                double t0 = now_ns();

                for (i = 0; i < BATCH; i++)
                        if (issue(ex, token, &e) != 0 ||
                            (kind == 1 && failed_verify(ex, token, &e) != 0))
                                return -1;
                per_batch[b] = (now_ns() - t0) / BATCH;
        }
        return 0;
}

static sbx_executor *executor(sbx_executor_set *set, const char *key)
{
        sbx_executor *ex = NULL;
        sbx_error e;

        if (sbx_executor_set_get(set, key, &ex, &e) != SBX_OK) {
                fprintf(stderr, "grants: sbx_executor_set_get(%s): %s\n", key, e.message);
                return NULL;
        }
        return ex;
}

int main(int argc, char **argv)
{
        int n = argc > 1 ? atoi(argv[1]) : 20000, nb, rc = 1;
        char cwd[PATH_MAX], tmpl[PATH_MAX], root[PATH_MAX], token[SBX_GRANT_TOKEN_SIZE];
        const char *tmpdir = getenv("TMPDIR");
        sbx_profile *ro = NULL, *gated = NULL;
        sbx_profile_config cfg = SBX_PROFILE_CONFIG_INIT;
        sbx_executor_set_options so = SBX_EXECUTOR_SET_OPTIONS_INIT;
        sbx_executor_set *set = NULL;
        sbx_executor *warm, *ex_issue, *ex_verify;
        double *t_issue = NULL, *t_verify = NULL, f_issue[FRESH], f_verify[FRESH];
        double fi, fv;
        sbx_error e;
        int i, made_root = 0;

        if (n < 2 * WINDOW * BATCH)
                n = 2 * WINDOW * BATCH;
        n -= n % BATCH;
        nb = n / BATCH;
        if (tmpdir == NULL || tmpdir[0] != '/')
                tmpdir = "/tmp";
        if (realpath(".", cwd) == NULL) {
                perror("grants: the current directory");
                return 1;
        }
        if ((size_t) snprintf(tmpl, sizeof(tmpl), "%s/sbx-bench-grants-XXXXXX", tmpdir) >=
            sizeof(tmpl) || mkdtemp(tmpl) == NULL || realpath(tmpl, root) == NULL) {
                perror("grants: the scratch root");
                return 1;
        }
        made_root = 1;
        if (sbx_profile_from_mode(SBX_MODE_READ_ONLY, cwd, &ro, &e) != SBX_OK ||
            sbx_profile_config_get(ro, &cfg, &e) != SBX_OK)
                goto fail;
        cfg.command = SBX_ACCESS_GATED;
        if (sbx_profile_new(&cfg, &gated, &e) != SBX_OK)
                goto fail;
        so.scratch_root = root;
        so.max_executors = 3 + 2 * FRESH;
        if (sbx_executor_set_new(gated, &so, &set, &e) != SBX_OK)
                goto fail;
        warm = executor(set, "warm-up");
        ex_issue = executor(set, "issue");
        ex_verify = executor(set, "verify");
        t_issue = calloc((size_t) nb, sizeof(double));
        t_verify = calloc((size_t) nb, sizeof(double));
        if (warm == NULL || ex_issue == NULL || ex_verify == NULL || t_issue == NULL ||
            t_verify == NULL)
                goto out;
        for (i = 0; i < 200; i++)       /* warm-up: first calls, allocator */
                if (issue(warm, token, &e) != 0 || failed_verify(warm, token, &e) != 0)
                        goto out;
        for (i = 0; i < 2 * FRESH; i++) {
                char key[32];
                sbx_executor *ex;

                snprintf(key, sizeof(key), "fresh-%d", i);
                if ((ex = executor(set, key)) == NULL ||
                    measure(ex, i % 2, BATCH, i % 2 ? &f_verify[i / 2] : &f_issue[i / 2]) != 0)
                        goto out;
        }
        if (measure(ex_issue, 0, n, t_issue) != 0 || measure(ex_verify, 1, n, t_verify) != 0)
                goto out;

        printf("single-spawn grants: %d ops per row kind, ns/op as the median of batches of %d"
               "\n(command.start.v1 for %s; the failed verification is sbx_executor_run with "
               "a token\nof another execution id: SBX_E_GRANT_WRONG_EXECUTION, nothing "
               "spawned)\n\n", n, BATCH, bench_command);
        printf("%-16s %8s %10s %10s %11s %11s %8s\n", "live grants", "issue", "issue +",
               "verify", "issue ns", "verify ns", "target");
        printf("%-16s %8s %10s %10s %11s %11s %8s\n", "", "", "verify", "(diff)",
               "/live grant", "/live grant", "");
        fi = median(f_issue, FRESH);
        fv = median(f_verify, FRESH);
        row("0..100 (fresh)", 0, fi, fv, fi, fv);
        for (i = 0; i < 3; i++) {
                int from = i == 0 ? 0 : i == 1 ? nb / 2 - WINDOW / 2 : nb - WINDOW;
                char label[32];

                snprintf(label, sizeof(label), "%d..%d", from * BATCH, (from + WINDOW) * BATCH);
                row(label, (from + WINDOW / 2.0) * BATCH, median(t_issue + from, WINDOW),
                    median(t_verify + from, WINDOW), fi, fv);
        }
        printf("%-16s %8.0f %10.0f\n", "all (median)", median(t_issue, (size_t) nb),
               median(t_verify, (size_t) nb));
        printf("\ntarget: issue + verify < 10000 ns together (per size above)\n");
        printf("live grants grow by one per op: a failed verification consumes nothing, and "
               "records\nare forgotten ten minutes after their expiry (TTL 15 minutes)\n");
        rc = 0;
        goto out;
fail:
        fprintf(stderr, "grants: %s\n", e.message);
out:
        free(t_issue);
        free(t_verify);
        if (set != NULL && sbx_executor_set_close(set, &e) != SBX_OK) {
                fprintf(stderr, "grants: sbx_executor_set_close: %s\n", e.message);
                rc = 1;
        }
        sbx_executor_set_free(set);
        sbx_profile_free(gated);
        sbx_profile_free(ro);
        if (made_root && rmdir(tmpl) != 0) {
                perror("grants: removing the scratch root");
                rc = 1;
        }
        return rc;
}
