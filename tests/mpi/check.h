/* What the request programs (test_nonblocking.c, test_request_rules.c)
 * share: CHECK counts a check and reports a failed one with the rank and
 * the line (the program defines rank, failures and checks), the summary
 * at the end, and a small generator of pseudo-random numbers. */
#ifndef TRL_TEST_CHECK_H
#define TRL_TEST_CHECK_H

#include <mpi.h>
#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __func__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* Every rank's failures and checks summed on rank 0 of MPI_COMM_WORLD,
 * which prints "NAME ranks=N[EXTRA]: C checks, F failed"; before
 * MPI_Finalize. Returns the exit status: rank 0's from the sums, another
 * rank's from its own failures. */
static inline int check_summary(const char *name, const char *extra, int failures, int checks)
{
    int me, size, all_fail = 0, all_checks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    PMPI_Reduce(&failures, &all_fail, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&checks, &all_checks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%s ranks=%d%s: %d checks, %d failed\n", name, size, extra, all_checks, all_fail);
    fflush(stdout);
    return (me == 0 ? all_fail : failures) ? 1 : 0;
}

static inline unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

#endif
