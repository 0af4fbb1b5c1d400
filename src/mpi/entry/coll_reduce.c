/* The intracommunicator forms (coll_forms.h) of the reductions: reduce,
 * allreduce, reduce_scatter, reduce_scatter_block, scan and exscan. They
 * work in elements of the call's datatype; the executor applies the
 * operation with trl_reduce_local (src/reduce). A reduction on one rank is
 * a local copy, which the MPI library does without a schedule; it serves
 * that, arguments it rejects (validate.h) and rules choosing "mpi".
 * Arguments are checked before anything else, a count of 0 included: the
 * MPI library rejects an invalid (datatype, op) pair whatever the count. */
#include <stdint.h>

#include "mpi/context/short.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* reduce, allreduce, reduce_scatter_block, scan and exscan: refused, or
 * served in elements of the datatype. recv_significant: whether recvbuf
 * matters on this rank (a reduce's at the root only: anything may be passed
 * elsewhere, and the schedules never touch it there). */
static int reduction(trl_comm *c, trl_coll coll, int root, const void *sendbuf, void *recvbuf,
                     int count, MPI_Datatype datatype, MPI_Op op, bool recv_significant,
                     MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (c->size == 1 ||
        trl_reduction_refused(sendbuf, recvbuf, count, datatype, op, recv_significant))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(coll, root, sendbuf, count, datatype, op);
    return trl_serve(c, comm, &a, a.count == 0, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_intra_reduce(trl_comm *c, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                     const trl_mode *mode, bool *served)
{
    if (root < 0 || root >= c->size)
        return MPI_SUCCESS;
    return reduction(c, TRL_COLL_REDUCE, root, sendbuf, recvbuf, count, datatype, op,
                     c->rank == root, comm, mode, served);
}

int trl_intra_allreduce(trl_comm *c, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                        bool *served)
{
    return reduction(c, TRL_COLL_ALLREDUCE, 0, sendbuf, recvbuf, count, datatype, op, true, comm,
                     mode, served);
}

int trl_intra_reduce_scatter_block(trl_comm *c, const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const trl_mode *mode, bool *served)
{
    return reduction(c, TRL_COLL_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvbuf, recvcount, datatype, op,
                     true, comm, mode, served);
}

int trl_intra_reduce_scatter(trl_comm *c, const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (c->size == 1 || !recvcounts)
        return MPI_SUCCESS;
    size_t *counts = trl_comm_vec(c), total = 0;
    bool negative = false;
    for (int r = 0; r < c->size; r++) {
        negative |= recvcounts[r] < 0;
        total += recvcounts[r] < 0 ? 0 : (size_t)recvcounts[r];
    }
    /* The send buffer holds the whole vector (only whether it is empty
     * matters to the aliasing check). */
    if (total > INT32_MAX || negative ||
        trl_reduction_refused(sendbuf, recvbuf, total > 0, datatype, op, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE_SCATTER, 0, sendbuf, 1, datatype, op);
    if (a.count == 0 || total == 0)
        return trl_done(comm, mode, served);
    if (!counts) { /* the others go on to Trellis' schedule */
        trl_short_of_memory("the counts");
        return MPI_SUCCESS;
    }
    for (int r = 0; r < c->size; r++)
        counts[r] = (size_t)recvcounts[r];
    a.count = 0;
    a.counts = counts;
    return trl_serve(c, comm, &a, false, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_intra_scan(trl_comm *c, const void *sendbuf, void *recvbuf, int count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                   bool *served)
{
    return reduction(c, TRL_COLL_SCAN, 0, sendbuf, recvbuf, count, datatype, op, true, comm, mode,
                     served);
}

int trl_intra_exscan(trl_comm *c, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                     bool *served)
{
    return reduction(c, TRL_COLL_EXSCAN, 0, sendbuf, recvbuf, count, datatype, op, true, comm, mode,
                     served);
}
