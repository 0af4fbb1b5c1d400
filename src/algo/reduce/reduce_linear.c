/* Linear reduce: every rank sends its data to the root, which combines the
 * p contributions itself.
 *
 * Cost: (p-1)(alpha + n beta + n gamma) at the root; one send elsewhere.
 * From: the flat tree of LAM-MPI up to 4 processes (seed 000).
 * Any number of ranks and any root: nothing depends on p being a power of
 * two.
 *
 * Order of combination: a commutative operation is combined in order of
 * arrival into the receive buffer. With MPI_IN_PLACE that holds the
 * root's own data already; otherwise rank root+1's contribution is
 * received straight into it and own data folded in from the left, and the
 * others are combined in order of arrival once it is there (no copy). A
 * non-commutative one is folded right to left, x_{p-1} first, each step
 * bringing in the next lower rank from the left (b = a op b), so the
 * receive buffer ends holding x_0 op x_1 op ... op x_{p-1}. If the root
 * is rank p-1 the fold starts from a copy of its data; otherwise the
 * receive buffer takes x_{p-1} straight away, so with MPI_IN_PLACE (and
 * only then) the root first copies its data aside. in_place only chooses
 * where data lands: the messages are the same either way.
 *
 * Scratch at the root: one slot of n elements per rank, so every message
 * can land at once.
 */
#include "algo/builders.h"

/* Rank r's receive slot in the root's scratch. */
static trl_ref slot(size_t base, int r, size_t n)
{
    return trl_ref_at(TRL_BUF_SCRATCH, base + (size_t)r * n);
}

int trl_reduce_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, root = a->root;
    size_t n = a->count;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0)
        return s->status;
    if (a->rank != root) {
        trl_sched_send(s, root, own, n, TRL_NODEPS);
        return s->status;
    }
    if (p == 1) {
        trl_sched_copy(s, own, result, n, TRL_NODEPS); /* a self-copy in place: skipped */
        return s->status;
    }
    if (a->commutative) {
        /* Own data is in RECV already in place; otherwise the next rank's
         * contribution lands there and own data is folded in. */
        int first = (root + 1) % p, init = -1;
        size_t slots = trl_sched_scratch(s, (size_t)p * n);
        if (!a->in_place) {
            int got = trl_sched_recv(s, first, result, n, TRL_NODEPS);
            init = trl_sched_reduce(s, own, result, n, TRL_DEPS(got));
        }
        for (int i = 1; i < p; i++) {
            int r = (root + i) % p;
            if (r == first && !a->in_place)
                continue;
            int got = trl_sched_recv(s, r, slot(slots, r, n), n, TRL_NODEPS);
            trl_sched_reduce(s, slot(slots, r, n), result, n, TRL_DEPS(init, got));
        }
        return s->status;
    }
    size_t slots = trl_sched_scratch(s, (size_t)p * n);
    trl_ref mine = own; /* own data, wherever it is read from */
    int last;
    if (root == p - 1) {
        last = trl_sched_copy(s, own, result, n, TRL_NODEPS);
    } else {
        int keep = -1;
        if (a->in_place) { /* RECV, which is own data, takes x_{p-1} */
            mine = slot(slots, root, n);
            keep = trl_sched_copy(s, own, mine, n, TRL_NODEPS);
        }
        last = trl_sched_recv(s, p - 1, result, n, TRL_DEPS(keep));
    }
    for (int r = p - 2; r >= 0; r--) {
        int got = r == root ? -1 : trl_sched_recv(s, r, slot(slots, r, n), n, TRL_NODEPS);
        trl_ref x = r == root ? mine : slot(slots, r, n);
        last = trl_sched_reduce(s, x, result, n, TRL_DEPS(last, got));
    }
    return s->status;
}
