/* The PMPI entry points MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw:
 * bytes, like the other data movers (coll_gather.c). alltoallv and
 * alltoallw reach the same builders: once datatypes and displacements are
 * turned into bytes they are the same call. MPI_IN_PLACE (data taken from
 * the receive buffer and replaced) runs on a staged copy of the receive
 * buffer, so no builder has to order reads before overwrites. A rank
 * whose own block has a different size on its send side than on its
 * receive side breaks MPI's rule that the two type signatures match: the
 * MPI library serves that call (and rejects it), as it does other
 * arguments it rejects (validate.h). */
#include <stdint.h>

#include "mpi/coll_common.h"
#include "mpi/coll_entry.h"
#include "mpi/validate.h"

/* recv_b describes the receive side; send_b the send side (NULL: in place,
 * the send side is a copy of the receive side). *served false when the
 * MPI library must serve the call (nothing was run). */
static int alltoall(trl_comm *c, MPI_Comm comm, trl_coll coll, const void *sendbuf,
                    const trl_blocks *send_b, void *recvbuf, const trl_blocks *recv_b,
                    const trl_mode *mode, bool *served)
{
    *served = true;
    if (!trl_comm_vec(c))
        return trl_error(comm, MPI_ERR_NO_MEM);
    bool in_place = sendbuf == MPI_IN_PLACE;
    trl_move_side send = {.pack_only = -1}, recv = {.pack_only = -1};
    int rc = trl_move_open(&send, in_place ? recvbuf : (void *)sendbuf, in_place ? recv_b : send_b,
                           in_place, TRL_VEC(c, 0), TRL_VEC(c, 1));
    if (rc == MPI_SUCCESS)
        rc = trl_move_open(&recv, recvbuf, recv_b, false, TRL_VEC(c, 2), TRL_VEC(c, 3));
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return trl_error(comm, rc);
    }
    if (!in_place && send.counts[c->rank] != recv.counts[c->rank]) {
        trl_move_abandon(&send, &recv);
        *served = false;
        return MPI_SUCCESS;
    }
    trl_coll_args a = {.coll = coll, .elem_size = 1, .commutative = true,
                       .call = trl_call_of(mode)};
    if (coll == TRL_COLL_ALLTOALL) {
        a.count = recv.counts[0];
        if (a.count == 0) { /* the same on every rank */
            trl_move_abandon(&send, &recv);
            return trl_nothing(comm, mode);
        }
    } else {
        a.send_counts = send.counts;
        a.send_displs = send.displs;
        a.recv_counts = recv.counts;
        a.recv_displs = recv.displs;
    }
    return trl_move_serve(c, comm, &a, &send, &recv, served, mode);
}

int trl_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c || c->size == 1 ||
        trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_RECV, recvbuf, recvcount, recvtype) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = c->size, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .count = recvcount, .type = recvtype};
    return alltoall(c, comm, TRL_COLL_ALLTOALL, sendbuf, &send_b, recvbuf, &recv_b, mode, served);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    bool served;
    int rc = trl_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int trl_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c || c->size == 1 ||
        trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_RECV, recvbuf, recvcounts, rdispls,
                          recvtype, c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_SEND, sendbuf, sendcounts, sdispls,
                           sendtype, c->size)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = c->size, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return alltoall(c, comm, TRL_COLL_ALLTOALLV, sendbuf, &send_b, recvbuf, &recv_b, mode, served);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    bool served;
    int rc = trl_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

/* alltoallw's side: a datatype per block, each judged by the library. */
static bool wside_refused(trl_side_kind side, const void *buf, const int *counts,
                          const int *displs, const MPI_Datatype *types, int p)
{
    if (!types || trl_vside_refused(TRL_COLL_ALLTOALLW, side, buf, counts, displs, MPI_BYTE, p))
        return true;
    for (int i = 0; i < p; i++)
        if (!trl_move_type_ok(TRL_COLL_ALLTOALLW, side, types[i]))
            return true;
    return false;
}

int trl_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = false;
    trl_comm *c = trl_comm_for(comm, mode);
    if (!c || c->size == 1 ||
        wside_refused(TRL_SIDE_RECV, recvbuf, recvcounts, rdispls, recvtypes, c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         wside_refused(TRL_SIDE_SEND, sendbuf, sendcounts, sdispls, sendtypes, c->size)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = c->size, .counts = sendcounts, .byte_disp_in = sdispls,
                         .types = sendtypes};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .byte_disp_in = rdispls,
                         .types = recvtypes};
    return alltoall(c, comm, TRL_COLL_ALLTOALLW, sendbuf, &send_b, recvbuf, &recv_b, mode, served);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    bool served;
    int rc = trl_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}
