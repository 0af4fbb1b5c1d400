/* Hierarchical broadcast (`hier`, src/algo/hier.h): from the root among
 * the leaders of the top level (world), then within each group of the
 * level below from its leader, down to the lowest level. Each level runs
 * the bcast algorithm its parameter names. The root leads every group it
 * is in, so the data takes no extra hop.
 *
 * Cost: the sum of the levels' broadcasts; with binomial levels over h
 * hosts of q ranks, log2(h) rounds across hosts, then log2(q) within.
 * From: seed 000's hierarchical trees, the two-phase SMP broadcasts it
 * cites (Husbands et al., Sistare et al.), seed 004's per-level primitives.
 */
#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"

int trl_bcast_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_hier h;
    int rc = trl_hier_init(&h, a, a->root);
    if (rc)
        return rc;
    trl_ref buf = trl_ref_at(TRL_BUF_RECV, 0);
    for (int i = h.active - 1; i >= 0 && rc == TRL_OK; i--) {
        if (h.group[i].n == 1)
            continue;
        const trl_params *params;
        const trl_algo *algo = trl_hier_level_algo(a, &h, i, &params);
        rc = trl_hier_run(a, s, &h.group[i], TRL_COLL_BCAST, algo, params, buf, buf, false);
    }
    trl_hier_free(&h);
    return rc ? rc : s->status;
}
