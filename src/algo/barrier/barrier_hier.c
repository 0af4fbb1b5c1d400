/* Hierarchical barrier (`hier`, src/algo/hier.h): a fan-in of empty
 * messages up every level below world, over the tree each level's
 * parameter names (linear, binomial, knomial, kary or chain, with its
 * radix), a barrier among the leaders at world (any barrier algorithm),
 * then a fan-out down the levels again. Leaders are the groups' lowest
 * ranks.
 *
 * Cost: with binomial levels over h hosts of q ranks, 2 log2(q) rounds
 * within hosts plus world's barrier among the h leaders.
 * From: seed 004's per-level primitives (Cheetah's hierarchical barrier).
 */
#include <stdio.h>
#include <string.h>

#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"
#include "pattern/tree.h"

/* The tree a level's algorithm name stands for, over the group. */
static int level_tree(const trl_coll_args *a, const trl_hier *h, int i, trl_tree *t)
{
    const trl_params *params;
    const trl_algo *algo = trl_hier_level_algo(a, h, i, &params);
    const trl_hier_group *g = &h->group[i];
    /* The radix the level gives, else its algorithm's own default. */
    trl_coll_args own = {.params = params, .algo = algo};
    bool has_radix = trl_algo_param(algo, "radix", 5) != NULL;
    int radix = has_radix ? (int)trl_param_int(&own, "radix") : 2;
    const char *name = algo->name;
    trl_tree_kind kind = !strcmp(name, "binomial")  ? TRL_TREE_BINOMIAL
                         : !strcmp(name, "knomial") ? TRL_TREE_KNOMIAL
                         : !strcmp(name, "chain")   ? TRL_TREE_CHAIN
                                                    : TRL_TREE_KARY;
    if (!strcmp(name, "linear"))
        radix = g->n > 1 ? g->n - 1 : 1; /* a star */
    return trl_tree_init(t, kind, radix, g->n, g->leader);
}

/* Empty messages up (fan_in) or down a level's tree. The fences wait for
 * the messages received only: no buffer to protect, so a rank goes on
 * while its sends complete. */
static int fan(const trl_coll_args *a, trl_sched *s, const trl_hier *h, int i, bool fan_in)
{
    const trl_hier_group *g = &h->group[i];
    trl_tree t;
    int rc = level_tree(a, h, i, &t);
    if (rc)
        return rc;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    int parent = trl_tree_parent(&t, g->me), n = trl_tree_nchildren(&t, g->me);
    char phase[64];
    snprintf(phase, sizeof phase, "%s %s", trl_level_name(g->level), fan_in ? "fan-in" : "fan-out");
    trl_sched_phase(s, phase);
    if (!fan_in && parent >= 0)
        trl_sched_recv(s, g->ranks[parent], none, 0, TRL_NODEPS);
    trl_sched_fence_data(s);
    for (int c = 0; c < n; c++) {
        int peer = g->ranks[trl_tree_child(&t, g->me, c)];
        if (fan_in)
            trl_sched_recv(s, peer, none, 0, TRL_NODEPS);
        else
            trl_sched_send(s, peer, none, 0, TRL_NODEPS);
    }
    trl_sched_fence_data(s);
    if (fan_in && parent >= 0)
        trl_sched_send(s, g->ranks[parent], none, 0, TRL_NODEPS);
    trl_sched_fence_data(s);
    return s->status;
}

int trl_barrier_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_hier h;
    int rc = trl_hier_init(&h, a, 0);
    if (rc)
        return rc;
    int top = h.levels.n - 1, below = h.active < top ? h.active : top;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    for (int i = 0; i < below && rc == TRL_OK; i++)
        rc = h.group[i].n > 1 ? fan(a, s, &h, i, true) : TRL_OK;
    if (rc == TRL_OK && h.active == h.levels.n && h.group[top].n > 1) {
        const trl_params *params;
        const trl_algo *algo = trl_hier_level_algo(a, &h, top, &params);
        rc = trl_hier_run(a, s, &h.group[top], TRL_COLL_BARRIER, algo, params, none, none, false);
    }
    for (int i = below - 1; i >= 0 && rc == TRL_OK; i--)
        rc = h.group[i].n > 1 ? fan(a, s, &h, i, false) : TRL_OK;
    trl_hier_free(&h);
    return rc ? rc : s->status;
}
