/*
 * bench.h - what every bench program shares: a monotonic clock in
 * microseconds and the comparison qsort needs for a median.  Header-only
 * (each bench is one translation unit).  Not a test: nothing here asserts
 * a time.  Also the bare posix_spawn baseline.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_BENCH_H
#define SBX_BENCH_H

#include <errno.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static inline double now_us(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec * 1e6 + (double) ts.tv_nsec / 1e3;
}

static inline int cmp_double(const void *a, const void *b)
{
        double x = *(const double *) a, y = *(const double *) b;

        return x < y ? -1 : x > y;
}

/* Run argv (argv[0] a path) to completion with posix_spawn: the bare
 * baseline.  0 when it exited 0, else -1. */
static inline int run_argv(char *const argv[])
{
        pid_t pid;
        int st;

        if (posix_spawn(&pid, argv[0], NULL, NULL, argv, environ) != 0)
                return -1;
        while (waitpid(pid, &st, 0) < 0)
                if (errno != EINTR)
                        return -1;
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

#endif /* SBX_BENCH_H */
