/* The PMPI entry points of the reductions beyond reduce and allreduce:
 * MPI_Reduce_scatter, MPI_Reduce_scatter_block, MPI_Scan, MPI_Exscan.
 * Like MPI_Allreduce they work in elements of the call's datatype; the
 * executor applies the operation with trl_reduce_local (src/reduce). One
 * rank, arguments the MPI library rejects (validate.h) and rules choosing
 * "mpi" go to the MPI library. */
#include <stdint.h>

#include "mpi/context/inter.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_entry.h"
#include "mpi/entry/validate.h"

/* Run a reduction whose shape is a; sendbuf MPI_IN_PLACE reads recvbuf. */
static int run_reduction(trl_comm *c, trl_coll_args *a, MPI_Comm comm, const void *sendbuf,
                         void *recvbuf, MPI_Datatype datatype, MPI_Op op, const trl_mode *mode,
                         bool *served)
{
    a->call = trl_call_of(mode);
    if (a->count == 0 && !a->counts) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    const trl_cache_entry *e = trl_comm_lookup(c, a);
    *served = e && e->algo->build;
    if (!*served)
        return MPI_SUCCESS;
    return trl_run(e, c, comm, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, datatype, op,
                   mode);
}

int trl_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                             const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, mode, served);
    if (!c || c->size == 1 ||
        trl_reduction_refused(sendbuf, recvbuf, recvcount, datatype, op, true))
        return MPI_SUCCESS;
    trl_coll_args a =
        trl_reduction_args(TRL_COLL_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvcount, datatype, op);
    return run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, mode, served);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    bool served;
    int rc = trl_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                      &trl_blocking, &served);
    return served ? rc : PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm);
}

int trl_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                       bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c) /* an intercommunicator, or none set up */
        return trl_inter_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, mode, served);
    if (!c || c->size == 1 || !recvcounts)
        return MPI_SUCCESS;
    size_t *counts = trl_comm_vec(c), total = 0;
    bool negative = false;
    for (int r = 0; r < c->size; r++) {
        negative |= recvcounts[r] < 0;
        total += recvcounts[r] < 0 ? 0 : (size_t)recvcounts[r];
    }
    /* The send buffer holds the whole vector (only whether it is empty
     * matters to the aliasing check). */
    if (!counts || total > INT32_MAX || negative ||
        trl_reduction_refused(sendbuf, recvbuf, total > 0, datatype, op, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE_SCATTER, 0, sendbuf, 1, datatype, op);
    if (a.count == 0 || total == 0) {
        *served = true;
        return trl_nothing(comm, mode);
    }
    for (int r = 0; r < c->size; r++)
        counts[r] = (size_t)recvcounts[r];
    a.count = 0;
    a.counts = counts;
    return run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, mode, served);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    bool served;
    int rc = trl_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm, &trl_blocking,
                                &served);
    return served ? rc : PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

/* Scan and exscan share everything but the collective. */
static int scan(trl_coll coll, const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
             MPI_Op op, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c || c->size == 1 || trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(coll, 0, sendbuf, count, datatype, op);
    return run_reduction(c, &a, comm, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, const trl_mode *mode, bool *served)
{
    return scan(TRL_COLL_SCAN, sendbuf, recvbuf, count, datatype, op, comm, mode, served);
}

int trl_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, const trl_mode *mode, bool *served)
{
    return scan(TRL_COLL_EXSCAN, sendbuf, recvbuf, count, datatype, op, comm, mode, served);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    bool served;
    int rc = trl_scan(sendbuf, recvbuf, count, datatype, op, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    bool served;
    int rc = trl_exscan(sendbuf, recvbuf, count, datatype, op, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm);
}
