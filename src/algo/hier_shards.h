/* Shards of a vector across hosts, for the bandwidth-oriented hierarchical
 * algorithms (allreduce and bcast `hier_sharded`): the vector is cut into
 * S shards as equal as can be, S the most ranks on one host; on every host
 * each rank holds a run of consecutive shards (local rank j of a host of q
 * ranks holds shards j*S/q .. (j+1)*S/q - 1, rounded down), so it holds a
 * contiguous piece of the vector, every rank holds at least one shard, and
 * a host of S ranks gives each exactly one. Shard s moves between hosts
 * among its holders, one per host; consecutive shards with the same
 * holders on every host move together, as one run.
 *
 * Irregular layouts: a host with fewer ranks gives each more shards (a
 * host of one rank holds them all), so every host still sends and receives
 * the whole vector once, and the runs of its ranks with more shards take
 * part in more of the inter-host steps, one after the other.
 */
#ifndef TRL_HIER_SHARDS_H
#define TRL_HIER_SHARDS_H

#include "algo/hier.h"

typedef struct {
    trl_hier_hosts hosts;
    int nshards; /* S */
    size_t *off; /* S+1: shard s is elements off[s] .. off[s+1] */
    /* This rank's host: q ranks, this rank being number me, and local rank
     * j's piece, count[j] elements at displ[j] (the shape of the host's
     * reduce_scatter, scatterv and allgatherv). */
    int q, me;
    size_t *count, *displ;
    int *run_ranks; /* hosts.n entries: the group of the run found last */
} trl_shards;

/* Shards of n elements over the hosts of a's communicator. */
int trl_shards_init(trl_shards *sh, const trl_coll_args *a, size_t n);
void trl_shards_free(trl_shards *sh);

/* One run: elements [lo, hi) and its holders, one per host, in rank order
 * (g.me -1 where this rank is not one; g.leader the holder on host
 * lead_host). */
typedef struct {
    int next; /* the shard the next run starts at: 0 before the first */
    size_t lo, hi;
    trl_hier_group g;
} trl_shard_run;

/* The next run holding elements; false after the last. */
bool trl_shards_next(trl_shards *sh, trl_shard_run *run, int lead_host);

/* The last step of both: each rank's piece, at its place in RECV (the
 * shards' vector starting at element at), to every rank of its host
 * (allgatherv in place, the algorithm a's allgather= names); nothing on a
 * host of one rank. */
int trl_shards_allgather(const trl_coll_args *a, trl_sched *s, const trl_shards *sh, size_t at);

#endif
