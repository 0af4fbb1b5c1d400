/* Time per step of the MPI executor, from a hundred steps to a million.
 *
 * Issue 11 found the executor's cost growing faster than its number of
 * steps (about 5x per doubling with small segments). This program builds
 * schedules of one algorithm with ever more steps (small pipeline
 * segments, growing counts) and runs them with the real executor over MPI
 * (src/exec/exec_mpi.c, linked in, nothing preloaded), reporting the
 * median time of a run divided by its number of steps: flat means a
 * constant cost per step.
 *
 * usage: mpirun -np P exec_steps [--rule 'allreduce ring segment=4']
 *                                [--max-steps N] [--reps R] [--shm 0|1]
 * Rows go from about 100 steps up by x4 to --max-steps (default 1e6). Each
 * row runs --reps times (default 5, fewer above 100,000 steps); every run
 * starts after a barrier and is timed on the slowest rank. The result of
 * every run is checked (allreduce/reduce_scatter/bcast of ints). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/params.h"
#include "exec/exec_mpi.h"
#include "exec/shm.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* "coll algo k=v ..." into its parts. */
static int parse_rule(const char *rule, const trl_algo **algo, trl_params *params)
{
    char coll[64], name[64];
    int used = 0;
    if (sscanf(rule, "%63s %63s %n", coll, name, &used) < 2)
        return -1;
    int c = trl_coll_from_name(coll, strlen(coll));
    if (c < 0)
        return -1;
    *algo = trl_algo_find((trl_coll)c, name, strlen(name));
    const char *why = NULL;
    if (!*algo || trl_params_from_string(*algo, rule + used, params, &why) != 0) {
        fprintf(stderr, "exec_steps: bad rule '%s'%s%s\n", rule, why ? ": " : "", why ? why : "");
        return -1;
    }
    return 0;
}

/* Ints every rank can check after one run. */
static void fill(int *send, int *recv, size_t n, int rank, trl_coll coll, int run)
{
    for (size_t i = 0; i < n; i++) {
        send[i] = (int)(i % 1000) + rank + run;
        recv[i] = coll == TRL_COLL_BCAST && rank == 0 ? send[i] : -1;
    }
}

static long check(const int *recv, size_t n, int size, trl_coll coll, int run)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        int want = coll == TRL_COLL_BCAST ? (int)(i % 1000) + run
                                          : size * ((int)(i % 1000) + run) + size * (size - 1) / 2;
        bad += recv[i] != want;
    }
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *rule = "allreduce ring segment=4";
    long max_steps = 1000000;
    int reps = 5, use_shm = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rule"))
            rule = argv[i + 1];
        else if (!strcmp(argv[i], "--max-steps"))
            max_steps = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--shm"))
            use_shm = atoi(argv[i + 1]);
    }
    int rank, size;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const trl_algo *algo = NULL;
    trl_params params = {0};
    if (parse_rule(rule, &algo, &params) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    trl_coll coll = algo->coll;
    if (coll != TRL_COLL_ALLREDUCE && coll != TRL_COLL_BCAST) {
        if (rank == 0)
            fprintf(stderr, "exec_steps: allreduce or bcast rules only\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    trl_shm shm;
    memset(&shm, 0, sizeof shm);
    if (use_shm)
        trl_shm_attach(&shm, comm);
    int *ub, has_ub;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &has_ub);
    trl_exec_mem mem = {0};
    if (rank == 0)
        printf("# rule: %s; ranks %d; shared memory %s; window %zu\n%10s %10s %6s %12s %10s\n",
               rule, size, shm.n ? "on" : "off", trl_exec_window(), "count", "steps", "reps",
               "median_s", "ns/step");
    long bad = 0;
    /* Steps grow with the count; find the count for each row by building. */
    for (size_t count = 8;; count *= 2) {
        trl_coll_args a = {.coll = coll,
                           .rank = rank,
                           .size = size,
                           .root = 0,
                           .count = count,
                           .elem_size = sizeof(int),
                           .commutative = true,
                           .params = &params};
        trl_sched s;
        if (trl_algo_build(algo, &a, &s) != 0)
            MPI_Abort(MPI_COMM_WORLD, 3);
        long steps = (long)s.nsteps, most;
        MPI_Allreduce(&steps, &most, 1, MPI_LONG, MPI_MAX, comm);
        if (most > max_steps) {
            trl_sched_free(&s);
            break;
        }
        /* Rows about x4 apart, from about 100 steps. */
        static long last_row = 0;
        if (most < 100 || (last_row && most < 4 * last_row)) {
            trl_sched_free(&s);
            continue;
        }
        last_row = most;
        int *send = malloc(count * sizeof *send), *recv = malloc(count * sizeof *recv);
        int r = most > 100000 ? (reps < 3 ? reps : 3) : reps;
        double *t = malloc((size_t)r * sizeof *t);
        trl_exec_call call = {coll == TRL_COLL_BCAST ? recv : send,
                              recv,
                              MPI_INT,
                              MPI_SUM,
                              comm,
                              0,
                              *ub,
                              shm.n ? &shm : NULL,
                              NULL,
                              NULL,
                              NULL};
        for (int k = 0; k < r; k++) {
            fill(send, recv, count, rank, coll, k);
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            int rc = trl_exec_mpi(&s, &call, &mem);
            double mine = MPI_Wtime() - t0;
            if (rc != MPI_SUCCESS)
                MPI_Abort(MPI_COMM_WORLD, 4);
            MPI_Allreduce(&mine, &t[k], 1, MPI_DOUBLE, MPI_MAX, comm);
            bad += check(recv, count, size, coll, k);
        }
        qsort(t, (size_t)r, sizeof *t, cmp_double);
        double med = t[r / 2];
        if (rank == 0)
            printf("%10zu %10ld %6d %12.6f %10.1f\n", count, most, r, med,
                   med / (double)most * 1e9);
        fflush(stdout);
        free(t);
        free(send);
        free(recv);
        trl_sched_free(&s);
    }
    long all_bad;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, comm);
    if (rank == 0)
        printf("# %s\n", all_bad ? "WRONG RESULTS" : "all results correct");
    trl_exec_mem_free(&mem);
    trl_shm_detach(&shm);
    trl_params_free(&params);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
