/* Allreduce as a reduce to rank 0 followed by a bcast from rank 0, on one
 * schedule: shared by the reduce_bcast and knomial allreduces, so that each
 * reduce and bcast algorithm exists once, in its own builder. */
#ifndef TRL_ALLREDUCE_COMPOSE_H
#define TRL_ALLREDUCE_COMPOSE_H

#include "algo/algo.h"

/* Emit `reduce` to root 0 into RECV, a fence, then `bcast` from root 0 on
 * RECV. Each runs with its own defaults and sees only the parameters of
 * `a` that it declares itself (by name), checked against its own ranges.
 * Returns TRL_ERR_UNSUPPORTED if either cannot serve the call (no builder,
 * the wrong collective, a restriction the call violates, or a parameter
 * outside its range), otherwise s->status. */
int trl__allreduce_compose(const trl_coll_args *a, trl_sched *s, const trl_algo *reduce,
                           const trl_algo *bcast);

#endif
