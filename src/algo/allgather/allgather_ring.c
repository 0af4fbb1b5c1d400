/* Ring allgather (and allgatherv): rank r sends to r+1 and receives from
 * r-1. In step k (0 <= k < p-1) it passes on block r-k (its own at first,
 * then the one it received in the step before) and receives block r-k-1,
 * so after p-1 steps every block has gone once around the ring.
 *
 *     p = 4, step 0: r0 -b0-> r1 -b1-> r2 -b2-> r3 -b3-> r0
 *            step 1: r0 -b3-> r1 -b0-> r2 -b1-> r3 -b2-> r0
 *
 * Cost: (p-1)(alpha + n beta) for allgather (n one block); for allgatherv
 * (p-1) alpha + N beta at best (N all blocks), each step as slow as the
 * biggest block on the ring in it.
 * From: the ring allgather of Thakur, Rabenseifner and Gropp, "Optimization
 * of collective communication operations in MPICH" (2005), MPICH's
 * allgather for long messages.
 * Any number of ranks: nothing depends on p being a power of two.
 *
 * Buffers: every block is received straight into its place in RECV and
 * forwarded from there; no scratch. The only copy is of the rank's own
 * block from SEND into RECV (none in place), and it runs beside the first
 * send, which reads SEND. All receives are posted at once (they land in
 * disjoint blocks); a send waits only for the receive of its block.
 *
 * allgatherv: a block of zero elements is neither sent nor received. Both
 * ends know counts[], so they leave out the same messages and the tags of
 * the others still match.
 */
#include "algo/blocks.h"
#include "algo/builders.h"

int trl_allgather_ring(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, r = a->rank;
    int right = (r + 1) % p, left = (r - 1 + p) % p;
    size_t own = trl__blk_count(a, r);
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, r));
    /* Where the first send reads the own block: SEND, or RECV in place. */
    trl_ref own_src = a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);

    if (!a->in_place && own > 0)
        trl_sched_copy(s, own_src, own_at, own, TRL_NODEPS);

    int got = -1; /* the receive of the block passed on in this step */
    for (int k = 0; k < p - 1; k++) {
        int out = ((r - k) % p + p) % p, in = (out - 1 + p) % p;
        size_t out_n = trl__blk_count(a, out), in_n = trl__blk_count(a, in);
        if (out_n > 0) {
            trl_ref src = k == 0 ? own_src : trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, out));
            trl_sched_send(s, right, src, out_n, TRL_DEPS(got));
        }
        got = -1;
        if (in_n > 0)
            got = trl_sched_recv(s, left, trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, in)), in_n,
                                 TRL_NODEPS);
    }
    return s->status;
}
