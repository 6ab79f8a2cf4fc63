/*
 * bench.h - what every bench program shares: a monotonic clock in
 * microseconds and the comparison qsort needs for a median.  Header-only
 * (each bench is one translation unit).  Not a test: nothing here asserts
 * a time.
 * SPDX-License-Identifier: Apache-2.0
 */
#ifndef SBX_BENCH_H
#define SBX_BENCH_H

#include <time.h>

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

#endif /* SBX_BENCH_H */
