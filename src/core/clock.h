/* The monotonic clock, for timing steps, calls and stalls. */
#ifndef TRL_CLOCK_H
#define TRL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Nanoseconds on the monotonic clock. */
static inline int64_t trl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The same in seconds. */
static inline double trl_now_s(void)
{
    return 1e-9 * (double)trl_now_ns();
}

#endif
