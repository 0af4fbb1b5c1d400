/* Steps the reduce_scatter builders share, so each exists once. */
#ifndef TRL_REDUCE_SCATTER_STEPS_H
#define TRL_REDUCE_SCATTER_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"

/* An empty vector (off[p] == 0), or one rank, whose block is the whole
 * vector: emits that rank's copy (a self-copy in place, which executors
 * skip) and returns true. off: the block offsets (algo/blocks.h). */
bool trl__reduce_scatter_trivial(const trl_coll_args *a, trl_sched *s, const size_t *off);

#endif
