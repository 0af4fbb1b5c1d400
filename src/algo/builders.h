/* One builder per algorithm, each in src/algo/<collective>/<collective>_<name>.c. */
#ifndef TRL_BUILDERS_H
#define TRL_BUILDERS_H

#include "algo/algo.h"

#define TRL_BUILDER(coll, name) int trl_##coll##_##name(const trl_coll_args *a, trl_sched *s);

TRL_BUILDER(bcast, linear)
TRL_BUILDER(bcast, binomial)
TRL_BUILDER(bcast, knomial)
TRL_BUILDER(bcast, kary)
TRL_BUILDER(bcast, chain)
TRL_BUILDER(bcast, scatter_allgather)

TRL_BUILDER(reduce, linear)
TRL_BUILDER(reduce, binomial)
TRL_BUILDER(reduce, knomial)
TRL_BUILDER(reduce, kary)
TRL_BUILDER(reduce, chain)
TRL_BUILDER(reduce, rabenseifner)

TRL_BUILDER(allreduce, reduce_bcast)
TRL_BUILDER(allreduce, recursive_doubling)
TRL_BUILDER(allreduce, ring)
TRL_BUILDER(allreduce, rabenseifner)
TRL_BUILDER(allreduce, knomial)

TRL_BUILDER(barrier, linear)
TRL_BUILDER(barrier, binomial)
TRL_BUILDER(barrier, dissemination)
TRL_BUILDER(barrier, recursive_doubling)

#undef TRL_BUILDER
#endif
