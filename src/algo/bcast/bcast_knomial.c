/* K-nomial broadcast: the binomial tree generalised to radix k. A node
 * receives the buffer from its parent, then sends it to up to k-1 children
 * at each digit position below its own lowest non-zero digit (base k),
 * largest subtree first.
 *
 * Cost: (k-1) ceil(log_k p)(alpha + n beta) along the critical path: fewer
 * levels than binomial, more sends per level. Radix 2 is the binomial
 * tree.
 * From: MPICH's k-nomial tree (treealgo) and UCC's bcast_knomial.
 * Any number of ranks and any root: vranks relative to the root; the tree
 * stops at p (src/pattern/tree.h).
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_bcast_knomial(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_KNOMIAL, (int)trl_param_int(a, "radix"), a->size, a->root);
    if (rc)
        return rc;
    return trl__bcast_tree(a, s, &t, a->count > 0 ? a->count : 1);
}
