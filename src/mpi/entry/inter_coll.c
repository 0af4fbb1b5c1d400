/* The intercommunicator forms (coll_forms.h) of bcast, reduce, allreduce,
 * barrier, reduce_scatter and reduce_scatter_block. Each runs like its
 * intracommunicator form (coll_bcast.c, coll_reduce.c) on the merged
 * communicator's state (context/inter.h), with the call's shape as
 * src/algo/inter/inter.h describes it.
 *
 * What differs from an intracommunicator:
 *  - MPI_IN_PLACE does not exist here: a call passing it goes to the MPI
 *    library, which reports the error, as do arguments it rejects on this
 *    rank (validate.h) and a root out of range.
 *  - A rooted call's root passes MPI_ROOT, the other ranks of its group
 *    MPI_PROC_NULL: those take no part, and only the arguments significant
 *    on a rank are checked there (the root's send buffer of a reduce is
 *    not; a leaf's receive buffer is not).
 *  - A call with nothing to move returns at once only where every rank
 *    that takes part knows it moves nothing (the same count on all). */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/context/short.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* A reduction's arguments MPI rejects on this rank: send_significant and
 * recv_significant say which buffers matter here. */
static bool reduction_refused(const void *sendbuf, const void *recvbuf, int count,
                              MPI_Datatype type, MPI_Op op, bool send_significant,
                              bool recv_significant)
{
    if (count < 0 || !trl_reduction_ok(type, op))
        return true;
    if ((send_significant && sendbuf == MPI_IN_PLACE) ||
        (recv_significant && recvbuf == MPI_IN_PLACE))
        return true;
    /* Aliased buffers, as validate.h judges them. */
    return send_significant && recv_significant && sendbuf == recvbuf;
}

/* a's call over the merged communicator (trl_serve). */
static int serve(trl_intercomm *ic, MPI_Comm comm, trl_coll_args *a, bool empty,
                 const void *sendbuf, void *recvbuf, MPI_Datatype datatype, MPI_Op op,
                 const trl_mode *mode, bool *served)
{
    a->inter = &ic->shape;
    return trl_serve(ic->c, comm, a, empty, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_inter_bcast(trl_intercomm *ic, void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm, const trl_mode *mode, bool *served)
{
    int at = trl_inter_root(ic, root, TRL_COLL_BCAST, trl_call_of(mode));
    if (at == -1)
        return trl_done(comm, mode, served);
    if (at < 0 || trl_side_refused(TRL_COLL_BCAST, TRL_SIDE_SEND, buffer, count, datatype))
        return MPI_SUCCESS;
    /* Bytes, as for an intracommunicator: the root's is a send side, the
     * other group's a receive side (src/algo/inter/inter.h). */
    trl_comm *c = ic->c;
    bool is_root = at == c->rank;
    int size;
    MPI_Aint extent;
    if (trl_type_contiguous(datatype, &size, &extent) &&
        (size_t)count * (size_t)size <= (size_t)INT32_MAX) {
        /* The buffer as it is: nothing to open, pack or unpack. */
        trl_coll_args a = {.coll = TRL_COLL_BCAST,
                           .root = at,
                           .count = (size_t)count * (size_t)size,
                           .elem_size = 1,
                           .commutative = true};
        return serve(ic, comm, &a, a.count == 0, is_root ? buffer : NULL, is_root ? NULL : buffer,
                     MPI_BYTE, MPI_OP_NULL, mode, served);
    }
    trl_blocks b = {.n = 1, .count = count, .type = datatype};
    trl_move_side send = {.pack_only = -1}, recv = {.pack_only = -1};
    trl_move_side *mine = is_root ? &send : &recv;
    int rc = trl_comm_vec(c) ? trl_move_open(mine, buffer, &b, false, TRL_VEC(c, is_root ? 0 : 2),
                                             TRL_VEC(c, is_root ? 1 : 3))
                             : MPI_ERR_NO_MEM;
    *served = true;
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return trl_error(comm, rc);
    }
    trl_coll_args a = {.coll = TRL_COLL_BCAST,
                       .root = at,
                       .count = mine->counts[0],
                       .elem_size = 1,
                       .commutative = true,
                       .call = trl_call_of(mode),
                       .inter = &ic->shape};
    if (a.count == 0) {
        trl_move_abandon(&send, &recv);
        return trl_nothing(comm, mode);
    }
    return trl_move_serve(c, comm, &a, &send, &recv, served, mode, NULL);
}

int trl_inter_reduce(trl_intercomm *ic, const void *sendbuf, void *recvbuf, int count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                     const trl_mode *mode, bool *served)
{
    int at = trl_inter_root(ic, root, TRL_COLL_REDUCE, trl_call_of(mode));
    if (at == -1)
        return trl_done(comm, mode, served);
    bool is_root = at >= 0 && at == ic->c->rank;
    if (at < 0 || reduction_refused(sendbuf, recvbuf, count, datatype, op, !is_root, is_root))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE, at, sendbuf, count, datatype, op);
    /* Only what is significant here reaches the schedule. */
    return serve(ic, comm, &a, a.count == 0, is_root ? NULL : sendbuf, is_root ? recvbuf : NULL,
                 datatype, op, mode, served);
}

int trl_inter_allreduce(trl_intercomm *ic, const void *sendbuf, void *recvbuf, int count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                        bool *served)
{
    if (reduction_refused(sendbuf, recvbuf, count, datatype, op, true, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_ALLREDUCE, 0, sendbuf, count, datatype, op);
    return serve(ic, comm, &a, a.count == 0, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_inter_barrier(trl_intercomm *ic, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    trl_coll_args a = {.coll = TRL_COLL_BARRIER, .elem_size = 1, .commutative = true};
    return serve(ic, comm, &a, false, NULL, NULL, MPI_BYTE, MPI_OP_NULL, mode, served);
}

/* Each group's vector is the sum of its own recvcounts, the same length in
 * both groups (MPI requires it): a call that moves nothing is known as
 * such everywhere. */
int trl_inter_reduce_scatter(trl_intercomm *ic, const void *sendbuf, void *recvbuf,
                             const int recvcounts[], MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (!recvcounts)
        return MPI_SUCCESS;
    size_t total = 0;
    bool negative = false;
    for (int i = 0; i < ic->local_n; i++) {
        negative |= recvcounts[i] < 0;
        total += recvcounts[i] < 0 ? 0 : (size_t)recvcounts[i];
    }
    if (total > INT32_MAX || negative ||
        reduction_refused(sendbuf, recvbuf, total > 0, datatype, op, true, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE_SCATTER, 0, sendbuf, 1, datatype, op);
    if (a.count == 0 || total == 0)
        return trl_done(comm, mode, served);
    size_t *counts = trl_comm_vec(ic->c);
    if (!counts) { /* the others go on to Trellis' schedule */
        trl_short_of_memory("the counts");
        return MPI_SUCCESS;
    }
    for (int i = 0; i < ic->c->size; i++)
        counts[i] = i < ic->local_n ? (size_t)recvcounts[i] : 0;
    a.count = 0;
    a.counts = counts;
    return serve(ic, comm, &a, false, sendbuf, recvbuf, datatype, op, mode, served);
}

int trl_inter_reduce_scatter_block(trl_intercomm *ic, const void *sendbuf, void *recvbuf,
                                   int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const trl_mode *mode, bool *served)
{
    if (reduction_refused(sendbuf, recvbuf, recvcount, datatype, op, true, true))
        return MPI_SUCCESS;
    trl_coll_args a = trl_reduction_args(TRL_COLL_REDUCE_SCATTER_BLOCK, 0, sendbuf, recvcount,
                                         datatype, op);
    return serve(ic, comm, &a, a.count == 0, sendbuf, recvbuf, datatype, op, mode, served);
}
