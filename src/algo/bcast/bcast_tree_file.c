/* Tree file broadcast: each rank receives from its parent in the file's
 * bcast tree and sends to its children in the file's order (seed 000's
 * scripted broadcast; docs/trees.md). A root other than the file's first
 * sends the buffer to the file's root.
 *
 * Cost: the file's: depth d and at most k children give about
 * d k (a + nb).
 */
#include "algo/builders.h"
#include "algo/tree_file_use.h"
#include "algo/tree_steps.h"

const char *trl_bcast_tree_file_unusable(const trl_coll_args *a)
{
    return trl__tree_file_unusable(a, false, true);
}

int trl_bcast_tree_file(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl__tree_file_tree(trl__tree_file(a), false, &t);
    return rc ? rc : trl__bcast_explicit(a, s, &t);
}
