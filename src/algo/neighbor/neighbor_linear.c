/* Linear neighbourhood exchange (every neighbor_* collective): a rank posts
 * a receive per in-edge and a send per out-edge, all at once, and copies
 * the blocks of its edges to itself locally.
 *
 * Cost: d alpha + N beta per rank, d its edges to other ranks and N the
 * bytes it sends; all messages in flight together.
 * From: the MPI libraries' own (Open MPI's coll/basic neighbor_*, MPICH's
 * linear neighbor exchanges): one non-blocking send and receive per edge.
 * Any number of ranks and any graph: empty neighbourhoods, repeated and
 * self edges, Cartesian extents of 1 and 2, MPI_PROC_NULL neighbours
 * (left out: their blocks are untouched).
 *
 * Pairing (algo/nbhd.h): receives are emitted in block order and sends in
 * trl_nbhd_send_order, so the k-th message between two ranks (its tag) is
 * the edge the standard pairs. Messages to itself pair the same way, the
 * k-th send with the k-th receive, as local copies. A zero-byte block is
 * left out on both ends (MPI requires the two ends' sizes to match).
 */
#include "algo/builders.h"
#include "algo/neighbor/neighbor_blocks.h"
#include "core/status.h"

int trl_neighbor_linear(const trl_coll_args *a, trl_sched *s)
{
    return a->nbhd ? trl_nb_direct(a, s, NULL, 0) : TRL_ERR_INVALID;
}
