/* Binomial broadcast: each rank receives the buffer from its parent in the
 * binomial tree, then passes it to its children, largest subtree first.
 *
 * Cost: ceil(log2 p)(alpha + n beta) along the critical path: a node
 * serves the child with the largest subtree first (vrank v: v+2^k, ...,
 * v+2, v+1 in a full tree), so the whole tree is reached in ceil(log2 p)
 * rounds of one message each.
 * From: LAM-MPI's logarithmic spanning tree (seed 000; MPICH's
 * MPIR_Bcast_intra_binomial sends in the same order).
 * Any number of ranks and any root: the tree is over vranks relative to
 * the root (src/pattern/tree.h) and simply stops at p.

 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"

int trl_bcast_binomial(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, a->size, a->root);
    if (rc)
        return rc;
    return trl__bcast_tree(a, s, &t, a->count > 0 ? a->count : 1);
}
