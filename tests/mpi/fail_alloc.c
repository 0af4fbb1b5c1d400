/* Test-only preload: malloc, calloc and realloc of at least
 * TRL_TEST_FAIL_BYTES bytes fail on the rank TRL_TEST_FAIL_RANK of
 * MPI_COMM_WORLD (read from the launcher's environment: Open MPI's
 * OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK), as they would when that rank's
 * memory runs out. Loaded ahead of libtrellis.so by run_no_memory.sh. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* The threshold on the failing rank, SIZE_MAX elsewhere (getenv does not
 * allocate, so reading it here is safe). */
static size_t limit(void)
{
    static size_t cached;
    static bool read;
    if (!read) {
        const char *rank = getenv("OMPI_COMM_WORLD_RANK");
        if (!rank)
            rank = getenv("PMI_RANK");
        const char *want = getenv("TRL_TEST_FAIL_RANK");
        const char *bytes = getenv("TRL_TEST_FAIL_BYTES");
        bool here = rank && want && bytes && atoi(rank) == atoi(want);
        cached = here ? (size_t)strtoull(bytes, NULL, 10) : (size_t)-1;
        read = true;
    }
    return cached;
}

void *malloc(size_t n)
{
    if (n >= limit()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    if (size && n >= limit() / size) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    if (n >= limit()) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n);
}
