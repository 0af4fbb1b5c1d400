/* K-ary reduce: vrank v combines the results of its children v*k+1 ..
 * v*k+k with its own data and sends the result to (v-1)/k.
 *
 * Cost: about k log_k(p)(alpha + n beta + n gamma) along the critical
 * path; radix 1 is an unpipelined chain, radix 2 a binary tree.
 * From: the k-ary trees of MPICH's treealgo and Open MPI's tuned reduce.
 * Any number of ranks: the last level fills from the left. Any root and
 * the order of combination: see reduce_binomial.c. A k-ary tree numbered
 * level by level does not hold contiguous runs of ranks in its subtrees,
 * so for a non-commutative operation the ranks are laid on it in
 * pre-order instead (src/pattern/tree.h).
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_reduce_kary(const trl_coll_args *a, trl_sched *s)
{
    return trl__reduce_tree(a, s, TRL_TREE_KARY, (int)trl_param_int(a, "radix"),
                            a->count > 0 ? a->count : 1);
}
