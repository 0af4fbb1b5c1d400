/* The PMPI entry points of the foundation: MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Barrier (the others: coll_*.c; their non-blocking and
 * persistent forms: coll_nonblocking.c, coll_persistent.c).
 *
 * Each collective is one function, trl_<coll>, that serves the call in any
 * mode (blocking, non-blocking, persistent: engine.h) or says it did not
 * (*served false), and its callers hand the call to the MPI library in
 * their own form then: an intercommunicator, arguments the MPI library
 * rejects on this rank (validate.h: it reports them as it always does,
 * before any message moves), a reduction on one rank (a local copy), or a
 * rule choosing "mpi". Otherwise the cached schedule runs on the
 * communicator's private duplicate. Arguments are checked before anything
 * else, a count of 0 included: the MPI library rejects an invalid
 * (datatype, op) pair whatever the count. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/context/inter.h"
#include "mpi/engine/holds.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_entry.h"
#include "mpi/entry/validate.h"

/* A broadcast moves bytes, and MPI lets ranks describe the same bytes with
 * different (count, datatype) pairs. So Trellis broadcasts bytes: a
 * contiguous buffer as it is, any other packed into a temporary one, by
 * the hooks below (around every run, for a persistent request). */
typedef struct {
    void *buffer;
    int count;
    MPI_Datatype datatype;
    bool root;
    bool held;   /* datatype held for an op (holds.h) */
    size_t bytes;
    char packed[];
} bcast_packing;

static int bcast_pack(trl_op *op)
{
    bcast_packing *p = op->data;
    int pos = 0;
    return p->root ? trl_pack(p->buffer, p->count, p->datatype, p->packed, (int)p->bytes, &pos,
                              op->c->dup)
                   : MPI_SUCCESS;
}

static int bcast_unpack(trl_op *op, int rc)
{
    bcast_packing *p = op->data;
    int pos = 0;
    if (rc == MPI_SUCCESS && op->rc == MPI_SUCCESS && !p->root)
        rc = trl_unpack(p->packed, (int)p->bytes, &pos, p->buffer, p->count, p->datatype,
                        op->c->dup);
    return rc != MPI_SUCCESS ? rc : op->rc;
}

static void bcast_free(trl_op *op)
{
    bcast_packing *p = op->data;
    if (p->held)
        trl_let_type(p->datatype);
    free(p);
}

static const trl_op_hooks bcast_hooks = {bcast_pack, bcast_unpack, bcast_free};

int trl_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
              const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_bcast(buffer, count, datatype, root, comm, mode, served);
    int size;
    if (!c || root < 0 || root >= c->size ||
        trl_side_refused(TRL_COLL_BCAST, TRL_SIDE_SEND, buffer, count, datatype))
        return MPI_SUCCESS;
    MPI_Aint extent;
    bool contiguous = trl_type_contiguous(datatype, &size, &extent);
    size_t bytes = (size_t)count * (size_t)size;
    if (bytes == 0 || c->size == 1) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    trl_coll_args a = {.coll = TRL_COLL_BCAST, .root = root, .count = bytes, .elem_size = 1,
                       .commutative = true, .call = trl_call_of(mode)};
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build || bytes > (size_t)INT32_MAX)
        return MPI_SUCCESS;
    if (contiguous) {
        *served = true;
        return trl_run(e, c, comm, NULL, buffer, MPI_BYTE, MPI_OP_NULL, mode);
    }
    bcast_packing *p = malloc(sizeof *p + bytes);
    if (!p)
        return MPI_SUCCESS;
    /* An op packs or unpacks after the call returned, when the program
     * may have freed the datatype already. */
    bool held = mode->kind != TRL_MODE_BLOCKING && trl_hold_type(datatype);
    *p = (bcast_packing){buffer, count, datatype, c->rank == root, held, bytes};
    *served = true;
    return trl_run_hooked(e, c, comm, NULL, p->packed, MPI_BYTE, MPI_OP_NULL, &bcast_hooks, p,
                          mode);
}

int trl_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, mode, served);
    /* One rank: a local copy, which the MPI library does without a schedule.
     * recvbuf is significant at the root only: anything may be passed
     * elsewhere, and the schedules never touch it there. */
    if (!c || c->size == 1 || root < 0 || root >= c->size ||
        trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, c->rank == root))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE, root, sendbuf, count, datatype, op);
    a.call = trl_call_of(mode);
    if (a.count == 0) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return MPI_SUCCESS;
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    *served = true;
    return trl_run(e, c, comm, sendbuf, recvbuf, datatype, op, mode);
}

int trl_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_allreduce(sendbuf, recvbuf, count, datatype, op, comm, mode, served);
    if (!c || c->size == 1 || trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_ALLREDUCE, 0, sendbuf, count, datatype, op);
    a.call = trl_call_of(mode);
    if (a.count == 0) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return MPI_SUCCESS;
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    *served = true;
    return trl_run(e, c, comm, sendbuf, recvbuf, datatype, op, mode);
}

int trl_barrier(MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_barrier(comm, mode, served);
    if (c->size == 1) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    trl_coll_args a = {.coll = TRL_COLL_BARRIER, .elem_size = 1, .commutative = true,
                       .call = trl_call_of(mode)};
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return MPI_SUCCESS;
    *served = true;
    return trl_run(e, c, comm, NULL, NULL, MPI_BYTE, MPI_OP_NULL, mode);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    bool served;
    int rc = trl_bcast(buffer, count, datatype, root, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    bool served;
    int rc = trl_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    bool served;
    int rc = trl_allreduce(sendbuf, recvbuf, count, datatype, op, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    bool served;
    int rc = trl_barrier(comm, &trl_blocking, &served);
    return served ? rc : PMPI_Barrier(comm);
}
