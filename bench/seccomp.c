/*
 * bench/seccomp - what the system-call allow-list costs against the deny
 * list it replaced, measured in one run (docs/seccomp.md).
 *
 *   bench/seccomp [rounds]
 *
 * Three filters per option set (rung 1's and rung 2's): none (only
 * no_new_privs), the deny-list shape (default allow, the same argument
 * rules and refused group: sbx__seccomp_compile_denylist) and the
 * allow-list program a spawn really loads (sbx__seccomp_build).  Two
 * workloads, rounds interleaved so drift hits every filter alike:
 *
 *   spawn    fork, load the filter, exec /bin/true, wait
 *   compile  fork, load the filter, exec cc -c of a generated C file
 *
 * Prints medians and the allow/deny ratio.  Not a test: nothing here
 * asserts a time.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "linux/linux_internal.h"

enum { F_NONE, F_DENY, F_ALLOW, F_N };

static const char *const g_fname[F_N] = { "no filter", "deny-list shape", "allow-list" };

/* fork, (filter), exec argv; the wall time in µs, or -1. */
static double one(const struct sbx__bpf *bpf, char *const *argv)
{
        double t0 = now_us();
        pid_t p = fork();
        int st;

        if (p < 0)
                return -1;
        if (p == 0) {
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
                        _exit(126);
                if (bpf != NULL && sbx__seccomp_load_child(bpf) != 0)
                        _exit(125);
                execv(argv[0], argv);
                _exit(127);
        }
        while (waitpid(p, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                return -1;
        return now_us() - t0;
}

static int write_source(const char *path)
{
        FILE *f = fopen(path, "w");
        int i;

        if (f == NULL)
                return -1;
        fprintf(f, "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n");
        for (i = 0; i < 200; i++)
                fprintf(f, "static int f%d(int x) { char b[32]; snprintf(b, sizeof b, \"%%d\", x);"
                           " return (int) strlen(b) + x * %d; }\n", i, i);
        fprintf(f, "int main(void) { int s = 0;\n");
        for (i = 0; i < 200; i++)
                fprintf(f, "  s += f%d(s);\n", i);
        fprintf(f, "  return s == 42; }\n");
        return fclose(f);
}

static void measure(const char *title, uint32_t opts, int rounds, char *const *cc_argv)
{
        struct sbx__bpf bpf[F_N] = { { NULL, 0 }, { NULL, 0 }, { NULL, 0 } };
        char *true_argv[] = { (char *) "/bin/true", NULL };
        double *t[2][F_N];
        sbx_error e = { 0, 0, { 0 } };
        double med[2][F_N];
        int w, f, r, n[2][F_N];

        if (sbx__seccomp_compile_denylist(opts, &bpf[F_DENY], &e) != SBX_OK ||
            sbx__seccomp_build(opts, &bpf[F_ALLOW], &e) != SBX_OK) {
                fprintf(stderr, "bench/seccomp: %s\n", e.message);
                exit(1);
        }
        for (w = 0; w < 2; w++)
                for (f = 0; f < F_N; f++) {
                        t[w][f] = calloc((size_t) rounds, sizeof(double));
                        n[w][f] = 0;
                        if (t[w][f] == NULL)
                                exit(1);
                }
        for (r = 0; r < rounds; r++) {
                for (w = 0; w < 2; w++) {
                        for (f = 0; f < F_N; f++) {
                                int k = (f + r) % F_N;  /* rotate the order */
                                double us = one(k == F_NONE ? NULL : &bpf[k],
                                                w == 0 ? true_argv : cc_argv);

                                if (us >= 0)
                                        t[w][k][n[w][k]++] = us;
                        }
                }
        }
        printf("%s (%zu / %zu instructions: deny-list shape / allow-list)\n", title,
               bpf[F_DENY].len, bpf[F_ALLOW].len);
        for (w = 0; w < 2; w++) {
                for (f = 0; f < F_N; f++) {
                        if (n[w][f] == 0) {
                                fprintf(stderr, "bench/seccomp: every %s run failed\n",
                                        w == 0 ? "spawn" : "compile");
                                exit(1);
                        }
                        qsort(t[w][f], (size_t) n[w][f], sizeof(double), cmp_double);
                        med[w][f] = t[w][f][n[w][f] / 2];
                }
                printf("  %-8s %s %9.1f µs   %s %9.1f µs   %s %9.1f µs   allow/deny %.3f\n",
                       w == 0 ? "spawn" : "compile", g_fname[F_NONE], med[w][F_NONE],
                       g_fname[F_DENY], med[w][F_DENY], g_fname[F_ALLOW], med[w][F_ALLOW],
                       med[w][F_ALLOW] / med[w][F_DENY]);
        }
        for (w = 0; w < 2; w++)
                for (f = 0; f < F_N; f++)
                        free(t[w][f]);
        sbx__seccomp_free(&bpf[F_DENY]);
        sbx__seccomp_free(&bpf[F_ALLOW]);
}

int main(int argc, char **argv)
{
        int rounds = argc > 1 ? atoi(argv[1]) : 200;
        char dir[] = "/tmp/sbx-bench-seccomp-XXXXXX", src[64], obj[64];
        char *cc_argv[] = { (char *) "/usr/bin/cc", (char *) "-O1", (char *) "-c", src,
                            (char *) "-o", obj, NULL };

        if (rounds < 3 || mkdtemp(dir) == NULL)
                return 2;
        snprintf(src, sizeof(src), "%s/x.c", dir);
        snprintf(obj, sizeof(obj), "%s/x.o", dir);
        if (write_source(src) != 0)
                return 1;
        printf("bench/seccomp: %d rounds, medians, interleaved\n", rounds);
        measure("rung 1 (own pid and IPC namespaces)", SBX__SC_DENY_UNIX_PATH, rounds, cc_argv);
        measure("rung 2 (host pid and IPC namespaces)",
                SBX__SC_DENY_INET | SBX__SC_DENY_UNIX_PATH | SBX__SC_DENY_METADATA |
                SBX__SC_HOST_NS, rounds / 4 > 3 ? rounds / 4 : 3, cc_argv);
        (void) unlink(src);
        (void) unlink(obj);
        (void) rmdir(dir);
        return 0;
}
