/* Hierarchical broadcast for large messages (`hier_sharded`): the root
 * scatters the message among the ranks of its host, each of them
 * broadcasts its piece to the ranks holding the same piece on the other
 * hosts (the pieces at once, each among one rank per host), and an
 * allgather within each host gives every rank the whole message. The
 * pieces are shards (hier_shards.h): with S ranks on every host, rank j of
 * each host holds shard j, and S inter-host broadcasts of n/S bytes run
 * side by side, one per local rank.
 *
 * Cost, h hosts of S ranks, a linear scatter, binomial inter-host
 * broadcasts and ring allgathers: within the root's host (S-1)alpha +
 * n beta (S-1)/S; across hosts log2(h)(alpha + (n/S) beta) per rank, the
 * S ranks of a host sharing its links; within every host (S-1)alpha +
 * n beta (S-1)/S. Against a hierarchical bcast of the whole message
 * (log2(h)(alpha + n beta) across hosts) it moves n/S per inter-host
 * step instead of n.
 * From: the scatter-allgather broadcast of Barnett et al. and van de
 * Geijn (bcast scatter_allgather), made hierarchical as in the issue:
 * scatter within the root's host, inter-host bcast of each piece by its
 * holder, allgather within each host; MVAPICH2's multi-leader designs.
 *
 * Irregular layouts: hosts with fewer ranks than the largest give some
 * ranks several shards (a host of one rank all of them), so such a rank
 * takes part in several inter-host broadcasts, one after another, in shard
 * order on every rank. The root's host may be any of them, of any size;
 * the inter-host step of each run is rooted at its holder on the root's
 * host. Any placement: a broadcast has no order to keep.
 *
 * Parameters name the three steps' algorithms (scatter=, world=,
 * allgather=).
 *
 * Buffers: all in the one buffer (RECV): the root's scatter leaves its own
 * piece in place, every piece lands at its place, the allgathers run in
 * place. The root's host runs the allgather too (its other ranks need the
 * rest); the root receives there only bytes it already has.
 */
#include "algo/builders.h"
#include "algo/hier_shards.h"
#include "core/status.h"

int trl_bcast_hier_sharded(const trl_coll_args *a, trl_sched *s)
{
    size_t n = a->count;
    if (n == 0)
        return s->status;
    trl_shards sh;
    int rc = trl_shards_init(&sh, a, n);
    if (rc)
        return rc;
    const trl_hier_hosts *hh = &sh.hosts;
    /* The root's host, and the root's place in it. */
    int root_host = 0, root_at = 0;
    for (int h = 0; h < hh->n; h++)
        for (int i = hh->first[h]; i < hh->first[h + 1]; i++)
            if (hh->rank[i] == a->root) {
                root_host = h;
                root_at = i - hh->first[h];
            }
    trl_hier_group host = trl_hier_host_group(hh, hh->mine, hh->mine == root_host ? root_at : 0);
    const trl_params *params;
    const trl_algo *algo;
    trl_ref whole = trl_ref_at(TRL_BUF_RECV, 0);

    if (hh->mine == root_host && host.n > 1) {
        trl_coll_args call = trl_hier_call(a, TRL_COLL_SCATTERV, 0, sh.count, sh.displ,
                                           a->rank == a->root);
        algo = trl_param_level(a, "scatter", &params);
        rc = trl_hier_run_call(&call, s, &host, algo, params, whole,
                               trl_ref_at(TRL_BUF_RECV, sh.displ[sh.me]));
    }

    algo = trl_param_level(a, "world", &params);
    trl_shard_run run = {0};
    while (rc == TRL_OK && trl_shards_next(&sh, &run, root_host)) {
        if (run.g.me < 0 || run.g.n == 1)
            continue;
        trl_ref piece = trl_ref_at(TRL_BUF_RECV, run.lo);
        trl_coll_args call = trl_hier_call(a, TRL_COLL_BCAST, run.hi - run.lo, NULL, NULL, false);
        rc = trl_hier_run_call(&call, s, &run.g, algo, params, piece, piece);
    }

    if (rc == TRL_OK)
        rc = trl_shards_allgather(a, s, &sh, 0);
    trl_shards_free(&sh);
    return rc ? rc : s->status;
}
