/* Binomial reduce: each rank receives its children's partial results in
 * the binomial tree (nearest first: vrank 12 of 32 takes 13, then 14),
 * combines them with its own contribution and sends the result to its
 * parent (12 sends to 8).
 *
 * Cost: ceil(log2 p)(alpha + n beta + n gamma) along the critical path.
 * From: LAM-MPI's logarithmic spanning tree, the script of seed 000.
 * Any number of ranks: the tree stops at p. The order of combination for
 * commutative and non-commutative operations: see reduce_tree.c.
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"

int trl_reduce_binomial(const trl_coll_args *a, trl_sched *s)
{
    return trl__reduce_tree(a, s, TRL_TREE_BINOMIAL, 2, a->count > 0 ? a->count : 1);
}
