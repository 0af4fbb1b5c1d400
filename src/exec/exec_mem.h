/* The working memory of an execution over MPI (exec_mpi.h): the step
 * queues, scratch and in-flight slots one execution needs, kept from call
 * to call by its owner (a communicator, an op) and grown on demand, so that
 * the hot path does not allocate. */
#ifndef TRL_EXEC_MEM_H
#define TRL_EXEC_MEM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

/* Working memory of one execution, kept between calls so the hot path does
 * not allocate: grown on demand, freed with its owner. */
typedef struct {
    void *scratch;
    size_t scratch_bytes;
    size_t cap_steps, cap_flight;
    uint32_t *waiting; /* per step: dependencies not yet done */
    uint32_t *recv_q;  /* ready receives, FIFO */
    uint32_t *other_q; /* ready sends and local steps, FIFO */
    /* In flight, at most cap_flight: MPI requests and the step each one
     * runs; steps waiting on shared memory; Testsome's answer (the
     * statuses: an error's class, where it returns MPI_ERR_IN_STATUS). */
    MPI_Request *reqs;
    uint32_t *req_step;
    uint32_t *shm_step;
    int *done_idx;
    MPI_Status *statuses;
    /* Flow control, per peer: MPI sends with a tag below open_until[peer]
     * may start (see `flow`). */
    int *open_until;
    size_t cap_peers;
} trl_exec_mem;

/* Whether m holds what running s needs: scratch_bytes of scratch, its
 * steps, its peers, and window in-flight slots of each kind (sends,
 * receives). Inline: every execution asks, and nearly always it does. */
static inline bool trl_exec_mem_fits(const trl_exec_mem *m, const trl_sched *s,
                                     size_t scratch_bytes, size_t window)
{
    return scratch_bytes <= m->scratch_bytes && s->nsteps <= m->cap_steps &&
           (s->size <= 0 || (size_t)s->size <= m->cap_peers) && 2 * window <= m->cap_flight;
}

/* Grow m to what running s needs (as trl_exec_mem_fits); MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int trl_exec_mem_grow(trl_exec_mem *m, const trl_sched *s, size_t scratch_bytes, size_t window);

/* Grow m's in-flight slots to cap; false when out of memory (m keeps
 * what it had). */
bool trl_exec_mem_grow_flight(trl_exec_mem *m, size_t cap);

void trl_exec_mem_free(trl_exec_mem *mem);

#endif
