/* Collectives on many communicators, intra and inter, made and freed over
 * and over (recent.h: Trellis remembers the state of the last few
 * communicators a thread called collectives on, by handle).
 *
 * Each round calls allreduce on more communicators than Trellis remembers,
 * in turn, so entries are replaced; then frees the round's intercommunicator
 * and at once makes an intracommunicator, which the MPI library may give
 * the freed handle: its allreduce must be the intracommunicator's (the sum
 * over the whole group), not the intercommunicator's (the sum over the
 * other group), nor touch the freed state. Every result is checked against
 * values computed here.
 *
 *   mpirun -np N test_comm_reuse   (N >= 2) exit 0 and "..., 0 failed" */
#include <mpi.h>
#include <stdio.h>

enum { ROUNDS = 8, DUPS = 5 };

static int rank, size, failures, calls, reused;

/* Sum over ranks first..first+n-1 of (r + round). */
static long long span_sum(int first, int n, int round)
{
    return (long long)n * round + (long long)n * first + (long long)n * (n - 1) / 2;
}

/* An allreduce of (world rank + round) on comm; want is its sum. */
static void check(MPI_Comm comm, const char *what, int round, long long want)
{
    long long mine = rank + round, got = -1;
    MPI_Allreduce(&mine, &got, 1, MPI_LONG_LONG, MPI_SUM, comm);
    calls++;
    if (got != want && failures++ < 10)
        fprintf(stderr, "rank %d: %s round %d: %lld, expected %lld\n", rank, what, round, got,
                want);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "test_comm_reuse: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lower = size / 2, upper = rank >= lower;
    long long all = span_sum(0, size, 0);
    /* Made once: each made under Trellis costs collectives of its own, and
     * ranks sharing cores under MPICH's busy polling pay for each. */
    MPI_Comm dup[DUPS];
    for (int d = 0; d < DUPS; d++)
        MPI_Comm_dup(MPI_COMM_WORLD, &dup[d]);
    for (int round = 0; round < ROUNDS; round++) {
        /* The halves, reordered within (key: minus the rank): each half's
         * rank 0, the intercommunicator's leader, is its last world rank. */
        MPI_Comm half, inter, whole;
        MPI_Comm_split(MPI_COMM_WORLD, upper, -rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, upper ? lower - 1 : size - 1, 7, &inter);
        long long lower_sum = span_sum(0, lower, round),
                  upper_sum = span_sum(lower, size - lower, round);
        long long own = upper ? upper_sum : lower_sum, other = upper ? lower_sum : upper_sum;
        /* Nine communicators in turn, twice: more than Trellis remembers
         * (eight). */
        for (int twice = 0; twice < 2; twice++) {
            check(MPI_COMM_WORLD, "world", round, all + (long long)size * round);
            check(half, "half", round, own);
            check(inter, "inter", round, other);
            for (int d = 0; d < DUPS; d++)
                check(dup[d], "dup", round, all + (long long)size * round);
            check(MPI_COMM_SELF, "self", round, rank + round);
        }
        /* The intercommunicator goes; the next communicator may get its
         * handle, and must be taken for what it is. */
        MPI_Comm gone = inter;
        MPI_Comm_free(&inter);
        MPI_Comm_dup(MPI_COMM_WORLD, &whole);
        reused += whole == gone; /* what the table must not be fooled by */
        check(whole, "dup after the intercommunicator", round, all + (long long)size * round);
        /* And the other way round: an intracommunicator freed, an
         * intercommunicator made. */
        MPI_Comm_free(&whole);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, upper ? lower - 1 : size - 1, 8, &inter);
        check(inter, "intercommunicator after the dup", round, other);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    for (int d = 0; d < DUPS; d++)
        MPI_Comm_free(&dup[d]);
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_comm_reuse: %d ranks, %d calls a rank, a freed intercommunicator's handle "
               "given to the next communicator in %d of %d rounds, %d failed\n",
               size, calls, reused, ROUNDS, total);
    MPI_Finalize();
    return total != 0;
}
