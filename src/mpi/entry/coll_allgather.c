/* The intracommunicator forms (coll_forms.h) of allgather and allgatherv:
 * bytes, like the other data movers (coll_gather.c). Every rank knows
 * every block's size, so no counts travel. A rank whose own block has a
 * different size on its send side than on its receive side breaks MPI's
 * rule that the two type signatures match: the MPI library serves that
 * call, as it does arguments it rejects (validate.h). */
#include <stdint.h>

#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* Open the sides, look up, run; *served false when the MPI library must
 * serve the call (nothing was run). key: the uniform call as passed
 * (trl_move_repeat), or NULL. */
static int allgather(trl_comm *c, MPI_Comm comm, trl_coll coll, const void *sendbuf,
                     const trl_blocks *send_b, void *recvbuf, const trl_blocks *recv_b,
                     const trl_mode *mode, const trl_move_key *key, bool *served)
{
    *served = true;
    if (!trl_comm_vec(c))
        return trl_error(comm, MPI_ERR_NO_MEM);
    bool in_place = sendbuf == MPI_IN_PLACE;
    trl_move_side send = {.pack_only = -1}, recv = {.pack_only = -1};
    int rc = MPI_SUCCESS;
    if (!in_place)
        rc = trl_move_open(&send, (void *)sendbuf, send_b, false, TRL_VEC(c, 0), TRL_VEC(c, 1));
    if (rc == MPI_SUCCESS)
        rc = trl_move_open(&recv, recvbuf, recv_b, false, TRL_VEC(c, 2), TRL_VEC(c, 3));
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return trl_error(comm, rc);
    }
    if (!in_place && send.counts[0] != recv.counts[c->rank]) {
        trl_move_abandon(&send, &recv);
        *served = false;
        return MPI_SUCCESS;
    }
    /* In place, this rank's block is in the receive buffer: a staged
     * receive side must hold it too, since the schedule forwards it. */
    if (in_place)
        recv.pack_only = c->rank;
    trl_coll_args a = {.coll = coll,
                       .elem_size = 1,
                       .commutative = true,
                       .in_place = in_place,
                       .call = trl_call_of(mode)};
    size_t total = 0;
    for (int i = 0; i < c->size; i++)
        total += recv.counts[i];
    if (coll == TRL_COLL_ALLGATHER) {
        a.count = recv.counts[0];
    } else {
        a.counts = recv.counts;
        a.displs = recv.displs;
    }
    if (total == 0) { /* the same on every rank */
        trl_move_abandon(&send, &recv);
        return trl_nothing(comm, mode);
    }
    return trl_move_serve(c, comm, &a, &send, &recv, served, mode, key);
}

int trl_intra_allgather(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                        void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        const trl_mode *mode, bool *served)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    trl_move_key key;
    int rc;
    if ((*served = trl_move_repeat(c, comm, TRL_COLL_ALLGATHER, 0, sendbuf, sendcount, sendtype,
                                   recvbuf, recvcount, recvtype, mode, &key, &rc)))
        return rc;
    if (trl_side_refused(TRL_COLL_ALLGATHER, TRL_SIDE_RECV, recvbuf, recvcount, recvtype) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_side_refused(TRL_COLL_ALLGATHER, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .count = recvcount, .type = recvtype};
    return allgather(c, comm, TRL_COLL_ALLGATHER, sendbuf, &send_b, recvbuf, &recv_b, mode, &key,
                     served);
}

int trl_intra_allgatherv(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                         void *recvbuf, const int recvcounts[], const int displs[],
                         MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    /* One rank too, unlike the other collectives: MPICH 4.0.2's allgatherv
     * on one rank ignores displs (docs/install.md); the schedule's copy of
     * the own block does not. */
    if (trl_vside_refused(TRL_COLL_ALLGATHERV, TRL_SIDE_RECV, recvbuf, recvcounts, displs, recvtype,
                          c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_side_refused(TRL_COLL_ALLGATHERV, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .displs = displs, .type = recvtype};
    return allgather(c, comm, TRL_COLL_ALLGATHERV, sendbuf, &send_b, recvbuf, &recv_b, mode, NULL,
                     served);
}
