/* Scatter-allgather broadcast: the buffer is cut into p blocks, block v
 * belonging to vrank v (relative to the root). A binomial scatter gives
 * every rank its own block (a node receives the blocks of its whole
 * subtree, keeps its own and passes each child the child's subtree's
 * blocks), then a ring allgather circulates the blocks: at step k a rank
 * sends block v-k to its right neighbour and receives block v-k-1 from its
 * left one.
 *
 * Cost: (ceil(log2 p) + p-1) alpha + 2 n beta (p-1)/p: bandwidth-optimal
 * to a factor of two, for long messages (Van de Geijn's broadcast).
 * From: seed 001's SAG broadcast; MPICH's MPIR_Bcast_intra_scatter_ring_allgather.
 *
 * After the scatter a rank already holds every block of its subtree, so
 * the ring skips those: a rank whose subtree holds m blocks receives only
 * the p-m blocks it lacks, at steps 0..p-m-1, and its left neighbour,
 * which knows the same tree, sends it only those. This saves traffic and
 * means no ring receive ever writes a block a scatter send is still
 * reading.
 *
 * Any number of ranks: the binomial tree and the ring work for any p.
 * Any count: blocks differ by at most one element, the first count % p
 * one longer, and when count < p some blocks are empty; both sides of a
 * message compute the same lengths and skip the empty ones.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"
#include "pattern/tree.h"

/* Element offset of block b of p (b == p gives count). */
static size_t block_off(size_t count, int p, int b)
{
    size_t q = count / (size_t)p, r = count % (size_t)p, ub = (size_t)b;
    return ub * q + (ub < r ? ub : r);
}

/* Send or receive blocks [first, first+n) of vranks (no wrap), if any. */
static int move(trl_sched *s, bool send, int peer, const trl_coll_args *a, int first, int n,
                int dep)
{
    size_t lo = block_off(a->count, a->size, first), hi = block_off(a->count, a->size, first + n);
    if (hi == lo)
        return -1;
    trl_ref at = trl_ref_at(TRL_BUF_RECV, lo);
    return send ? trl_sched_send(s, peer, at, hi - lo, TRL_DEPS(dep))
                : trl_sched_recv(s, peer, at, hi - lo, TRL_DEPS(dep));
}

int trl_bcast_scatter_allgather(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size;
    if (p == 1 || a->count == 0)
        return s->status;
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, p, a->root);
    if (rc)
        return rc;
    int v = trl_tree_vrank(&t, a->rank), mine = trl_tree_subtree_size(&t, a->rank);

    /* Scatter: my subtree's blocks from my parent, then each child's
     * subtree's blocks to it, the largest first (as in bcast_binomial.c). */
    trl_sched_phase(s, "scatter");
    int parent = trl_tree_parent(&t, a->rank);
    int got = parent >= 0 ? move(s, false, parent, a, v, mine, -1) : -1;
    int n = trl_tree_nchildren(&t, a->rank);
    for (int i = n - 1; i >= 0; i--) {
        int c = trl_tree_child(&t, a->rank, i);
        move(s, true, c, a, trl_tree_vrank(&t, c), trl_tree_subtree_size(&t, c), got);
    }

    /* Ring: send what the right neighbour lacks, receive what I lack. */
    trl_sched_phase(s, "allgather");
    int right = (a->rank + 1) % p, left = (a->rank + p - 1) % p;
    int right_has = trl_tree_subtree_size(&t, right);
    int prev = -1; /* the ring receive of the step before */
    for (int k = 0; k < p - 1; k++) {
        /* Block v-k is mine from the scatter at step 0 and in the last
         * mine-1 steps; otherwise it came in at step k-1. */
        int dep = k == 0 || k > p - mine ? got : prev;
        if (k < p - right_has)
            move(s, true, right, a, (v - k + p) % p, 1, dep);
        prev = k < p - mine ? move(s, false, left, a, (v - k - 1 + p) % p, 1, -1) : -1;
    }
    return s->status;
}
