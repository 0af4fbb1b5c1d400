/* Linear reduce: every rank sends its data to the root, which combines the
 * p contributions itself.
 *
 * Cost: (p-1)(alpha + n beta + n gamma) at the root; one send elsewhere.
 * From: the flat tree of LAM-MPI up to 4 processes (seed 000).
 * Any number of ranks and any root: nothing depends on p being a power of
 * two.
 *
 * Order of combination: a commutative operation is combined in order of
 * arrival into the receive buffer, which starts as a copy of the root's
 * own data (a self-copy, skipped, with MPI_IN_PLACE). A non-commutative
 * one is folded right to left, x_{p-1} first, each step bringing in the
 * next lower rank from the left (b = a op b), so the receive buffer ends
 * holding x_0 op x_1 op ... op x_{p-1}. Unless the root is rank p-1, the
 * receive buffer takes x_{p-1} before the root's own data is used, so the
 * root first copies its data aside: the send buffer may be the receive
 * buffer (MPI_IN_PLACE).
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
    size_t slots = trl_sched_scratch(s, (size_t)p * n);
    if (a->commutative) {
        int init = trl_sched_copy(s, own, result, n, TRL_NODEPS);
        for (int i = 1; i < p; i++) {
            int r = (root + i) % p;
            int got = trl_sched_recv(s, r, slot(slots, r, n), n, TRL_NODEPS);
            trl_sched_reduce(s, slot(slots, r, n), result, n, TRL_DEPS(init, got));
        }
        return s->status;
    }
    int last;
    if (root == p - 1) {
        last = trl_sched_copy(s, own, result, n, TRL_NODEPS);
    } else {
        int keep = trl_sched_copy(s, own, slot(slots, root, n), n, TRL_NODEPS);
        last = trl_sched_recv(s, p - 1, result, n, TRL_DEPS(keep));
    }
    for (int r = p - 2; r >= 0; r--) {
        int got = r == root ? -1 : trl_sched_recv(s, r, slot(slots, r, n), n, TRL_NODEPS);
        last = trl_sched_reduce(s, slot(slots, r, n), result, n, TRL_DEPS(last, got));
    }
    return s->status;
}
