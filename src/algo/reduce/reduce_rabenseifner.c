/* Rabenseifner's reduce: a reduce-scatter by recursive halving leaves each
 * of pof2 ranks with one fully reduced block of the vector, then a
 * binomial gather brings the blocks to the root.
 *
 * Cost: 2 log2(p) alpha + 2 n beta (p-1)/p + n gamma (p-1)/p for a power
 * of two; the fold below adds alpha + n beta + n gamma. For long messages:
 * every rank sends and combines about n elements in all instead of n per
 * tree level.
 * From: R. Rabenseifner's algorithm as in seed 001 (reduce-scatter, then
 * gather) and MPICH's MPIR_Reduce_intra_reduce_scatter_gather.
 * Commutative operations only (the table says so): the halving combines
 * two halves in whichever order the pair happens to fall, and the fold and
 * the halving mix the operands out of rank order.
 *
 * Ranks are taken relative to the root (vrank v = rank - root mod p), so
 * the root always takes part and ends the gather with no extra message.
 * Non-power-of-two p (pof2 the largest power of two not above p, rem =
 * p - pof2): the first 2*rem vranks pair up and each odd one hands its
 * whole vector to the even one below it and sits out; the even ones and
 * the vranks from 2*rem on are the pof2 that go on, as new ranks 0..pof2-1
 * in vrank order. The vector is cut into pof2 blocks that differ by at
 * most one element; when count < pof2 some are empty and both sides of a
 * message skip it.
 *
 * The halving step at distance d keeps one half of the current window of
 * 2d blocks and sends the other half to new rank ^ d; the combination
 * b = a op b lands in the buffer the partner's half was received into, so
 * the accumulator moves from buffer to buffer (tracked in `acc`) and the
 * send buffer is only read. The last halving step receives the partner's
 * half straight into the buffer the gather collects in (the root's
 * receive buffer, or a node's run in scratch), so the own block is never
 * copied; the root with MPI_IN_PLACE whose accumulator is still its send
 * buffer (p = 2) combines the partner's half into it instead. in_place
 * only chooses where data lands: the messages are the same either way.
 * With MPI_IN_PLACE the root's gather writes the receive buffer the
 * halving read as the send buffer, so a fence first waits for every
 * earlier step there; without it the gather's receives are posted at once.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"
#include "pattern/tree.h"

typedef struct {
    const trl_coll_args *a;
    int pof2, rem;
} rab;

/* Element offset of block b of pof2 (b == pof2 gives count). */
static size_t block_off(const rab *r, int b)
{
    size_t q = r->a->count / (size_t)r->pof2, m = r->a->count % (size_t)r->pof2, ub = (size_t)b;
    return ub * q + (ub < m ? ub : m);
}

/* The real rank of new rank nv. */
static int real_rank(const rab *r, int nv)
{
    int v = nv < r->rem ? 2 * nv : nv + r->rem;
    return (v + r->a->root) % r->a->size;
}

/* Where the accumulator lives: element e (e >= first) is at off + e - first
 * of buf. */
typedef struct {
    trl_buf buf;
    size_t off, first;
} where;

static trl_ref at(where w, size_t e)
{
    return trl_ref_at(w.buf, w.off + (e - w.first));
}

int trl_reduce_rabenseifner(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, v = (a->rank - a->root + p) % p;
    rab r = {a, 1, 0};
    while (r.pof2 * 2 <= p)
        r.pof2 *= 2;
    r.rem = p - r.pof2;
    where acc = {TRL_BUF_SEND, 0, 0};
    int last = -1;
    if (!a->commutative)
        return TRL_ERR_UNSUPPORTED; /* the selector never asks; never answer wrongly */
    if (a->count == 0)
        return s->status;

    /* Fold: odd vranks below 2*rem hand everything over and are done. */
    int nv = v - r.rem;
    if (v < 2 * r.rem) {
        trl_sched_phase(s, "fold");
        int partner = (a->rank + (v % 2 ? -1 : 1) + p) % p;
        if (v % 2) {
            trl_sched_send(s, partner, at(acc, 0), a->count, TRL_NODEPS);
            return s->status;
        }
        where folded = {TRL_BUF_SCRATCH, trl_sched_scratch(s, a->count), 0};
        int got = trl_sched_recv(s, partner, at(folded, 0), a->count, TRL_NODEPS);
        last = trl_sched_reduce(s, at(acc, 0), at(folded, 0), a->count, TRL_DEPS(got));
        acc = folded;
        nv = v / 2;
    }

    /* The gather's shape, needed first: where this rank collects its run
     * of blocks (the root: RECV; a node with children: scratch; a leaf
     * sends its block from wherever it was reduced). */
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, r.pof2, 0);
    if (rc)
        return rc;
    int sub = trl_tree_vsubtree(&t, nv), parent = trl_tree_vparent(&t, nv);
    int nkids = trl_tree_vnchildren(&t, nv);
    size_t own_lo = block_off(&r, nv), own_n = block_off(&r, nv + 1) - own_lo;
    size_t run_lo = own_lo, run_n = block_off(&r, nv + sub) - run_lo;
    bool collects = parent < 0 || nkids > 0;
    where run = {TRL_BUF_RECV, 0, 0};
    if (parent >= 0 && nkids > 0)
        run = (where){TRL_BUF_SCRATCH, trl_sched_scratch(s, run_n), run_lo};

    /* Reduce-scatter by recursive halving: at distance d, keep the half of
     * the window of 2d blocks that holds block nv. The last step (d = 1)
     * combines into the run, so the own block needs no copy there: it
     * receives the partner's half straight into the run, except at the
     * root with MPI_IN_PLACE while the accumulator is still the send
     * buffer (pof2 = 2, no fold), which is the receive buffer already:
     * there the partner's half lands in scratch and is combined into it. */
    trl_sched_phase(s, "reduce-scatter");
    for (int d = r.pof2 / 2; d >= 1; d /= 2) {
        int window = nv & ~(2 * d - 1), keep = window + (nv & d), give = window + d - (nv & d);
        int partner = real_rank(&r, nv ^ d);
        size_t give_lo = block_off(&r, give), give_n = block_off(&r, give + d) - give_lo;
        size_t keep_lo = block_off(&r, keep), keep_n = block_off(&r, keep + d) - keep_lo;
        if (give_n > 0)
            trl_sched_send(s, partner, at(acc, give_lo), give_n, TRL_DEPS(last));
        bool into_run = d == 1 && collects;
        bool acc_is_run = into_run && parent < 0 && a->in_place && acc.buf == TRL_BUF_SEND;
        where next = into_run && !acc_is_run
                         ? run
                         : (where){TRL_BUF_SCRATCH, trl_sched_scratch(s, keep_n), keep_lo};
        if (keep_n > 0) {
            /* In place at the root, RECV is the send buffer: the receive
             * waits for the reductions that read it (`last`); the sends
             * that read it take the other half. */
            int after = into_run && parent < 0 && a->in_place ? last : -1;
            int got = trl_sched_recv(s, partner, at(next, keep_lo), keep_n, TRL_DEPS(after));
            if (acc_is_run)
                last = trl_sched_reduce(s, at(next, keep_lo), at(run, keep_lo), keep_n,
                                        TRL_DEPS(last, got));
            else
                last = trl_sched_reduce(s, at(acc, keep_lo), at(next, keep_lo), keep_n,
                                        TRL_DEPS(last, got));
        }
        acc = acc_is_run ? run : next;
    }

    /* Gather up a binomial tree over new ranks: a node collects the blocks
     * of its subtree, a contiguous run, and passes them up. */
    trl_sched_phase(s, "gather");
    if (!collects) {
        if (run_n > 0)
            trl_sched_send(s, real_rank(&r, parent), at(acc, own_lo), run_n, TRL_DEPS(last));
        return s->status;
    }
    /* In place, the root's gather writes the receive buffer, which is the
     * send buffer the halving read. */
    if (parent < 0 && a->in_place)
        trl_sched_fence(s);
    int *joins = malloc((size_t)(nkids + 1) * sizeof *joins), njoins = 0;
    if (!joins)
        return TRL_ERR_NOMEM;
    if (own_n > 0)
        joins[njoins++] = acc.buf == run.buf && acc.off == run.off && acc.first == run.first
                              ? last
                              : trl_sched_copy(s, at(acc, own_lo), at(run, own_lo), own_n,
                                               TRL_DEPS(last));
    for (int i = 0; i < nkids; i++) {
        int c = trl_tree_vchild(&t, nv, i);
        size_t lo = block_off(&r, c), n = block_off(&r, c + trl_tree_vsubtree(&t, c)) - lo;
        if (n > 0)
            joins[njoins++] = trl_sched_recv(s, real_rank(&r, c), at(run, lo), n, TRL_NODEPS);
    }
    if (parent >= 0 && run_n > 0)
        trl_sched_send(s, real_rank(&r, parent), at(run, run_lo), run_n, joins, njoins);
    free(joins);
    return s->status;
}
