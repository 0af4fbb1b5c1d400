/* Recursive-doubling allreduce: in round k every rank exchanges its whole
 * partial result with the rank whose (new) rank differs in bit k and
 * combines the two, so after log2(p) rounds every rank holds the result.
 *
 * Cost: log2(p)(alpha + n beta + n gamma) for a power of two; two more
 * rounds of (alpha + n beta) when p is not (the fold and the unfold).
 * From: Thakur, Rabenseifner and Gropp, "Optimization of collective
 * communication operations in MPICH" (2005), MPICH's allreduce for short
 * messages.
 * Non-power-of-two ranks: folded as in src/pattern/rdouble.h. Each even
 * rank among the first 2(p - pof2) sends its vector to the odd rank above
 * it, which combines the two and stands for both; the pof2 ranks left run
 * the exchange; the odd ranks hand the result back at the end.
 *
 * Any operation, commutative or not: after k rounds a rank holds the
 * combination of an aligned group of 2^k new ranks, each group a contiguous
 * range of old ranks in order, and when two groups meet the lower group is
 * always the left operand. Every rank therefore computes the same product
 * in rank order.
 *
 * Buffers: the partial result moves between RECV and one scratch vector
 * (the round's receive goes to whichever is not the current result). A rank
 * knows from its new rank how often the result will move, and starts it in
 * whichever buffer makes it end in RECV, so no final copy is needed.
 */
#include "algo/allreduce/allreduce_steps.h"
#include "algo/builders.h"
#include "pattern/rdouble.h"

/* Rounds in which this new rank is the lower of the pair, and its combined
 * result therefore lands in the buffer it received into. */
static int moves_of(int newrank, int pof2)
{
    int moves = 0;
    for (int m = 1; m < pof2; m <<= 1)
        moves += (newrank & m) == 0;
    return moves;
}

int trl_allreduce_recursive_doubling(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), recv = trl_ref_at(TRL_BUF_RECV, 0);

    if (trl__allreduce_trivial(a, s))
        return s->status;

    if (trl__allreduce_sit_out(a, s))
        return s->status;
    int partner = trl_rd_fold_partner(rank, p);

    int pof2 = trl_rd_pof2(p), newrank = trl_rd_fold_newrank(rank, p);
    trl_ref tmp = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
    trl_ref cur = recv, other = tmp;
    if (moves_of(newrank, pof2) % 2) {
        cur = tmp;
        other = recv;
    }
    int last = trl_sched_copy(s, send, cur, n, TRL_NODEPS);
    if (partner >= 0) {
        /* The even partner is the lower rank: its vector is the left operand.
         * In place, `other` may be RECV, which the copy is still reading. */
        int got = trl_sched_recv(s, partner, other, n, TRL_DEPS(last));
        last = trl_sched_reduce(s, other, cur, n, TRL_DEPS(got, last));
    }

    int prev_send = -1;
    for (int m = 1; m < pof2; m <<= 1) {
        int peer_new = newrank ^ m, peer = trl_rd_fold_rank(peer_new, p);
        int sent = trl_sched_send(s, peer, cur, n, TRL_DEPS(last));
        /* `other` was last read by the previous combine or send. */
        int got = trl_sched_recv(s, peer, other, n, TRL_DEPS(last, prev_send));
        if (peer_new < newrank) {
            /* cur = theirs (op) cur, written over the vector being sent. */
            last = trl_sched_reduce(s, other, cur, n, TRL_DEPS(got, sent));
        } else {
            /* other = cur (op) theirs; the result now lives in other. */
            last = trl_sched_reduce(s, cur, other, n, TRL_DEPS(got));
            trl_ref t = cur;
            cur = other;
            other = t;
        }
        prev_send = sent;
    }

    if (partner >= 0)
        trl_sched_send(s, partner, recv, n, TRL_DEPS(last));
    return s->status;
}
