/* Rabenseifner's allreduce: a reduce-scatter by recursive halving, then an
 * allgather by recursive doubling.
 *
 * The vector is cut into pof2 blocks (sizes differ by at most one element).
 * Reduce-scatter: at distance d = pof2/2, pof2/4, ..., 1 each rank sends the
 * half of its current window of blocks that its partner (new rank ^ d)
 * keeps, receives the half it keeps, and combines; the window halves each
 * round until rank i holds block i fully reduced. Allgather: the same
 * exchanges in the opposite order (d = 1, 2, ..., pof2/2), each rank sending
 * the window it has and receiving its partner's, so the window doubles back
 * to the whole vector.
 *
 *     pof2 = 4, blocks 0..3        d = 2: 0<->2, 1<->3 swap halves
 *     new rank 1 keeps [0,1] then [1]   d = 1: 0<->1, 2<->3 swap quarters
 *
 * Cost: 2 log2(p) alpha + 2n beta (p-1)/p + n gamma (p-1)/p for a power of
 * two: the latency of recursive doubling with the bandwidth of the ring.
 * Non-power-of-two ranks add a fold and an unfold of (alpha + n beta) each.
 * From: Rabenseifner, "Optimization of collective reduction operations"
 * (ICCS 2004); Thakur, Rabenseifner and Gropp (2005), MPICH's allreduce for
 * long messages; seed 001's reduce-scatter figures.
 * Non-power-of-two ranks: folded as in src/pattern/rdouble.h: each even rank
 * among the first 2(p - pof2) sends its whole vector to the odd rank above
 * it and receives the whole result back at the end.
 * count < pof2: some blocks are empty and their messages are left out (both
 * partners compute the same window sizes, so they agree on which).
 *
 * Commutative operations only: a received half is combined as the left
 * operand whichever partner it came from.
 *
 * Buffers: the result is built in RECV. A rank that takes a fold copies
 * SEND there first; the others send their first half straight from SEND
 * and copy only the half they keep (folded into its combine: one pass over
 * the data, sched.h). The fold and
 * the halving rounds receive into one scratch vector of about n elements,
 * each round into its own part of it, so every round's receive can be
 * posted at once.
 */
#include "algo/allreduce/allreduce_steps.h"
#include "algo/builders.h"
#include "pattern/rdouble.h"

/* Offset and length in elements of the `width` blocks starting at block b. */
static size_t win_off(size_t n, int pof2, int b)
{
    return trl_block_off(n, pof2, b);
}

static size_t win_len(size_t n, int pof2, int b, int width)
{
    return trl_block_off(n, pof2, b + width) - trl_block_off(n, pof2, b);
}

int trl_allreduce_rabenseifner(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), recv = trl_ref_at(TRL_BUF_RECV, 0);

    if (trl__allreduce_trivial(a, s))
        return s->status;

    /* The fold of a non-power-of-two count is a phase of its own. */
    trl_sched_phase(s, trl_rd_fold_partner(rank, p) >= 0 ? "fold" : "reduce-scatter");
    if (trl__allreduce_sit_out(a, s))
        return s->status;
    int partner = trl_rd_fold_partner(rank, p);

    int pof2 = trl_rd_pof2(p), newrank = trl_rd_fold_newrank(rank, p);
    int levels = 0;
    for (int d = 1; d < pof2; d <<= 1)
        levels++;

    /* Scratch for the fold (n) or for every halving round's part, whichever
     * is larger: uneven blocks can make the rounds' parts add up to a
     * little more than n for the lowest ranks. */
    size_t rounds_len = 0;
    for (int l = 0; l < levels; l++)
        rounds_len += win_len(n, pof2, trl_rd_window(newrank, 1 << l), 1 << l);
    size_t tmp = trl_sched_scratch(s, rounds_len > n ? rounds_len : n);
    /* The last step that wrote RECV (-1: none yet). Without a fold, RECV
     * starts empty: the first round sends from SEND, and copies only the
     * half it keeps, which trl_sched_finish folds into its combine. */
    int ready = -1, fold = -1;
    if (partner >= 0) {
        int copied = trl_sched_copy(s, send, recv, n, TRL_NODEPS);
        int got = trl_sched_recv(s, partner, trl_ref_at(TRL_BUF_SCRATCH, tmp), n, TRL_NODEPS);
        fold = ready = trl_sched_reduce(s, trl_ref_at(TRL_BUF_SCRATCH, tmp), recv, n,
                                        TRL_DEPS(got, copied));
    }

    /* Indexed by log2 of the distance: the reduce-scatter's send at that
     * distance, whose region the allgather receives back into. */
    int rs_sent[32], ag_got[32];

    /* Reduce-scatter by recursive halving. */
    trl_sched_phase(s, "reduce-scatter");
    size_t used = 0;
    for (int l = levels - 1; l >= 0; l--) {
        int d = 1 << l, peer_new = newrank ^ d, peer = trl_rd_fold_rank(peer_new, p);
        int keep = trl_rd_window(newrank, d), give = trl_rd_window(peer_new, d);
        size_t keep_off = win_off(n, pof2, keep), keep_len = win_len(n, pof2, keep, d);
        size_t give_off = win_off(n, pof2, give), give_len = win_len(n, pof2, give, d);
        bool first = partner < 0 && l == levels - 1; /* RECV still empty */
        rs_sent[l] = -1;
        if (give_len > 0)
            rs_sent[l] = trl_sched_send(s, peer,
                                        trl_ref_at(first ? TRL_BUF_SEND : TRL_BUF_RECV, give_off),
                                        give_len, &ready, ready >= 0);
        if (keep_len > 0) {
            trl_ref in = trl_ref_at(TRL_BUF_SCRATCH, tmp + used);
            used += keep_len;
            /* The fold's combine reads the whole scratch vector first. */
            int got = trl_sched_recv(s, peer, in, keep_len, &fold, fold >= 0);
            if (first)
                ready = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, keep_off),
                                       trl_ref_at(TRL_BUF_RECV, keep_off), keep_len, TRL_NODEPS);
            ready = trl_sched_reduce(s, in, trl_ref_at(TRL_BUF_RECV, keep_off), keep_len,
                                     TRL_DEPS(got, ready));
        }
    }

    /* Allgather by recursive doubling. Each send waits for everything
     * received so far (its window is made of it) and for the last combine. */
    trl_sched_phase(s, "allgather");
    int ngot = 0;
    for (int l = 0; l < levels; l++) {
        int d = 1 << l, peer_new = newrank ^ d, peer = trl_rd_fold_rank(peer_new, p);
        int mine = trl_rd_window(newrank, d), theirs = trl_rd_window(peer_new, d);
        size_t mine_len = win_len(n, pof2, mine, d);
        size_t theirs_off = win_off(n, pof2, theirs), theirs_len = win_len(n, pof2, theirs, d);
        if (mine_len > 0) {
            ag_got[ngot] = ready;
            trl_sched_send(s, peer, trl_ref_at(TRL_BUF_RECV, win_off(n, pof2, mine)), mine_len,
                           ag_got, ngot + (ready >= 0));
        }
        /* The partner's window is what this rank gave away at the same
         * distance in the reduce-scatter; that send must be done. */
        if (theirs_len > 0)
            ag_got[ngot++] = trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_RECV, theirs_off),
                                            theirs_len, TRL_DEPS(rs_sent[l]));
    }

    if (partner >= 0) {
        trl_sched_phase(s, "unfold");
        ag_got[ngot] = ready;
        trl_sched_send(s, partner, recv, n, ag_got, ngot + (ready >= 0));
    }
    return s->status;
}
