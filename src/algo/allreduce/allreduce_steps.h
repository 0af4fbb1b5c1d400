/* Steps several allreduce builders share, so each exists once. */
#ifndef TRL_ALLREDUCE_STEPS_H
#define TRL_ALLREDUCE_STEPS_H

#include <stdbool.h>

#include "algo/algo.h"

/* One rank or nothing to reduce: the result is the rank's own vector.
 * Emits the copy and returns true in that case. */
bool trl__allreduce_trivial(const trl_coll_args *a, trl_sched *s);

/* The fold of a non-power-of-two rank count (src/pattern/rdouble.h): a
 * rank that sits out hands its vector to its partner and later receives
 * the result. Emits that and returns true for such a rank. */
bool trl__allreduce_sit_out(const trl_coll_args *a, trl_sched *s);

#endif
