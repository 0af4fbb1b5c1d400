/* The schedule for a call on a communicator: chosen by the rules in force
 * (with verbose mode's report), built, and kept in the communicator's
 * cache (cache.h). */
#ifndef TRL_MPI_SCHEDULE_H
#define TRL_MPI_SCHEDULE_H

#include "algo/algo.h"
#include "mpi/context/comm.h"
#include "mpi/context/rules.h"
#include "select/rules.h"

/* The cache entry for a call, selecting and building on a miss
 * (trl_comm_build; inline, as every call looks up). a->rank and a->size
 * are filled in there; the per-rank arrays a->counts etc. are part of the
 * key where given (each c->size long; for alltoallv and alltoallw
 * a->counts is the c->size x c->size matrix of send counts). NULL when the
 * call must go to the MPI library (with the reason printed in verbose
 * mode). */
const trl_cache_entry *trl_comm_build(trl_comm *c, trl_coll_args *a);
static inline const trl_cache_entry *trl_comm_lookup(trl_comm *c, trl_coll_args *a)
{
    const trl_cache_entry *hit = trl_cache_find(&c->cache, a, c->size, trl_rules_current);
    return hit ? hit : trl_comm_build(c, a);
}

/* Only the choice for a call (with verbose mode's report), for gatherv,
 * scatterv, alltoallv, alltoallw and the neighbourhood v and w forms, whose
 * callers must exchange counts first when the algorithm needs every
 * rank's; a->params: the parameters it would run with, and a->rank, size
 * and topo c's (also where the choice is remembered). NULL when nothing
 * can be chosen. */
const trl_algo *trl_comm_choose(trl_comm *c, trl_coll_args *a);

/* Whether the rules give the call one of Trellis' algorithms whatever its
 * size (select/rules.h), for this communicator; asked once per collective,
 * form of call and commutativity. */
trl_sizeless trl_comm_sizeless(trl_comm *c, trl_coll_args *a);

/* A communicator's memos and answers kept outside its cache's keys
 * (move_memo, choice, sizeless) are from older rules while its rules_gen
 * differs from trl_rules_gen (rules.h): forget them. */
void trl_comm_rules_changed(trl_comm *c);
static inline void trl_comm_sync_rules(trl_comm *c)
{
    if (c->rules_gen != trl_rules_gen)
        trl_comm_rules_changed(c);
}

#endif
