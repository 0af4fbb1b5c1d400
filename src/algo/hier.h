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

typedef struct {
    int n;      /* members */
    int *ranks; /* their communicator ranks, in rank order */
    int leader; /* index in ranks */
    int me;     /* this rank's index */
} trl_hier_group;

typedef struct {
    trl_levels levels;
    int active; /* levels this rank takes part in: 1 .. levels.n */
    trl_hier_group group[TRL_LEVEL_COUNT]; /* this rank's, per active level */
} trl_hier;

/* This rank's groups, from the rule's levels= and the call's topology
 * (a->topo; NULL: one host, sockets unknown). Free with trl_hier_free. */
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
 * of this one. params are passed on by name to `algo`'s own. */
int trl_hier_run(const trl_coll_args *a, trl_sched *s, const trl_hier_group *g, trl_coll coll,
                 const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv,
                 bool in_place);

#endif
