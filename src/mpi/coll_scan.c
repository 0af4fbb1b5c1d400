/* The PMPI entry points of the reductions beyond reduce and allreduce:
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan.
 * Like MPI_Allreduce they work in elements of the call's datatype; the
 * executor applies the operation with trl_reduce_local (src/reduce). One rank, bad
 * arguments and rules choosing "mpi" go to the MPI library. */
#include <stdint.h>

#include "mpi/coll_common.h"

/* Run a reduction whose shape is a; sendbuf MPI_IN_PLACE reads recvbuf. */
static int run_reduction(trl_comm *c, trl_coll_args *a, MPI_Comm comm, const void *sendbuf,
                         void *recvbuf, MPI_Datatype datatype, MPI_Op op, bool *served)
{
    const trl_cache_entry *e = trl_comm_lookup(c, a);
    *served = e && e->algo->build;
    if (!*served)
        return MPI_SUCCESS;
    return trl_run(e, c, comm, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, datatype, op);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || trl_bad_reduction(recvcount, datatype, op))
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
    trl_coll_args a =
        trl_reduction_args(TRL_COLL_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvcount, datatype, op);
    if (a.count == 0)
        return MPI_SUCCESS;
    bool served;
    int rc = run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, &served);
    return served ? rc : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || !recvcounts || trl_bad_reduction(0, datatype, op))
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    size_t *counts = trl_comm_vec(c), total = 0;
    for (int r = 0; counts && r < c->size; r++) {
        if (recvcounts[r] < 0)
            counts = NULL;
        else
            total += (size_t)recvcounts[r];
    }
    if (!counts || total > INT32_MAX)
        return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE_SCATTER, 0, sendbuf, 1, datatype, op);
    if (a.count == 0 || total == 0)
        return MPI_SUCCESS;
    for (int r = 0; r < c->size; r++)
        counts[r] = (size_t)recvcounts[r];
    a.count = 0;
    a.counts = counts;
    bool served;
    int rc = run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, &served);
    return served ? rc : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

/* Scan and exscan share everything but the collective. */
static int scan(trl_coll coll, const void *sendbuf, void *recvbuf, int count,
                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || trl_bad_reduction(count, datatype, op))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(coll, 0, sendbuf, count, datatype, op);
    if (a.count == 0) {
        *served = true;
        return MPI_SUCCESS;
    }
    return run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, served);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    bool served;
    int rc = scan(TRL_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, &served);
    return served ? rc : PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    bool served;
    int rc = scan(TRL_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, &served);
    return served ? rc : PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
}
