/* Reduce-scatter by recursive halving, for commutative operations.
 *
 * With pof2 ranks taking part (see below), rank i's part of the vector is
 * its own block. At distance d = pof2/2, pof2/4, ..., 1 each rank pairs
 * with new rank ^ d: of the window of 2d ranks the two share, it sends the
 * blocks of the partner's half and receives the partner's contributions to
 * its own half, combining them. The window halves each round until each
 * rank holds its own block fully reduced.
 *
 *     pof2 = 4                 d = 2: 0<->2, 1<->3 exchange halves
 *     rank 1 keeps blocks 0-1, then block 1 (d = 1: 0<->1, 2<->3)
 *
 * Cost: log2(p) alpha + N beta (p-1)/p + N gamma (p-1)/p for a power of
 * two and blocks of equal size (N: the whole vector); other p add a fold
 * (alpha + N beta + N gamma) and one message back of a block.
 * From: Thakur, Rabenseifner and Gropp, "Optimization of collective
 * communication operations in MPICH" (2005), MPICH's reduce_scatter for
 * commutative operations; seed 001's reduce-scatter figures.
 *
 * Non-power-of-two ranks: folded as in src/pattern/rdouble.h. Each even
 * rank among the first 2(p - pof2) sends its whole vector to the odd rank
 * above it and sits out; that odd rank combines the two and stands for
 * both, so its part is the two blocks of the pair, and at the end it
 * sends the even rank its block. New rank i stands for a contiguous run
 * of old ranks, so a window of new ranks is a contiguous range of whole
 * blocks: the halving splits block index ranges, never the inside of a
 * block, whatever the counts. Empty ranges get no message (both partners
 * compute the same ranges, so they agree on which).
 *
 * Commutative operations only: a received half is combined with the one
 * held in whichever order the buffers allow.
 *
 * Buffers: nothing is copied up front. The first round sends straight from
 * the send buffer; each round receives into a scratch region of its own
 * (so every receive can be posted at once) and combines the part it held
 * into what arrived, which becomes the part held. The last round receives
 * straight into the receive buffer where that holds exactly the result
 * (not for a folded pair's two blocks, nor in place when the last round
 * still reads the send buffer); with MPI_IN_PLACE the result is written
 * only after every read of the vector.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/reduce_scatter/reduce_scatter_steps.h"
#include "core/status.h"
#include "pattern/rdouble.h"

/* The part of the vector this rank holds: elements from lo on, at ref. */
typedef struct {
    trl_ref ref;
    size_t lo;
    int ready; /* the step that wrote it, or -1 */
} part;

static trl_ref part_at(const part *h, size_t e)
{
    return trl_ref_at(h->ref.buf, h->ref.off + (e - h->lo));
}

int trl_reduce_scatter_recursive_halving(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t *off = trl__blk_prefix(a, 0, p); /* off[p]: the whole vector */
    /* Steps that read the send buffer: the fold or the first round's send
     * and combine (later rounds read scratch). */
    int vec_reads[4], nreads = 0, rc;
    if (!off)
        return TRL_ERR_NOMEM;
    size_t n = off[p], mine = off[rank + 1] - off[rank];
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (trl__reduce_scatter_trivial(a, s, off))
        goto done;

    int partner = trl_rd_fold_partner(rank, p);
    if (trl_rd_fold_sits_out(rank, p)) {
        int sent = trl_sched_send(s, partner, send, n, TRL_NODEPS);
        if (mine > 0)
            trl_sched_recv(s, partner, result, mine, TRL_DEPS(a->in_place ? sent : -1));
        goto done;
    }

    int pof2 = trl_rd_pof2(p), newrank = trl_rd_fold_newrank(rank, p);
    part held = {send, 0, -1};
    if (partner >= 0) {
        trl_ref whole = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        int got = trl_sched_recv(s, partner, whole, n, TRL_NODEPS);
        held = (part){whole, 0, trl_sched_reduce(s, send, whole, n, TRL_DEPS(got))};
        vec_reads[nreads++] = held.ready;
    }

    for (int d = pof2 / 2; d >= 1; d /= 2) {
        int peer_new = newrank ^ d, peer = trl_rd_fold_rank(peer_new, p);
        int keep = trl_rd_window(newrank, d), give = trl_rd_window(peer_new, d);
        size_t keep_lo = off[trl__fold_first_old(keep, p)];
        size_t keep_hi = off[trl__fold_first_old(keep + d, p)];
        size_t give_lo = off[trl__fold_first_old(give, p)];
        size_t give_hi = off[trl__fold_first_old(give + d, p)];
        bool from_send = held.ref.buf == TRL_BUF_SEND;
        if (give_hi > give_lo) {
            int sent = trl_sched_send(s, peer, part_at(&held, give_lo), give_hi - give_lo,
                                      TRL_DEPS(held.ready));
            if (from_send)
                vec_reads[nreads++] = sent;
        }
        if (keep_hi == keep_lo)
            break; /* later windows lie inside this one: nothing more to do */
        size_t len = keep_hi - keep_lo;
        /* The last round's window is exactly this rank's block unless it
         * stands for a folded pair. */
        bool direct = d == 1 && partner < 0 && !(a->in_place && from_send);
        trl_ref into = direct ? result : trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, len));
        int got = direct && a->in_place ? trl_sched_recv(s, peer, into, len, vec_reads, nreads)
                                        : trl_sched_recv(s, peer, into, len, TRL_NODEPS);
        int sum = trl_sched_reduce(s, part_at(&held, keep_lo), into, len,
                                   TRL_DEPS(got, held.ready));
        if (from_send)
            vec_reads[nreads++] = sum;
        held = (part){into, keep_lo, sum};
    }

    /* held is this rank's part: its own block, after its folded partner's
     * when it stands for two ranks. */
    if (held.ref.buf != TRL_BUF_RECV) {
        if (partner >= 0 && off[rank] > off[partner])
            trl_sched_send(s, partner, part_at(&held, off[partner]), off[rank] - off[partner],
                           TRL_DEPS(held.ready));
        if (mine > 0) {
            /* In place the result lands over the vector: after its reads. */
            if (!a->in_place)
                nreads = 0;
            vec_reads[nreads++] = held.ready;
            trl_sched_copy(s, part_at(&held, off[rank]), result, mine, vec_reads, nreads);
        }
    }
done:
    rc = s->status;
    free(off);
    return rc;
}
