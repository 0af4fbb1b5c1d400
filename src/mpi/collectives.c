/* The PMPI entry points of the foundation: MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Barrier (the others: coll_*.c).
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

#include "mpi/coll_common.h"

/* A broadcast moves bytes, and MPI lets ranks describe the same bytes with
 * different (count, datatype) pairs. So Trellis broadcasts bytes: a
 * contiguous buffer as it is, any other packed into a temporary one. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    int size;
    if (!c || count < 0 || datatype == MPI_DATATYPE_NULL || root < 0 || root >= c->size)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    MPI_Aint extent;
    bool contiguous = trl_type_contiguous(datatype, &size, &extent);
    size_t bytes = (size_t)count * (size_t)size;
    if (bytes == 0 || c->size == 1)
        return MPI_SUCCESS;
    trl_coll_args a = {.coll = TRL_COLL_BCAST, .root = root, .count = bytes, .elem_size = 1,
                       .commutative = true};
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build || bytes > (size_t)INT32_MAX)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    if (contiguous)
        return trl_run(e, c, comm, NULL, buffer, MPI_BYTE, MPI_OP_NULL);

    void *packed = malloc(bytes);
    if (!packed)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    /* The schedule runs whatever packing did, so no rank is left waiting. */
    int pos = 0, packed_rc = MPI_SUCCESS;
    if (c->rank == root)
        packed_rc = trl_pack(buffer, count, datatype, packed, (int)bytes, &pos, c->dup);
    int rc = trl_run(e, c, comm, NULL, packed, MPI_BYTE, MPI_OP_NULL);
    pos = 0;
    if (rc == MPI_SUCCESS && c->rank != root)
        rc = trl_unpack(packed, (int)bytes, &pos, buffer, count, datatype, c->dup);
    free(packed);
    if (rc == MPI_SUCCESS && packed_rc != MPI_SUCCESS)
        rc = PMPI_Comm_call_errhandler(comm, packed_rc);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    /* One rank: a local copy, which the MPI library does without a schedule. */
    if (!c || c->size == 1 || trl_bad_reduction(count, datatype, op) || root < 0 || root >= c->size ||
        (sendbuf == MPI_IN_PLACE && c->rank != root))
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE, root, sendbuf, count, datatype, op);
    if (a.count == 0)
        return MPI_SUCCESS;
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    return trl_run(e, c, comm, sendbuf, recvbuf, datatype, op);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || trl_bad_reduction(count, datatype, op))
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    trl_coll_args a = trl_reduction_args(TRL_COLL_ALLREDUCE, 0, sendbuf, count, datatype, op);
    if (a.count == 0)
        return MPI_SUCCESS;
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    if (sendbuf == MPI_IN_PLACE)
        sendbuf = recvbuf;
    return trl_run(e, c, comm, sendbuf, recvbuf, datatype, op);
}

int MPI_Barrier(MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c)
        return PMPI_Barrier(comm);
    if (c->size == 1)
        return MPI_SUCCESS;
    trl_coll_args a = {.coll = TRL_COLL_BARRIER, .elem_size = 1, .commutative = true};
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build)
        return PMPI_Barrier(comm);
    return trl_run(e, c, comm, NULL, NULL, MPI_BYTE, MPI_OP_NULL);
}
