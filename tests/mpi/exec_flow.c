/* The MPI executor's flow control when messages to one peer mix the
 * shared-memory ring and MPI (src/exec/exec_mpi.c, linked in, nothing
 * preloaded). Run on 2 ranks with TRELLIS_EXEC_WINDOW=2: flow control then
 * makes every second message to a peer (tags 1, 3, ...) synchronous, and
 * lets a message go only up to 2 x 2 tags past the last synchronous one
 * matched. Rank 0 sends four small messages (the ring carries them, tags
 * 1 and 3 among them) and then large ones (MPI). The small ones finish at
 * once, so when the large ones queue nothing is in flight: unless a small
 * message with a synchronous tag opens the way as an MPI one would, tag 4
 * waits forever, and the executor stopped with MPI_ERR_INTERN (found under
 * MPICH with allreduce reduce_bcast reduce=chain bcast=scatter_allgather
 * segment=1K on 4 ranks). Every message is checked on arrival.
 *
 *   mpirun -np 2 -x TRELLIS_EXEC_WINDOW=2 exec_flow    exit 0: passed */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"
#include "exec/shm.h"
#include "exec_pair.h"
#include "sched/sched.h"

enum { SMALL = 4, LARGE = 6, SMALL_INTS = 1, LARGE_INTS = 1000 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm;
    trl_shm shm;
    int rank = exec_pair_open("exec_flow", &comm, &shm);
    size_t total = SMALL * SMALL_INTS + LARGE * LARGE_INTS;
    int *send = malloc(total * sizeof *send), *recv = malloc(total * sizeof *recv);
    for (size_t i = 0; i < total; i++)
        send[i] = (int)(7 * i + 1), recv[i] = -1;

    /* All steps ready at once, in this order: the small messages, then the large. */
    trl_sched s;
    trl_sched_init(&s, rank, 2);
    size_t at = 0;
    for (int m = 0; m < SMALL + LARGE; m++) {
        size_t n = m < SMALL ? SMALL_INTS : LARGE_INTS;
        if (rank == 0)
            trl_sched_send(&s, 1, trl_ref_at(TRL_BUF_SEND, at), n, TRL_NODEPS);
        else
            trl_sched_recv(&s, 0, trl_ref_at(TRL_BUF_RECV, at), n, TRL_NODEPS);
        at += n;
    }
    if (trl_sched_finish(&s) != 0)
        MPI_Abort(MPI_COMM_WORLD, 3);

    int *ub, has_ub;
    MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &has_ub);
    trl_exec_call call = {send, recv, MPI_INT, MPI_SUM, comm, 0, *ub, &shm, NULL, NULL, NULL};
    trl_exec_mem mem = {0};
    int rc = trl_exec_mpi(&s, &call, &mem);
    long bad = 0;
    if (rc != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, msg, &len);
        fprintf(stderr, "exec_flow: rank %d: the executor returned %d (%s)\n", rank, rc, msg);
        bad = 1;
    } else if (rank == 1) {
        for (size_t i = 0; i < total; i++)
            bad += recv[i] != (int)(7 * i + 1);
    }
    long all_bad;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) /* the summary line run_forced.sh looks for */
        printf("exec_flow ranks=2 window=%zu: %zu checks, %ld failed\n", trl_exec_window(), total,
               all_bad);
    trl_exec_mem_free(&mem);
    trl_sched_free(&s);
    trl_shm_detach(&shm);
    free(send);
    free(recv);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return all_bad ? 1 : 0;
}
