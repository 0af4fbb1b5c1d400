/* Test-only preload: malloc, calloc and realloc of at least
 * TRL_TEST_FAIL_BYTES bytes fail on the rank TRL_TEST_FAIL_RANK of
 * MPI_COMM_WORLD (read from the launcher's environment: Open MPI's
 * OMPI_COMM_WORLD_RANK, MPICH's PMI_RANK), as they would when that rank's
 * memory runs out. Loaded ahead of libtrellis.so by run_no_memory.sh. */
#include <errno.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* The threshold on the failing rank, SIZE_MAX elsewhere (and before it is
 * read): read once as the library loads, before any thread. */
static size_t threshold = (size_t)-1;

__attribute__((constructor)) static void read_threshold(void)
{
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMI_RANK");
    const char *want = getenv("TRL_TEST_FAIL_RANK");
    const char *bytes = getenv("TRL_TEST_FAIL_BYTES");
    if (rank && want && bytes && atoi(rank) == atoi(want))
        threshold = (size_t)strtoull(bytes, NULL, 10);
}

static size_t limit(void)
{
    return threshold;
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
