/* TRELLIS_CHECK's watch of collectives in flight (check_inflight.c). */
#ifndef TRL_CHECK_INFLIGHT_H
#define TRL_CHECK_INFLIGHT_H

#include <mpi.h>
#include <stdbool.h>

#include "mpi/engine/check_row.h"

/* A collective in flight whose check passed (a non-blocking or persistent
 * call's op, engine.h): the watchdog follows each run of it, so that a
 * rank that never makes (or starts) it is plain from the others' reports.
 * new: at the op's making, from the check of that call just made on this
 * thread (NULL where the call went unchecked; the engine asks only with
 * the check on). */
typedef struct trl_check_op trl_check_op;
trl_check_op *trl_check_op_new(MPI_Comm comm);
void trl_check_op_run(trl_check_op *o, bool began); /* a run began, or ended */
void trl_check_op_delete(trl_check_op *o);

/* What the engine calls (o NULL: off, nothing to call). */
static inline void trl_check_op_began(trl_check_op *o)
{
    if (o)
        trl_check_op_run(o, true);
}
static inline void trl_check_op_ended(trl_check_op *o)
{
    if (o)
        trl_check_op_run(o, false);
}
static inline void trl_check_op_free(trl_check_op *o)
{
    if (o)
        trl_check_op_delete(o);
}

/* A non-blocking or persistent call this thread just checked on comm: the
 * op made next on comm (trl_check_op_new) is of it. */
void trl_check_inflight_note(const trl_check_call_info *call, MPI_Comm comm);

#endif
