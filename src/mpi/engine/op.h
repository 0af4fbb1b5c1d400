/* One collective call in flight, an op (engine.h): what it runs, over
 * which buffers, its request and its state. */
#ifndef TRL_OP_H
#define TRL_OP_H

#include <mpi.h>
#include <stdbool.h>

#include "exec/exec_mpi.h"
#include "mpi/context/comm.h"
#include "mpi/engine/op_plan.h"

typedef struct trl_op trl_op;

/* What an op does around each run of its schedule: before(op) prepares the
 * buffers (packs staged data) and returns an MPI error code; after(op, rc)
 * finishes them (unpacks) and returns the call's result; release(op)
 * frees what they own when the op goes. Any may be NULL. */
typedef struct {
    int (*before)(trl_op *op);
    int (*after)(trl_op *op, int rc);
    void (*release)(trl_op *op);
} trl_op_hooks;

struct trl_op {
    trl_op *prev, *next; /* in the engine's list while running */
    trl_comm *c;
    MPI_Comm comm;          /* the program's, for its error handler */
    trl_cache_entry *entry; /* pinned while the op lives */
    trl_cache_entry *first; /* a planned op's first entry, pinned too */
    trl_op_hooks hooks;
    void *data;          /* the hooks' own */
    MPI_Request request; /* the program's handle */
    bool persistent;
    bool in_table;              /* findable by its handle (trl_op_of) */
    bool running;               /* started and not yet finished (read it
                                   with trl_op_running off the lock) */
    bool finished;              /* persistent: finished, not yet completed by
                                  a completion call; set before running
                                  clears (trl_op_finished off the lock) */
    bool holds_type, holds_op;  /* holds call.dtype, call.op (holds.h) */
    int rc;                     /* the last run's result */
    struct trl_check_op *check; /* TRELLIS_CHECK's watch of its runs, or NULL */
    trl_op_plan plan;           /* state NULL: none, or taken */
    bool planned;               /* its plan's messages arrived: the next run
                                   takes the planned entry */
    bool arriving;              /* its schedule ended, its plan's messages not */
    bool awaiting;              /* non-blocking with a plan: it runs only the
                                   planned schedule, once its plan's messages
                                   are in (until then running and arriving) */
    /* Set by each run (only where there is an entry), so a new op need not
     * clear them: the execution is most of an op's size. */
    trl_exec_call call;
    trl_exec x;
    trl_exec_mem mem; /* kept from op to op (op_pool.h) */
};

/* Whether op runs, read without the engine's lock (a progress thread may
 * be finishing it): a persistent op read not running is then seen
 * finished too (engine.c, finish). */
static inline bool trl_op_running(const trl_op *op)
{
    return __atomic_load_n(&op->running, __ATOMIC_ACQUIRE);
}

/* Whether a persistent op finished, read the same way: once seen, its
 * result (rc) and its blocks are in. */
static inline bool trl_op_finished(const trl_op *op)
{
    return __atomic_load_n(&op->finished, __ATOMIC_ACQUIRE);
}

#endif
