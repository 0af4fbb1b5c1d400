/* How the program called a collective: blocking, non-blocking or
 * persistent (engine.h runs the last two; check.h compares all three). */
#ifndef TRL_MODE_H
#define TRL_MODE_H

#include <mpi.h>

#include "algo/algo.h"

typedef enum {
    TRL_MODE_BLOCKING,
    TRL_MODE_NONBLOCKING, /* MPI_Ixxx: start now, complete later */
    TRL_MODE_PERSISTENT,  /* MPI_Xxx_init: start at each MPI_Start */
} trl_mode_kind;

struct trl_op_plan;

/* How a collective was called, passed down from its entry point. */
typedef struct {
    trl_mode_kind kind;
    MPI_Request *request; /* the program's, for the two kinds above */
    /* A persistent call whose later starts run a schedule planned from
     * what its first sends (engine.h); NULL for every other call. */
    const struct trl_op_plan *plan;
} trl_mode;

/* The form of call as the rules and the cache know it. */
static inline trl_call_kind trl_call_of(const trl_mode *mode)
{
    return mode->kind == TRL_MODE_NONBLOCKING  ? TRL_CALL_NONBLOCKING
           : mode->kind == TRL_MODE_PERSISTENT ? TRL_CALL_PERSISTENT
                                               : TRL_CALL_BLOCKING;
}

#endif
