/* A program that calls collectives on several communicators in turn: one
 * allreduce of one int on each of K communicators (MPI_COMM_WORLD and K - 1
 * duplicates), round after round, the MPI library's calls (PMPI_Allreduce)
 * and Trellis' (MPI_Allreduce, libtrellis.so preloaded) alternating in
 * blocks of rounds in one run. A rank's time of a round over K is the time
 * a call; a variant's figure is the median over rounds of the slowest
 * rank's. Every result is checked.
 *
 * Why: Trellis finds its state of a communicator by handle; a program that
 * moves between communicators (a node and a world communicator, say) must
 * not pay the MPI library's attribute lookup on every call.
 *
 * usage: mpirun -np N comm_switch [--comms K] [--rounds N] [--cold BYTES]
 * K from 1 to 16 (default 1,2,4,8 in one run: --comms 0); --cold as
 * bench/latency's. */
#define _GNU_SOURCE /* bench_util.h: RTLD_DEFAULT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { MAX_COMMS = 16, BLOCK = 10 };

static int round_of(MPI_Comm *comms, int k, int trellis, int rank, int size, int it)
{
    int wrong = 0;
    for (int c = 0; c < k; c++) {
        int mine = rank + it + c, sum = -1;
        if (trellis)
            MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comms[c]);
        else
            PMPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comms[c]);
        wrong += sum != size * (it + c) + size * (size - 1) / 2;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, only = 0, rounds = 2000, bad = 0;
    size_t cold_bytes = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc && !bad; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--comms"))
            bad = bench_parse_int(v, 0, &only) || only > MAX_COMMS;
        else if (!strcmp(argv[i], "--rounds"))
            bad = bench_parse_int(v, 1, &rounds);
        else if (!strcmp(argv[i], "--cold"))
            bad = bench_parse_bytes(v, &cold_bytes);
        else
            bad = 1;
    }
    if (bad) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpirun -np N %s [--comms K (1..16)] [--rounds N] "
                    "[--cold BYTES]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm comms[MAX_COMMS] = {MPI_COMM_WORLD};
    for (int c = 1; c < MAX_COMMS; c++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[c]);
    double *t[2] = {malloc(sizeof(double) * (size_t)rounds),
                    malloc(sizeof(double) * (size_t)rounds)};
    double *tmax = malloc(sizeof(double) * (size_t)rounds);
    bench_cold cold = {NULL, 0};
    if (!t[0] || !t[1] || !tmax || bench_cold_init(&cold, cold_bytes) != 0) {
        fprintf(stderr, "comm_switch: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (rank == 0)
        printf("# allreduce of one int on K communicators in turn, %d ranks; us a call, the "
               "slowest rank per round, median over rounds\n%-6s %12s %12s %8s\n",
               size, "comms", "mpi_us", "trellis_us", "ratio");
    static const int ks[] = {1, 2, 4, 8};
    long wrong = 0;
    for (int x = 0; x < (only ? 1 : 4); x++) {
        int k = only ? only : ks[x];
        for (int w = 0; w < 2 * BLOCK; w++) /* warm-up: both variants set up */
            wrong += round_of(comms, k, w % 2, rank, size, w);
        int done[2] = {0, 0};
        for (int it = 0; done[0] < rounds || done[1] < rounds; it++) {
            int v = (it / BLOCK) % 2; /* 0: the MPI library, 1: Trellis */
            if (done[v] >= rounds)
                v = !v;
            bench_cold_sweep(&cold, (unsigned)it);
            PMPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            wrong += round_of(comms, k, v, rank, size, it);
            t[v][done[v]++] = (MPI_Wtime() - t0) / k;
        }
        double med[2];
        for (int v = 0; v < 2; v++) {
            PMPI_Reduce(t[v], tmax, rounds, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            med[v] = rank == 0 ? bench_summarize(tmax, rounds).median : 0;
        }
        if (rank == 0)
            printf("%-6d %12.3f %12.3f %8.3f\n", k, med[0], med[1], med[1] / med[0]);
    }
    long all_wrong = 0;
    PMPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all_wrong ? "# %ld WRONG RESULTS\n" : "# all results correct\n", all_wrong);
    for (int c = 1; c < MAX_COMMS; c++)
        MPI_Comm_free(&comms[c]);
    free(t[0]);
    free(t[1]);
    free(tmax);
    MPI_Finalize();
    return all_wrong != 0;
}
