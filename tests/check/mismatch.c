/* Erroneous MPI programs, one per case (argv[1]), each making one mistake
 * the MPI standard forbids in a collective call: run with TRELLIS_CHECK=1
 * (run_mismatch.sh), each must end at once with Trellis' report naming
 * the call, the ranks and the difference. The calls go through
 * call_mode.h, so TRELLIS_TEST_MODE makes them non-blocking or persistent.
 * Needs 4 ranks unless the case says otherwise. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "../mpi/call_mode.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define ALLREDUCE_INIT MPIX_Allreduce_init
#elif MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#endif

static int rank, size;
static int ibuf[64], obuf[1024];

/* rank r's value of something that must match: `odd` on rank `who`. */
#define ON(who, odd, even) (rank == (who) ? (odd) : (even))

static void c_bcast_root(void)
{
    MPI_Bcast(ibuf, 4, MPI_INT, ON(1, 1, 0), MPI_COMM_WORLD);
}
static void c_bcast_count(void)
{
    MPI_Bcast(ibuf, ON(2, 8, 4), MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_bcast_type(void)
{
    MPI_Bcast(ibuf, 4, ON(3, MPI_FLOAT, MPI_INT), 0, MPI_COMM_WORLD);
}
static void c_reduce_root(void)
{
    MPI_Reduce(ibuf, obuf, 4, MPI_INT, MPI_SUM, ON(2, 2, 0), MPI_COMM_WORLD);
}
static void c_reduce_op(void)
{
    MPI_Reduce(ibuf, obuf, 4, MPI_INT, ON(1, MPI_MAX, MPI_SUM), 0, MPI_COMM_WORLD);
}
static void c_reduce_inplace_leaf(void)
{
    MPI_Reduce(ON(2, MPI_IN_PLACE, (void *)ibuf), obuf, 4, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
}
static void c_allreduce_op(void)
{
    MPI_Allreduce(ibuf, obuf, 4, MPI_INT, ON(3, MPI_PROD, MPI_SUM), MPI_COMM_WORLD);
}
static void c_allreduce_count(void)
{
    MPI_Allreduce(ibuf, obuf, ON(0, 5, 4), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void c_allreduce_type(void)
{
    MPI_Allreduce(ibuf, obuf, 2, ON(1, MPI_LONG, MPI_DOUBLE), MPI_MAX, MPI_COMM_WORLD);
}
static void c_allreduce_inplace(void)
{
    MPI_Allreduce(ON(0, MPI_IN_PLACE, (void *)ibuf), obuf, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void c_gather_root(void)
{
    MPI_Gather(ibuf, 1, MPI_INT, obuf, 1, MPI_INT, ON(3, 1, 0), MPI_COMM_WORLD);
}
static void c_gather_count(void)
{
    MPI_Gather(ibuf, ON(2, 2, 1), MPI_INT, obuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_gather_root_self(void)
{
    MPI_Gather(ibuf, ON(0, 3, 2), MPI_INT, obuf, 2, MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_scatter_count(void)
{
    MPI_Scatter(ibuf, 2, MPI_INT, obuf, ON(1, 3, 2), MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_gatherv_counts(void)
{
    int counts[4] = {1, 1, 3, 1}, displs[4] = {0, 1, 2, 5};
    MPI_Gatherv(ibuf, 1, MPI_INT, obuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_scatterv_counts(void)
{
    int counts[4] = {1, 2, 1, 1}, displs[4] = {0, 1, 3, 4};
    MPI_Scatterv(ibuf, counts, displs, MPI_INT, obuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_allgather_count(void)
{
    MPI_Allgather(ibuf, 1, MPI_INT, obuf, ON(3, 2, 1), MPI_INT, MPI_COMM_WORLD);
}
static void c_allgather_inplace(void)
{
    MPI_Allgather(ON(1, MPI_IN_PLACE, (void *)ibuf), 1, MPI_INT, obuf, 1, MPI_INT, MPI_COMM_WORLD);
}
static void c_allgatherv_counts(void)
{
    int counts[4] = {1, 1, 1, 1}, displs[4] = {0, 1, 2, 3};
    MPI_Allgatherv(ibuf, ON(2, 2, 1), MPI_INT, obuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
}
static void c_alltoall_type(void)
{
    MPI_Alltoall(ibuf, 1, ON(0, MPI_FLOAT, MPI_INT), obuf, 1, MPI_INT, MPI_COMM_WORLD);
}
static void c_alltoallv_counts(void)
{
    int sc[4] = {1, 1, 1, 1}, rc[4] = {1, 1, 1, 1}, d[4] = {0, 1, 2, 3};
    if (rank == 1)
        sc[2] = 2; /* rank 2 expects 1 from rank 1 */
    MPI_Alltoallv(ibuf, sc, d, MPI_INT, obuf, rc, d, MPI_INT, MPI_COMM_WORLD);
}
static void c_alltoallw_types(void)
{
    int c[4] = {1, 1, 1, 1}, d[4] = {0, 4, 8, 12};
    MPI_Datatype st[4] = {MPI_INT, MPI_INT, MPI_INT, MPI_INT}, rt[4];
    memcpy(rt, st, sizeof rt);
    if (rank == 3)
        rt[0] = MPI_FLOAT; /* rank 0 sends rank 3 an int */
    MPI_Alltoallw(ibuf, c, d, st, obuf, c, d, rt, MPI_COMM_WORLD);
}
static void c_reduce_scatter_counts(void)
{
    int counts[4] = {1, 1, 1, 1};
    if (rank == 2)
        counts[0] = 2;
    MPI_Reduce_scatter(ibuf, obuf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void c_reduce_scatter_block_op(void)
{
    MPI_Reduce_scatter_block(ibuf, obuf, 1, MPI_INT, ON(0, MPI_MIN, MPI_MAX), MPI_COMM_WORLD);
}
static void c_scan_op(void)
{
    MPI_Scan(ibuf, obuf, 2, MPI_INT, ON(3, MPI_BOR, MPI_BAND), MPI_COMM_WORLD);
}
static void c_exscan_count(void)
{
    MPI_Exscan(ibuf, obuf, ON(1, 3, 2), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
static void c_order(void)
{
    if (rank == 1) {
        MPI_Reduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Bcast(ibuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
    } else {
        MPI_Bcast(ibuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
        MPI_Reduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    }
}
static void c_barrier_vs_allreduce(void)
{
    if (rank == 2)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        MPI_Allreduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
/* The rank that skips the call ends the job after the others' watchdog
 * spoke (TRELLIS_CHECK_TIMEOUT=1). */
static void c_skip(void)
{
    if (rank == 3) {
        sleep(4);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Bcast(ibuf, 1, MPI_INT, 0, MPI_COMM_WORLD);
}
/* Persistent: every rank makes the call and starts it once; then rank 3
 * does not start it again, and the others' second run never ends (MPI
 * lets ranks start persistent collectives in any order, so a start is not
 * compared: the watchdog follows each run). */
static void c_start_skip(void)
{
#ifdef ALLREDUCE_INIT
    MPI_Request req;
    (ALLREDUCE_INIT)(ibuf, obuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int round = 0; round < 2; round++) {
        if (round == 1 && rank == 3) {
            sleep(4);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        if (round == 0)
            MPI_Barrier(MPI_COMM_WORLD);
    }
#else
    if (rank == 0)
        printf("case start_skip: this MPI has no persistent collectives\n");
    MPI_Abort(MPI_COMM_WORLD, 4);
#endif
}
static void c_nonblocking_order(void)
{
    MPI_Request r[2];
    if (rank == 0) {
        MPI_Iallreduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
        MPI_Ibcast(ibuf + 8, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]);
    } else {
        MPI_Ibcast(ibuf + 8, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Iallreduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    }
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
}
/* MPI libraries match blocking and non-blocking collectives apart (and
 * programs rely on it: tests/mpi/test_request_rules.c, crossing), so does
 * the check: a rank's MPI_Ibarrier against the others' MPI_Barrier leaves
 * both waiting, which the watchdog reports; rank 3 ends the job. */
static void on_alarm(int sig)
{
    (void)sig;
    _exit(3);
}
static void c_blocking_vs_nonblocking(void)
{
    if (rank == 3) {
        signal(SIGALRM, on_alarm);
        alarm(4);
    }
    if (rank == 1) {
        MPI_Request r;
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else
        MPI_Barrier(MPI_COMM_WORLD);
}
/* A split with ranks reordered: the report names the sub-communicator's
 * ranks. */
static void c_subcomm_root(void)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &sub);
    int me;
    MPI_Comm_rank(sub, &me);
    if (rank % 2 == 0)
        MPI_Bcast(ibuf, 1, MPI_INT, me == 1 ? 1 : 0, sub);
    else
        MPI_Bcast(ibuf, 1, MPI_INT, 0, sub);
    MPI_Comm_free(&sub);
}
/* Two ranks (world ranks 0 and 2, in reverse: world 0 is rank 1 here),
 * whose checks swap their words directly, not through an allreduce. The
 * odd pair's calls match and it waits at the barrier after. */
static MPI_Comm pair(int *me)
{
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &sub);
    MPI_Comm_rank(sub, me);
    return sub;
}
static void c_pair_reduce_op(void)
{
    int me;
    MPI_Comm sub = pair(&me);
    MPI_Reduce(ibuf, obuf, 1, MPI_INT, ON(0, MPI_MAX, MPI_SUM), 0, sub);
}
static void c_pair_gatherv_counts(void)
{
    int me, counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Comm sub = pair(&me);
    MPI_Gatherv(ibuf, ON(0, 2, 1), MPI_INT, obuf, counts, displs, MPI_INT, 0, sub);
}
static void c_pair_alltoallv_counts(void)
{
    int me, sc[2] = {1, 1}, rc[2] = {1, 1}, d[2] = {0, 2};
    MPI_Comm sub = pair(&me);
    if (rank == 0)
        sc[0] = 2; /* its rank 0 expects 1 from it */
    MPI_Alltoallv(ibuf, sc, d, MPI_INT, obuf, rc, d, MPI_INT, sub);
}
/* Run on 2 ranks (two_*, and some of the cases above): their checks send
 * their words before the call and take the peer's after it, so the call
 * runs mismatched first; each case a way it can end: both ranks waiting
 * for data (the words are looked for while they wait), a message
 * truncated (the error handler takes them), a message larger than
 * shared memory carries, a library collective inside the call, a rank
 * that never calls. */
static void c_two_reduce_root(void)
{
    MPI_Reduce(ibuf, obuf, 4, MPI_INT, MPI_SUM, ON(1, 1, 0), MPI_COMM_WORLD);
}
static void c_two_bcast_count(void)
{
    MPI_Bcast(ibuf, ON(1, 8, 4), MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_two_bcast_large(void)
{
    int n = 1 << 20; /* ints: 4 MiB, and rank 1 expects half of it, then waits for more */
    int *big = calloc((size_t)n, sizeof *big);
    MPI_Bcast(big, ON(1, n / 2, n), MPI_INT, ON(1, 1, 0), MPI_COMM_WORLD);
    free(big);
}
static void c_two_gatherv_counts(void)
{
    int counts[2] = {1, 2}, displs[2] = {0, 1};
    MPI_Gatherv(ibuf, 1, MPI_INT, obuf, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
}
static void c_two_skip(void)
{
    if (rank == 1) {
        sleep(4);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Allreduce(ibuf, obuf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}
/* Intercommunicator: ranks 0-1 (first group) and 2-3. */
static MPI_Comm inter(void)
{
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank < 2 ? 2 : 0, 7, &ic);
    MPI_Comm_free(&local);
    return ic;
}
static void c_inter_two_roots(void)
{
    MPI_Comm ic = inter();
    MPI_Bcast(ibuf, 1, MPI_INT, rank < 2 ? MPI_ROOT : 0, ic);
}
static void c_inter_no_root(void)
{
    MPI_Comm ic = inter();
    MPI_Bcast(ibuf, 1, MPI_INT, rank < 2 ? MPI_PROC_NULL : 0, ic);
}
static void c_inter_allgather_count(void)
{
    MPI_Comm ic = inter();
    MPI_Allgather(ibuf, ON(3, 2, 1), MPI_INT, obuf, 1, MPI_INT, ic);
}
static void c_inter_reduce_op(void)
{
    MPI_Comm ic = inter();
    int root = rank == 0 ? MPI_ROOT : rank == 1 ? MPI_PROC_NULL : 0;
    MPI_Reduce(ibuf, obuf, 1, MPI_INT, ON(2, MPI_MAX, MPI_SUM), root, ic);
}
/* Per-peer counts across the groups (each group 2 ranks): one block a
 * sender's counts make larger than its receiver's expect. */
static void c_inter_alltoallv_counts(void)
{
    MPI_Comm ic = inter();
    int sc[2] = {1, 1}, rc[2] = {1, 1}, d[2] = {0, 2};
    if (rank == 2)
        sc[1] = 2; /* the first group's rank 1 expects 1 from it */
    MPI_Alltoallv(ibuf, sc, d, MPI_INT, obuf, rc, d, MPI_INT, ic);
}
static void c_inter_gatherv_counts(void)
{
    MPI_Comm ic = inter();
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    int root = rank == 0 ? MPI_ROOT : rank == 1 ? MPI_PROC_NULL : 0;
    MPI_Gatherv(ibuf, ON(3, 2, 1), MPI_INT, obuf, counts, displs, MPI_INT, root, ic);
}
static void c_inter_allgatherv_types(void)
{
    MPI_Comm ic = inter();
    int counts[2] = {1, 1}, displs[2] = {0, 1};
    MPI_Allgatherv(ibuf, 1, ON(1, MPI_FLOAT, MPI_INT), obuf, counts, displs, MPI_INT, ic);
}
static MPI_Comm ring(void)
{
    int dims[1] = {size}, periods[1] = {1};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    return cart;
}
static void c_neighbor_alltoall_count(void)
{
    MPI_Neighbor_alltoall(ibuf, 1, MPI_INT, obuf, ON(2, 2, 1), MPI_INT, ring());
}
static void c_neighbor_alltoallv_counts(void)
{
    int sc[2] = {1, ON(0, 2, 1)}, rc[2] = {1, 1}, d[2] = {0, 4};
    MPI_Neighbor_alltoallv(ibuf, sc, d, MPI_INT, obuf, rc, d, MPI_INT, ring());
}
static void c_neighbor_allgather_type(void)
{
    MPI_Neighbor_allgather(ibuf, 1, MPI_INT, obuf, 1, ON(1, MPI_FLOAT, MPI_INT), ring());
}

static const struct {
    const char *name;
    void (*run)(void);
} cases[] = {
#define CASE(n)                                                                                    \
    {                                                                                              \
#n, c_##n                                                                                  \
    }
    CASE(bcast_root),
    CASE(bcast_count),
    CASE(bcast_type),
    CASE(reduce_root),
    CASE(reduce_op),
    CASE(reduce_inplace_leaf),
    CASE(allreduce_op),
    CASE(allreduce_count),
    CASE(allreduce_type),
    CASE(allreduce_inplace),
    CASE(gather_root),
    CASE(gather_count),
    CASE(gather_root_self),
    CASE(scatter_count),
    CASE(gatherv_counts),
    CASE(scatterv_counts),
    CASE(allgather_count),
    CASE(allgather_inplace),
    CASE(allgatherv_counts),
    CASE(alltoall_type),
    CASE(alltoallv_counts),
    CASE(alltoallw_types),
    CASE(reduce_scatter_counts),
    CASE(reduce_scatter_block_op),
    CASE(scan_op),
    CASE(exscan_count),
    CASE(order),
    CASE(barrier_vs_allreduce),
    CASE(skip),
    CASE(nonblocking_order),
    CASE(start_skip),
    CASE(blocking_vs_nonblocking),
    CASE(subcomm_root),
    CASE(two_reduce_root),
    CASE(two_bcast_count),
    CASE(two_bcast_large),
    CASE(two_gatherv_counts),
    CASE(two_skip),
    CASE(pair_reduce_op),
    CASE(pair_gatherv_counts),
    CASE(pair_alltoallv_counts),
    CASE(inter_two_roots),
    CASE(inter_no_root),
    CASE(inter_allgather_count),
    CASE(inter_reduce_op),
    CASE(inter_alltoallv_counts),
    CASE(inter_gatherv_counts),
    CASE(inter_allgatherv_types),
    CASE(neighbor_alltoall_count),
    CASE(neighbor_alltoallv_counts),
    CASE(neighbor_allgather_type),
};

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (size_t i = 0; argc > 1 && i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[1], cases[i].name) == 0) {
            cases[i].run();
            /* Not reached when the check works: the job stops in the call. */
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0)
                printf("case %s: no report\n", argv[1]);
            MPI_Finalize();
            return 0;
        }
    if (rank == 0)
        fprintf(stderr, "mismatch: unknown case %s\n", argc > 1 ? argv[1] : "(none)");
    MPI_Finalize();
    return 2;
}
