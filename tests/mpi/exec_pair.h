/* Set-up shared by the executor's own tests (exec_flow.c, exec_stash.c):
 * two ranks, a private communicator and its shared-memory rings, which
 * must carry an int between them. Stops the job with a message otherwise. */
#ifndef TRL_TEST_EXEC_PAIR_H
#define TRL_TEST_EXEC_PAIR_H

#include <mpi.h>
#include <stdio.h>

#include "exec/shm.h"

static inline int exec_pair_open(const char *name, MPI_Comm *comm, trl_shm *shm)
{
    MPI_Comm_dup(MPI_COMM_WORLD, comm);
    int rank, size;
    MPI_Comm_rank(*comm, &rank);
    MPI_Comm_size(*comm, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "%s: run on 2 ranks\n", name);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    *shm = (trl_shm){0};
    trl_shm_attach(shm, *comm);
    if (!trl_shm_carries(shm, 1 - rank, sizeof(int))) {
        fprintf(stderr, "%s: rank %d: no shared memory to the peer\n", name, rank);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return rank;
}

#endif
