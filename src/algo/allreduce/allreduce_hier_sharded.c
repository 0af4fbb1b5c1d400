/* Hierarchical allreduce for large vectors (`hier_sharded`): a
 * reduce-scatter within each host leaves each rank its host's partial
 * result of its own piece of the vector; every rank then allreduces that
 * piece with the ranks holding the same piece on the other hosts (the
 * pieces of a host's ranks at once, each among one rank per host); an
 * allgather within each host then gives every rank the whole result. The
 * pieces are shards (hier_shards.h): with S ranks on every host, rank j of
 * each host holds shard j, and S inter-host allreduces of n/S elements run
 * side by side, one per local rank, so every rank of a host drives its
 * share of the host's traffic instead of one leader moving it all.
 *
 * Cost, h hosts of S ranks, rings at every step: within hosts
 * 2(S-1)alpha + 2n beta (S-1)/S + n gamma (S-1)/S; across hosts, per rank,
 * 2(h-1)alpha + 2(n/S) beta (h-1)/h + (n/S) gamma (h-1)/h, the S ranks of a
 * host sharing its links: 2n(h-1)/h bytes leave each host, as in one flat
 * ring allreduce, but in 2(h-1) steps across hosts instead of 2(p-1).
 * From: the multi-leader / "reduce-scatter, allreduce, allgather"
 * hierarchical allreduce of Kandalla et al. (2009) and of NCCL's and
 * Horovod's hierarchical allreduce; the bandwidth-oriented form.
 *
 * Irregular layouts: hosts with fewer ranks than the largest give some
 * ranks several shards (a host of one rank all of them): that rank takes
 * part in several inter-host allreduces, one after another, in shard
 * order on every rank, so they cannot wait on each other. Any number of
 * ranks and hosts; one host is a reduce-scatter and an allgather.
 *
 * Pipelined (pipeline=K): the vector is cut into K pieces, each run as
 * above, piece i's step waiting for its own step before and for piece
 * i-1's same step: while piece i crosses hosts, piece i+1 is reduced
 * within them and piece i-1 gathered, so the host steps hide behind the
 * transfers (about (n/K) of them left exposed instead of n, for K times the
 * messages).
 *
 * Parameters name the three steps' algorithms (reduce_scatter=,
 * world=, allgather=). Non-commutative operations: where placement is
 * block and the steps' algorithms keep rank order (reduce_scatter=
 * reduce_scatterv world=recursive_doubling, say), since each host's
 * ranks then reduce a run of consecutive ranks and the hosts' holders
 * meet in rank order.
 *
 * Buffers: the host's partial result of this rank's piece goes to scratch
 * (a host of one rank reads its input directly), the inter-host allreduce
 * writes it at its place in RECV, and the allgather runs in place on RECV.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/hier_shards.h"
#include "core/status.h"
#include "topo/topo.h"

const char *trl_allreduce_hier_sharded_unusable(const trl_coll_args *a)
{
    if (a->commutative)
        return NULL;
    const char *names[] = {"reduce_scatter", "world"};
    for (int i = 0; i < 2; i++) {
        const char *why = trl_hier_level_unusable(a, names[i]);
        if (why)
            return why;
    }
    if (!trl_topo_stats(a->topo, a->size).block)
        return "a non-commutative operation needs placement=block";
    return NULL;
}

/* One part of piece [lo, lo + n) of the vector: the reduce-scatter within
 * the host (part 0), the allreduces across hosts (1), the allgather (2).
 * part is this rank's partial result of its shard of the piece. */
static int build_part(const trl_coll_args *a, trl_sched *s, trl_shards *sh, size_t lo,
                      trl_ref *part, int which)
{
    const trl_params *params;
    const trl_algo *algo;
    trl_ref in = trl_ref_at(a->in_place ? TRL_BUF_RECV : TRL_BUF_SEND, lo);
    size_t mine = sh->displ[sh->me]; /* this rank's shards, from the piece's start */
    if (which == 0) {
        /* This host's partial result of this rank's shards: element
         * lo + mine + i at part + i. */
        trl_hier_group host = trl_hier_host_group(&sh->hosts, sh->hosts.mine, 0);
        *part = trl_ref_at(in.buf, in.off + mine);
        if (host.n == 1)
            return TRL_OK;
        *part = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, sh->count[sh->me]));
        trl_coll_args call = trl_hier_call(a, TRL_COLL_REDUCE_SCATTER, 0, sh->count, NULL, false);
        algo = trl_param_level(a, "reduce_scatter", &params);
        return trl_hier_run_call(&call, s, &host, algo, params, in, *part);
    }
    if (which == 2)
        return trl_shards_allgather(a, s, sh, lo);
    /* Each run of shards this rank holds, among its holders on every host. */
    algo = trl_param_level(a, "world", &params);
    trl_shard_run run = {0};
    int rc = TRL_OK;
    while (rc == TRL_OK && trl_shards_next(sh, &run, 0)) {
        if (run.g.me < 0)
            continue;
        trl_ref from = trl_ref_at(part->buf, part->off + (run.lo - mine));
        trl_ref to = trl_ref_at(TRL_BUF_RECV, lo + run.lo);
        size_t len = run.hi - run.lo;
        if (run.g.n == 1) { /* one host: the partial result is the result */
            trl_sched_copy(s, from, to, len, TRL_NODEPS); /* skipped where from is to */
            continue;
        }
        bool in_place = from.buf == to.buf && from.off == to.off;
        trl_coll_args call = trl_hier_call(a, TRL_COLL_ALLREDUCE, len, NULL, NULL, in_place);
        rc = trl_hier_run_call(&call, s, &run.g, algo, params, from, to);
    }
    return rc;
}

/* Elements of piece i of k over n: as equal as can be, the first ones one
 * more. */
static size_t piece_len(size_t n, size_t k, size_t i)
{
    return n / k + (i < n % k);
}

int trl_allreduce_hier_sharded(const trl_coll_args *a, trl_sched *s)
{
    size_t n = a->count;
    if (n == 0)
        return s->status;
    /* Pieces: no more than elements, each cut into shards as the whole
     * vector would be. */
    size_t k = (size_t)trl_param_int(a, "pipeline");
    if (k > n)
        k = n;
    trl_shards *sh = calloc(k, sizeof *sh);
    trl_ref *part = calloc(k, sizeof *part);
    int *last = malloc(k * sizeof *last); /* each piece's last part's fence */
    int rc = sh && part && last ? TRL_OK : TRL_ERR_NOMEM;
    size_t made = 0;
    while (rc == TRL_OK && made < k) {
        rc = trl_shards_init(&sh[made], a, piece_len(n, k, made));
        made += rc == TRL_OK;
    }
    /* Part p of piece i waits for part p-1 of piece i and part p of piece
     * i-1: while piece i crosses hosts, piece i+1 is reduced within them
     * and piece i-1 gathered. One piece: the three parts in a row. Every
     * piece starts after whatever the schedule held before. */
    int before_all = trl_sched_fence(s);
    for (size_t i = 0; rc == TRL_OK && i < k; i++)
        last[i] = before_all;
    for (int which = 0; rc == TRL_OK && which < 3; which++) {
        int before = -1;
        size_t lo = 0;
        for (size_t i = 0; rc == TRL_OK && i < k; i++) {
            trl_sched_wait_for(s, (const int[]){last[i], before}, 2);
            rc = build_part(a, s, &sh[i], lo, &part[i], which);
            last[i] = before = trl_sched_fence(s);
            lo += piece_len(n, k, i);
        }
    }
    if (rc == TRL_OK)
        trl_sched_wait_for(s, &last[k - 1], 1);
    for (size_t i = 0; i < made; i++)
        trl_shards_free(&sh[i]);
    free(sh);
    free(part);
    free(last);
    return rc ? rc : s->status;
}
