/* Tree file reduce: each rank combines its children's results, in the
 * file's order (order=file) or as they arrive (order=arrival), with its own
 * and sends the result to its parent in the file's reduce tree (seed 000's
 * scripted reduce; docs/trees.md). A root other than the file's receives
 * the result from the file's root.
 *
 * Cost: the file's: depth d and at most k children give about
 * d k (a + nb + ng).
 */
#include "algo/builders.h"
#include "algo/tree_file_use.h"
#include "algo/tree_steps.h"

const char *trl_reduce_tree_file_unusable(const trl_coll_args *a)
{
    return trl__tree_file_unusable(a, true, false);
}

int trl_reduce_tree_file(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl__tree_file_tree(trl__tree_file(a), true, &t);
    return rc ? rc : trl__reduce_explicit(a, s, &t, trl__tree_file_in_order(a));
}
