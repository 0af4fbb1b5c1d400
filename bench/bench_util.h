/* Small helpers both benchmark programs use. Header-only: each program is
 * one file plus this. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
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

#endif
