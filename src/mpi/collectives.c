/* The PMPI entry points of the foundation: MPI_Bcast, MPI_Reduce,
 * MPI_Allreduce, MPI_Barrier (the others: coll_*.c).
 *
 * Each one hands the call to the MPI library unchanged when Trellis cannot
 * serve it or has nothing to add: an intercommunicator, arguments the MPI
 * library rejects on this rank (validate.h: it reports them as it always
 * does, before any message moves), a reduction on one rank (a local copy),
 * or a rule choosing "mpi". Otherwise it runs the cached schedule on the
 * communicator's private duplicate. Arguments are checked before anything
 * else, a count of 0 included: the MPI library rejects an invalid
 * (datatype, op) pair whatever the count. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/coll_common.h"
#include "mpi/validate.h"

/* A broadcast moves bytes, and MPI lets ranks describe the same bytes with
 * different (count, datatype) pairs. So Trellis broadcasts bytes: a
 * contiguous buffer as it is, any other packed into a temporary one. */
int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    int size;
    if (!c || root < 0 || root >= c->size ||
        trl_side_refused(TRL_COLL_BCAST, TRL_SIDE_SEND, buffer, count, datatype))
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
    /* The schedule runs whatever packing did, so no rank is left waiting;
     * packing's and unpacking's errors are reported after. */
    int pos = 0, packed_rc = MPI_SUCCESS;
    if (c->rank == root)
        packed_rc = PMPI_Pack(buffer, count, datatype, packed, (int)bytes, &pos, c->dup);
    int rc = trl_run(e, c, comm, NULL, packed, MPI_BYTE, MPI_OP_NULL);
    pos = 0;
    if (rc == MPI_SUCCESS && packed_rc == MPI_SUCCESS && c->rank != root)
        packed_rc = PMPI_Unpack(packed, (int)bytes, &pos, buffer, count, datatype, c->dup);
    free(packed);
    if (rc == MPI_SUCCESS && packed_rc != MPI_SUCCESS)
        rc = trl_error(comm, packed_rc);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    /* One rank: a local copy, which the MPI library does without a schedule.
     * recvbuf is significant at the root only: anything may be passed
     * elsewhere, and the schedules never touch it there. */
    if (!c || c->size == 1 || root < 0 || root >= c->size ||
        trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, c->rank == root))
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
    if (!c || c->size == 1 || trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, true))
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
