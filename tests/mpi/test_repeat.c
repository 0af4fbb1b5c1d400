/* Repeated calls of the uniform data movers (gather, scatter, allgather,
 * alltoall, neighbor_allgather, neighbor_alltoall), which Trellis runs
 * without re-checking their arguments when a call repeats the last one
 * (coll_common.h, trl_move_repeat). Every call gets new buffers and new
 * data, and its result is checked against values computed here:
 *
 *   - the same arguments over and over, with another collective between
 *     repeats (with TRELLIS_CACHE_SIZE=1 it evicts the schedule the repeat
 *     ran last time), the root moving and MPI_IN_PLACE coming and going;
 *   - the same call in another form (non-blocking) between blocking ones;
 *   - a derived datatype freed and another made, whose handle the MPI
 *     library may give again, with another layout: the same handle must
 *     not mean the old type's layout.
 *
 *   mpirun -np N test_repeat    exit 0 and "..., 0 failed": passed (a plain
 *                               MPI program) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 24, POISON = -7 };

static int rank, size, failures;

static int value(int from, int to, int i, int round)
{
    return from * 1000003 + to * 10007 + i * 31 + round * 7 + 1;
}

static void expect(const char *what, int round, const int *got, int i, int want)
{
    if (got[i] != want && failures++ < 10)
        fprintf(stderr, "rank %d: %s round %d: element %d is %d, expected %d\n", rank, what, round,
                i, got[i], want);
}

static int *fresh(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = POISON;
    return p;
}

/* Between repeats: a collective of another kind, which may take the cache
 * entry the repeat used last time. */
static void other_call(int round)
{
    int x = round + rank, sum;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != round * size + size * (size - 1) / 2 && failures++ < 10)
        fprintf(stderr, "rank %d: allreduce round %d: %d\n", rank, round, sum);
}

/* Blocking, or started and waited for. */
static void finish(MPI_Request *req)
{
    if (*req != MPI_REQUEST_NULL)
        MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void gather_round(int n, int round, int root, int in_place, int nb)
{
    int *send = fresh((size_t)n), *recv = fresh((size_t)n * size);
    for (int i = 0; i < n; i++)
        send[i] = value(rank, root, i, round);
    if (in_place && rank == root)
        memcpy(recv + (size_t)root * n, send, (size_t)n * sizeof *send);
    const void *sb = in_place && rank == root ? MPI_IN_PLACE : send;
    MPI_Request req = MPI_REQUEST_NULL;
    if (nb)
        MPI_Igather(sb, n, MPI_INT, recv, n, MPI_INT, root, MPI_COMM_WORLD, &req);
    else
        MPI_Gather(sb, n, MPI_INT, recv, n, MPI_INT, root, MPI_COMM_WORLD);
    finish(&req);
    for (int r = 0; rank == root && r < size; r++)
        for (int i = 0; i < n; i++)
            expect("gather", round, recv, r * n + i, value(r, root, i, round));
    free(send);
    free(recv);
}

static void scatter_round(int n, int round, int root, int in_place, int nb)
{
    int *send = fresh((size_t)n * size), *recv = fresh((size_t)n);
    for (int r = 0; rank == root && r < size; r++)
        for (int i = 0; i < n; i++)
            send[r * n + i] = value(root, r, i, round);
    void *rb = in_place && rank == root ? MPI_IN_PLACE : recv;
    MPI_Request req = MPI_REQUEST_NULL;
    if (nb)
        MPI_Iscatter(send, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD, &req);
    else
        MPI_Scatter(send, n, MPI_INT, rb, n, MPI_INT, root, MPI_COMM_WORLD);
    finish(&req);
    const int *mine = in_place && rank == root ? send + (size_t)root * n : recv;
    for (int i = 0; i < n; i++)
        expect("scatter", round, mine, i, value(root, rank, i, round));
    free(send);
    free(recv);
}

static void allgather_round(int n, int round, int in_place, int nb)
{
    int *send = fresh((size_t)n), *recv = fresh((size_t)n * size);
    for (int i = 0; i < n; i++)
        send[i] = value(rank, 0, i, round);
    if (in_place)
        memcpy(recv + (size_t)rank * n, send, (size_t)n * sizeof *send);
    MPI_Request req = MPI_REQUEST_NULL;
    if (nb)
        MPI_Iallgather(in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD,
                       &req);
    else
        MPI_Allgather(in_place ? MPI_IN_PLACE : send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD);
    finish(&req);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            expect("allgather", round, recv, r * n + i, value(r, 0, i, round));
    free(send);
    free(recv);
}

static void alltoall_round(int n, int round, int nb)
{
    int *send = fresh((size_t)n * size), *recv = fresh((size_t)n * size);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            send[r * n + i] = value(rank, r, i, round);
    MPI_Request req = MPI_REQUEST_NULL;
    if (nb)
        MPI_Ialltoall(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD, &req);
    else
        MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, MPI_COMM_WORLD);
    finish(&req);
    for (int r = 0; r < size; r++)
        for (int i = 0; i < n; i++)
            expect("alltoall", round, recv, r * n + i, value(r, rank, i, round));
    free(send);
    free(recv);
}

/* neighbor_alltoall on a periodic ring (MPI_Cart_create, one dimension):
 * block 0 goes to the negative neighbour, block 1 to the positive one;
 * receive block 0 is what the negative neighbour sent in the positive
 * direction, block 1 what the positive one sent in the negative (the
 * standard's pairing; on 1 or 2 ranks both neighbours are one rank, the
 * direction still tells the blocks apart). */
static void neighbor_round(MPI_Comm ring, int n, int round, int nb)
{
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    int *send = fresh((size_t)2 * n), *recv = fresh((size_t)2 * n);
    for (int i = 0; i < n; i++) {
        send[i] = value(rank, 0, i, round);
        send[n + i] = value(rank, 1, i, round);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    if (nb)
        MPI_Ineighbor_alltoall(send, n, MPI_INT, recv, n, MPI_INT, ring, &req);
    else
        MPI_Neighbor_alltoall(send, n, MPI_INT, recv, n, MPI_INT, ring);
    finish(&req);
    for (int i = 0; i < n; i++) {
        expect("neighbor_alltoall", round, recv, i, value(left, 1, i, round));
        expect("neighbor_alltoall", round, recv, n + i, value(right, 0, i, round));
    }
    free(send);
    free(recv);
}

/* neighbor_allgather of one element of type t (as allgather_typed) on the
 * ring: block 0 from the negative neighbour, block 1 from the positive. */
static void neighbor_typed(MPI_Comm ring, MPI_Datatype t, int extent, int round)
{
    int from[2] = {(rank + size - 1) % size, (rank + 1) % size};
    int *recv = fresh((size_t)extent * 2), *sendbuf = fresh((size_t)extent);
    sendbuf[0] = value(rank, 2, 0, round);
    sendbuf[extent - 1] = value(rank, 2, 1, round);
    MPI_Neighbor_allgather(sendbuf, 1, t, recv, 1, t, ring);
    for (int b = 0; b < 2; b++) {
        expect("neighbor_allgather typed", round, recv, b * extent, value(from[b], 2, 0, round));
        expect("neighbor_allgather typed", round, recv, b * extent + extent - 1,
               value(from[b], 2, 1, round));
        for (int i = 1; i < extent - 1; i++)
            expect("neighbor_allgather typed (gap)", round, recv, b * extent + i, POISON);
    }
    free(recv);
    free(sendbuf);
}

/* An allgather of one element of type t (2 ints spread over `extent`
 * ints) per rank; the ints between are left alone. */
static void allgather_typed(MPI_Datatype t, int extent, int round)
{
    int send[2] = {value(rank, 1, 0, round), value(rank, 1, 1, round)};
    int *recv = fresh((size_t)extent * size), *sendbuf = fresh((size_t)extent);
    sendbuf[0] = send[0];
    sendbuf[extent - 1] = send[1];
    MPI_Allgather(sendbuf, 1, t, recv, 1, t, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++) {
        expect("allgather typed", round, recv, r * extent, value(r, 1, 0, round));
        expect("allgather typed", round, recv, r * extent + extent - 1, value(r, 1, 1, round));
        for (int i = 1; i < extent - 1; i++)
            expect("allgather typed (gap)", round, recv, r * extent + i, POISON);
    }
    free(recv);
    free(sendbuf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm ring;
    int dims[1] = {size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    for (int round = 0; round < ROUNDS; round++) {
        /* Mostly the same call; now and then another count, root, form. */
        int n = round % 5 == 4 ? 3 : 5, root = (round / 3) % size;
        int in_place = round % 4 == 3, nb = round % 6 == 5;
        gather_round(n, round, root, in_place, nb);
        other_call(round);
        scatter_round(n, round, root, in_place, nb);
        other_call(round);
        allgather_round(n, round, in_place, nb);
        other_call(round);
        alltoall_round(n, round, nb);
        other_call(round);
        neighbor_round(ring, n, round, nb);
        other_call(round);
    }
    /* A derived type's handle freed and maybe given again to another type:
     * two ints back to back, then two ints with one between. */
    for (int round = 0; round < 4; round++) {
        MPI_Datatype t;
        int extent = round % 2 ? 3 : 2;
        if (extent == 2)
            MPI_Type_contiguous(2, MPI_INT, &t);
        else
            MPI_Type_vector(2, 1, 2, MPI_INT, &t);
        MPI_Type_commit(&t);
        allgather_typed(t, extent, round);
        allgather_typed(t, extent, round);
        neighbor_typed(ring, t, extent, round);
        neighbor_typed(ring, t, extent, round);
        MPI_Type_free(&t);
    }
    MPI_Comm_free(&ring);
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_repeat: %d ranks, %d failed\n", size, all);
    MPI_Finalize();
    return all != 0;
}
