/* What ops leave to be freed later, outside the MPI library's own calls
 * (engine.c): the generalized requests of finished non-blocking ops whose
 * MPI_Wait returned (retired, trl_op_retire; never with a progress
 * thread), and communicators whose last hold went inside the library's
 * free callback of a request (the caller holds the engine's lock). */
#ifndef TRL_LEFTOVERS_H
#define TRL_LEFTOVERS_H

#include <mpi.h>
#include <stdbool.h>

#include "mpi/context/comm.h"

/* Keep a retired request (freeing those kept first when full). */
void trl_left_request(MPI_Request r);

/* Free the retired requests in the library; meanwhile trl_left_freeing()
 * is true: the library's call of the free callback for each must not touch
 * its op, which went already. */
void trl_left_free_requests(void);
bool trl_left_freeing(void);

/* Let go of an op's hold on c; in_free_fn: inside the library's free
 * callback, where c's last hold is kept instead: freeing it there means MPI
 * calls (PMPI_Comm_free) inside the library's own call, which MPICH refuses
 * (an assertion) with MPI_THREAD_MULTIPLE. */
void trl_left_comm(trl_comm *c, bool in_free_fn);

/* Free the communicators kept (their collective part went already:
 * trl_engine_settle), and where all, the room they were kept in. */
void trl_left_free_comms(bool all);

#endif
