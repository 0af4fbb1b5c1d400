/* Hierarchical allreduce (`hier`, src/algo/hier.h): a reduce up every
 * level below world to the groups' leaders, an allreduce among the leaders
 * at world, then a broadcast down the levels again. A lower level's
 * parameter names an algorithm that is both a reduce and a bcast
 * (host=binomial reduces and broadcasts over binomial trees); world's
 * names an allreduce (world=recursive_doubling, or
 * world=reduce_bcast(reduce=linear,bcast=linear) for seed 000's
 * configurations). Leaders are the groups' lowest ranks. Non-commutative
 * operations where every level keeps rank order (placement=block for
 * host,world) and its algorithms serve them, as in reduce_hier.c.
 *
 * Cost: the lower levels twice (up and down) plus world's allreduce among
 * the h leaders: with q ranks per host and binomial trees,
 * 2 log2(q) rounds within hosts and only world's across them.
 * From: seed 000 (hierarchical scheme 1, and the best 8-way configuration
 * with levels=group:4,world), seed 004 (Cheetah's per-level primitives),
 * the node-aware allreduce of Open MPI's han.
 */
#include <string.h>

#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"

int trl_allreduce_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_hier h;
    int rc = trl_hier_init(&h, a, 0);
    if (rc)
        return rc;
    int top = h.levels.n - 1, below = h.active < top ? h.active : top;
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), recv = trl_ref_at(TRL_BUF_RECV, 0), at = send;
    for (int i = 0; i < below && rc == TRL_OK; i++) { /* up */
        const trl_hier_group *g = &h.group[i];
        if (g->n == 1)
            continue;
        trl_ref into = g->me == g->leader
                           ? trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, a->count))
                           : recv; /* a non-root's RECV: never touched by a reduce */
        const trl_params *params;
        const trl_algo *algo = trl_hier_level_algo(a, &h, i, &params);
        rc = trl_hier_run(a, s, g, TRL_COLL_REDUCE, algo, params, at, into, false);
        at = into;
    }
    if (rc == TRL_OK && h.active == h.levels.n) { /* world, among the leaders */
        const trl_params *params;
        const trl_algo *algo = trl_hier_level_algo(a, &h, top, &params);
        bool in_place = a->in_place && at.buf == TRL_BUF_SEND;
        if (h.group[top].n > 1)
            rc = trl_hier_run(a, s, &h.group[top], TRL_COLL_ALLREDUCE, algo, params, at, recv,
                              in_place);
        else /* a self-copy in place, which executors skip */
            trl_sched_copy(s, at, recv, a->count, TRL_NODEPS);
        trl_sched_fence(s);
    }
    for (int i = below - 1; i >= 0 && rc == TRL_OK; i--) { /* down */
        if (h.group[i].n == 1)
            continue;
        const trl_params *params;
        const trl_algo *up = trl_hier_level_algo(a, &h, i, &params);
        const trl_algo *algo = trl_algo_find(TRL_COLL_BCAST, up->name, strlen(up->name));
        rc = trl_hier_run(a, s, &h.group[i], TRL_COLL_BCAST, algo, params, recv, recv, false);
    }
    trl_hier_free(&h);
    return rc ? rc : s->status;
}
