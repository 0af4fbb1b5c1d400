/* Every builder and unusable check, each in src/algo/<collective>/<collective>_<name>.c
 * (src/algo/inter/<collective>_<name>.c for the intercommunicator ones), declared from
 * the registry (registry.h): one prototype per entry, repeated where a builder or a
 * check serves several. */
#ifndef TRL_BUILDERS_H
#define TRL_BUILDERS_H

#include "algo/algo.h"
#include "algo/params.h" /* what the builders read their parameters with */
#include "algo/registry.h"

#define TRL_DECLARE_BUILDER(coll, name, build, ...) int build(const trl_coll_args *a, trl_sched *s);
#define TRL_DECLARE_CHECKED(coll, name, build, unusable, ...)                                      \
    int build(const trl_coll_args *a, trl_sched *s);                                               \
    const char *unusable(const trl_coll_args *a);
TRL_ALGORITHMS(TRL_DECLARE_BUILDER, TRL_DECLARE_CHECKED)
#undef TRL_DECLARE_BUILDER
#undef TRL_DECLARE_CHECKED

#endif
