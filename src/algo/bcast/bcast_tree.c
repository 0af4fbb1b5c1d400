/* The emission every tree broadcast shares (binomial, k-nomial, k-ary and
 * the pipelined chain): receive each segment from the parent, pass it to
 * the children, largest subtree first. The trees are in src/pattern/tree.h.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"

int *trl__tree_serving_order(const trl_tree *t, int rank, int n)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order);
    if (!order)
        return NULL;
    /* An explicit tree is served in the order its file gives. */
    if (t->kind == TRL_TREE_EXPLICIT) {
        trl_tree_children(t, rank, order, n);
        return order;
    }
    for (int i = 0; i < n; i++) {
        int c = trl_tree_child(t, rank, n - 1 - i), size = trl_tree_subtree_size(t, c), j = i;
        for (; j > 0 && trl_tree_subtree_size(t, order[j - 1]) < size; j--)
            order[j] = order[j - 1];
        order[j] = c;
    }
    return order;
}

/* Broadcast over tree t in segments of `segment` elements: segment k is
 * received from the parent and forwarded to the children as soon as it is
 * in, whatever the other segments are doing. With segment >= count it is
 * the plain (unpipelined) tree broadcast.
 *
 * A rank keeps at most WINDOW segments in flight: it posts the receive of
 * segment k+WINDOW once segment k has reached all its children. Two are
 * enough to keep a link that carries one segment at a time busy (one
 * arrives while the other leaves), and the bound keeps the receives
 * outstanding, and the executors' matching work, independent of the
 * count. */
enum { WINDOW = 2 };

int trl__bcast_tree(const trl_coll_args *a, trl_sched *s, const trl_tree *t, size_t segment)
{
    int parent = trl_tree_parent(t, a->rank);
    int n = trl_tree_nchildren(t, a->rank);
    int *order = trl__tree_serving_order(t, a->rank, n);
    /* The steps of the segment WINDOW back: its receive and its sends. */
    int *back = malloc((size_t)WINDOW * (size_t)(n + 1) * sizeof *back);
    if (!order || !back) {
        free(order);
        free(back);
        return TRL_ERR_NOMEM;
    }
    for (int i = 0; i < WINDOW * (n + 1); i++)
        back[i] = -1;
    for (size_t off = 0, k = 0; off < a->count; off += segment, k++) {
        size_t len = a->count - off < segment ? a->count - off : segment;
        int *mine = &back[(k % WINDOW) * (size_t)(n + 1)];
        trl_ref at = trl_ref_at(TRL_BUF_RECV, off);
        int got = parent >= 0 ? trl_sched_recv(s, parent, at, len, mine, n + 1) : -1;
        mine[n] = got;
        for (int i = 0; i < n; i++)
            mine[i] = trl_sched_send(s, order[i], at, len, TRL_DEPS(got));
    }
    free(order);
    free(back);
    return s->status;
}

int trl__bcast_explicit(const trl_coll_args *a, trl_sched *s, const trl_tree *t)
{
    if (a->root != t->root) {
        /* One hop to the tree's top; the root later receives its own data
         * back through the tree, after its send is done (a fence). */
        trl_ref all = trl_ref_at(TRL_BUF_RECV, 0);
        if (a->rank == a->root)
            trl_sched_send(s, t->root, all, a->count, TRL_NODEPS);
        else if (a->rank == t->root)
            trl_sched_recv(s, a->root, all, a->count, TRL_NODEPS);
        trl_sched_fence(s);
    }
    return trl__bcast_tree(a, s, t, a->count > 0 ? a->count : 1);
}
