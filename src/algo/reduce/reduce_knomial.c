/* K-nomial reduce: the binomial reduce generalised to radix k. A node
 * receives from up to k-1 children at each digit position below its own
 * lowest non-zero digit (base k), combines, and sends to its parent.
 *
 * Cost: (k-1) ceil(log_k p)(alpha + n beta + n gamma) along the critical
 * path; radix 2 is the binomial tree.
 * From: MPICH's k-nomial tree (treealgo) and UCC's reduce_knomial.
 * Any number of ranks: the tree stops at p. Any root and the order of
 * combination (arrival order if commutative, rank order otherwise, with
 * one extra message when the root is not rank 0): see reduce_binomial.c.
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_reduce_knomial(const trl_coll_args *a, trl_sched *s)
{
    return trl__reduce_tree(a, s, TRL_TREE_KNOMIAL, (int)trl_param_int(a, "radix"),
                            a->count > 0 ? a->count : 1);
}
