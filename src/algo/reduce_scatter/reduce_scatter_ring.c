/* Ring reduce-scatter, for commutative operations.
 *
 * In step k (k = 0 .. p-2) rank r sends the partial sum of block r-k-1 to
 * its right neighbour r+1 and receives the partial sum of block r-k-2 from
 * its left neighbour r-1, adding its own contribution to it. Each block
 * thus travels once around the ring, starting at the rank after its owner
 * and gaining one contribution per hop, and after p-1 steps rank r holds
 * block r (the one received in the last step) fully reduced.
 *
 *     p = 4, step 0: r0 -b3-> r1 -b0-> r2 -b1-> r3 -b2-> r0
 *
 * Cost: (p-1) alpha + N beta (p-1)/p + N gamma (p-1)/p for blocks of equal
 * size (N: the whole vector); each step moves one block, so with irregular
 * counts a step takes as long as its largest block. Bandwidth-optimal for
 * any p, latency linear in p.
 * From: the reduce-scatter half of the ring allreduce (Patarasuk and Yuan,
 * 2009), as in allreduce_ring.c, with blocks of the caller's sizes.
 * Non-power-of-two ranks: nothing depends on p being a power of two.
 * Blocks of zero elements get no message (both ends compute the same
 * sizes, so they agree on which).
 *
 * Commutative operations only: a block is combined in ring order starting
 * after its owner, not in rank order.
 *
 * Buffers: nothing is copied up front. Step 0 sends straight from the send
 * buffer; each step receives into one of two scratch slots (alternating, so
 * a block can arrive while the previous one is being combined and sent on)
 * and adds this rank's contribution into it from the send buffer. The last
 * step receives straight into the receive buffer, except with MPI_IN_PLACE,
 * where the result goes through a slot and is copied to the start of the
 * vector after the last read of it.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/reduce_scatter/reduce_scatter_steps.h"
#include "core/status.h"

static int ring_mod(int x, int p)
{
    return ((x % p) + p) % p;
}

int trl_reduce_scatter_ring(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank, steps = p - 1;
    size_t *off = trl__blk_prefix(a, 0, p); /* off[p]: the whole vector */
    int *vec_reads = NULL, nreads = 0, rc;
    if (!off)
        return TRL_ERR_NOMEM;
    size_t mine = off[rank + 1] - off[rank];
    trl_ref result = trl_ref_at(TRL_BUF_RECV, 0);
    if (trl__reduce_scatter_trivial(a, s, off))
        goto done;
    /* With MPI_IN_PLACE, every read of the vector, which the result
     * overwrites: the first send and each step's combine. */
    vec_reads = malloc(((size_t)p + 1) * sizeof *vec_reads);
    if (!vec_reads) {
        free(off);
        return TRL_ERR_NOMEM;
    }

#define BLOCK_LEN(b) (off[(b) + 1] - off[b])
    int right = ring_mod(rank + 1, p), left = ring_mod(rank - 1, p);
    bool direct = !a->in_place; /* the last step lands in RECV */

    /* Each slot as large as the largest block it receives. */
    size_t slot_len[2] = {0, 0};
    for (int k = 0; k < steps; k++) {
        size_t len = BLOCK_LEN(ring_mod(rank - k - 2, p));
        if (!(direct && k == steps - 1) && len > slot_len[k % 2])
            slot_len[k % 2] = len;
    }
    size_t slot_off[2];
    slot_off[0] = trl_sched_scratch(s, slot_len[0]);
    slot_off[1] = trl_sched_scratch(s, slot_len[1]);

    /* slot_free[j]: the send that last read slot j (the next receive into
     * it waits for it); combined: the combine of the block received in the
     * step before, which this step sends on. */
    int slot_free[2] = {-1, -1}, combined = -1;
    for (int k = 0; k < steps; k++) {
        int sb = ring_mod(rank - k - 1, p), rb = ring_mod(rank - k - 2, p);
        size_t slen = BLOCK_LEN(sb), rlen = BLOCK_LEN(rb);
        if (slen > 0) {
            trl_ref src = k == 0 ? trl_ref_at(TRL_BUF_SEND, off[sb])
                                 : trl_ref_at(TRL_BUF_SCRATCH, slot_off[(k - 1) % 2]);
            int sent = trl_sched_send(s, right, src, slen, TRL_DEPS(combined));
            if (k == 0)
                vec_reads[nreads++] = sent;
            else
                slot_free[(k - 1) % 2] = sent;
        }
        combined = -1;
        if (rlen == 0)
            continue;
        bool into_recv = direct && k == steps - 1;
        trl_ref into = into_recv ? result : trl_ref_at(TRL_BUF_SCRATCH, slot_off[k % 2]);
        int got = trl_sched_recv(s, left, into, rlen, TRL_DEPS(into_recv ? -1 : slot_free[k % 2]));
        combined = trl_sched_reduce(s, trl_ref_at(TRL_BUF_SEND, off[rb]), into, rlen,
                                    TRL_DEPS(got));
        vec_reads[nreads++] = combined;
    }
    if (!direct && mine > 0)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, slot_off[(steps - 1) % 2]), result, mine,
                       vec_reads, nreads);
#undef BLOCK_LEN
done:
    rc = s->status;
    free(off);
    free(vec_reads);
    return rc;
}
