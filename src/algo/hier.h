/* What the hierarchical algorithms (`hier`: bcast, reduce, allreduce,
 * barrier, and through src/algo/hier_blocks.h the data movers) share: the groups a rank belongs to at each level, and running
 * a table algorithm on one group as part of the whole schedule.
 *
 * Levels go from the smallest (numa, socket, group:K, host) to world. At
 * the lowest level every rank takes part; the ranks at a level are grouped
 * by the level's domain (ranks that share a host, ...), and each group's
 * leader takes part at the next level. The leader is the call's root where
 * the root is in the group (so the root's groups are the top of each level
 * and the data needs no extra hop), else the group's lowest rank. At world
 * the ranks still taking part form one group.
 */
#ifndef TRL_HIER_H
#define TRL_HIER_H

#include "algo/algo.h"
#include "algo/params.h"

typedef struct {
    trl_level_kind level;
    int n;      /* members */
    int *ranks; /* their communicator ranks, in rank order */
    int leader; /* index in ranks */
    int me;     /* this rank's index */
} trl_hier_group;

typedef struct {
    trl_levels levels;
    int active;                            /* levels this rank takes part in: 1 .. levels.n */
    trl_hier_group group[TRL_LEVEL_COUNT]; /* this rank's, per active level */
} trl_hier;

/* This rank's groups, from the rule's levels= and the call's topology
 * (a->topo; NULL: one host, sockets unknown). Every rank's groups are
 * worked out together, once per call shape where a->memo keeps them. Free
 * with trl_hier_free. */
int trl_hier_init(trl_hier *h, const trl_coll_args *a, int root);
void trl_hier_free(trl_hier *h);

/* Every rank's groups, not only this rank's: what the algorithms that move
 * blocks between groups (allgather, gather, scatter, alltoall) need to know
 * of the other groups. lead[i * size + r] is the leader of rank r's group at
 * level i (the leaders chosen as trl_hier_init chooses them), -1 where r
 * does not take part at level i. */
typedef struct {
    trl_levels levels;
    int size;
    int *lead;
} trl_hier_map;

/* The map of levels (not the rule's levels=: the caller decides) for the
 * call's topology; root leads its groups (-1: every group its lowest
 * rank). Free with trl_hier_map_free. */
int trl_hier_map_init(trl_hier_map *m, const trl_coll_args *a, const trl_levels *levels, int root);
void trl_hier_map_free(trl_hier_map *m);

/* The group at `level` that `rank` belongs to, seen from rank (g->me), its
 * members in rank order; free g->ranks. TRL_ERR_INVALID where rank does
 * not take part at that level. */
int trl_hier_map_group(const trl_hier_map *m, int level, int rank, trl_hier_group *g);

/* The algorithm and parameters the rule gives level i (its name's
 * parameter, else the spec's default). */
const trl_algo *trl_hier_level_algo(const trl_coll_args *a, const trl_hier *h, int i,
                                    const trl_params **params);

/* Run `algo` (of collective coll) over group g as part of s: its SEND and
 * RECV are `send` and `recv` of s, its root the group's leader, count
 * elements; then a fence, so the next level starts after this rank's part
 * of this one. params are passed on by name to `algo`'s own. Its steps are
 * in the phase "<level> <collective>" ("host reduce"), and its own phases
 * under that ("world allreduce/reduce-scatter"). */
int trl_hier_run(const trl_coll_args *a, trl_sched *s, const trl_hier_group *g, trl_coll coll,
                 const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv,
                 bool in_place);

/* trl_hier_run for a call of another shape: `call` gives the group's
 * collective, count, counts and displs (g->n entries each, by group rank),
 * in_place, elem_size and commutativity; rank, size, root (the leader),
 * parameters and topology are set here. */
int trl_hier_run_call(const trl_coll_args *call, trl_sched *s, const trl_hier_group *g,
                      const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv);

/* A call of collective coll with the given shape (counts and displs: one
 * entry per member of the group it runs on, or NULL), the operation and
 * element size as in a: the `call` of trl_hier_run_call. */
static inline trl_coll_args trl_hier_call(const trl_coll_args *a, trl_coll coll, size_t count,
                                          const size_t *counts, const size_t *displs, bool in_place)
{
    trl_coll_args call = *a;
    call.coll = coll;
    call.count = count;
    call.counts = counts;
    call.displs = displs;
    call.in_place = in_place;
    return call;
}

/* Every host of the communicator and its ranks, hosts in the order of
 * their lowest rank (with placement=block, the order of their ranks):
 * host h's ranks are rank[first[h] .. first[h+1]), in rank order. A NULL
 * topology is one host. For the algorithms whose groups cross hosts. */
typedef struct {
    int n;
    int *first;    /* n+1 entries */
    int *rank;     /* every rank, host by host */
    int mine;      /* this rank's host */
    int me_at;     /* this rank's index in rank[] */
    int *host_of;  /* per rank: its host */
    int *local_of; /* per rank: its index among its host's ranks */
    int most;      /* the most ranks on one host */
} trl_hier_hosts;

int trl_hier_hosts_init(trl_hier_hosts *hh, const trl_coll_args *a);
void trl_hier_hosts_free(trl_hier_hosts *hh);
static inline int trl_hier_host_size(const trl_hier_hosts *hh, int h)
{
    return hh->first[h + 1] - hh->first[h];
}

/* Rank `local` of host h. */
static inline int trl_hier_host_rank(const trl_hier_hosts *hh, int h, int local)
{
    return hh->rank[hh->first[h] + local];
}

/* Host h as a group whose leader is member `leader` (this rank's index in
 * it, or -1 when it is not a member); ranks point into hh. */
trl_hier_group trl_hier_host_group(const trl_hier_hosts *hh, int h, int leader);

/* One rank of every host, its lowest (or with `last` its highest), in host
 * order, as a group led by the first host's (g->me -1 where this rank is
 * not one). g->ranks is malloc'd: free it. */
int trl_hier_hosts_one_each(const trl_hier_hosts *hh, bool last, trl_hier_group *g);

/* Why the algorithm's LEVEL parameter `name` cannot serve the call (its
 * algorithm needs a commutative operation, ...), or NULL. */
const char *trl_hier_level_unusable(const trl_coll_args *a, const char *name);

/* Whether the levels keep rank order: every group at every level holds
 * ranks that, with those their members lead, form one run of consecutive
 * ranks, so combining each group in its rank order combines all in rank
 * order (non-commutative operations). With levels=host,world that is
 * placement=block. */
bool trl_hier_keeps_rank_order(const trl_coll_args *a, const trl_levels *levels);

#endif
