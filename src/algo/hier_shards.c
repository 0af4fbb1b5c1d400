/* Shards of a vector across hosts (see hier_shards.h). */
#include "algo/hier_shards.h"

#include <stdlib.h>
#include <string.h>

#include "algo/params.h"
#include "core/status.h"

/* The local rank of a host of q ranks that holds shard s of S: the largest
 * j with j*S/q <= s (rounded down), that is j*S < (s+1)*q. */
static int holder(int s, int q, int nshards)
{
    return (int)(((long long)(s + 1) * q - 1) / nshards);
}

static int first_shard(int j, int q, int nshards)
{
    return (int)((long long)j * nshards / q);
}

static int host_size(const trl_hier_hosts *hh, int h)
{
    return hh->first[h + 1] - hh->first[h];
}

int trl_shards_init(trl_shards *sh, const trl_coll_args *a, size_t n)
{
    memset(sh, 0, sizeof *sh);
    int rc = trl_hier_hosts_init(&sh->hosts, a);
    if (rc)
        return rc;
    const trl_hier_hosts *hh = &sh->hosts;
    int nshards = 1;
    for (int h = 0; h < hh->n; h++)
        nshards = host_size(hh, h) > nshards ? host_size(hh, h) : nshards;
    sh->nshards = nshards;
    sh->q = host_size(hh, hh->mine);
    sh->me = hh->me_at - hh->first[hh->mine];
    sh->off = malloc(((size_t)nshards + 1) * sizeof *sh->off);
    sh->count = malloc((size_t)sh->q * sizeof *sh->count);
    sh->displ = malloc((size_t)sh->q * sizeof *sh->displ);
    sh->run_ranks = malloc((size_t)hh->n * sizeof *sh->run_ranks);
    if (!sh->off || !sh->count || !sh->displ || !sh->run_ranks) {
        trl_shards_free(sh);
        return TRL_ERR_NOMEM;
    }
    /* The first n % S shards one element larger. */
    size_t base = n / (size_t)nshards, extra = n % (size_t)nshards;
    sh->off[0] = 0;
    for (int s = 0; s < nshards; s++)
        sh->off[s + 1] = sh->off[s] + base + ((size_t)s < extra);
    for (int j = 0; j < sh->q; j++) {
        sh->displ[j] = sh->off[first_shard(j, sh->q, nshards)];
        sh->count[j] = sh->off[first_shard(j + 1, sh->q, nshards)] - sh->displ[j];
    }
    return TRL_OK;
}

void trl_shards_free(trl_shards *sh)
{
    trl_hier_hosts_free(&sh->hosts);
    free(sh->off);
    free(sh->count);
    free(sh->displ);
    free(sh->run_ranks);
    memset(sh, 0, sizeof *sh);
}

static int by_rank(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

bool trl_shards_next(trl_shards *sh, trl_shard_run *run, int lead_host)
{
    const trl_hier_hosts *hh = &sh->hosts;
    int nshards = sh->nshards;
    for (int s = run->next; s < nshards;) {
        /* The run: shards s .. e-1 held by the same rank on every host. */
        int e = s + 1;
        for (bool same = true; e < nshards && same; e += same) {
            for (int h = 0; h < hh->n && same; h++)
                same = holder(e, host_size(hh, h), nshards) == holder(s, host_size(hh, h), nshards);
        }
        run->next = e;
        run->lo = sh->off[s];
        run->hi = sh->off[e];
        if (run->lo == run->hi) { /* no elements: no step at all, on any rank */
            s = e;
            continue;
        }
        int me = hh->rank[hh->me_at], lead = -1;
        for (int h = 0; h < hh->n; h++)
            sh->run_ranks[h] = hh->rank[hh->first[h] + holder(s, host_size(hh, h), nshards)];
        lead = sh->run_ranks[lead_host];
        qsort(sh->run_ranks, (size_t)hh->n, sizeof *sh->run_ranks, by_rank);
        run->g = (trl_hier_group){TRL_LEVEL_WORLD, hh->n, sh->run_ranks, 0, -1};
        for (int i = 0; i < hh->n; i++) {
            if (sh->run_ranks[i] == lead)
                run->g.leader = i;
            if (sh->run_ranks[i] == me)
                run->g.me = i;
        }
        return true;
    }
    return false;
}

int trl_shards_allgather(const trl_coll_args *a, trl_sched *s, const trl_shards *sh, size_t at)
{
    if (sh->q == 1)
        return TRL_OK;
    trl_hier_group host = trl_hier_host_group(&sh->hosts, sh->hosts.mine, 0);
    trl_ref whole = trl_ref_at(TRL_BUF_RECV, at);
    trl_coll_args call = trl_hier_call(a, TRL_COLL_ALLGATHERV, 0, sh->count, sh->displ, true);
    const trl_params *params;
    const trl_algo *algo = trl_param_level(a, "allgather", &params);
    return trl_hier_run_call(&call, s, &host, algo, params, whole, whole);
}
