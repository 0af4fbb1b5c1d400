/* The PMPI entry points: MPI_Bcast, MPI_Reduce, MPI_Allreduce, MPI_Barrier.
 *
 * Each one hands the call to the MPI library unchanged when Trellis cannot
 * serve it or has nothing to add: an intercommunicator, arguments MPI would
 * reject (so the MPI library reports the error as it always does), a
 * reduction on one rank (a local copy), or a rule choosing "mpi".
 * Otherwise it runs the cached schedule on the communicator's private
 * duplicate. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"
#include "mpi/runtime.h"

static bool is_contiguous(MPI_Datatype t, int *size)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    PMPI_Type_size(t, size);
    PMPI_Type_get_extent(t, &lb, &extent);
    PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
    return (MPI_Aint)*size == extent && true_extent == extent && true_lb == 0;
}

/* Run a cached schedule. An error goes through the user's communicator's
 * error handler, as the MPI library's own collective would. */
static int run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
               void *recvbuf, MPI_Datatype dtype, MPI_Op op)
{
    trl_exec_call call = {sendbuf, recvbuf, dtype, op, c->dup, c->tag_ub};
    int rc = trl_exec_mpi(&e->sched, &call, &c->mem);
    return rc == MPI_SUCCESS ? rc : PMPI_Comm_call_errhandler(comm, rc);
}

/* A broadcast moves bytes, and MPI lets ranks describe the same bytes with
 * different (count, datatype) pairs. So Trellis broadcasts bytes: a
 * contiguous buffer as it is, any other packed into a temporary one. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    int size;
    if (!c || count < 0 || datatype == MPI_DATATYPE_NULL || root < 0 || root >= c->size)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    bool contiguous = is_contiguous(datatype, &size);
    size_t bytes = (size_t)count * (size_t)size;
    if (bytes == 0 || c->size == 1)
        return MPI_SUCCESS;
    const trl_cache_entry *e = trl_comm_lookup(c, TRL_COLL_BCAST, root, bytes, 1, true, false);
    if (!e || !e->algo->build || bytes > (size_t)INT32_MAX)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    if (contiguous)
        return run(e, c, comm, NULL, buffer, MPI_BYTE, MPI_OP_NULL);

    void *packed = malloc(bytes);
    if (!packed)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    /* The schedule runs whatever packing did, so no rank is left waiting. */
    int pos = 0, packed_rc = MPI_SUCCESS;
    if (c->rank == root)
        packed_rc = PMPI_Pack(buffer, count, datatype, packed, (int)bytes, &pos, c->dup);
    int rc = run(e, c, comm, NULL, packed, MPI_BYTE, MPI_OP_NULL);
    pos = 0;
    if (rc == MPI_SUCCESS && c->rank != root)
        rc = PMPI_Unpack(packed, (int)bytes, &pos, buffer, count, datatype, c->dup);
    free(packed);
    if (rc == MPI_SUCCESS && packed_rc != MPI_SUCCESS)
        rc = PMPI_Comm_call_errhandler(comm, packed_rc);
    return rc;
}

static bool bad_reduction(int count, MPI_Datatype datatype, MPI_Op op)
{
    return count < 0 || datatype == MPI_DATATYPE_NULL || op == MPI_OP_NULL;
}

/* The schedule of a reduction, or NULL to hand it to the MPI library;
 * *nothing is set when there is no data to reduce. */
static const trl_cache_entry *reduction_entry(trl_comm *c, trl_coll coll, int root,
                                              const void *sendbuf, int count,
                                              MPI_Datatype datatype, MPI_Op op, bool *nothing)
{
    int size, commute;
    PMPI_Type_size(datatype, &size);
    PMPI_Op_commutative(op, &commute);
    *nothing = count == 0 || size == 0;
    if (*nothing)
        return NULL;
    return trl_comm_lookup(c, coll, root, (size_t)count, (size_t)size, commute,
                           sendbuf == MPI_IN_PLACE);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    /* One rank: a local copy, which the MPI library does without a schedule. */
    if (!c || c->size == 1 || bad_reduction(count, datatype, op) || root < 0 || root >= c->size ||
        (sendbuf == MPI_IN_PLACE && c->rank != root))
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    bool nothing;
    const trl_cache_entry *e =
        reduction_entry(c, TRL_COLL_REDUCE, root, sendbuf, count, datatype, op, &nothing);
    if (nothing)
        return MPI_SUCCESS;
    if (!e || !e->algo->build)
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    return run(e, c, comm, sendbuf, recvbuf, datatype, op);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || bad_reduction(count, datatype, op))
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    bool nothing;
    const trl_cache_entry *e =
        reduction_entry(c, TRL_COLL_ALLREDUCE, 0, sendbuf, count, datatype, op, &nothing);
    if (nothing)
        return MPI_SUCCESS;
    if (!e || !e->algo->build)
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    return run(e, c, comm, sendbuf, recvbuf, datatype, op);
}

int MPI_Barrier(MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c)
        return PMPI_Barrier(comm);
    if (c->size == 1)
        return MPI_SUCCESS;
    const trl_cache_entry *e = trl_comm_lookup(c, TRL_COLL_BARRIER, 0, 0, 1, true, false);
    if (!e || !e->algo->build)
        return PMPI_Barrier(comm);
    return run(e, c, comm, NULL, NULL, MPI_BYTE, MPI_OP_NULL);
}
