#include "mpi/engine/run.h"

#include "exec/exec_mpi.h"
#include "mpi/engine/trace.h"

const trl_mode trl_blocking = {TRL_MODE_BLOCKING, NULL};

int trl_error(MPI_Comm comm, int rc)
{
    PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

/* A blocking run while a progress thread owns the engine: as an op the
 * thread runs (the shared memory and the MPI library are used by one
 * thread at a time), waited for here. */
static int run_threaded(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
                        void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_op_hooks *hooks,
                        void *data)
{
    MPI_Request req;
    trl_mode nb = {TRL_MODE_NONBLOCKING, &req};
    int rc = trl_op_submit(&nb, c, comm, e, sendbuf, recvbuf, dtype, op, hooks, data);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Wait(&req, MPI_STATUS_IGNORE);
    return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
}

int trl_run_hooked(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
                   void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_op_hooks *hooks,
                   void *data, const trl_mode *mode)
{
    if (mode->kind != TRL_MODE_BLOCKING) {
        int rc = trl_op_submit(mode, c, comm, e, sendbuf, recvbuf, dtype, op, hooks, data);
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    if (trl_engine_threaded())
        return run_threaded(e, c, comm, sendbuf, recvbuf, dtype, op, hooks, data);
    trl_exec_call call = {sendbuf, recvbuf, dtype, op, c->dup, 0, 0, &c->shm, NULL, NULL};
    if (!hooks->before && !hooks->after && !hooks->release && !TRL_TRACING) {
        /* The small calls' path: nothing around the run. */
        trl_tags_next(&c->tags, e->call, e->tag_class, &call.tag_base, &call.tag_span);
        if (trl_engine_busy()) /* collectives in flight advance while this one waits */
            call.idle = trl_engine_progress;
        int rc = trl_exec_mpi(&e->sched, &call, &c->mem);
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    trl_trace_call *traced = TRL_TRACING ? trl_trace_begin(e, c, &call.trace) : NULL;
    trl_op self = {.c = c, .comm = comm, .data = data};
    int before = hooks->before ? hooks->before(&self) : MPI_SUCCESS;
    self.rc = before;
    trl_tags_next(&c->tags, e->call, e->tag_class, &call.tag_base, &call.tag_span);
    if (trl_engine_busy())
        call.idle = trl_engine_progress;
    int rc = trl_exec_mpi(&e->sched, &call, &c->mem);
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

int trl_nothing(MPI_Comm comm, const trl_mode *mode)
{
    if (mode->kind == TRL_MODE_BLOCKING)
        return MPI_SUCCESS;
    int rc = trl_op_submit(mode, NULL, comm, NULL, NULL, NULL, MPI_BYTE, MPI_OP_NULL, &no_hooks,
                           NULL);
    return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
}
