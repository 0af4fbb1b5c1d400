/* The PMPI entry points of the rooted data movers: MPI_Gather,
 * MPI_Gatherv, MPI_Scatter, MPI_Scatterv.
 *
 * Their schedules move bytes (elem_size 1), as bcast's do, so ranks may
 * describe a block with different datatypes as MPI allows; a side whose
 * datatype is not contiguous is staged through a packed buffer
 * (coll_common.h). A block's size in bytes is the same on every rank by
 * MPI's rules, so every rank chooses alike. In gatherv and scatterv the
 * other ranks' counts are known at the root only: an algorithm that needs
 * them everywhere (TRL_NEEDS_ALL_COUNTS) has them exchanged first. */
#include <stdint.h>
#include <string.h>

#include "mpi/coll_common.h"

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as MPI_UINT64_T");


/* The rooted call, once its two sides are open: `one` is this rank's
 * block, `all` the root's p blocks. */
typedef struct {
    trl_comm *c;
    MPI_Comm comm;
    trl_coll_args a;
    trl_move_side *one, *all;
    bool gather; /* data flows one -> all; scatter: all -> one */
} rooted;

/* gatherv, scatterv: every rank's counts, from the root's or each rank's
 * own, when the chosen algorithm needs them. */
static int share_counts(rooted *r)
{
    trl_comm *c = r->c;
    const trl_algo *algo = trl_comm_choose(c, &r->a);
    if (!algo || !algo->build || !(algo->needs & TRL_NEEDS_ALL_COUNTS))
        return MPI_SUCCESS;
    size_t *all = TRL_VEC(c, 5);
    if (r->gather) {
        uint64_t mine = r->a.counts[c->rank];
        int rc = PMPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, c->dup);
        if (rc != MPI_SUCCESS)
            return rc;
    } else {
        if (c->rank == r->a.root)
            memcpy(all, r->a.counts, (size_t)c->size * sizeof *all);
        int rc = PMPI_Bcast(all, c->size, MPI_UINT64_T, r->a.root, c->dup);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    r->a.counts = all;
    return MPI_SUCCESS;
}

/* Look up and run, or report that the MPI library must serve the call
 * (*served false; nothing was run). */
static int run_rooted(rooted *r, bool vector, bool *served)
{
    trl_move_side *send = r->gather ? r->one : r->all, *recv = r->gather ? r->all : r->one;
    *served = true;
    if (vector) {
        int rc = share_counts(r);
        if (rc != MPI_SUCCESS) {
            trl_move_abandon(send, recv);
            return PMPI_Comm_call_errhandler(r->comm, rc);
        }
    } else if (r->a.count == 0) {
        trl_move_abandon(send, recv);
        return MPI_SUCCESS;
    }
    return trl_move_serve(r->c, r->comm, &r->a, send, recv, served);
}

/* Open both sides of a rooted call. in_place: at the root, one_buf is not
 * used (a NULL one_buf is MPI_BOTTOM, not in place). */
static int open_rooted(rooted *r, trl_comm *c, MPI_Comm comm, trl_coll coll, int root,
                       bool in_place, void *one_buf, const trl_blocks *one_b, void *all_buf,
                       const trl_blocks *all_b, trl_move_side *one, trl_move_side *all)
{
    *r = (rooted){c, comm, {.coll = coll, .root = root, .elem_size = 1, .commutative = true},
                  one, all, coll == TRL_COLL_GATHER || coll == TRL_COLL_GATHERV};
    bool is_root = c->rank == root;
    r->a.in_place = in_place;
    *one = (trl_move_side){.pack_only = -1};
    *all = (trl_move_side){.pack_only = -1};
    if (!trl_comm_vec(c))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    /* Side slots: the send side's arrays first, then the receive side's. */
    int one_slot = r->gather ? 0 : 2, all_slot = r->gather ? 2 : 0;
    if (!in_place)
        rc = trl_move_open(one, one_buf, one_b, false, TRL_VEC(c, one_slot), TRL_VEC(c, one_slot + 1));
    if (is_root && rc == MPI_SUCCESS) {
        rc = trl_move_open(all, all_buf, all_b, false, TRL_VEC(c, all_slot), TRL_VEC(c, all_slot + 1));
        /* In place, the root's own block must reach a staged receive side. */
        if (r->gather && r->a.in_place)
            all->pack_only = root;
    }
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(one, all);
        return rc;
    }
    if (is_root) {
        r->a.count = all->counts[0];
        r->a.counts = all->counts;
        r->a.displs = all->displs;
    } else {
        /* Elsewhere only this rank's own count is known. */
        size_t *counts = TRL_VEC(c, 4);
        memset(counts, 0, (size_t)c->size * sizeof *counts);
        counts[c->rank] = one->counts[0];
        r->a.count = one->counts[0];
        r->a.counts = counts;
    }
    return MPI_SUCCESS;
}

/* Open, look up and run a rooted call; *served false when the MPI library
 * must serve it (nothing was run). */
static int rooted_move(trl_comm *c, MPI_Comm comm, trl_coll coll, int root, bool in_place,
                       void *one_buf, const trl_blocks *one_b, void *all_buf,
                       const trl_blocks *all_b, bool *served)
{
    rooted r;
    trl_move_side one, all;
    *served = true;
    int rc = open_rooted(&r, c, comm, coll, root, in_place, one_buf, one_b, all_buf, all_b, &one,
                         &all);
    if (rc != MPI_SUCCESS)
        return PMPI_Comm_call_errhandler(comm, rc);
    bool vector = trl_coll_is_vector(coll);
    if (vector)
        r.a.count = 0;
    else
        r.a.counts = r.a.displs = NULL; /* uniform blocks */
    return run_rooted(&r, vector, served);
}

static bool bad_side(int count, MPI_Datatype type)
{
    return count < 0 || type == MPI_DATATYPE_NULL;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || root < 0 || root >= c->size)
        goto mpi;
    bool is_root = c->rank == root, in_place = is_root && sendbuf == MPI_IN_PLACE;
    if ((!in_place && bad_side(sendcount, sendtype)) || (is_root && bad_side(recvcount, recvtype)))
        goto mpi;
    trl_blocks one_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks all_b = {.n = c->size, .count = recvcount, .type = recvtype};
    bool served;
    int rc = rooted_move(c, comm, TRL_COLL_GATHER, root, in_place, (void *)sendbuf, &one_b,
                         recvbuf, &all_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || root < 0 || root >= c->size)
        goto mpi;
    bool is_root = c->rank == root, in_place = is_root && sendbuf == MPI_IN_PLACE;
    if ((!in_place && bad_side(sendcount, sendtype)) ||
        (is_root && (bad_side(0, recvtype) || trl_bad_counts(recvcounts, displs, c->size))))
        goto mpi;
    trl_blocks one_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks all_b = {.n = c->size, .counts = recvcounts, .displs = displs, .type = recvtype};
    bool served;
    int rc = rooted_move(c, comm, TRL_COLL_GATHERV, root, in_place, (void *)sendbuf, &one_b,
                         recvbuf, &all_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                        comm);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || root < 0 || root >= c->size)
        goto mpi;
    bool is_root = c->rank == root, in_place = is_root && recvbuf == MPI_IN_PLACE;
    if ((!in_place && bad_side(recvcount, recvtype)) || (is_root && bad_side(sendcount, sendtype)))
        goto mpi;
    trl_blocks one_b = {.n = 1, .count = recvcount, .type = recvtype};
    trl_blocks all_b = {.n = c->size, .count = sendcount, .type = sendtype};
    bool served;
    int rc = rooted_move(c, comm, TRL_COLL_SCATTER, root, in_place, recvbuf, &one_b,
                         (void *)sendbuf, &all_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    trl_comm *c = trl_comm_get(comm);
    if (!c || c->size == 1 || root < 0 || root >= c->size)
        goto mpi;
    bool is_root = c->rank == root, in_place = is_root && recvbuf == MPI_IN_PLACE;
    if ((!in_place && bad_side(recvcount, recvtype)) ||
        (is_root && (bad_side(0, sendtype) || trl_bad_counts(sendcounts, displs, c->size))))
        goto mpi;
    trl_blocks one_b = {.n = 1, .count = recvcount, .type = recvtype};
    trl_blocks all_b = {.n = c->size, .counts = sendcounts, .displs = displs, .type = sendtype};
    bool served;
    int rc = rooted_move(c, comm, TRL_COLL_SCATTERV, root, in_place, recvbuf, &one_b,
                         (void *)sendbuf, &all_b, &served);
    if (served)
        return rc;
mpi:
    return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                         root, comm);
}
