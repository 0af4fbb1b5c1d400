/* Ops that went, kept with their working memory for the next ones
 * (engine.c): a non-blocking call then allocates nothing, no fresh pages
 * of scratch to fault in for large messages, as a blocking call reuses its
 * communicator's. The caller holds the engine's lock. */
#ifndef TRL_OP_POOL_H
#define TRL_OP_POOL_H

#include "mpi/engine/op.h"

/* A new op, zero up to its execution (set by each run); NULL when out of
 * memory. */
trl_op *trl_op_pool_take(void);

/* Keep op for a later take, or free it where the pool is full. */
void trl_op_pool_put(trl_op *op);

/* Free every op kept (MPI_Finalize). */
void trl_op_pool_free(void);

#endif
