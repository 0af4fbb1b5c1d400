/* Runs one rank's schedule over MPI point-to-point on a private
 * communicator, starting each step as soon as its dependencies are done. */
#ifndef TRL_EXEC_MPI_H
#define TRL_EXEC_MPI_H

#include <mpi.h>

#include "exec/shm.h"
#include "sched/sched.h"

/* Working memory an executor keeps between calls, so the hot path does not
 * allocate: grown on demand, freed with the communicator. */
typedef struct {
    void *scratch;
    size_t scratch_bytes;
    MPI_Request *reqs;
    uint32_t *req_step; /* which step each active request belongs to */
    uint32_t *waiting;  /* dependencies left per step */
    uint32_t *ready;
    uint32_t *shm_waiting; /* steps waiting on shared memory */
    size_t cap_steps;
} trl_exec_mem;

typedef struct {
    const void *sendbuf; /* already resolved for MPI_IN_PLACE */
    void *recvbuf;
    MPI_Datatype dtype;
    MPI_Op op;
    MPI_Comm comm; /* the private duplicate */
    int tag_limit; /* MPI_TAG_UB: schedule tags wrap around below it */
    trl_shm *shm;  /* small messages within the node; NULL: all through MPI */
} trl_exec_call;

/* Returns an MPI error code (MPI_SUCCESS on success). */
int trl_exec_mpi(const trl_sched *s, const trl_exec_call *call, trl_exec_mem *mem);

void trl_exec_mem_free(trl_exec_mem *mem);

#endif
