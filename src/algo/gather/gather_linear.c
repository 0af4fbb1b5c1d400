/* Linear gather (and gatherv): every rank sends its block straight to the
 * root, which posts all p-1 receives at once, each landing directly at the
 * block's place in the receive buffer (i*count, or displs[i] for gatherv).
 *
 * Cost: (p-1) alpha + (p-1) n beta at the root (gatherv: N beta, N the
 * sum of the counts); one send elsewhere.
 * From: the flat tree of LAM-MPI (seed 000); MPICH's and Open MPI's basic
 * linear gather.
 * Any number of ranks and any root: nothing depends on p being a power of
 * two. A non-root rank reads only its own count (counts[rank]); the root
 * reads every count and displacement, which it knows in MPI.
 *
 * Empty blocks (count 0, or a zero counts[i]) are not sent at all: both
 * sides see the same counts[i]. The root's own block is copied from SEND
 * unless in place, where it already lies in RECV.
 */
#include "algo/blocks.h"
#include "algo/builders.h"

int trl_gather_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, root = a->root;
    if (a->rank != root) {
        size_t n = trl__blk_count(a, a->rank);
        if (n > 0)
            trl_sched_send(s, root, trl_ref_at(TRL_BUF_SEND, 0), n, TRL_NODEPS);
        return s->status;
    }
    /* Receives in rank order after the root, so rank root+1 comes first. */
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        size_t n = trl__blk_count(a, r);
        if (n > 0)
            trl_sched_recv(s, r, trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, r)), n, TRL_NODEPS);
    }
    size_t own = trl__blk_count(a, root);
    if (!a->in_place && own > 0)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0),
                       trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, root)), own, TRL_NODEPS);
    return s->status;
}
