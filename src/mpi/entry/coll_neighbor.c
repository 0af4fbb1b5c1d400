/* The intracommunicator forms (coll_forms.h) of the neighbourhood
 * collectives: bytes, like the other data movers (coll_alltoall.c), over
 * the communicator's neighbourhood as read when it was set up
 * (context/nbhd_mpi.h). Calls the MPI library serves: on a communicator
 * without a topology (or whose graph could not be read), and those whose
 * arguments it rejects, so that it reports them as it does without Trellis:
 * a negative count, a datatype it refuses (asked as for the plain
 * collective of the same shape: validate.h). MPI_IN_PLACE, which MPI does
 * not allow for these collectives, Trellis refuses itself with MPI_ERR_ARG
 * (Open MPI 4.1's class for it) through the communicator's error handler:
 * MPICH 4.0.2 does not check it and reads the address (a crash). */
#include <stdlib.h>

#include "core/status.h"
#include "mpi/context/short.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/neighbor_sizes.h"
#include "mpi/engine/trace.h"
#include "mpi/entry/validate.h"

/* A side's blocks as the library would judge them: false when it refuses
 * them. n blocks, counts[i] (or count) of types[i] (or type). */
static bool side_ok(trl_coll plain, trl_side_kind side, const trl_blocks *b)
{
    for (int i = 0; i < b->n; i++) {
        int count = b->counts ? b->counts[i] : b->count;
        MPI_Datatype type = b->types ? b->types[i] : b->type;
        /* One datatype for every block: judged once. */
        if (count < 0 || ((b->types || i == 0) && !trl_move_type_ok(plain, side, type)))
            return false;
    }
    return true;
}

/* The byte arrays of a call: 4 of the larger degree (at least 1). */
static size_t *nb_arrays(trl_comm *c, int *stride)
{
    const trl_nbhd *g = &c->nbhd;
    int in = trl_nbhd_indegree(g, c->rank), out = trl_nbhd_outdegree(g, c->rank);
    *stride = in > out ? in : out;
    if (*stride < 1)
        *stride = 1;
    if (!c->nbvec)
        c->nbvec = malloc(4 * (size_t)*stride * sizeof *c->nbvec);
    return c->nbvec;
}

/* key: a uniform call as passed (trl_move_repeat), or NULL. */
static int neighbor(trl_comm *c, MPI_Comm comm, trl_coll coll, trl_coll plain, const void *sendbuf,
                    const trl_blocks *send_b, void *recvbuf, const trl_blocks *recv_b,
                    const trl_mode *mode, bool *served, const trl_move_key *key)
{
    if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE) {
        *served = true;
        return trl_error(comm, MPI_ERR_ARG);
    }
    if (!side_ok(plain, TRL_SIDE_SEND, send_b) || !side_ok(plain, TRL_SIDE_RECV, recv_b))
        return MPI_SUCCESS; /* the MPI library reports it */
    int stride;
    size_t *v = nb_arrays(c, &stride);
    if (!v) {
        trl_short_of_memory("the block arrays");
        return MPI_SUCCESS;
    }
    *served = true;
    trl_move_side send = {.pack_only = -1}, recv = {.pack_only = -1};
    int rc = trl_move_open(&send, (void *)sendbuf, send_b, false, v, v + stride);
    if (rc == MPI_SUCCESS)
        rc = trl_move_open(&recv, recvbuf, recv_b, false, v + 2 * stride, v + 3 * stride);
    if (rc != MPI_SUCCESS) {
        trl_move_abandon(&send, &recv);
        return trl_error(comm, rc);
    }
    /* No message fills a block from MPI_PROC_NULL: a staged receive side
     * must not unpack it over the user's data either. */
    const int *src = trl_nbhd_sources(&c->nbhd, c->rank);
    for (int i = 0; i < recv_b->n; i++)
        if (src[i] == TRL_NBHD_NULL)
            recv.counts[i] = 0;
    trl_coll_args a = {.coll = coll,
                       .rank = c->rank,
                       .size = c->size,
                       .elem_size = 1,
                       .commutative = true,
                       .call = trl_call_of(mode),
                       .nbhd = &c->nbhd,
                       .send_counts = send.counts,
                       .send_displs = send.displs,
                       .recv_counts = recv.counts,
                       .recv_displs = recv.displs};
    /* allgather, alltoall: the send block's bytes (what bytes= sees, and what
     * an algorithm planning for other ranks takes every block to be), from
     * the arguments, so that a rank without out-edges says the same. */
    if (trl_coll_has_bytes(coll)) {
        int size;
        MPI_Aint extent;
        trl_type_contiguous(send_b->type, &size, &extent);
        a.count = (size_t)send_b->count * (size_t)size;
    }
    /* The v and w forms under an algorithm that needs its host's block
     * sizes (neighbor_sizes.h): a blocking call exchanges them first, a
     * persistent one plans its later starts with them, a non-blocking one
     * its run. */
    size_t *table = NULL;
    trl_op_plan plan;
    bool planned = false;
    trl_mode with_plan = *mode;
    if (!trl_coll_has_bytes(coll) && mode->kind != TRL_MODE_BLOCKING) {
        rc = trl_nb_plan_sizes(c, &a, &plan, &planned);
        with_plan.plan = planned ? &plan : NULL;
    } else if (!trl_coll_has_bytes(coll)) {
        rc = trl_nb_share_sizes(c, &a, &send, recv.used ? recv.side.base : NULL, &table);
    }
    if (rc != MPI_SUCCESS) {
        if (TRL_TRACING)
            trl_trace_prefix_drop(c);
        trl_move_abandon(&send, &recv);
        return trl_error(comm, rc);
    }
    rc = trl_move_serve(c, comm, &a, &send, &recv, served, &with_plan, key);
    if (TRL_TRACING) /* the sizes' record, if the call did not take it */
        trl_trace_prefix_drop(c);
    free(table);
    return rc;
}

/* Whether c can serve neighbourhood calls (it has a graph). */
static inline bool has_graph(const trl_comm *c)
{
    return c->nbhd.size == c->size && c->size > 0;
}

static inline int indegree(const trl_comm *c)
{
    return trl_nbhd_indegree(&c->nbhd, c->rank);
}

static inline int outdegree(const trl_comm *c)
{
    return trl_nbhd_outdegree(&c->nbhd, c->rank);
}

/* allgather and alltoall: one count and datatype per side; allgather sends
 * one block to every neighbour, alltoall one per out-edge. A repeat of the
 * last such call with the same counts, datatypes and kind runs its
 * schedule at once (trl_move_repeat), as the other data movers' do: the
 * neighbourhood is the communicator's, fixed. A call with MPI_IN_PLACE
 * never repeats one (none is remembered: neighbor refuses it). */
static int uniform(trl_comm *c, trl_coll coll, trl_coll plain, int nsend, const void *sendbuf,
                   int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (!has_graph(c))
        return MPI_SUCCESS;
    trl_move_key key;
    int rc;
    if ((*served = trl_move_repeat(c, comm, coll, 0, sendbuf, sendcount, sendtype, recvbuf,
                                   recvcount, recvtype, mode, &key, &rc)))
        return rc;
    trl_blocks send_b = {.n = nsend, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {.n = indegree(c), .count = recvcount, .type = recvtype};
    return neighbor(c, comm, coll, plain, sendbuf, &send_b, recvbuf, &recv_b, mode, served, &key);
}

int trl_intra_neighbor_allgather(trl_comm *c, const void *sendbuf, int sendcount,
                                 MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                 MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                                 bool *served)
{
    return uniform(c, TRL_COLL_NEIGHBOR_ALLGATHER, TRL_COLL_ALLGATHER, 1, sendbuf, sendcount,
                   sendtype, recvbuf, recvcount, recvtype, comm, mode, served);
}

int trl_intra_neighbor_allgatherv(trl_comm *c, const void *sendbuf, int sendcount,
                                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                  const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                  const trl_mode *mode, bool *served)
{
    if (!has_graph(c) || (indegree(c) > 0 && (!recvcounts || !displs)))
        return MPI_SUCCESS;
    trl_blocks send_b = {.n = 1, .count = sendcount, .type = sendtype};
    trl_blocks recv_b = {
        .n = indegree(c), .counts = recvcounts, .displs = displs, .type = recvtype};
    return neighbor(c, comm, TRL_COLL_NEIGHBOR_ALLGATHERV, TRL_COLL_ALLGATHERV, sendbuf, &send_b,
                    recvbuf, &recv_b, mode, served, NULL);
}

int trl_intra_neighbor_alltoall(trl_comm *c, const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                                bool *served)
{
    return uniform(c, TRL_COLL_NEIGHBOR_ALLTOALL, TRL_COLL_ALLTOALL,
                   has_graph(c) ? outdegree(c) : 0, sendbuf, sendcount, sendtype, recvbuf,
                   recvcount, recvtype, comm, mode, served);
}

int trl_intra_neighbor_alltoallv(trl_comm *c, const void *sendbuf, const int sendcounts[],
                                 const int sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                 const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                                 MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (!has_graph(c) || (outdegree(c) > 0 && (!sendcounts || !sdispls)) ||
        (indegree(c) > 0 && (!recvcounts || !rdispls)))
        return MPI_SUCCESS;
    trl_blocks send_b = {
        .n = outdegree(c), .counts = sendcounts, .displs = sdispls, .type = sendtype};
    trl_blocks recv_b = {
        .n = indegree(c), .counts = recvcounts, .displs = rdispls, .type = recvtype};
    return neighbor(c, comm, TRL_COLL_NEIGHBOR_ALLTOALLV, TRL_COLL_ALLTOALLV, sendbuf, &send_b,
                    recvbuf, &recv_b, mode, served, NULL);
}

int trl_intra_neighbor_alltoallw(trl_comm *c, const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 const trl_mode *mode, bool *served)
{
    if (!has_graph(c) || (outdegree(c) > 0 && (!sendcounts || !sdispls || !sendtypes)) ||
        (indegree(c) > 0 && (!recvcounts || !rdispls || !recvtypes)))
        return MPI_SUCCESS;
    trl_blocks send_b = {
        .n = outdegree(c), .counts = sendcounts, .aint_disp_in = sdispls, .types = sendtypes};
    trl_blocks recv_b = {
        .n = indegree(c), .counts = recvcounts, .aint_disp_in = rdispls, .types = recvtypes};
    return neighbor(c, comm, TRL_COLL_NEIGHBOR_ALLTOALLW, TRL_COLL_ALLTOALLW, sendbuf, &send_b,
                    recvbuf, &recv_b, mode, served, NULL);
}
