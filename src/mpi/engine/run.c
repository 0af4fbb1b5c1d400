#include "mpi/engine/run.h"

#include <sched.h>

#include "exec/exec_mpi.h"
#include "mpi/engine/check.h"
#include "mpi/engine/trace.h"

const trl_mode trl_blocking = {TRL_MODE_BLOCKING, NULL, NULL};

int trl_error(MPI_Comm comm, int rc)
{
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* A blocking run while a progress thread owns the engine: as an op the
 * thread runs (the shared memory and the MPI library are used by one
 * thread at a time), waited for here. Errors returned, not reported. */
static int run_threaded(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
                        void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_op_hooks *hooks,
                        void *data)
{
    MPI_Request req = MPI_REQUEST_NULL;
    trl_mode nb = {TRL_MODE_NONBLOCKING, &req, NULL};
    int rc = trl_op_submit(&nb, c, comm, e, sendbuf, recvbuf, dtype, op, hooks, data);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = PMPI_Wait(&req, MPI_STATUS_IGNORE);
    /* Open MPI keeps a request whose wait returns its error: freed here,
     * or its op, with the schedule it pins, would never go. */
    if (rc != MPI_SUCCESS && req != MPI_REQUEST_NULL)
        PMPI_Request_free(&req);
    return rc;
}

/* A wait's turn with nothing moved: collectives in flight advance, or,
 * where ranks share cores, the core goes to the rank awaited. */
static void wait_turn(const trl_shm *shm)
{
    if (trl_engine_busy())
        trl_engine_progress();
    else if (shm->yield)
        sched_yield();
}

/* While a blocking run waits, the check's words of this call, sent before
 * it (check.h), are looked for too: a mismatched call may wait for what
 * never comes, and the words say why. */
static __thread const trl_shm *idle_shm;

static void idle_checked(void)
{
    trl_check_idle();
    wait_turn(idle_shm);
}

static void set_idle(trl_exec_call *call, trl_comm *c)
{
    if (trl_check_on && trl_check_deferred()) {
        /* The words first, if here: found at the head of the peer's ring
         * they need not wait in the stash while the run takes the data
         * behind them. */
        trl_check_idle();
        if (trl_check_deferred()) {
            idle_shm = &c->shm;
            call->idle = idle_checked;
            return;
        }
    }
    if (trl_engine_busy()) /* collectives in flight advance while this one waits */
        call->idle = trl_engine_progress;
}

/* Run e now, on this thread, over the buffers call names: the next tag
 * range of its form, the wait's turn (set_idle), the executor. */
static int run_now(const trl_cache_entry *e, trl_comm *c, trl_exec_call *call)
{
    trl_tags_next(&c->tags, e->call, e->tag_class, &call->tag_base, &call->tag_span);
    set_idle(call, c);
    return trl_exec_mpi(&e->sched, call, &c->mem);
}

int trl_run_hooked(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
                   void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_op_hooks *hooks,
                   void *data, const trl_mode *mode)
{
    if (mode->kind != TRL_MODE_BLOCKING) {
        int rc = trl_op_submit(mode, c, comm, e, sendbuf, recvbuf, dtype, op, hooks, data);
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    if (trl_engine_threaded()) {
        int rc = run_threaded(e, c, comm, sendbuf, recvbuf, dtype, op, hooks, data);
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    trl_exec_call call = {sendbuf, recvbuf, dtype, op, c->dup, 0, 0, &c->shm, NULL, NULL, NULL};
    if (!hooks->before && !hooks->after && !hooks->release && !TRL_TRACING) {
        /* The small calls' path: nothing around the run. */
        int rc = run_now(e, c, &call);
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    trl_trace_call *traced = TRL_TRACING ? trl_trace_begin(e, c, &call.trace) : NULL;
    trl_op self = {.c = c, .comm = comm, .data = data};
    int before = hooks->before ? hooks->before(&self) : MPI_SUCCESS;
    self.rc = before;
    int rc = run_now(e, c, &call);
    if (hooks->after)
        rc = hooks->after(&self, rc);
    else if (rc == MPI_SUCCESS)
        rc = before;
    trl_trace_end(traced);
    if (hooks->release)
        hooks->release(&self);
    return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
}

static const trl_op_hooks no_hooks = {NULL, NULL, NULL};

int trl_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
            void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_mode *mode)
{
    return trl_run_hooked(e, c, comm, sendbuf, recvbuf, dtype, op, &no_hooks, NULL, mode);
}

/* An op's AUX (its data), set as it starts. */
static int aux_in(trl_op *op)
{
    op->call.aux = op->data;
    return MPI_SUCCESS;
}

static const trl_op_hooks aux_hooks = {aux_in, NULL, NULL};

int trl_run_helper(const trl_cache_entry *e, trl_comm *c, const void *sendbuf, void *recvbuf,
                   void *aux)
{
    if (trl_engine_threaded())
        return run_threaded(e, c, c->dup, sendbuf, recvbuf, MPI_BYTE, MPI_OP_NULL,
                            aux ? &aux_hooks : &no_hooks, aux);
    trl_exec_call call = {sendbuf, recvbuf, MPI_BYTE, MPI_OP_NULL, c->dup, 0,
                          0,       &c->shm, NULL,     NULL,        aux};
    trl_trace_call *traced = TRL_TRACING ? trl_trace_prefix_begin(e, c, &call.trace) : NULL;
    int rc = run_now(e, c, &call);
    if (traced)
        trl_trace_prefix_end(traced, c);
    return rc;
}

int trl_nothing(MPI_Comm comm, const trl_mode *mode)
{
    if (mode->kind == TRL_MODE_BLOCKING)
        return MPI_SUCCESS;
    int rc = trl_op_submit(mode, NULL, comm, NULL, NULL, NULL, MPI_BYTE, MPI_OP_NULL, &no_hooks,
                           NULL);
    return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
}

/* ---- TRELLIS_CHECK's words between two ranks (run.h) ---- */

enum { TRL_WORDS_TAG = -2 };

int trl_run_words_post(trl_comm *c, const int64_t mine[2], bool *served)
{
    int peer = c ? 1 - c->rank : 0;
    *served = c && c->size == 2 && !trl_engine_threaded() &&
              trl_shm_carries(&c->shm, peer, 2 * sizeof(int64_t));
    if (!*served)
        return MPI_SUCCESS;
    /* One tag for every call's words, which no schedule uses (schedules'
     * are 0..MPI_TAG_UB): a pair's messages keep their order, and each call
     * takes the peer's words before it returns, so the k-th words taken are
     * the peer's k-th call's. */
    for (;;) {
        bool done = false, drained;
        int rc = trl_shm_send(&c->shm, peer, TRL_WORDS_TAG, mine, 2, MPI_INT64_T, c->dup, &done);
        if (rc != MPI_SUCCESS || done)
            return rc;
        /* the ring is full: the peer may be waiting for its own ring to
         * this rank to drain (shm.h, trl_shm_drain) */
        rc = trl_shm_drain(&c->shm, &drained);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c->shm.yield)
            sched_yield();
    }
}

int trl_run_words_take(trl_comm *c, int64_t theirs[2], bool wait, bool *done)
{
    for (;;) {
        int rc = trl_shm_recv(&c->shm, 1 - c->rank, TRL_WORDS_TAG, theirs, 2, MPI_INT64_T, c->dup,
                              done);
        if (rc != MPI_SUCCESS || *done || !wait)
            return rc;
        wait_turn(&c->shm);
    }
}
