/* Pipelined chain broadcast: the ranks form a chain starting at the root
 * (root, root+1, ..., wrapping at p) and the buffer flows down it in
 * segments; a rank forwards segment k as soon as it has it, so every link
 * of the chain is busy at once.
 *
 * Cost: (p-2+n/s)(alpha + s beta) for s elements a segment: bandwidth
 * close to n beta for long messages when n/s >> p, at the price of p-1
 * latencies.
 * From: the pipelined chain of Open MPI's tuned bcast (and HAN's segment
 * pipelines).
 * Any number of ranks and any root: the chain is over vranks relative to
 * the root. The last segment may be shorter; count 0 sends nothing.
 *
 * Parameter: segment, in bytes, rounded down to whole elements (at least
 * one).
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_bcast_chain(const trl_coll_args *a, trl_sched *s)
{
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_CHAIN, 1, a->size, a->root);
    if (rc)
        return rc;
    size_t bytes = (size_t)trl_param_int(a, "segment");
    size_t segment = a->elem_size ? bytes / a->elem_size : bytes;
    return trl__bcast_tree(a, s, &t, segment > 0 ? segment : 1);
}
