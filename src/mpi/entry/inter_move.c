/* The intercommunicator forms (coll_forms.h) of the data movers: gather(v),
 * scatter(v), allgather(v), alltoall(v,w). Bytes, as for intracommunicators
 * (coll_common.h: a side whose datatype is not contiguous is staged), with
 * the blocks of the other group's ranks on the side that has one per rank
 * (src/algo/inter/inter.h). MPI_IN_PLACE does not exist here, nor an own
 * block: a call passing MPI_IN_PLACE, or arguments the MPI library rejects
 * on this rank, go to the library.
 *
 * gatherv and scatterv: the other ranks' counts are known at the root
 * only; an algorithm that needs them on the other group too
 * (TRL_NEEDS_ALL_COUNTS, blocking calls only) has them shared first by one
 * reduction over the merged communicator, which every rank joins, the
 * root's group's other ranks (MPI_PROC_NULL) included. It carries the
 * root's counts and each rank's own, so every rank sees alike whether a
 * rank refuses the call (its mark) or its count disagrees with the root's
 * (an error MPI reports): then every rank hands the call to the MPI
 * library. */
#include <stdint.h>
#include <string.h>

#include "mpi/context/short.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* A count no rank sends: the mark of a rank that refuses the call. */
#define REFUSED UINT64_MAX

/* The sides of one call: this rank's blocks to send and to receive (NULL
 * blocks: none on this rank). The builders read the byte counts and
 * displacements, TRL_VEC(c, 0..3) of the merged state, whose entries past
 * the blocks are zeroed: the cache key reads all of them. */
typedef struct {
    trl_move_side send, recv;
} sides;

static void zero_tail(trl_comm *c, int slot, int n)
{
    for (int i = n; i < c->size; i++)
        TRL_VEC(c, slot)[i] = 0;
}

static int open_sides(trl_comm *c, sides *sd, const void *sendbuf, const trl_blocks *send_b,
                      void *recvbuf, const trl_blocks *recv_b)
{
    sd->send = (trl_move_side){.pack_only = -1};
    sd->recv = (trl_move_side){.pack_only = -1};
    if (!trl_comm_vec(c))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    if (send_b)
        rc = trl_move_open(&sd->send, (void *)sendbuf, send_b, false, TRL_VEC(c, 0), TRL_VEC(c, 1));
    if (recv_b && rc == MPI_SUCCESS)
        rc = trl_move_open(&sd->recv, recvbuf, recv_b, false, TRL_VEC(c, 2), TRL_VEC(c, 3));
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&sd->send, &sd->recv);
        return rc;
    }
    for (int slot = 0; slot < 4; slot++)
        zero_tail(c, slot, (slot < 2 ? send_b : recv_b) ? (slot < 2 ? send_b : recv_b)->n : 0);
    return MPI_SUCCESS;
}

static trl_coll_args move_args(const trl_intercomm *ic, trl_coll coll, const trl_mode *mode)
{
    trl_coll_args a = {.coll = coll,
                       .elem_size = 1,
                       .commutative = true,
                       .call = trl_call_of(mode),
                       .inter = &ic->shape};
    return a;
}

/* Open, look up, run; a call that moves nothing (known alike everywhere)
 * returns at once. */
static int serve(trl_intercomm *ic, MPI_Comm comm, trl_coll_args *a, sides *sd, bool empty,
                 const trl_mode *mode, bool *served)
{
    *served = true;
    if (empty) {
        trl_move_abandon(&sd->send, &sd->recv);
        return trl_nothing(comm, mode);
    }
    return trl_move_serve(ic->c, comm, a, &sd->send, &sd->recv, served, mode, NULL);
}

/* ---- gather, gatherv, scatter, scatterv ---- */

/* A rooted call as this rank sees it. `all` is the root's side of
 * remote_n blocks, `one` a leaf's own block. */
typedef struct {
    trl_coll coll;
    bool gather, vector;
    int root; /* trl_inter_root */
    const void *all_buf;
    void *one_buf;
    trl_blocks all_b, one_b;
    bool refused; /* this rank's arguments: the MPI library's error */
} rooted;

/* Whether the algorithm chosen for this gatherv or scatterv needs every
 * count on the other group (the same answer on every rank: no bytes). */
static bool needs_counts(trl_intercomm *ic, const rooted *r, const trl_mode *mode)
{
    if (!r->vector || mode->kind != TRL_MODE_BLOCKING)
        return false;
    trl_coll_args a = move_args(ic, r->coll, mode);
    a.root = r->root;
    const trl_algo *algo = trl_comm_choose(ic->c, &a);
    return algo && algo->build && (algo->needs & TRL_NEEDS_ALL_COUNTS);
}

/* The root's counts (bytes) to every rank, by the other group's rank, in
 * TRL_VEC(c, 5); TRL_VEC(c, 4) carries each such rank's own count + 1.
 * root_counts: the root's; own: a leaf's own count. Returns an MPI error
 * code; *refused when a rank marked the call or a count disagrees. */
static int share_counts(trl_intercomm *ic, const rooted *r, const size_t *root_counts, size_t own,
                        bool *refused)
{
    trl_comm *c = ic->c;
    bool is_root = r->root == c->rank, leaf = !is_root && r->root >= 0;
    /* The root's group knows the other group as the remote one. */
    int n = leaf ? ic->local_n : ic->remote_n;
    uint64_t *all = TRL_VEC(c, 4); /* 4 and 5 lie back to back */
    memset(all, 0, 2 * (size_t)c->size * sizeof *all);
    uint64_t *owns = all, *roots = all + c->size;
    for (int i = 0; is_root && i < n; i++)
        roots[i] = r->refused ? REFUSED : root_counts[i];
    if (leaf)
        owns[ic->shape.index[c->rank]] = r->refused ? REFUSED : own + 1;
    int rc = PMPI_Allreduce(MPI_IN_PLACE, all, 2 * c->size, MPI_UINT64_T, MPI_MAX, c->dup);
    *refused = false;
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++)
        *refused |= roots[i] == REFUSED || owns[i] == REFUSED || owns[i] != roots[i] + 1;
    return rc;
}

/* r->root: the user's root; becomes trl_inter_root's. */
static int rooted_move(trl_intercomm *ic, rooted *r, MPI_Comm comm, const trl_mode *mode,
                       bool *served)
{
    *served = false;
    r->root = trl_inter_root(ic, r->root, r->coll, trl_call_of(mode));
    if (r->root == -2)
        return MPI_SUCCESS;
    trl_comm *c = ic->c;
    bool is_root = r->root == c->rank, counts_first = needs_counts(ic, r, mode);
    if (r->root == -1 || r->refused) {
        /* MPI_PROC_NULL: nothing but the counts' exchange where there is one. */
        bool refused = r->refused;
        if (counts_first && !trl_comm_vec(c)) {
            trl_short_of_memory("the counts");
            return MPI_SUCCESS;
        }
        int rc = counts_first ? share_counts(ic, r, NULL, 0, &refused) : MPI_SUCCESS;
        *served = r->root == -1 && !refused;
        if (rc != MPI_SUCCESS)
            return trl_error(comm, rc);
        return *served ? trl_nothing(comm, mode) : MPI_SUCCESS;
    }
    sides sd;
    const trl_blocks *all_b = is_root ? &r->all_b : NULL, *one_b = is_root ? NULL : &r->one_b;
    void *all_buf = (void *)r->all_buf;
    int rc = r->gather ? open_sides(c, &sd, r->one_buf, one_b, all_buf, all_b)
                       : open_sides(c, &sd, all_buf, all_b, r->one_buf, one_b);
    *served = true;
    if (rc != MPI_SUCCESS)
        return trl_error(comm, rc);
    trl_move_side *all = r->gather ? &sd.recv : &sd.send, *one = r->gather ? &sd.send : &sd.recv;
    trl_coll_args a = move_args(ic, r->coll, mode);
    a.root = r->root;
    if (is_root) {
        a.count = all->counts[0];
        if (r->vector) {
            a.count = 0;
            a.counts = all->counts;
            a.displs = all->displs;
        }
    } else {
        a.count = one->counts[0];
    }
    if (counts_first) {
        bool refused;
        rc = share_counts(ic, r, all->counts, a.count, &refused);
        if (rc != MPI_SUCCESS || refused) {
            trl_move_abandon(&sd.send, &sd.recv);
            *served = rc != MPI_SUCCESS;
            return rc == MPI_SUCCESS ? rc : trl_error(comm, rc);
        }
        if (!is_root)
            a.counts = TRL_VEC(c, 5);
    }
    /* Uniform blocks: the same size at the root and on the other group. */
    return serve(ic, comm, &a, &sd, !r->vector && a.count == 0, mode, served);
}

int trl_inter_gather(trl_intercomm *ic, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const trl_mode *mode, bool *served)
{
    rooted r = {TRL_COLL_GATHER,
                true,
                false,
                root,
                recvbuf,
                (void *)sendbuf,
                {.n = ic->remote_n, .count = recvcount, .type = recvtype},
                {.n = 1, .count = sendcount, .type = sendtype},
                false};
    r.refused = root == MPI_ROOT
                    ? trl_side_refused(TRL_COLL_GATHER, TRL_SIDE_RECV, recvbuf, recvcount, recvtype)
                    : root != MPI_PROC_NULL && trl_side_refused(TRL_COLL_GATHER, TRL_SIDE_SEND,
                                                                sendbuf, sendcount, sendtype);
    return rooted_move(ic, &r, comm, mode, served);
}

int trl_inter_gatherv(trl_intercomm *ic, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, const trl_mode *mode,
                      bool *served)
{
    int n = ic->remote_n;
    rooted r = {TRL_COLL_GATHERV,
                true,
                true,
                root,
                recvbuf,
                (void *)sendbuf,
                {.n = n, .counts = recvcounts, .displs = displs, .type = recvtype},
                {.n = 1, .count = sendcount, .type = sendtype},
                false};
    r.refused = root == MPI_ROOT
                    ? trl_vside_refused(TRL_COLL_GATHERV, TRL_SIDE_RECV, recvbuf, recvcounts,
                                        displs, recvtype, n)
                    : root != MPI_PROC_NULL && trl_side_refused(TRL_COLL_GATHERV, TRL_SIDE_SEND,
                                                                sendbuf, sendcount, sendtype);
    return rooted_move(ic, &r, comm, mode, served);
}

int trl_inter_scatter(trl_intercomm *ic, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    rooted r = {TRL_COLL_SCATTER,
                false,
                false,
                root,
                sendbuf,
                recvbuf,
                {.n = n, .count = sendcount, .type = sendtype},
                {.n = 1, .count = recvcount, .type = recvtype},
                false};
    r.refused = root == MPI_ROOT
                    ? trl_side_refused(TRL_COLL_SCATTER, TRL_SIDE_SEND, sendbuf, sendcount,
                                       sendtype)
                    : root != MPI_PROC_NULL && trl_side_refused(TRL_COLL_SCATTER, TRL_SIDE_RECV,
                                                                recvbuf, recvcount, recvtype);
    return rooted_move(ic, &r, comm, mode, served);
}

int trl_inter_scatterv(trl_intercomm *ic, const void *sendbuf, const int sendcounts[],
                       const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, int root, MPI_Comm comm, const trl_mode *mode,
                       bool *served)
{
    int n = ic->remote_n;
    rooted r = {TRL_COLL_SCATTERV,
                false,
                true,
                root,
                sendbuf,
                recvbuf,
                {.n = n, .counts = sendcounts, .displs = displs, .type = sendtype},
                {.n = 1, .count = recvcount, .type = recvtype},
                false};
    r.refused = root == MPI_ROOT
                    ? trl_vside_refused(TRL_COLL_SCATTERV, TRL_SIDE_SEND, sendbuf, sendcounts,
                                        displs, sendtype, n)
                    : root != MPI_PROC_NULL && trl_side_refused(TRL_COLL_SCATTERV, TRL_SIDE_RECV,
                                                                recvbuf, recvcount, recvtype);
    return rooted_move(ic, &r, comm, mode, served);
}

/* ---- allgather(v), alltoall(v,w) ---- */

/* Open both sides, look up, run. allgather(v): one block sent, one
 * received per remote rank; alltoall(v,w): one of each per remote rank. */
static int all_move(trl_intercomm *ic, trl_coll coll, const void *sendbuf, const trl_blocks *send_b,
                    void *recvbuf, const trl_blocks *recv_b, MPI_Comm comm, const trl_mode *mode,
                    bool *served)
{
    sides sd;
    int rc = open_sides(ic->c, &sd, sendbuf, send_b, recvbuf, recv_b);
    *served = true;
    if (rc != MPI_SUCCESS)
        return trl_error(comm, rc);
    trl_coll_args a = move_args(ic, coll, mode);
    bool gathers = coll == TRL_COLL_ALLGATHER || coll == TRL_COLL_ALLGATHERV;
    if (gathers) {
        a.count = sd.send.counts[0];
        a.counts = sd.recv.counts;
        a.displs = sd.recv.displs;
    } else {
        a.send_counts = sd.send.counts;
        a.send_displs = sd.send.displs;
        a.recv_counts = sd.recv.counts;
        a.recv_displs = sd.recv.displs;
    }
    /* Uniform blocks each way (allgather, alltoall) are known both ways. */
    bool empty = (coll == TRL_COLL_ALLGATHER || coll == TRL_COLL_ALLTOALL) &&
                 sd.send.counts[0] == 0 && sd.recv.counts[0] == 0;
    return serve(ic, comm, &a, &sd, empty, mode, served);
}

int trl_inter_allgather(trl_intercomm *ic, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    if (trl_side_refused(TRL_COLL_ALLGATHER, TRL_SIDE_RECV, recvbuf, recvcount, recvtype) ||
        trl_side_refused(TRL_COLL_ALLGATHER, TRL_SIDE_SEND, sendbuf, sendcount, sendtype))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = n, .count = recvcount, .type = recvtype};
    return all_move(ic, TRL_COLL_ALLGATHER, sendbuf, &send_b, recvbuf, &recv_b, comm, mode, served);
}

int trl_inter_allgatherv(trl_intercomm *ic, const void *sendbuf, int sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                         const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    if (trl_vside_refused(TRL_COLL_ALLGATHERV, TRL_SIDE_RECV, recvbuf, recvcounts, displs, recvtype,
                          n) ||
        trl_side_refused(TRL_COLL_ALLGATHERV, TRL_SIDE_SEND, sendbuf, sendcount, sendtype))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = n, .counts = recvcounts, .displs = displs, .type = recvtype};
    return all_move(ic, TRL_COLL_ALLGATHERV, sendbuf, &send_b, recvbuf, &recv_b, comm, mode,
                    served);
}

int trl_inter_alltoall(trl_intercomm *ic, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                       const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    if (trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_RECV, recvbuf, recvcount, recvtype) ||
        trl_side_refused(TRL_COLL_ALLTOALL, TRL_SIDE_SEND, sendbuf, sendcount, sendtype))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = n, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = n, .count = recvcount, .type = recvtype};
    return all_move(ic, TRL_COLL_ALLTOALL, sendbuf, &send_b, recvbuf, &recv_b, comm, mode, served);
}

int trl_inter_alltoallv(trl_intercomm *ic, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                        MPI_Comm comm, const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    if (trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_RECV, recvbuf, recvcounts, rdispls, recvtype,
                          n) ||
        trl_vside_refused(TRL_COLL_ALLTOALLV, TRL_SIDE_SEND, sendbuf, sendcounts, sdispls, sendtype,
                          n))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = n, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    trl_blocks recv_b = {.n = n, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return all_move(ic, TRL_COLL_ALLTOALLV, sendbuf, &send_b, recvbuf, &recv_b, comm, mode, served);
}

int trl_inter_alltoallw(trl_intercomm *ic, const void *sendbuf, const int sendcounts[],
                        const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                        const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                        MPI_Comm comm, const trl_mode *mode, bool *served)
{
    int n = ic->remote_n;
    if (trl_wside_refused(TRL_SIDE_RECV, recvbuf, recvcounts, rdispls, recvtypes, n) ||
        trl_wside_refused(TRL_SIDE_SEND, sendbuf, sendcounts, sdispls, sendtypes, n))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = n, .counts = sendcounts, .byte_disp_in = sdispls, .types = sendtypes};
    trl_blocks recv_b = {.n = n, .counts = recvcounts, .byte_disp_in = rdispls, .types = recvtypes};
    return all_move(ic, TRL_COLL_ALLTOALLW, sendbuf, &send_b, recvbuf, &recv_b, comm, mode, served);
}
