/*
 * clock.c - the two clocks the library reads: CLOCK_MONOTONIC for
 * deadlines and durations, CLOCK_REALTIME for what a caller compares with
 * its own wall clock (grant expiry, event times).  In core so that every
 * layer reads time the same way.
 * SPDX-License-Identifier: Apache-2.0
 */
#include <time.h>

#include "core/internal.h"

int64_t sbx__now_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t sbx__now_us(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t sbx__wall_ms(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
