/* Pipelines long enough that one pair of ranks exchanges more messages in a
 * call than the MPI executor has tags for a run (tag_span, 65536: message k
 * goes as tag_base + k % tag_span, src/exec/exec_mpi.c), so messages a span
 * apart share an MPI tag. They must still each reach their own receive
 * (trl_sched_finish chains them, TRL_SCHED_TAG_PERIOD). A plain MPI
 * program: the test suite runs it under rules forcing bcast and reduce in
 * chains and allreduce in a ring, all in 16-byte segments, and checks every
 * element against values computed here.
 *
 *   tag_wrap [count]     count ints (300000: 75000 segments, more than
 *                        65536 a pair in each collective on 3 ranks);
 *                        exit status 0 when every element is right */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int value(int rank, int i)
{
    return (rank + 1) * 3 + i % 1009;
}

static long wrong(const int *got, int n, int (*expect)(int, int), int p)
{
    long bad = 0;
    for (int i = 0; i < n; i++)
        bad += got[i] != expect(p, i);
    return bad;
}

static int bcast_expect(int p, int i)
{
    (void)p;
    return value(0, i);
}

static int sum_expect(int p, int i)
{
    int s = 0;
    for (int r = 0; r < p; r++)
        s += value(r, i);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int n = argc > 1 ? atoi(argv[1]) : 300000;
    int *buf = malloc((size_t)n * sizeof *buf), *out = malloc((size_t)n * sizeof *out);
    if (n <= 0 || !buf || !out)
        MPI_Abort(MPI_COMM_WORLD, 2);
    long bad[3] = {0, 0, 0};

    for (int i = 0; i < n; i++)
        buf[i] = rank == 0 ? value(0, i) : -1;
    MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
    bad[0] = wrong(buf, n, bcast_expect, p);

    for (int i = 0; i < n; i++) {
        buf[i] = value(rank, i);
        out[i] = -1;
    }
    MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        bad[1] = wrong(out, n, sum_expect, p);

    for (int i = 0; i < n; i++)
        out[i] = -1;
    MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    bad[2] = wrong(out, n, sum_expect, p);

    long all[3];
    MPI_Allreduce(bad, all, 3, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int failed = (all[0] > 0) + (all[1] > 0) + (all[2] > 0);
    if (rank == 0)
        printf("tag_wrap: %d ints on %d ranks; wrong elements: bcast %ld, reduce %ld, "
               "allreduce %ld; 3 collectives, %d failed\n",
               n, p, all[0], all[1], all[2], failed);
    free(buf);
    free(out);
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
