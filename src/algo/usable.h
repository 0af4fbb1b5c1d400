/* Whether an algorithm can serve a call (usable.c): the restrictions it
 * carries, its own check, and those of the algorithms it runs. */
#ifndef TRL_USABLE_H
#define TRL_USABLE_H

#include "algo/algo.h"

/* Why `algo` cannot serve the call `a`, or NULL if it can. Follows the
 * algorithms named by ALGO parameters too. */
const char *trl_algo_unusable(const trl_algo *algo, const trl_coll_args *a);

#endif
