/* Small helpers the benchmark programs share: option parsing, statistics of
 * timed iterations, sizes in words. Header-only. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A decimal integer >= min, the whole string; 0 on success, -1 otherwise. */
static inline int bench_parse_int(const char *s, int min, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < min || v > INT_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

/* The address of trellis_version when libtrellis.so is in this process
 * (preloaded or linked), NULL when it is not. */
static inline const char *(*bench_trellis_version_fn(void))(void)
{
    void *sym = dlsym(RTLD_DEFAULT, "trellis_version");
    const char *(*fn)(void) = NULL;
    if (sym)
        memcpy(&fn, &sym, sizeof fn);
    return fn;
}

/* A byte count with an optional binary suffix (K, M, G, KiB, MB, ...); 0 on
 * success, -1 otherwise. */
static inline int bench_parse_bytes(const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s || s[0] == '-')
        return -1;
    unsigned long long mul = 1;
    switch (*end) {
    case 'k':
    case 'K': mul = 1ULL << 10; break;
    case 'm':
    case 'M': mul = 1ULL << 20; break;
    case 'g':
    case 'G': mul = 1ULL << 30; break;
    default: break;
    }
    if (mul != 1) {
        end++;
        if (*end == 'i')
            end++;
    }
    if (*end == 'B')
        end++;
    if (*end != '\0' || v > SIZE_MAX / mul)
        return -1;
    *out = (size_t)(v * mul);
    return 0;
}

/* "16M", "64K" or "100": a size as the tables print it. */
static inline void bench_human_bytes(size_t bytes, char *out, size_t len)
{
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, len, "%zuM", bytes >> 20);
    else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
        snprintf(out, len, "%zuK", bytes >> 10);
    else
        snprintf(out, len, "%zu", bytes);
}

/* The sizes of a sweep: min, min x step, ... up to max, and max itself when
 * the steps do not land on it; at most cap of them. Returns how many. */
static inline int bench_sizes(size_t min, size_t max, size_t step, size_t *sizes, int cap)
{
    int n = 0;
    for (size_t s = min; s <= max && n < cap - 1; s *= step) {
        sizes[n++] = s;
        if (s > max / step)
            break;
    }
    if (n == 0 || sizes[n - 1] != max)
        sizes[n++] = max;
    return n;
}

/* Iterations of a row of `bytes`: clamp(iters * scale / bytes, min_iters,
 * iters), iters for 0 bytes (barrier). */
static inline int bench_iterations(int iters, size_t scale, int min_iters, size_t bytes)
{
    if (bytes == 0)
        return iters;
    double n = (double)iters * (double)scale / (double)bytes;
    n = n > iters ? iters : n;
    n = n < min_iters ? min_iters : n;
    return (int)n;
}

/* --cold: a buffer written over before each timed call, so that the call
 * starts with caches that hold none of the MPI library's or Trellis' state,
 * as a call after a program's compute phase does. */
typedef struct {
    unsigned char *buf;
    size_t bytes;
} bench_cold;

/* Writes over the buffer (nothing when it is empty); `pass` varies the
 * bytes so that the compiler cannot drop the writes. */
static inline void bench_cold_sweep(bench_cold *c, unsigned pass)
{
    if (c->bytes)
        memset(c->buf, (int)(pass & 0xff), c->bytes);
}

/* Allocates the buffer of --cold BYTES; 0 on success. */
static inline int bench_cold_init(bench_cold *c, size_t bytes)
{
    c->bytes = bytes;
    c->buf = bytes ? malloc(bytes) : NULL;
    return bytes && !c->buf ? -1 : 0;
}

/* Statistics of timed iterations, in microseconds. */
typedef struct {
    double median;
    double p10;
    double p90;
    double min;
} bench_stats;

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Quantile of sorted data with linear interpolation between ranks. */
static inline double bench_quantile(const double *sorted, int n, double p)
{
    double h = (n - 1) * p;
    int lo = (int)floor(h);
    int hi = lo + 1 < n ? lo + 1 : lo;
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
}

/* Sorts n times (seconds) in place and returns their statistics. */
static inline bench_stats bench_summarize(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
    bench_stats s = {
        .median = bench_quantile(t, n, 0.5) * 1e6,
        .p10 = bench_quantile(t, n, 0.1) * 1e6,
        .p90 = bench_quantile(t, n, 0.9) * 1e6,
        .min = t[0] * 1e6,
    };
    return s;
}

#endif
