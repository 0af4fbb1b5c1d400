/* The intracommunicator forms (coll_forms.h) of the rooted data movers:
 * gather, gatherv, scatter, scatterv.
 *
 * Their schedules move bytes (elem_size 1), as bcast's do, so ranks may
 * describe a block with different datatypes as MPI allows; a side whose
 * datatype is not contiguous is staged through a packed buffer
 * (coll_common.h). A block's size in bytes is the same on every rank by
 * MPI's rules, so every rank chooses alike. In gatherv and scatterv the
 * other ranks' counts are known at the root only: an algorithm that needs
 * them everywhere (TRL_NEEDS_ALL_COUNTS) has them exchanged first.
 * Arguments the MPI library rejects on this rank go to it (validate.h);
 * MPI_IN_PLACE is recognised only where MPI allows it (the root's own
 * block), and a NULL buffer is an ordinary one. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/context/short.h"
#include "mpi/engine/check.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "counts travel as MPI_UINT64_T");

/* The rooted call, once its two sides are open: `one` is this rank's
 * block, `all` the root's p blocks. */
typedef struct {
    trl_comm *c;
    MPI_Comm comm;
    trl_coll_args a;
    trl_move_side *one, *all;
    bool gather; /* data flows one -> all; scatter: all -> one */
    const trl_mode *mode;
    const trl_move_key *key; /* a uniform call as passed (trl_move_repeat), or NULL */
} rooted;

/* A count no rank sends: the mark of a rank that refuses the call. */
#define REFUSED UINT64_MAX

/* gatherv, scatterv: whether the algorithm chosen needs every rank's
 * count (the choice is the same on every rank). */
static bool needs_counts(trl_comm *c, trl_coll_args *a)
{
    const trl_algo *algo = trl_comm_choose(c, a);
    return algo && algo->build && (algo->needs & TRL_NEEDS_ALL_COUNTS);
}

/* Every rank's count into all: gatherv gathers each rank's own
 * (counts[c->rank]), scatterv broadcasts the root's. counts NULL: this
 * rank refuses the call and sends the mark instead. *refused: a mark
 * arrived, so every rank that sees it hands the call to the MPI library
 * (in a scatterv only the root's refusal travels). */
static int swap_counts(trl_comm *c, bool gather, int root, const size_t *counts, size_t *all,
                       bool *refused)
{
    trl_before_library_collective();
    int rc;
    if (gather) {
        uint64_t mine = counts ? counts[c->rank] : REFUSED;
        rc = PMPI_Allgather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, c->dup);
    } else {
        for (int i = 0; c->rank == root && i < c->size; i++)
            all[i] = counts ? counts[i] : REFUSED;
        rc = PMPI_Bcast(all, c->size, MPI_UINT64_T, root, c->dup);
    }
    *refused = false;
    for (int i = 0; rc == MPI_SUCCESS && i < c->size; i++)
        *refused |= all[i] == REFUSED;
    return rc;
}

/* gatherv, scatterv: every rank's counts, from the root's or each rank's
 * own, when the chosen algorithm needs them. */
static int share_counts(rooted *r, bool *refused)
{
    trl_comm *c = r->c;
    *refused = false;
    if (!needs_counts(c, &r->a))
        return MPI_SUCCESS;
    size_t *all = TRL_VEC(c, 5);
    int rc = swap_counts(c, r->gather, r->a.root, r->a.counts, all, refused);
    r->a.counts = all;
    return rc;
}

/* A gatherv or scatterv this rank refuses (validate.h) while the others
 * may not: where the chosen algorithm exchanges counts first, take part
 * with the mark, so that the others hand the call to the MPI library too
 * instead of waiting there. */
static void refuse_rooted(trl_comm *c, trl_coll coll, int root, const trl_mode *mode)
{
    trl_coll_args a = {
        .coll = coll, .root = root, .elem_size = 1, .commutative = true, .call = trl_call_of(mode)};
    if (!trl_coll_is_vector(coll) || !needs_counts(c, &a))
        return;
    if (!trl_comm_vec(c)) { /* the others wait for this rank's mark */
        trl_short_of_memory("the counts");
        return;
    }
    bool refused;
    swap_counts(c, coll == TRL_COLL_GATHERV, root, NULL, TRL_VEC(c, 5), &refused);
}

/* After the exchange of counts: whether a block this rank receives is
 * longer than its place on the receive side (the ranks' counts disagree,
 * which MPI forbids): the root of a gatherv, or a scatterv's receiver. */
static bool truncates(const rooted *r)
{
    const trl_comm *c = r->c;
    if (r->gather) {
        for (int i = 0; c->rank == r->a.root && i < c->size; i++)
            if (r->a.counts[i] > r->all->counts[i])
                return true;
        return false;
    }
    return r->one->used && r->a.counts[c->rank] > r->one->counts[0];
}

/* Run the schedule (the other ranks wait on their parts of it) with the
 * blocks this rank receives landing back to back in a temporary buffer,
 * then report MPI_ERR_TRUNCATE, as a receive of a message longer than its
 * buffer does: the receive side is never written past its end. */
static int run_truncated(rooted *r, trl_move_side *send, trl_move_side *recv, bool *served)
{
    trl_comm *c = r->c;
    size_t total = 0, *displs = TRL_VEC(c, 4);
    for (int i = 0; i < c->size; i++) {
        displs[i] = total;
        if (r->gather || i == c->rank)
            total += r->a.counts[i];
    }
    if (r->gather)
        r->a.displs = displs;
    char *landing = malloc(total ? total : 1);
    if (!landing)
        trl_short_of_memory("the truncated blocks' landing");
    const trl_cache_entry *e = landing ? trl_comm_lookup(c, &r->a) : NULL;
    *served = e && e->algo->build;
    int rc = MPI_SUCCESS;
    if (*served) {
        if (send->used)
            trl_side_pack(&send->side, &send->b, send->displs, -1, c->dup);
        rc = trl_run(e, c, r->comm, send->used ? send->side.base : NULL, landing, MPI_BYTE,
                     MPI_OP_NULL, &trl_blocking); /* only blocking calls exchange counts */
    }
    free(landing);
    trl_move_abandon(send, recv);
    return *served && rc == MPI_SUCCESS ? trl_error(r->comm, MPI_ERR_TRUNCATE) : rc;
}

/* Look up and run, or report that the MPI library must serve the call
 * (*served false; nothing was run). */
static int run_rooted(rooted *r, bool vector, bool *served)
{
    trl_move_side *send = r->gather ? r->one : r->all, *recv = r->gather ? r->all : r->one;
    *served = true;
    if (vector) {
        bool refused;
        int rc = share_counts(r, &refused);
        if (rc != MPI_SUCCESS || refused) {
            trl_move_abandon(send, recv);
            *served = rc != MPI_SUCCESS; /* refused: the MPI library serves it */
            return rc == MPI_SUCCESS ? rc : trl_error(r->comm, rc);
        }
        if (truncates(r))
            return run_truncated(r, send, recv, served);
    } else if (r->a.count == 0) {
        trl_move_abandon(send, recv);
        return trl_nothing(r->comm, r->mode);
    }
    return trl_move_serve(r->c, r->comm, &r->a, send, recv, served, r->mode, r->key);
}

/* The user's side of a rooted call: this rank's block (`one`, unused when
 * in place at the root) and the root's p blocks (`all`). A NULL buffer is
 * a buffer like any other (MPI allows NULL where nothing is read or
 * written, and MPI_BOTTOM is NULL in some MPI libraries): only in_place
 * says the own side is absent. */
typedef struct {
    void *one_buf, *all_buf;
    const trl_blocks *one_b, *all_b;
    bool in_place;
    const trl_move_key *key; /* gather, scatter: the call as passed; v-variants: NULL */
} rooted_bufs;

/* Open both sides of a rooted call. */
static int open_rooted(rooted *r, trl_comm *c, MPI_Comm comm, trl_coll coll, int root,
                       const rooted_bufs *u, trl_move_side *one, trl_move_side *all,
                       const trl_mode *mode)
{
    *r = (rooted){c,
                  comm,
                  {.coll = coll,
                   .root = root,
                   .elem_size = 1,
                   .commutative = true,
                   .call = trl_call_of(mode)},
                  one,
                  all,
                  coll == TRL_COLL_GATHER || coll == TRL_COLL_GATHERV,
                  mode,
                  u->key};
    bool is_root = c->rank == root;
    r->a.in_place = u->in_place;
    *one = (trl_move_side){.pack_only = -1};
    *all = (trl_move_side){.pack_only = -1};
    if (!trl_comm_vec(c))
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    /* Side slots: the send side's arrays first, then the receive side's. */
    int one_slot = r->gather ? 0 : 2, all_slot = r->gather ? 2 : 0;
    if (!u->in_place)
        rc = trl_move_open(one, u->one_buf, u->one_b, false, TRL_VEC(c, one_slot),
                           TRL_VEC(c, one_slot + 1));
    if (is_root && rc == MPI_SUCCESS) {
        rc = trl_move_open(all, u->all_buf, u->all_b, false, TRL_VEC(c, all_slot),
                           TRL_VEC(c, all_slot + 1));
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
static int rooted_move(trl_comm *c, MPI_Comm comm, trl_coll coll, int root, const rooted_bufs *u,
                       const trl_mode *mode, bool *served)
{
    rooted r;
    trl_move_side one, all;
    *served = true;
    int rc = open_rooted(&r, c, comm, coll, root, u, &one, &all, mode);
    if (rc != MPI_SUCCESS)
        return trl_error(comm, rc);
    bool vector = trl_coll_is_vector(coll);
    if (vector)
        r.a.count = 0;
    else
        r.a.counts = r.a.displs = NULL; /* uniform blocks */
    return run_rooted(&r, vector, served);
}

int trl_intra_gather(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const trl_mode *mode, bool *served)
{
    if (c->size == 1 || root < 0 || root >= c->size)
        return MPI_SUCCESS;
    trl_move_key key;
    int rc;
    if ((*served = trl_move_repeat(c, comm, TRL_COLL_GATHER, root, sendbuf, sendcount, sendtype,
                                   recvbuf, recvcount, recvtype, mode, &key, &rc)))
        return rc;
    bool is_root = c->rank == root, in_place = is_root && sendbuf == MPI_IN_PLACE;
    if ((!in_place &&
         trl_side_refused(TRL_COLL_GATHER, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)) ||
        (is_root && trl_side_refused(TRL_COLL_GATHER, TRL_SIDE_RECV, recvbuf, recvcount, recvtype)))
        return MPI_SUCCESS;
    trl_blocks one_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks all_b = {.n = c->size, .count = recvcount, .type = recvtype};
    rooted_bufs u = {(void *)sendbuf, recvbuf, &one_b, &all_b, in_place, &key};
    return rooted_move(c, comm, TRL_COLL_GATHER, root, &u, mode, served);
}

int trl_intra_gatherv(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const int recvcounts[], const int displs[],
                      MPI_Datatype recvtype, int root, MPI_Comm comm, const trl_mode *mode,
                      bool *served)
{
    if (c->size == 1 || root < 0 || root >= c->size)
        return MPI_SUCCESS;
    bool is_root = c->rank == root, in_place = is_root && sendbuf == MPI_IN_PLACE;
    if ((!in_place &&
         trl_side_refused(TRL_COLL_GATHERV, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)) ||
        (is_root && trl_vside_refused(TRL_COLL_GATHERV, TRL_SIDE_RECV, recvbuf, recvcounts, displs,
                                      recvtype, c->size))) {
        refuse_rooted(c, TRL_COLL_GATHERV, root, mode);
        return MPI_SUCCESS;
    }
    trl_blocks one_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks all_b = {.n = c->size, .counts = recvcounts, .displs = displs, .type = recvtype};
    rooted_bufs u = {(void *)sendbuf, recvbuf, &one_b, &all_b, in_place, NULL};
    return rooted_move(c, comm, TRL_COLL_GATHERV, root, &u, mode, served);
}

int trl_intra_scatter(trl_comm *c, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                      void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      const trl_mode *mode, bool *served)
{
    if (c->size == 1 || root < 0 || root >= c->size)
        return MPI_SUCCESS;
    trl_move_key key;
    int rc;
    if ((*served = trl_move_repeat(c, comm, TRL_COLL_SCATTER, root, sendbuf, sendcount, sendtype,
                                   recvbuf, recvcount, recvtype, mode, &key, &rc)))
        return rc;
    bool is_root = c->rank == root, in_place = is_root && recvbuf == MPI_IN_PLACE;
    if ((!in_place &&
         trl_side_refused(TRL_COLL_SCATTER, TRL_SIDE_RECV, recvbuf, recvcount, recvtype)) ||
        (is_root &&
         trl_side_refused(TRL_COLL_SCATTER, TRL_SIDE_SEND, sendbuf, sendcount, sendtype)))
        return MPI_SUCCESS;
    trl_blocks one_b = {.n = 1, .count = recvcount, .type = recvtype};
    trl_blocks all_b = {.n = c->size, .count = sendcount, .type = sendtype};
    rooted_bufs u = {recvbuf, (void *)sendbuf, &one_b, &all_b, in_place, &key};
    return rooted_move(c, comm, TRL_COLL_SCATTER, root, &u, mode, served);
}

int trl_intra_scatterv(trl_comm *c, const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (c->size == 1 || root < 0 || root >= c->size)
        return MPI_SUCCESS;
    bool is_root = c->rank == root, in_place = is_root && recvbuf == MPI_IN_PLACE;
    if ((!in_place &&
         trl_side_refused(TRL_COLL_SCATTERV, TRL_SIDE_RECV, recvbuf, recvcount, recvtype)) ||
        (is_root && trl_vside_refused(TRL_COLL_SCATTERV, TRL_SIDE_SEND, sendbuf, sendcounts, displs,
                                      sendtype, c->size))) {
        refuse_rooted(c, TRL_COLL_SCATTERV, root, mode);
        return MPI_SUCCESS;
    }
    trl_blocks one_b = {.n = 1, .count = recvcount, .type = recvtype};
    trl_blocks all_b = {.n = c->size, .counts = sendcounts, .displs = displs, .type = sendtype};
    rooted_bufs u = {recvbuf, (void *)sendbuf, &one_b, &all_b, in_place, NULL};
    return rooted_move(c, comm, TRL_COLL_SCATTERV, root, &u, mode, served);
}
