/* Hierarchical reduce-scatter (`hier`; reduce_scatter and
 * reduce_scatter_block) where every host holds consecutive ranks
 * (placement=block): a reduce within each host to its lowest rank, a
 * reduce-scatter among those leaders in which each gets its host's blocks
 * (one run of the vector, since the host's ranks are consecutive), then a
 * scatter within each host from its leader. Only the leaders' step crosses
 * hosts, as h messages-worth per leader instead of p.
 *
 * Cost, h hosts of q ranks, N the whole vector, binomial reduce, the
 * leaders' reduce_scatterv and a linear scatter: log2(q)(alpha + N beta +
 * N gamma) + the leaders' reduce-scatter of N among h (log2(h)(alpha +
 * N beta + N gamma) + (h-1)alpha + N beta) + (q-1)alpha + (N/h) beta.
 * Within hosts it moves whole vectors: a form for small and medium
 * vectors, where the hosts' few messages across the network count most.
 * From: the two-level (SMP-aware) reductions of Sistare et al. and of
 * Open MPI's han, with the reduce-scatter of MPICH among the leaders.
 *
 * Irregular layouts: hosts of any sizes, a host of one rank being its own
 * leader (no reduce, no scatter); the leaders' reduce-scatter takes each
 * host's share as its count, so it runs with irregular counts even for
 * reduce_scatter_block. Other placements cannot keep a host's blocks in
 * one run: the algorithm refuses them (TRL_NEEDS_BLOCK_PLACEMENT)
 * and the next rule serves the call.
 *
 * Non-commutative operations: each step combines in rank order where its
 * algorithm does (the defaults do; world=ring and recursive_halving need
 * a commutative operation), and the leaders meet in host order, which
 * block placement makes rank order.
 *
 * Buffers: the leader's reduce result (the whole vector) and its host's
 * share go to scratch; a host of one rank reduce-scatters straight from
 * its input into RECV (in place where the call is). Parameters: host= (the
 * reduce), world= (the leaders' reduce_scatter), scatter= (the scatterv).
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"

const char *trl_reduce_scatter_hier_unusable(const trl_coll_args *a)
{
    if (a->commutative)
        return NULL;
    const char *why = trl_hier_level_unusable(a, "host");
    return why ? why : trl_hier_level_unusable(a, "world");
}

int trl_reduce_scatter_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_hier_hosts hh;
    int rc = trl_hier_hosts_init(&hh, a);
    if (rc)
        return rc;
    /* Per host: its share of the vector (share[h] elements); per rank of
     * this host: its block's count and place within the share. */
    int q = hh.first[hh.mine + 1] - hh.first[hh.mine];
    size_t *share = malloc((size_t)hh.n * sizeof *share);
    size_t *count = malloc((size_t)q * sizeof *count), *displ = malloc((size_t)q * sizeof *displ);
    size_t n = 0;
    if (!share || !count || !displ) {
        rc = TRL_ERR_NOMEM;
        goto done;
    }
    for (int h = 0; h < hh.n; h++) {
        share[h] = 0;
        for (int i = hh.first[h]; i < hh.first[h + 1]; i++) {
            size_t c = trl__blk_count(a, hh.rank[i]);
            if (h == hh.mine) {
                count[i - hh.first[h]] = c;
                displ[i - hh.first[h]] = share[h];
            }
            share[h] += c;
        }
        n += share[h];
    }
    if (n == 0)
        goto done;

    trl_hier_group host = trl_hier_host_group(&hh, hh.mine, 0);
    bool leads = host.me == 0;
    const trl_params *params;
    const trl_algo *algo;
    trl_ref at = trl_ref_at(a->in_place ? TRL_BUF_RECV : TRL_BUF_SEND, 0);
    trl_ref recv = trl_ref_at(TRL_BUF_RECV, 0);
    if (host.n > 1) { /* up: the host's sum at its leader */
        trl_ref into = leads ? trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n))
                             : recv; /* a non-root's RECV: never touched by a reduce */
        trl_coll_args call = trl_hier_call(a, TRL_COLL_REDUCE, n, NULL, NULL, false);
        algo = trl_param_level(a, "host", &params);
        rc = trl_hier_run_call(&call, s, &host, algo, params, at, into);
        at = into;
    }
    trl_ref mine = at; /* the leader's host share; with one host, the whole */
    trl_hier_group top;
    if (rc == TRL_OK && leads && hh.n > 1 &&
        (rc = trl_hier_hosts_one_each(&hh, false, &top)) == 0) {
        mine = host.n > 1 ? trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, share[hh.mine]))
                          : recv;
        bool in_place = at.buf == recv.buf && at.off == recv.off; /* both the call's RECV */
        trl_coll_args call = trl_hier_call(a, TRL_COLL_REDUCE_SCATTER, 0, share, NULL, in_place);
        algo = trl_param_level(a, "world", &params);
        rc = trl_hier_run_call(&call, s, &top, algo, params, at, mine);
        free(top.ranks);
    }
    if (rc == TRL_OK && host.n > 1) { /* down: each rank its block */
        trl_coll_args call = trl_hier_call(a, TRL_COLL_SCATTERV, 0, count, displ, false);
        algo = trl_param_level(a, "scatter", &params);
        rc = trl_hier_run_call(&call, s, &host, algo, params, mine, recv);
    } else if (rc == TRL_OK && hh.n == 1) {                /* one rank in all */
        trl_sched_copy(s, at, recv, count[0], TRL_NODEPS); /* skipped in place */
    }
done:
    free(share);
    free(count);
    free(displ);
    trl_hier_hosts_free(&hh);
    return rc ? rc : s->status;
}
