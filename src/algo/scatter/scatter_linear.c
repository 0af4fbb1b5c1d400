/* Linear scatter (and scatterv): the root sends each rank its block
 * straight from its place in the send buffer (i*count, or displs[i] for
 * scatterv), all p-1 sends at once; every other rank posts one receive
 * straight into its receive buffer.
 *
 * Cost: (p-1) alpha + (p-1) n beta at the root (scatterv: N beta, N the
 * sum of the counts); one receive elsewhere.
 * From: the flat tree of LAM-MPI (seed 000); MPICH's and Open MPI's basic
 * linear scatter.
 * Any number of ranks and any root: nothing depends on p being a power of
 * two. A non-root rank reads only its own count (counts[rank]); the root
 * reads every count and displacement, which it knows in MPI.
 *
 * Empty blocks are not sent at all: both sides see the same counts[i].
 * The root copies its own block to its receive buffer, unless in place,
 * where its block stays in SEND and RECV is not touched.
 */
#include "algo/blocks.h"
#include "algo/builders.h"

int trl_scatter_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, root = a->root;
    if (a->rank != root) {
        size_t n = trl__blk_count(a, a->rank);
        if (n > 0)
            trl_sched_recv(s, root, trl_ref_at(TRL_BUF_RECV, 0), n, TRL_NODEPS);
        return s->status;
    }
    /* Sends in rank order after the root, so rank root+1 is served first. */
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        size_t n = trl__blk_count(a, r);
        if (n > 0)
            trl_sched_send(s, r, trl_ref_at(TRL_BUF_SEND, trl__blk_displ(a, r)), n, TRL_NODEPS);
    }
    size_t own = trl__blk_count(a, root);
    if (!a->in_place && own > 0)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, trl__blk_displ(a, root)),
                       trl_ref_at(TRL_BUF_RECV, 0), own, TRL_NODEPS);
    return s->status;
}
