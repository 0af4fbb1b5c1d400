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
TRL_BUILDER(bcast, hier)
TRL_BUILDER(bcast, hier_sharded)
TRL_BUILDER(bcast, tree_file)

TRL_BUILDER(reduce, linear)
TRL_BUILDER(reduce, binomial)
TRL_BUILDER(reduce, knomial)
TRL_BUILDER(reduce, kary)
TRL_BUILDER(reduce, chain)
TRL_BUILDER(reduce, rabenseifner)
TRL_BUILDER(reduce, hier)
TRL_BUILDER(reduce, tree_file)

TRL_BUILDER(allreduce, reduce_bcast)
TRL_BUILDER(allreduce, recursive_doubling)
TRL_BUILDER(allreduce, ring)
TRL_BUILDER(allreduce, rabenseifner)
TRL_BUILDER(allreduce, knomial)
TRL_BUILDER(allreduce, direct)
TRL_BUILDER(allreduce, hier)
TRL_BUILDER(allreduce, hier_sharded)
TRL_BUILDER(allreduce, tree_file)

TRL_BUILDER(barrier, linear)
TRL_BUILDER(barrier, binomial)
TRL_BUILDER(barrier, dissemination)
TRL_BUILDER(barrier, recursive_doubling)
TRL_BUILDER(barrier, direct)
TRL_BUILDER(barrier, hier)

/* gather serves gatherv and scatter serves scatterv: counts[] when
 * given, else count per rank. */
TRL_BUILDER(gather, linear)
TRL_BUILDER(gather, binomial)
TRL_BUILDER(gather, hier)
TRL_BUILDER(scatter, linear)
TRL_BUILDER(scatter, binomial)
TRL_BUILDER(scatter, hier)

/* allgather serves allgatherv likewise. */
TRL_BUILDER(allgather, ring)
TRL_BUILDER(allgather, recursive_doubling)
TRL_BUILDER(allgather, bruck)
TRL_BUILDER(allgather, gather_bcast)
TRL_BUILDER(allgather, hier)
TRL_BUILDER(allgather, multileader)

TRL_BUILDER(alltoall, linear)
TRL_BUILDER(alltoall, pairwise)
TRL_BUILDER(alltoall, bruck)
/* hier serves alltoallv and alltoallw too, with the matrix of counts. */
TRL_BUILDER(alltoall, hier)
/* alltoallv serves alltoallw: both arrive in bytes. */
TRL_BUILDER(alltoallv, linear)
TRL_BUILDER(alltoallv, pairwise)

/* reduce_scatter serves reduce_scatter_block (counts NULL). */
TRL_BUILDER(reduce_scatter, reduce_scatterv)
TRL_BUILDER(reduce_scatter, recursive_halving)
TRL_BUILDER(reduce_scatter, ring)
TRL_BUILDER(reduce_scatter, hier)

TRL_BUILDER(scan, linear)
TRL_BUILDER(scan, recursive_doubling)
TRL_BUILDER(exscan, linear)
TRL_BUILDER(exscan, recursive_doubling)
TRL_BUILDER(scan, hier)
TRL_BUILDER(exscan, hier)

#undef TRL_BUILDER

/* hier reduce and allreduce: a non-commutative operation only where every
 * level keeps rank order, with level algorithms that serve it (hier.c). */
const char *trl_hier_unusable(const trl_coll_args *a);
/* The other hierarchical forms' layouts and operations they cannot serve. */
const char *trl_allreduce_hier_sharded_unusable(const trl_coll_args *a);
const char *trl_reduce_scatter_hier_unusable(const trl_coll_args *a);
const char *trl_scan_hier_unusable(const trl_coll_args *a);

/* The tree algorithms' checks of their file against a call. */
const char *trl_bcast_tree_file_unusable(const trl_coll_args *a);
const char *trl_reduce_tree_file_unusable(const trl_coll_args *a);
const char *trl_allreduce_tree_file_unusable(const trl_coll_args *a);
#endif
