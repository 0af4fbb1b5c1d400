/* Request handles -> what stands behind them: an open-addressing table,
 * which the engine keeps of every op alive (engine.h, trl_op_of). Not
 * locked: its owner's lock guards it. */
#ifndef TRL_MPI_HANDLES_H
#define TRL_MPI_HANDLES_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct {
    MPI_Request request;
    void *value; /* NULL: an empty slot */
} trl_handle_slot;

typedef struct {
    trl_handle_slot *slots;
    size_t cap, n; /* cap: a power of two, or 0 before the first reserve */
} trl_handles;

/* Room for one more, so that putting it cannot fail once its handle
 * exists; false when out of memory. */
bool trl_handles_reserve(trl_handles *t);
/* Put value under request (room reserved; request not there yet). */
void trl_handles_put(trl_handles *t, MPI_Request request, void *value);
/* The value under request, or NULL; t must have been reserved once. */
void *trl_handles_find(const trl_handles *t, MPI_Request request);
/* Remove value, which is there under request. */
void trl_handles_del(trl_handles *t, MPI_Request request, const void *value);

#endif
