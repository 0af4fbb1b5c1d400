/* K-ary broadcast: vrank v receives the buffer from (v-1)/k and sends it
 * to its children v*k+1 .. v*k+k, the fuller subtrees first.
 *
 * Cost: k h (alpha + n beta) along the critical path, h about log_k(p)
 * the height of the tree: each level costs up to k messages of the whole
 * buffer. Radix 1 is a chain without pipelining; radix 2 the binary tree.
 * From: the k-ary trees of MPICH's treealgo and Open MPI's tuned bcast.
 * Any number of ranks and any root: vranks relative to the root, the last
 * level filled from the left (src/pattern/tree.h).
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_bcast_kary(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_KARY, (int)trl_param_int(a, "radix"), a->size, a->root);
    if (rc)
        return rc;
    return trl__bcast_tree(a, s, &t, a->count > 0 ? a->count : 1);
}
