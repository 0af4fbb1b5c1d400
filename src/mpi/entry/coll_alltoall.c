/* The intracommunicator forms (coll_forms.h) of alltoall, alltoallv and
 * alltoallw: bytes, like the other data movers (coll_gather.c). alltoallv
 * and alltoallw reach the same builders: once datatypes and displacements
 * are turned into bytes they are the same call. MPI_IN_PLACE (data taken from
 * the receive buffer and replaced) runs on a staged copy of the receive
 * buffer, so no builder has to order reads before overwrites. A rank
 * whose own block has a different size on its send side than on its
 * receive side breaks MPI's rule that the two type signatures match: the
 * MPI library serves that call (and rejects it), as it does other
 * arguments it rejects (validate.h). An algorithm that needs every rank's
 * counts (the node-aware hier) gets the matrix of all send counts, one
 * allgather first, in which a rank that refuses the call sends a mark. */
#include <stdint.h>
#include <stdlib.h>

#include "mpi/context/short.h"
#include "mpi/engine/check.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* A count no rank sends: the mark of a rank that refuses the call. */
#define REFUSED UINT64_MAX

/* alltoallv, alltoallw: an algorithm that needs every rank's counts
 * (TRL_NEEDS_ALL_COUNTS; the choice is the same on every rank) gets the
 * matrix of all send counts in a->counts (row i: rank i's), gathered here
 * from each rank's own (mine; NULL: this rank refuses the call and sends
 * a row of marks); *matrix is the buffer to free. *refused: a mark
 * arrived, so every rank hands the call to the MPI library. */
static int share_matrix(trl_comm *c, trl_coll_args *a, const size_t *mine, size_t **matrix,
                        bool *refused)
{
    *matrix = NULL;
    *refused = false;
    const trl_algo *algo = trl_comm_choose(c, a);
    if (!algo || !algo->build || !(algo->needs & TRL_NEEDS_ALL_COUNTS))
        return MPI_SUCCESS;
    trl_before_library_collective();
    size_t p = (size_t)c->size, *m = malloc(p * (p + 1) * sizeof *m);
    if (!m)
        return MPI_ERR_NO_MEM;
    size_t *row = m + p * p;
    for (size_t i = 0; i < p; i++)
        row[i] = mine ? mine[i] : REFUSED;
    int rc = PMPI_Allgather(row, c->size, MPI_UINT64_T, m, c->size, MPI_UINT64_T, c->dup);
    for (size_t i = 0; rc == MPI_SUCCESS && i < p; i++)
        *refused |= m[i * p] == REFUSED;
    if (rc != MPI_SUCCESS || *refused) {
        free(m);
        return rc;
    }
    a->counts = m;
    *matrix = m;
    return MPI_SUCCESS;
}

/* An alltoallv or alltoallw this rank refuses (validate.h) while the
 * others may not: where the chosen algorithm gathers the counts first,
 * take part with the mark, so that the others hand the call to the MPI
 * library too instead of waiting there. */
static void refuse_matrix(trl_comm *c, trl_coll coll, const trl_mode *mode)
{
    trl_coll_args a = {
        .coll = coll, .elem_size = 1, .commutative = true, .call = trl_call_of(mode)};
    size_t *matrix;
    bool refused;
    if (coll != TRL_COLL_ALLTOALL && share_matrix(c, &a, NULL, &matrix, &refused) == MPI_ERR_NO_MEM)
        trl_short_of_memory("the count matrix");
}

/* recv_b describes the receive side; send_b the send side (NULL: in place,
 * the send side is a copy of the receive side). *served false when the
 * MPI library must serve the call (nothing was run). key: the uniform
 * call as passed (trl_move_repeat), or NULL. */
static int alltoall(trl_comm *c, MPI_Comm comm, trl_coll coll, const void *sendbuf,
                    const trl_blocks *send_b, void *recvbuf, const trl_blocks *recv_b,
                    const trl_mode *mode, const trl_move_key *key, bool *served)
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
        refuse_matrix(c, coll, mode);
        *served = false;
        return MPI_SUCCESS;
    }
    trl_coll_args a = {
        .coll = coll, .elem_size = 1, .commutative = true, .call = trl_call_of(mode)};
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
    size_t *matrix = NULL;
    bool refused = false;
    rc = coll == TRL_COLL_ALLTOALL ? MPI_SUCCESS
                                   : share_matrix(c, &a, send.counts, &matrix, &refused);
    if (rc != MPI_SUCCESS || refused) {
        trl_move_abandon(&send, &recv);
        free(matrix);
        *served = rc != MPI_SUCCESS; /* refused: the MPI library serves it */
        return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
    }
    rc = trl_move_serve(c, comm, &a, &send, &recv, served, mode, key);
    free(matrix);
    return rc;
}

int trl_intra_alltoall(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const trl_mode *mode, bool *served)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    trl_move_key key;
    int rc;
    if ((*served = trl_move_repeat(c, comm, TRL_COLL_ALLTOALL, 0, sendbuf, sendcount, sendtype,
                                   recvbuf, recvcount, recvtype, mode, &key, &rc)))
        return rc;
    if (trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_RECV, recvbuf, recvcount, recvtype) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = c->size, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .count = recvcount, .type = recvtype};
    return alltoall(c, comm, TRL_COLL_ALLTOALL, sendbuf, &send_b, recvbuf, &recv_b, mode, &key,
                    served);
}

int trl_intra_alltoallv(trl_comm *c, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    if (trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_RECV, recvbuf, recvcounts, rdispls, recvtype,
                          c->size) ||
        (sendbuf != MPI_IN_PLACE && trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_SEND, sendbuf,
                                                      sendcounts, sdispls, sendtype, c->size))) {
        refuse_matrix(c, TRL_COLL_ALLTOALLV, mode);
        return MPI_SUCCESS;
    }
    trl_blocks send_b = {.n = c->size, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    trl_blocks recv_b = {.n = c->size, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return alltoall(c, comm, TRL_COLL_ALLTOALLV, sendbuf, &send_b, recvbuf, &recv_b, mode, NULL,
                    served);
}

int trl_intra_alltoallw(trl_comm *c, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                        const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                        MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (c->size == 1)
        return MPI_SUCCESS;
    if (trl_wside_refused(TRL_SIDE_RECV, recvbuf, recvcounts, rdispls, recvtypes, c->size) ||
        (sendbuf != MPI_IN_PLACE &&
         trl_wside_refused(TRL_SIDE_SEND, sendbuf, sendcounts, sdispls, sendtypes, c->size))) {
        refuse_matrix(c, TRL_COLL_ALLTOALLW, mode);
        return MPI_SUCCESS;
    }
    trl_blocks send_b = {
        .n = c->size, .counts = sendcounts, .byte_disp_in = sdispls, .types = sendtypes};
    trl_blocks recv_b = {
        .n = c->size, .counts = recvcounts, .byte_disp_in = rdispls, .types = recvtypes};
    return alltoall(c, comm, TRL_COLL_ALLTOALLW, sendbuf, &send_b, recvbuf, &recv_b, mode, NULL,
                    served);
}
