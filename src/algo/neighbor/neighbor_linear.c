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
    const trl_nbhd *g = a->nbhd;
    if (!g)
        return TRL_ERR_INVALID;
    int me = a->rank, nin = trl_nbhd_indegree(g, me), nout = trl_nbhd_outdegree(g, me);
    const int *src = trl_nbhd_sources(g, me), *dst = trl_nbhd_dests(g, me);
    for (int i = 0; i < nin; i++) {
        size_t n = trl_nb_recv_len(a, i);
        if (src[i] != TRL_NBHD_NULL && src[i] != me && n > 0)
            trl_sched_recv(s, src[i], trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, i)), n,
                           TRL_NODEPS);
    }
    for (int k = 0; k < nout; k++) {
        int j = trl_nbhd_send_order(g, k);
        size_t n = trl_nb_send_len(a, j);
        if (dst[j] != TRL_NBHD_NULL && dst[j] != me && n > 0)
            trl_sched_send(s, dst[j], trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)), n,
                           TRL_NODEPS);
    }
    /* Self edges: the k-th send to itself (in send order) fills the k-th
     * receive from itself (in block order). */
    int i = 0;
    for (int k = 0; k < nout; k++) {
        int j = trl_nbhd_send_order(g, k);
        if (dst[j] != me)
            continue;
        while (i < nin && src[i] != me)
            i++;
        if (i == nin)
            return TRL_ERR_INVALID; /* the lists disagree */
        size_t n = trl_nb_send_len(a, j);
        if (n != trl_nb_recv_len(a, i))
            return TRL_ERR_INVALID;
        if (n > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)),
                           trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, i)), n, TRL_NODEPS);
        i++;
    }
    return s->status;
}
