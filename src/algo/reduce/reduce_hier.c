/* Hierarchical reduce (`hier`, src/algo/hier.h): a reduce within each
 * group of the lowest level to its leader, then among the leaders within
 * each group of the next level, and so on up to world, where the last
 * reduce ends at the root. Each level runs the algorithm its parameter
 * names (host=linear world=binomial ...). The root leads every group it is
 * in, so the result needs no extra hop.
 *
 * Non-commutative operations: each group combines its members in rank
 * order (every reduce builder does), so where every group of every level
 * stands for a run of consecutive ranks (placement=block for host,world)
 * the whole is in rank order too; elsewhere, and with a level algorithm
 * that needs a commutative operation, trl_hier_unusable refuses the call
 * and the next rule serves it.
 *
 * Cost: the sum of the levels' reduces; with binomial levels over h hosts
 * of q ranks, log2(q) + log2(h) rounds, of which only log2(h) cross hosts.
 * From: seed 000 (hierarchical scheme 1: a local reduction per host, the
 * hosts' partial sums to the root) and seed 004's per-level primitives.
 */
#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"

int trl_reduce_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_hier h;
    int rc = trl_hier_init(&h, a, a->root);
    if (rc)
        return rc;
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), recv = trl_ref_at(TRL_BUF_RECV, 0), at = send;
    bool root = a->rank == a->root;
    for (int i = 0; i < h.active && rc == TRL_OK; i++) {
        const trl_hier_group *g = &h.group[i];
        if (g->n == 1)
            continue; /* nothing to combine: the value moves up as it is */
        bool leads = g->me == g->leader, top = i == h.levels.n - 1;
        /* A leader's partial result goes to scratch; the last one to the
         * root's RECV. Other ranks only send (a reduce never touches a
         * non-root's RECV). */
        trl_ref into = leads && !(top && root)
                           ? trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, a->count))
                           : recv;
        const trl_params *params;
        const trl_algo *algo = trl_hier_level_algo(a, &h, i, &params);
        bool in_place = a->in_place && at.buf == TRL_BUF_SEND && into.buf == TRL_BUF_RECV;
        rc = trl_hier_run(a, s, g, TRL_COLL_REDUCE, algo, params, at, into, in_place);
        at = into;
    }
    if (rc == TRL_OK && root && at.buf != TRL_BUF_RECV) /* every group of the root was alone */
        trl_sched_copy(s, at, recv, a->count, TRL_NODEPS);
    trl_hier_free(&h);
    return rc ? rc : s->status;
}
