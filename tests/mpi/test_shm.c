/* The shared-memory transport (src/exec/shm.c) on its own, under real
 * mpirun: matching by tag whatever the order, the stash keeping arrival
 * order across calls, a full ring and a drain that frees it, packing of a
 * non-contiguous type, a size mismatch, a sleeping receiver woken by its
 * sender, a communicator with reordered ranks, and TRELLIS_SHM=0. Needs 2
 * or more ranks on one node; two ranks do the exchanges, the others check
 * that they are mapped.
 * Prints "test_shm: N checks, F failed" and exits non-zero on a failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/shm.h"

static int checks, failed, rank;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failed++;                                                                              \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __FILE__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

/* 1 sent, 0 the ring is full, -1 an error. */
static int try_send(trl_shm *s, int peer, int tag, const void *buf, int count, MPI_Datatype t,
                    MPI_Comm comm)
{
    bool done;
    int rc = trl_shm_send(s, peer, tag, buf, count, t, comm, &done);
    return rc != MPI_SUCCESS ? -1 : done;
}

/* Receive (peer, tag), polling: the MPI error code. A message that never
 * comes fails the test instead of hanging it. */
static int recv_until(trl_shm *s, int peer, int tag, void *buf, int count, MPI_Datatype t,
                      MPI_Comm comm)
{
    for (long i = 0; i < 100000000L; i++) {
        bool done;
        int rc = trl_shm_recv(s, peer, tag, buf, count, t, comm, &done);
        if (rc != MPI_SUCCESS || done)
            return rc;
    }
    CHECK(0, "recv tag %d never arrived", tag);
    return MPI_ERR_PENDING;
}

static int recv_int(trl_shm *s, int peer, int tag, MPI_Comm comm)
{
    int v = -1;
    int rc = recv_until(s, peer, tag, &v, 1, MPI_INT, comm);
    CHECK(rc == MPI_SUCCESS, "recv tag %d returned %d", tag, rc);
    return rc == MPI_SUCCESS ? v : -1;
}

static void send_int(trl_shm *s, int peer, int tag, int v, MPI_Comm comm)
{
    CHECK(try_send(s, peer, tag, &v, 1, MPI_INT, comm) == 1, "send tag %d", tag);
}

static void out_of_order(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    /* Sent 2, 1, 0; received 0, 1, 2: the first receive stashes two. */
    if (me == 0) {
        for (int t = 2; t >= 0; t--)
            send_int(s, peer, t, 100 + t, comm);
    } else if (me == 1) {
        for (int t = 0; t <= 2; t++)
            CHECK(recv_int(s, peer, t, comm) == 100 + t, "tag %d", t);
    }
    PMPI_Barrier(comm);
}

static void same_tag_two_calls(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    /* A fast sender's next call reuses tag 0: arrival order decides. */
    if (me == 0) {
        send_int(s, peer, 0, 1, comm);
        send_int(s, peer, 0, 2, comm);
        send_int(s, peer, 1, 3, comm);
    } else if (me == 1) {
        CHECK(recv_int(s, peer, 1, comm) == 3, "tag 1 after two stashed");
        CHECK(recv_int(s, peer, 0, comm) == 1, "first call's tag 0 first");
        CHECK(recv_int(s, peer, 0, comm) == 2, "second call's tag 0 second");
    }
    PMPI_Barrier(comm);
}

static void full_ring(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    if (me == 0) {
        for (int k = 0; k < TRL_SHM_SLOTS; k++)
            send_int(s, peer, k, k, comm);
        int v = 99;
        CHECK(try_send(s, peer, TRL_SHM_SLOTS, &v, 1, MPI_INT, comm) == 0, "a full ring refuses");
    }
    PMPI_Barrier(comm);
    if (me == 1)
        CHECK(recv_int(s, peer, 0, comm) == 0, "first of the full ring");
    PMPI_Barrier(comm);
    if (me == 0) {
        int v = 99;
        CHECK(try_send(s, peer, TRL_SHM_SLOTS, &v, 1, MPI_INT, comm) == 1,
              "a freed slot takes the next");
    } else if (me == 1) {
        for (int k = 1; k <= TRL_SHM_SLOTS; k++)
            CHECK(recv_int(s, peer, k, comm) == (k == TRL_SHM_SLOTS ? 99 : k), "slot %d", k);
    }
    PMPI_Barrier(comm);
}

static void drain_frees_the_ring(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    /* The receiver empties a full ring into its stash without receiving;
     * the sender can go on, and every message still arrives in order. */
    if (me == 0)
        for (int k = 0; k < TRL_SHM_SLOTS; k++)
            send_int(s, peer, k, 10 + k, comm);
    PMPI_Barrier(comm);
    if (me == 1) {
        bool moved = false;
        CHECK(trl_shm_drain(s, &moved) == MPI_SUCCESS && moved, "drain moved the ring");
        CHECK(trl_shm_drain(s, &moved) == MPI_SUCCESS && !moved, "a second drain finds none");
    }
    PMPI_Barrier(comm);
    if (me == 0) {
        send_int(s, peer, TRL_SHM_SLOTS, 10 + TRL_SHM_SLOTS, comm);
    } else if (me == 1) {
        for (int k = TRL_SHM_SLOTS; k >= 0; k--)
            CHECK(recv_int(s, peer, k, comm) == 10 + k, "tag %d after a drain", k);
    }
    PMPI_Barrier(comm);
}

static void vector_type(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    /* Every other int of 2n, packed on the way, unpacked into the gaps. */
    enum { N = 8 };
    MPI_Datatype vec;
    PMPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    PMPI_Type_commit(&vec);
    int buf[2 * N];
    for (int i = 0; i < 2 * N; i++)
        buf[i] = me == 0 ? i : -1;
    if (me == 0) {
        CHECK(try_send(s, peer, 0, buf, 1, vec, comm) == 1, "send a vector");
    } else if (me == 1) {
        int rc = recv_until(s, peer, 0, buf, 1, vec, comm);
        CHECK(rc == MPI_SUCCESS, "recv a vector: %d", rc);
        for (int i = 0; i < 2 * N; i++)
            CHECK(buf[i] == (i % 2 ? -1 : i), "element %d is %d", i, buf[i]);
    }
    PMPI_Type_free(&vec);
    PMPI_Barrier(comm);
}

static void size_mismatch(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    int two[2] = {1, 2};
    if (me == 0) {
        CHECK(try_send(s, peer, 0, two, 2, MPI_INT, comm) == 1, "send 2 ints");
    } else if (me == 1) {
        int rc = recv_until(s, peer, 0, two, 1, MPI_INT, comm);
        CHECK(rc == MPI_ERR_TRUNCATE, "2 ints into 1: %d", rc);
    }
    PMPI_Barrier(comm);
}

static void sleeper_woken(trl_shm *s, MPI_Comm comm, int me, int peer)
{
    /* The receiver sleeps before the sender sends; the send must wake it.
     * A lost wake-up hangs, and the alarm ends the test. */
    if (me == 1) {
        int v = -1, rc = MPI_SUCCESS, sleeps = 0;
        for (;;) {
            uint32_t seen = trl_shm_sleep_begin(s);
            bool done;
            rc = trl_shm_recv(s, peer, 0, &v, 1, MPI_INT, comm, &done);
            if (rc != MPI_SUCCESS || done) {
                trl_shm_sleep_end(s);
                break;
            }
            trl_shm_sleep(s, seen);
            sleeps++;
        }
        CHECK(rc == MPI_SUCCESS && v == 7, "woken with %d (rc %d)", v, rc);
        CHECK(sleeps >= 1, "slept %d times", sleeps);
    } else if (me == 0) {
        usleep(200000);
        send_int(s, peer, 0, 7, comm);
    }
    PMPI_Barrier(comm);
}

static void run_all(MPI_Comm comm, int first, int second)
{
    int me_comm;
    PMPI_Comm_rank(comm, &me_comm);
    trl_shm s;
    trl_shm_attach(&s, comm);
    int size;
    PMPI_Comm_size(comm, &size);
    CHECK(s.n == size, "one node: %d of %d ranks mapped", s.n, size);
    for (int i = 0; i < size && s.n; i++)
        CHECK(s.node_of[i] >= 0, "rank %d mapped", i);
    /* "0" and "1" of the exchanges are communicator ranks first and second. */
    int me = me_comm == first ? 0 : me_comm == second ? 1 : 2;
    int peer = me == 0 ? second : first;
    if (s.n) {
        out_of_order(&s, comm, me, peer);
        same_tag_two_calls(&s, comm, me, peer);
        full_ring(&s, comm, me, peer);
        drain_frees_the_ring(&s, comm, me, peer);
        vector_type(&s, comm, me, peer);
        size_mismatch(&s, comm, me, peer);
        sleeper_woken(&s, comm, me, peer);
    }
    trl_shm_detach(&s);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    alarm(60);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "test_shm: needs 2 or more ranks\n");
        MPI_Finalize();
        return 2;
    }
    run_all(MPI_COMM_WORLD, 0, 1);

    /* Reordered ranks: comm rank i is world rank size-1-i. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
    run_all(rev, size - 1, 0);
    MPI_Comm_free(&rev);

    setenv("TRELLIS_SHM", "0", 1);
    trl_shm off;
    trl_shm_attach(&off, MPI_COMM_WORLD);
    CHECK(off.n == 0, "TRELLIS_SHM=0 turns it off");
    trl_shm_detach(&off);

    int all_failed;
    MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_shm: %d checks on rank 0, %d failed\n", checks, all_failed);
    MPI_Finalize();
    return all_failed ? 1 : 0;
}
