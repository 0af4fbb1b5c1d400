/* Pipelined chain reduce: the ranks form a chain ending at the root, and
 * the data flows up it in segments; a rank combines segment k with its own
 * data and passes it on as soon as it arrives, so every link is busy at
 * once.
 *
 * Cost: (p-2+n/s)(alpha + s beta + s gamma) for s elements a segment:
 * close to n(beta + gamma) for long messages when n/s >> p.
 * From: the pipelined chain of Open MPI's tuned reduce.
 * Any number of ranks. Commutative: the chain runs root+p-1 -> ... ->
 * root+1 -> root (vranks). Non-commutative: it runs p-1 -> ... -> 1 -> 0,
 * each rank folding its own data in from the left, and rank 0 forwards
 * each finished segment to the root if that is another rank (one more
 * pipeline stage). See reduce_binomial.c.
 *
 * Parameter: segment, in bytes, rounded down to whole elements (at least
 * one).
 */
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"


int trl_reduce_chain(const trl_coll_args *a, trl_sched *s)
{
    size_t bytes = (size_t)trl_param_int(a, "segment");
    size_t segment = a->elem_size ? bytes / a->elem_size : bytes;
    return trl__reduce_tree(a, s, TRL_TREE_CHAIN, 1, segment > 0 ? segment : 1);
}
