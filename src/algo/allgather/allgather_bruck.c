/* Bruck's allgather (and allgatherv): rank r keeps the blocks in rotated
 * order, position j holding block r+j (mod p). In round k, with d = 2^k,
 * it sends the first min(d, p-d) positions it holds to rank r-d and
 * receives as many from rank r+d, which are its positions d, d+1, ...;
 * after ceil(log2 p) rounds it holds all p positions, and a final rotation
 * puts every block in its place in RECV.
 *
 *     p = 5, rank 0 holds:  b0 | b1 | b2 b3 | b4
 *                round:     -    0    1       2   (position 0: its own)
 *
 * Cost: ceil(log2 p) alpha + (p-1) n beta (n one block; N all blocks for
 * allgatherv), plus the local rotation, whatever p: no fold, so it beats
 * recursive doubling by two rounds when p is not a power of two.
 * From: Bruck, Ho, Kipnis, Upfal and Weathersby, "Efficient algorithms for
 * all-to-all communications in multiport message-passing systems" (1997);
 * MPICH's allgather for short messages at non-power-of-two sizes.
 * Non-power-of-two ranks: the last round moves only the p-d positions
 * still missing.
 *
 * Buffers: positions are kept back to back in scratch (for allgatherv each
 * as long as its block), so every message is one range. The last round's
 * positions are never sent on: when they lie back to back in RECV (for
 * allgather: when they do not wrap past block p-1) they are received
 * straight into place and scratch holds only the positions before them.
 * The own block goes from SEND to RECV (nothing in place) and to position
 * 0; the rotation copies the rest, one copy per run of positions that is
 * also contiguous in RECV (two copies for allgather), each as soon as the
 * rounds that filled it are done. Whether the last round lands in RECV is
 * the rank's own choice: the messages depend only on the counts, never on
 * its displacements.
 *
 * All receives are posted at once (they fill disjoint positions); a send
 * waits for the receives before it. Messages of zero elements (all blocks
 * of a range empty) are left out by both ends, which compute the same
 * sizes.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "core/status.h"
#include "pattern/rdouble.h"

int trl_allgather_bruck(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, r = a->rank, rounds = trl_rd_ceil_log2(p);
    size_t own = trl__blk_count(a, r);
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, r));
    trl_ref own_src = a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);

    if (!a->in_place && own > 0)
        trl_sched_copy(s, own_src, own_at, own, TRL_NODEPS);
    if (p == 1)
        return s->status;

    /* off[j]: where position j starts in scratch (positions back to back). */
    size_t *off = trl__blk_prefix(a, r, p);
    int *got = malloc(((size_t)rounds + 1) * sizeof *got);
    if (!off || !got) {
        free(off);
        free(got);
        return TRL_ERR_NOMEM;
    }

    int last_d = 1 << (rounds - 1);
    size_t last_at;
    bool last_direct = trl__back_to_back(a, (r + last_d) % p, p - last_d, &last_at);
    /* Scratch ends where the positions kept in it end. Position 0 is only
     * read by sends of more than one position (from round 1 on): p = 2
     * needs no scratch at all. */
    int kept = last_direct ? last_d : p;
    size_t sb = trl_sched_scratch(s, rounds > 1 ? off[kept] : 0);
#define POS(j) trl_ref_at(TRL_BUF_SCRATCH, sb + off[j])

    /* got[0] is the own block's copy into position 0, got[k+1] round k's
     * receive: a send in round k waits for got[0..k]. */
    got[0] = own > 0 && rounds > 1 ? trl_sched_copy(s, own_src, POS(0), own, TRL_NODEPS) : -1;
    for (int k = 0; k < rounds; k++) {
        int d = 1 << k, c = d < p - d ? d : p - d;
        int to = (r - d + p) % p, from = (r + d) % p;
        if (off[c] > 0) {
            if (c == 1) /* just the own block: no need to wait for its copy */
                trl_sched_send(s, to, own_src, own, TRL_NODEPS);
            else
                trl_sched_send(s, to, POS(0), off[c], got, k + 1);
        }
        got[k + 1] = -1;
        size_t n = off[d + c] - off[d];
        if (n > 0) {
            trl_ref dst = k == rounds - 1 && last_direct ? trl_ref_at(TRL_BUF_RECV, last_at)
                                                         : POS(d);
            got[k + 1] = trl_sched_recv(s, from, dst, n, TRL_NODEPS);
        }
    }

    /* The rotation: positions 1..kept-1 to their places, in runs that are
     * contiguous in RECV too. Position j came in round floor(log2 j). */
    for (trl__runs it = trl__runs_of(r + 1, kept - 1); trl__next_run(a, &it);) {
        int j = it.lo + 1, stop = it.hi + 1; /* positions [j, stop) */
        int deps[64], nd = 0;
        for (int k = 0; k < rounds; k++) {
            int d = 1 << k, c = d < p - d ? d : p - d;
            if (d < stop && j < d + c && got[k + 1] >= 0)
                deps[nd++] = got[k + 1];
        }
        trl_sched_copy(s, POS(j), trl_ref_at(TRL_BUF_RECV, it.pos), it.len, deps, nd);
    }
#undef POS
    free(off);
    free(got);
    return s->status;
}
