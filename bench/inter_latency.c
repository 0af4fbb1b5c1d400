/* Intercommunicator collectives, the MPI library's own against Trellis
 * (issue 14's bar): allreduce, bcast and barrier on an intercommunicator
 * whose two groups are the lower and the upper half of MPI_COMM_WORLD
 * (with ranks placed by block on the emulated cluster, the groups sit on
 * different hosts).
 *
 * Method as bench/latency's (seed 001): for each size, the MPI library's
 * call (PMPI_X) and Trellis' (MPI_X, libtrellis.so preloaded) alternate in
 * blocks of 10 iterations in one run; each iteration starts after
 * PMPI_Barrier on MPI_COMM_WORLD and is timed on every rank; an
 * iteration's time is the slowest rank's, a variant's the median over its
 * iterations. Every 10th result is checked against values computed here
 * (allreduce: each group gets the sum of the other group's vectors; bcast:
 * rank 0 of the lower group is the root, the upper group receives).
 *
 * usage: mpirun -np N inter_latency [--colls allreduce,bcast,barrier]
 *            [--min BYTES] [--max BYTES] [--step F] [--iters N]
 *            [--min-iters N] [--scale BYTES] [--cold BYTES] [--csv FILE]
 * N at least 2. Sizes are the message in bytes (4-byte ints). --cold: as
 * bench/latency's, a buffer written over before each timed call. */
#define _GNU_SOURCE /* bench_util.h: RTLD_DEFAULT */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

enum { ALLREDUCE, BCAST, BARRIER, NKIND };
static const char *const kind_names[NKIND] = {"allreduce", "bcast", "barrier"};
enum { BLOCK = 10, MAX_SIZES = 64 };

typedef struct {
    MPI_Comm inter;
    int world_rank, world_size, group, local_rank, remote_size;
    int remote_first; /* world rank of the remote group's rank 0 */
} setup;

/* One call of kind k on the intercommunicator: the library's or Trellis'. */
static int call(const setup *s, int k, int trellis, int *send, int *recv, int count)
{
    int root = s->group == 0 ? (s->local_rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    switch (k) {
    case ALLREDUCE:
        return trellis ? MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, s->inter)
                       : PMPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, s->inter);
    case BCAST:
        return trellis ? MPI_Bcast(recv, count, MPI_INT, root, s->inter)
                       : PMPI_Bcast(recv, count, MPI_INT, root, s->inter);
    default: return trellis ? MPI_Barrier(s->inter) : PMPI_Barrier(s->inter);
    }
}

static void fill(const setup *s, int k, int *send, int *recv, int count, int it)
{
    for (int i = 0; i < count; i++) {
        send[i] = s->world_rank + i + it;
        recv[i] = (k == BCAST && s->group == 0 && s->local_rank == 0) ? 7 * i + it : -1;
    }
}

/* Wrong elements of this rank's result (0: right). */
static long check(const setup *s, int k, const int *recv, int count, int it)
{
    long wrong = 0;
    for (int i = 0; i < count; i++) {
        long want;
        if (k == ALLREDUCE) { /* the other group's ranks: remote_first .. +remote_size-1 */
            long n = s->remote_size, first = s->remote_first;
            want = n * (i + it) + n * first + n * (n - 1) / 2;
            want = (int)want; /* MPI_SUM of ints wraps as the library's does */
        } else if (k == BCAST) {
            want = s->group == 1 || s->local_rank == 0 ? 7 * i + it : -1;
        } else {
            return 0;
        }
        wrong += recv[i] != (int)want;
    }
    return wrong;
}

static int parse_colls(const char *list, int *on)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
        int k = 0;
        while (k < NKIND && strcmp(t, kind_names[k]))
            k++;
        if (k == NKIND)
            return -1;
        on[k] = 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    setup s = {0};
    MPI_Comm_rank(MPI_COMM_WORLD, &s.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.world_size);
    int on[NKIND] = {1, 1, 1}, iters = 1000, min_iters = 20, step = 4;
    size_t min = 4, max = 4 << 20, scale = 256 << 10, cold_bytes = 0;
    const char *csv_path = NULL;
    int bad = s.world_size < 2;
    for (int i = 1; i < argc && !bad; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--colls")) {
            memset(on, 0, sizeof on);
            bad = parse_colls(v, on);
        } else if (!strcmp(argv[i], "--min"))
            bad = bench_parse_bytes(v, &min);
        else if (!strcmp(argv[i], "--max"))
            bad = bench_parse_bytes(v, &max);
        else if (!strcmp(argv[i], "--scale"))
            bad = bench_parse_bytes(v, &scale);
        else if (!strcmp(argv[i], "--step"))
            bad = bench_parse_int(v, 2, &step);
        else if (!strcmp(argv[i], "--iters"))
            bad = bench_parse_int(v, 1, &iters);
        else if (!strcmp(argv[i], "--min-iters"))
            bad = bench_parse_int(v, 1, &min_iters);
        else if (!strcmp(argv[i], "--cold"))
            bad = bench_parse_bytes(v, &cold_bytes);
        else if (!strcmp(argv[i], "--csv"))
            csv_path = v;
        else
            bad = 1;
        i++;
    }
    if (bad) {
        if (s.world_rank == 0)
            fprintf(stderr,
                    "usage: mpirun -np N (N >= 2) %s [--colls allreduce,bcast,barrier] "
                    "[--min B] [--max B] [--step F] [--iters N] [--min-iters N] "
                    "[--scale B] [--cold B] [--csv FILE]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    bench_cold cold;
    if (bench_cold_init(&cold, cold_bytes) != 0) {
        fprintf(stderr, "inter_latency: out of memory for --cold\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int lower = s.world_size / 2;
    s.group = s.world_rank >= lower;
    MPI_Comm local;
    PMPI_Comm_split(MPI_COMM_WORLD, s.group, s.world_rank, &local);
    PMPI_Intercomm_create(local, 0, MPI_COMM_WORLD, s.group ? 0 : lower, 99, &s.inter);
    PMPI_Comm_rank(local, &s.local_rank);
    PMPI_Comm_remote_size(s.inter, &s.remote_size);
    s.remote_first = s.group ? 0 : lower;

    size_t sizes[MAX_SIZES];
    int nsizes = bench_sizes(min, max, (size_t)step, sizes, MAX_SIZES);
    size_t max_count = max / sizeof(int) + 1;
    int *send = malloc(max_count * sizeof(int)), *recv = malloc(max_count * sizeof(int));
    int total = iters > min_iters ? iters : min_iters;
    double *t[2] = {malloc(total * sizeof(double)), malloc(total * sizeof(double))};
    double *tmax = malloc(total * sizeof(double));
    FILE *csv = NULL;
    int csv_ok = 1;
    if (s.world_rank == 0 && csv_path && !(csv = fopen(csv_path, "w"))) {
        fprintf(stderr, "inter_latency: cannot open %s\n", csv_path);
        csv_ok = 0;
    }
    PMPI_Bcast(&csv_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!csv_ok) {
        MPI_Finalize();
        return 2;
    }
    if (s.world_rank == 0) {
        printf("# intercommunicator %d + %d ranks (lower and upper half of the world); "
               "times in us, the slowest rank per iteration, median over iterations\n",
               lower, s.world_size - lower);
        printf("%-10s %10s %7s %12s %12s %8s\n", "collective", "bytes", "iters", "mpi_us",
               "trellis_us", "ratio");
        if (csv)
            fprintf(csv, "collective,bytes,ranks_lower,ranks_upper,iters,mpi_median_us,"
                         "trellis_median_us,ratio,errors\n");
    }
    long errors = 0;
    for (int k = 0; k < NKIND; k++) {
        if (!on[k])
            continue;
        for (int z = 0; z < (k == BARRIER ? 1 : nsizes); z++) {
            size_t bytes = k == BARRIER ? 0 : sizes[z];
            int count = (int)(bytes / sizeof(int));
            int n = bench_iterations(iters, scale, min_iters, bytes ? bytes : 1);
            long wrong = 0;
            for (int w = 0; w < 2 * BLOCK; w++) { /* warm-up, both variants */
                fill(&s, k, send, recv, count, w);
                call(&s, k, w % 2, send, recv, count);
                wrong += check(&s, k, recv, count, w);
            }
            int done[2] = {0, 0};
            for (int it = 0; done[0] < n || done[1] < n; it++) {
                int v = (it / BLOCK) % 2; /* 0: the MPI library, 1: Trellis */
                if (done[v] >= n)
                    v = !v;
                fill(&s, k, send, recv, count, it);
                bench_cold_sweep(&cold, (unsigned)it);
                PMPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                call(&s, k, v, send, recv, count);
                t[v][done[v]++] = MPI_Wtime() - t0;
                if (it % 10 == 0)
                    wrong += check(&s, k, recv, count, it);
            }
            double med[2];
            for (int v = 0; v < 2; v++) {
                PMPI_Reduce(t[v], tmax, n, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
                med[v] = s.world_rank == 0 ? bench_summarize(tmax, n).median : 0;
            }
            long all_wrong = 0;
            PMPI_Reduce(&wrong, &all_wrong, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            errors += all_wrong;
            if (s.world_rank == 0) {
                char h[32];
                bench_human_bytes(bytes, h, sizeof h);
                printf("%-10s %10s %7d %12.2f %12.2f %8.3f%s\n", kind_names[k], h, n, med[0],
                       med[1], med[1] / med[0], all_wrong ? "  WRONG RESULTS" : "");
                if (csv)
                    fprintf(csv, "%s,%zu,%d,%d,%d,%.4f,%.4f,%.4f,%ld\n", kind_names[k], bytes,
                            lower, s.world_size - lower, n, med[0], med[1], med[1] / med[0],
                            all_wrong);
                fflush(stdout);
            }
        }
    }
    if (s.world_rank == 0) {
        printf("# %s\n",
               errors ? "WRONG RESULTS: see the rows marked" : "all checked results correct");
        if (csv)
            fclose(csv);
    }
    free(send), free(recv), free(t[0]), free(t[1]), free(tmax);
    PMPI_Comm_free(&s.inter);
    PMPI_Comm_free(&local);
    MPI_Finalize();
    return errors ? 1 : 0;
}
