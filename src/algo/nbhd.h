/* The graph of a neighbourhood collective: every rank's in- and
 * out-neighbours in MPI's order (block i of the receive buffer comes from
 * in-neighbour i, block j of the send buffer goes to out-neighbour j), as
 * the runtime reads them once per communicator (src/mpi/context/nbhd_mpi.c)
 * or a tool makes them (a Cartesian shape, an edge list). Pure C, no MPI.
 *
 * Which receive block a message lands in (MPI's standard, "Neighborhood
 * Collective Communication"):
 *   - Cartesian: in dimension d, block 2d goes to the neighbour in the
 *     negative direction and 2d+1 to the positive one, and receive block 2d
 *     comes from the negative neighbour, 2d+1 from the positive one; so what
 *     a rank sends in the positive direction lands in the receiver's block
 *     2d (it came from the receiver's negative side), and the other way
 *     round. Where an extent is 1 or 2 (periodic), a rank is its own
 *     neighbour or the same neighbour twice, and only the direction tells
 *     the blocks apart. Off a non-periodic border the neighbour is
 *     TRL_NBHD_NULL (MPI_PROC_NULL): nothing is sent, the block is untouched.
 *   - Graphs (MPI_Graph_create, MPI_Dist_graph_create(_adjacent)): the
 *     k-th edge from s to q in s's out-list lands in the block of the k-th
 *     occurrence of s in q's in-list (repeated edges pair in order, as the
 *     MPI libraries' one-tag-per-edge exchanges match them).
 *
 * trl_nbhd_send_order gives the order a rank emits its sends in so that,
 * with receives emitted in block order, the k-th message of a pair of ranks
 * (the schedule's tags, docs/design.md "The schedule") pairs as above. */
#ifndef TRL_ALGO_NBHD_H
#define TRL_ALGO_NBHD_H

#include <stdbool.h>
#include <stddef.h>

#define TRL_NBHD_NULL (-1) /* no neighbour (MPI_PROC_NULL) */

typedef struct trl_nbhd {
    int size;
    bool cart; /* a Cartesian topology: blocks pair by direction */
    /* Every rank's lists, back to back: rank r's in-neighbours are
     * in_src[in_off[r] .. in_off[r+1]-1], its out-neighbours
     * out_dst[out_off[r] .. out_off[r+1]-1]. */
    int *in_off, *in_src;
    int *out_off, *out_dst;
    /* Per out-edge (same index as out_dst): the receive block it lands in
     * at its destination (-1 for TRL_NBHD_NULL). */
    int *out_slot;
} trl_nbhd;

static inline int trl_nbhd_indegree(const trl_nbhd *g, int r)
{
    return g->in_off[r + 1] - g->in_off[r];
}
static inline int trl_nbhd_outdegree(const trl_nbhd *g, int r)
{
    return g->out_off[r + 1] - g->out_off[r];
}
static inline const int *trl_nbhd_sources(const trl_nbhd *g, int r)
{
    return g->in_src + g->in_off[r];
}
static inline const int *trl_nbhd_dests(const trl_nbhd *g, int r)
{
    return g->out_dst + g->out_off[r];
}
/* The j-th send of rank r to emit (its send block's index). */
static inline int trl_nbhd_send_order(const trl_nbhd *g, int j)
{
    return g->cart ? j ^ 1 : j;
}

/* A Cartesian graph of ndims dimensions; out empty and -1 on bad input or
 * out of memory (a product of dims other than size). */
int trl_nbhd_cart(int size, int ndims, const int *dims, const int *periods, trl_nbhd *out);

/* A graph from every rank's lists (counts per rank, then the lists back to
 * back): takes nothing over, copies. -1 when a list names a rank out of
 * range, an edge has no matching one at the other end (the in- and
 * out-lists disagree), or out of memory. */
int trl_nbhd_graph(int size, const int *indeg, const int *sources, const int *outdeg,
                   const int *dests, trl_nbhd *out);

void trl_nbhd_free(trl_nbhd *g);

#endif
