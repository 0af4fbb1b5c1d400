/* A non-blocking run of the MPI executor (src/exec/exec_mpi.c, linked in,
 * nothing preloaded) whose messages another run on the same communicator
 * put in the shared-memory stash before their receives were posted. Run A
 * on rank 1 receives 10 messages, then 10 more that depend on the 10th;
 * before any arrives, rank 1 takes a turn of A (more than 8 receives in
 * flight: it records the doorbell and then looks only when it rings). Rank
 * 0 then sends all 20 of A's messages and one of run B, and rank 1 runs B
 * to its end: looking for B's message it stashes all of A's. A's next turn
 * finds its first 10 there and posts the other 10, whose messages are
 * stashed too and for which no doorbell will ring again: they must be
 * looked at anyway. Found as an MPI_Iallreduce that never finished next to
 * blocking collectives on its communicator (test_nonblocking's
 * blocking_among, one run in 20-30). A turn stops after 10 s instead of
 * hanging. Every message is checked on arrival.
 *
 *   mpirun -np 2 exec_stash    exit 0: passed */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"
#include "exec/shm.h"
#include "exec_pair.h"
#include "sched/sched.h"

enum { FIRST = 10, LATER = 10, TAGS = 1000 };

/* Run A: rank 0 sends FIRST + LATER ints, rank 1 receives them, the LATER
 * ones after the last of the FIRST. */
static void build_a(trl_sched *s, int rank)
{
    trl_sched_init(s, rank, 2);
    int last = -1;
    for (int m = 0; m < FIRST + LATER; m++) {
        trl_ref at = trl_ref_at(rank == 0 ? TRL_BUF_SEND : TRL_BUF_RECV, (size_t)m);
        if (rank == 0)
            trl_sched_send(s, 1, at, 1, TRL_NODEPS);
        else if (m < FIRST)
            last = trl_sched_recv(s, 0, at, 1, TRL_NODEPS);
        else
            trl_sched_recv(s, 0, at, 1, TRL_DEPS(last));
    }
    if (trl_sched_finish(s) != 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Run B: one int from rank 0 to rank 1. */
static void build_b(trl_sched *s, int rank)
{
    trl_sched_init(s, rank, 2);
    if (rank == 0)
        trl_sched_send(s, 1, trl_ref_at(TRL_BUF_SEND, 0), 1, TRL_NODEPS);
    else
        trl_sched_recv(s, 0, trl_ref_at(TRL_BUF_RECV, 0), 1, TRL_NODEPS);
    if (trl_sched_finish(s) != 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
}

/* Turn x until it finishes, at most 10 s: the MPI error code, or
 * MPI_ERR_PENDING when it did not finish. */
static int turn_out(trl_exec *x)
{
    double end = MPI_Wtime() + 10;
    for (bool done = false; !done;) {
        int rc = trl_exec_progress(x, &done);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!done && MPI_Wtime() > end) {
            trl_exec_cancel(x);
            return MPI_ERR_PENDING;
        }
    }
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    trl_shm shm;
    int rank = exec_pair_open("exec_stash", &comm, &shm);
    int a_send[FIRST + LATER], a_recv[FIRST + LATER], b_send = 4242, b_recv = -1;
    for (int i = 0; i < FIRST + LATER; i++)
        a_send[i] = 7 * i + 1, a_recv[i] = -1;
    trl_sched a, b;
    build_a(&a, rank);
    build_b(&b, rank);
    trl_exec_call call_a = {a_send, a_recv, MPI_INT, MPI_SUM, comm, 0,
                            TAGS,   &shm,   NULL,    NULL,    NULL};
    trl_exec_call call_b = {&b_send, &b_recv, MPI_INT, MPI_SUM, comm, TAGS,
                            TAGS,    &shm,    NULL,    NULL,    NULL};
    trl_exec_mem mem_a = {0}, mem_b = {0};
    trl_exec xa;
    int rc_a = MPI_SUCCESS, rc_b = MPI_SUCCESS;
    if (rank == 1) {
        rc_a = trl_exec_start(&xa, &a, &call_a, &mem_a);
        bool done = false;
        if (rc_a == MPI_SUCCESS)
            rc_a = trl_exec_progress(&xa, &done); /* nothing has come: records the door */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        rc_a = trl_exec_mpi(&a, &call_a, &mem_a);
        rc_b = trl_exec_mpi(&b, &call_b, &mem_b);
    } else {
        rc_b = trl_exec_mpi(&b, &call_b, &mem_b); /* stashes all of A's messages */
        if (rc_a == MPI_SUCCESS)
            rc_a = turn_out(&xa);
    }
    long bad = 0;
    for (int k = 0; k < 2; k++) {
        int rc = k == 0 ? rc_a : rc_b;
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING] = "did not finish in 10 s";
            int len = 0;
            if (rc != MPI_ERR_PENDING)
                MPI_Error_string(rc, msg, &len);
            fprintf(stderr, "exec_stash: rank %d: run %c: %d (%s)\n", rank, "AB"[k], rc, msg);
            bad++;
        }
    }
    if (rank == 1 && bad == 0) {
        for (int i = 0; i < FIRST + LATER; i++)
            bad += a_recv[i] != 7 * i + 1;
        bad += b_recv != 4242;
    }
    long all_bad;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) /* the summary line run_forced.sh looks for */
        printf("exec_stash ranks=2: %d checks, %ld failed\n", FIRST + LATER + 1, all_bad);
    trl_exec_mem_free(&mem_a);
    trl_exec_mem_free(&mem_b);
    trl_sched_free(&a);
    trl_sched_free(&b);
    trl_shm_detach(&shm);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
