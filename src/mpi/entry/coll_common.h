/* What the collectives' forms (coll_forms.h) share once they have read the
 * call's arguments: serving a call from its cache entry, the shape of a
 * reduction, and seeing user buffers of any datatype as the bytes the
 * data-movement schedules address (running a cached schedule is
 * engine/run.h's). */
#ifndef TRL_COLL_COMMON_H
#define TRL_COLL_COMMON_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>

#include "exec/pack.h"
#include "mpi/context/comm.h"
#include "mpi/context/schedule.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/run.h"

/* A call with nothing to move, served: MPI_SUCCESS, or a request that
 * completes at once (trl_nothing). */
int trl_done(MPI_Comm comm, const trl_mode *mode, bool *served);

/* What a collective's form (coll_forms.h) does once it has filled a from
 * the call's arguments, for all but the data movers' sides: a call with
 * nothing to move (empty, which every rank taking part knows alike) is
 * done at once; otherwise the cache entry for a runs over the buffers
 * (sendbuf MPI_IN_PLACE: recvbuf's data), or, where the rules chose the
 * MPI library or nothing could be built, the library serves the call
 * (*served left false). Inline: the small calls' path, where a call costs
 * as much as a message. */
static inline int trl_serve(trl_comm *c, MPI_Comm comm, trl_coll_args *a, bool empty,
                            const void *sendbuf, void *recvbuf, MPI_Datatype dtype, MPI_Op op,
                            const trl_mode *mode, bool *served)
{
    a->call = trl_call_of(mode);
    if (empty)
        return trl_done(comm, mode, served);
    const trl_cache_entry *e = trl_comm_lookup(c, a);
    if (!e || !e->algo->build)
        return MPI_SUCCESS;
    *served = true;
    return trl_run(e, c, comm, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, recvbuf, dtype, op,
                   mode);
}

/* The shape of a reduction call: elements of the datatype, commutativity
 * of the operation. count is 0 when no data moves (a zero count or an
 * empty datatype): then the call has nothing to do. */
trl_coll_args trl_reduction_args(trl_coll coll, int root, const void *sendbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op);

/* Whether count elements of type lie back to back with no gaps, starting
 * at the buffer's address: then the buffer is its own bytes. *size and
 * *extent are set either way. */
bool trl_type_contiguous(MPI_Datatype type, int *size, MPI_Aint *extent);

/* A side (send or receive) of a data-movement call as bytes: block i is
 * counts[i] elements of types[i] at user + disp[i] bytes. When every block
 * is contiguous the schedule addresses the user's buffer at those byte
 * offsets; otherwise the blocks are staged back to back in a temporary
 * buffer (packed before a send side runs, unpacked after a receive side
 * ran). */
typedef struct {
    char *user;    /* the user's buffer */
    char *base;    /* what the schedule addresses: user, or staging */
    char *staging; /* malloc'd, or NULL */
    size_t bytes;  /* of staging */
} trl_side;

/* Describe n blocks; fills byte_counts[] and byte_displs[] (what the
 * builders read) and decides direct or staged. type is one datatype for
 * all blocks unless types is given (alltoallw); count is per block unless
 * counts is given; block i's element displacement is displs[i] (times the
 * extent) or, without displs, i * count elements, or with byte_disp_in
 * (alltoallw) bytes. stage: always stage (an in-place alltoall's send
 * side is a copy of the receive buffer). Returns MPI_SUCCESS,
 * MPI_ERR_NO_MEM, or MPI_ERR_COUNT for a negative count or more than
 * INT_MAX bytes (the executor's messages count in ints). */
typedef struct {
    int n;
    int count;                    /* without counts */
    const int *counts;            /* elements per block, or NULL */
    const int *displs;            /* in extents, or NULL */
    const int *byte_disp_in;      /* alltoallw's byte displacements, or NULL */
    const MPI_Aint *aint_disp_in; /* neighbor_alltoallw's, or NULL */
    MPI_Datatype type;            /* without types */
    const MPI_Datatype *types;    /* alltoallw, or NULL */
} trl_blocks;

int trl_side_open(trl_side *side, void *user, const trl_blocks *b, bool stage, size_t *byte_counts,
                  size_t *byte_displs);

/* Pack the user's blocks into staging: every block, or only block `only`
 * (-1: all; an in-place receive side needs the rank's own block there).
 * Unpack staging into the user's blocks but block `skip` (-1: none) and
 * those of no bytes in byte_counts (a neighbourhood call's blocks from
 * MPI_PROC_NULL, which no message fills: coll_neighbor.c). Both do nothing
 * for a direct side. */
int trl_side_pack(trl_side *side, const trl_blocks *b, const size_t *byte_displs, int only,
                  MPI_Comm comm);
int trl_side_unpack(trl_side *side, const trl_blocks *b, const size_t *byte_counts,
                    const size_t *byte_displs, int skip, MPI_Comm comm);

void trl_side_close(trl_side *side);

/* c->vec holds six arrays of p entries: the send side's byte counts and
 * displacements (0, 1), the receive side's (2, 3), and two more (4, 5). */
#define TRL_VEC(c, i) (trl_comm_vec(c) + (size_t)(i) * (size_t)(c)->size)

/* One side of a data-movement call, opened before the lookup (the
 * builders read its byte counts and displacements). */
typedef struct {
    trl_blocks b;
    bool used; /* false: this rank has no such side (or it is in place) */
    trl_side side;
    size_t *counts, *displs; /* bytes, b.n entries each */
    int pack_only;           /* receive side in place: the block to pack first (-1 none) */
    bool held;               /* an op's copy: its datatypes held (holds.h) */
    bool packed;             /* send side: staged already (the run packs it otherwise) */
} trl_move_side;

/* Open a side over user's blocks into the byte arrays given. */
int trl_move_open(trl_move_side *m, void *user, const trl_blocks *b, bool stage, size_t *counts,
                  size_t *displs);

/* Run e over two opened sides: pack the send side, run, unpack the receive
 * side, close both. The schedule runs even if packing failed, so no rank
 * is left waiting; the failure is reported after. */
int trl_move_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, trl_move_side *send,
                 trl_move_side *recv, const trl_mode *mode);

/* Close both sides without running (the MPI library serves the call). */
void trl_move_abandon(trl_move_side *send, trl_move_side *recv);

/* Look up the schedule of a and run it over the two opened sides, or close
 * them and set *served false when the MPI library must serve the call.
 * key: the call as passed (a uniform one), remembered when both sides are
 * the user's buffers as they are; NULL: nothing to remember. */
int trl_move_serve(trl_comm *c, MPI_Comm comm, trl_coll_args *a, trl_move_side *send,
                   trl_move_side *recv, bool *served, const trl_mode *mode,
                   const trl_move_key *key);

/* *key: a uniform data-movement call (gather, scatter, allgather,
 * alltoall, neighbor_allgather, neighbor_alltoall) as its entry point
 * received it. Then, when it is the same call as the one remembered for
 * coll on c: run the schedule found then on the buffers given, as the full
 * path would (true, *rc set); false: take the full path (passing key to
 * trl_move_serve). Checking, opening the sides
 * and the lookup cost more than a small message's run; a repeat needs none
 * of them, its arguments being the same and its types predefined. */
bool trl_move_repeat(trl_comm *c, MPI_Comm comm, trl_coll coll, int root, const void *sendbuf,
                     int send_count, MPI_Datatype send_type, void *recvbuf, int recv_count,
                     MPI_Datatype recv_type, const trl_mode *mode, trl_move_key *key, int *rc);

#endif
