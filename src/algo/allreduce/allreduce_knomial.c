/* K-nomial allreduce: a k-nomial reduce to rank 0, then a k-nomial bcast
 * from rank 0, both with the `radix` parameter.
 *
 * Cost: 2 (radix-1) log_radix(p) (alpha + n beta) + (radix-1) log_radix(p)
 * n gamma: a larger radix means fewer, busier rounds. Radix 2 is the
 * binomial reduce_bcast.
 * From: UCC's knomial allreduce family; LAM-MPI's reduce-then-bcast
 * allreduce (seed 000) with k-nomial trees.
 * Non-power-of-two ranks (or of radix): the k-nomial tree is cut off at p.
 *
 * Any operation: the k-nomial reduce combines in rank order (its tree over
 * rank 0 has subtrees of contiguous ranks), so non-commutative operations
 * are served. Both phases are the table's own reduce and bcast builders,
 * run through the same composition as reduce_bcast, so each algorithm
 * exists once.
 */
#include "algo/allreduce/allreduce_compose.h"
#include "algo/builders.h"

int trl_allreduce_knomial(const trl_coll_args *a, trl_sched *s)
{
    return trl__allreduce_compose(a, s, trl_algo_find(TRL_COLL_REDUCE, "knomial", 7),
                                  trl_algo_find(TRL_COLL_BCAST, "knomial", 7));
}
