/* The PMPI entry points MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw:
 * bytes, like the other data movers (coll_gather.c). alltoallv and
 * alltoallw reach the same builders: once datatypes and displacements are
 * turned into bytes they are the same call. MPI_IN_PLACE (data taken from
 * the receive buffer and replaced) runs on a staged copy of the receive
 * buffer, so no builder has to order reads before overwrites. An
 * algorithm that needs every rank's counts (the node-aware hier) gets the
 * matrix of all send counts, one allgather first. */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/coll_common.h"

/* alltoallv, alltoallw: an algorithm that needs every rank's counts
 * (TRL_NEEDS_ALL_COUNTS) gets the matrix of all send counts in a->counts
 * (row i: rank i's), gathered here; *matrix is the buffer to free. */
static int share_matrix(trl_comm *c, trl_coll_args *a, size_t **matrix)
{
    *matrix = NULL;
    const trl_algo *algo = trl_comm_choose(c, a);
    if (!algo || !algo->build || !(algo->needs & TRL_NEEDS_ALL_COUNTS))
        return MPI_SUCCESS;
    size_t p = (size_t)c->size, *m = malloc(p * p * sizeof *m);
    if (!m)
        return MPI_ERR_NO_MEM;
    int rc = PMPI_Allgather(a->send_counts, c->size, MPI_UINT64_T, m, c->size, MPI_UINT64_T,
                            c->dup);
    if (rc != MPI_SUCCESS) {
        free(m);
        return rc;
    }
    a->counts = m;
    *matrix = m;
    return MPI_SUCCESS;
}

/* recv_b describes the receive side; send_b the send side (NULL: in place,
 * the send side is a copy of the receive side). *served false when the
 * MPI library must serve the call (nothing was run). */
static int alltoall(trl_comm *c, MPI_Comm comm, trl_coll coll, const void *sendbuf,
                    const trl_blocks *send_b, void *recvbuf, const trl_blocks *recv_b,
                    bool *served)
{
    *served = true;
    if (!trl_comm_vec(c))
        return PMPI_Comm_call_errhandler(comm, MPI_ERR_NO_MEM);
    bool in_place = sendbuf == MPI_IN_PLACE;
    trl_move_side send = {.pack_only = -1}, recv = {.pack_only = -1};
    int rc = trl_move_open(&send, in_place ? recvbuf : (void *)sendbuf, in_place ? recv_b : send_b,
                           in_place, TRL_VEC(c, 0), TRL_VEC(c, 1));
    if (rc == MPI_SUCCESS)
        rc = trl_move_open(&recv, recvbuf, recv_b, false, TRL_VEC(c, 2), TRL_VEC(c, 3));
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return PMPI_Comm_call_errhandler(comm, rc);
    }
    trl_coll_args a = {.coll = coll, .elem_size = 1, .commutative = true};
    if (coll == TRL_COLL_ALLTOALL) {
        a.count = recv.counts[0];
        if (a.count == 0) { /* the same on every rank */
            trl_move_abandon(&send, &recv);
            return MPI_SUCCESS;
        }
    } else {
        a.send_counts = send.counts;
        a.send_displs = send.displs;
        a.recv_counts = recv.counts;
        a.recv_displs = recv.displs;
    }
    size_t *matrix = NULL;
    rc = coll == TRL_COLL_ALLTOALL ? MPI_SUCCESS : share_matrix(c, &a, &matrix);
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return PMPI_Comm_call_errhandler(comm, rc);
    }
    rc = trl_move_serve(c, comm, &a, &send, &recv, served);
    free(matrix);
    return rc;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || recvcount < 0 || recvtype == MPI_DATATYPE_NULL ||
        (sendbuf != MPI_IN_PLACE && (sendcount < 0 || sendtype == MPI_DATATYPE_NULL)))
        goto mpi;
    trl_blocks send_b = {.n = c->size, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .count = recvcount, .type = recvtype};
    bool served;
    int rc = alltoall(c, comm, TRL_COLL_ALLTOALL, sendbuf, &send_b, recvbuf, &recv_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || recvtype == MPI_DATATYPE_NULL ||
        trl_bad_counts(recvcounts, rdispls, c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         (sendtype == MPI_DATATYPE_NULL || trl_bad_counts(sendcounts, sdispls, c->size))))
        goto mpi;
    trl_blocks send_b = {.n = c->size, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    bool served;
    int rc = alltoall(c, comm, TRL_COLL_ALLTOALLV, sendbuf, &send_b, recvbuf, &recv_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

static bool bad_types(const MPI_Datatype *types, int p)
{
    if (!types)
        return true;
    for (int i = 0; i < p; i++)
        if (types[i] == MPI_DATATYPE_NULL)
            return true;
    return false;
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || bad_types(recvtypes, c->size) ||
        trl_bad_counts(recvcounts, rdispls, c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         (bad_types(sendtypes, c->size) || trl_bad_counts(sendcounts, sdispls, c->size))))
        goto mpi;
    trl_blocks send_b = {.n = c->size, .counts = sendcounts, .byte_disp_in = sdispls,
                         .types = sendtypes};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .byte_disp_in = rdispls,
                         .types = recvtypes};
    bool served;
    int rc = alltoall(c, comm, TRL_COLL_ALLTOALLW, sendbuf, &send_b, recvbuf, &recv_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
}
