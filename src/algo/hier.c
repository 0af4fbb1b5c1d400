#include "algo/hier.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "topo/topo.h"

typedef struct {
    uint64_t key;
    int rank;
} member;

static int by_key_then_rank(const void *x, const void *y)
{
    const member *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The domain of `rank` at level kind: ranks with equal keys share it.
 * Unknown sockets and NUMA domains count as the whole host. Socket and
 * NUMA ids are unique across hosts, but the host stays in the key so a
 * level never spans hosts whatever the ids. */
static uint64_t domain(const trl_topo *t, trl_level_kind kind, int rank)
{
    uint64_t host = t ? (uint64_t)t->host[rank] : 0;
    uint64_t socket = t && t->socket[rank] >= 0 ? (uint64_t)t->socket[rank] + 1 : 0;
    uint64_t numa = t && t->numa[rank] >= 0 ? (uint64_t)t->numa[rank] + 1 : 0;
    switch (kind) {
    case TRL_LEVEL_NUMA:
        return host << 42 | socket << 21 | numa;
    case TRL_LEVEL_SOCKET:
        return host << 42 | socket << 21;
    case TRL_LEVEL_HOST:
    case TRL_LEVEL_GROUP: /* refined by the caller */
        return host << 42;
    default:
        return 0;
    }
}

/* One level: sort the ranks taking part (part[0..n)) into groups, keep
 * this rank's, and leave the leaders in part[] for the next level.
 * lead_of, if not NULL, gets every member's leader (lead_of[rank]). */
static int one_level(trl_hier *h, const trl_coll_args *a, int level, int root, int *part, int *n,
                     int *lead_of)
{
    trl_level_kind kind = h->levels.kind[level];
    member *m = malloc((size_t)*n * sizeof *m);
    if (!m)
        return TRL_ERR_NOMEM;
    for (int i = 0; i < *n; i++)
        m[i] = (member){domain(a->topo, kind, part[i]), part[i]};
    if (kind == TRL_LEVEL_GROUP) {
        /* Runs of K within a host: part[] is in rank order, so a stable
         * sort by host keeps each host's ranks in order. */
        qsort(m, (size_t)*n, sizeof *m, by_key_then_rank);
        for (int i = 0, pos = 0; i < *n; i++) {
            pos = i > 0 && (m[i].key >> 42) == (m[i - 1].key >> 42) ? pos + 1 : 0;
            m[i].key = (m[i].key >> 42) << 42 | (uint64_t)(pos / h->levels.group);
        }
    }
    qsort(m, (size_t)*n, sizeof *m, by_key_then_rank);
    int leaders = 0, rc = TRL_OK;
    for (int lo = 0, hi; lo < *n; lo = hi) {
        int lead = lo, mine = -1;
        for (hi = lo; hi < *n && m[hi].key == m[lo].key; hi++) {
            if (m[hi].rank == root)
                lead = hi;
            if (m[hi].rank == a->rank)
                mine = hi;
        }
        part[leaders++] = m[lead].rank;
        for (int i = lo; lead_of && i < hi; i++)
            lead_of[m[i].rank] = m[lead].rank;
        if (mine < 0)
            continue;
        trl_hier_group *g = &h->group[level];
        g->n = hi - lo;
        g->ranks = malloc((size_t)g->n * sizeof *g->ranks);
        if (!g->ranks) {
            rc = TRL_ERR_NOMEM;
            break;
        }
        for (int i = 0; i < g->n; i++)
            g->ranks[i] = m[lo + i].rank;
        g->leader = lead - lo;
        g->me = mine - lo;
        h->active = level + 1;
    }
    free(m);
    /* Leaders in rank order: the next level groups them the same way. */
    for (int i = 1; i < leaders; i++)
        for (int j = i; j > 0 && part[j - 1] > part[j]; j--) {
            int x = part[j];
            part[j] = part[j - 1];
            part[j - 1] = x;
        }
    *n = leaders;
    return rc;
}

int trl_hier_init(trl_hier *h, const trl_coll_args *a, int root)
{
    memset(h, 0, sizeof *h);
    trl_levels_decode(trl_param_int(a, "levels"), &h->levels);
    int n = a->size, *part = malloc((size_t)n * sizeof *part);
    if (!part)
        return TRL_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        part[i] = i;
    int rc = TRL_OK;
    for (int level = 0; level < h->levels.n && rc == TRL_OK; level++) {
        if (h->active < level) /* this rank stopped at an earlier level */
            break;
        rc = one_level(h, a, level, root, part, &n, NULL);
    }
    free(part);
    if (rc)
        trl_hier_free(h);
    return rc;
}

void trl_hier_free(trl_hier *h)
{
    for (int i = 0; i < TRL_LEVEL_COUNT; i++)
        free(h->group[i].ranks);
    memset(h, 0, sizeof *h);
}

int trl_hier_map_init(trl_hier_map *m, const trl_coll_args *a, const trl_levels *levels, int root)
{
    int p = a->size, n = p;
    memset(m, 0, sizeof *m);
    m->levels = *levels;
    m->size = p;
    m->lead = malloc((size_t)levels->n * (size_t)p * sizeof *m->lead);
    int *part = malloc((size_t)p * sizeof *part);
    trl_hier h;
    memset(&h, 0, sizeof h);
    h.levels = *levels;
    int rc = m->lead && part ? TRL_OK : TRL_ERR_NOMEM;
    for (int i = 0; rc == TRL_OK && i < levels->n * p; i++)
        m->lead[i] = -1;
    for (int i = 0; rc == TRL_OK && i < p; i++)
        part[i] = i;
    for (int level = 0; level < levels->n && rc == TRL_OK; level++)
        rc = one_level(&h, a, level, root, part, &n, m->lead + (size_t)level * (size_t)p);
    trl_hier_free(&h);
    free(part);
    if (rc)
        trl_hier_map_free(m);
    return rc;
}

void trl_hier_map_free(trl_hier_map *m)
{
    free(m->lead);
    memset(m, 0, sizeof *m);
}

int trl_hier_map_group(const trl_hier_map *m, int level, int rank, trl_hier_group *g)
{
    const int *lead = m->lead + (size_t)level * (size_t)m->size;
    int leader = lead[rank];
    memset(g, 0, sizeof *g);
    if (leader < 0)
        return TRL_ERR_INVALID;
    for (int r = 0; r < m->size; r++)
        g->n += lead[r] == leader;
    g->ranks = malloc((size_t)g->n * sizeof *g->ranks);
    if (!g->ranks)
        return TRL_ERR_NOMEM;
    for (int r = 0, i = 0; r < m->size; r++) {
        if (lead[r] != leader)
            continue;
        g->leader = r == leader ? i : g->leader;
        g->me = r == rank ? i : g->me;
        g->ranks[i++] = r;
    }
    return TRL_OK;
}

const trl_algo *trl_hier_level_algo(const trl_coll_args *a, const trl_hier *h, int i,
                                    const trl_params **params)
{
    return trl_param_level(a, trl_level_name(h->levels.kind[i]), params);
}

int trl_hier_run(const trl_coll_args *a, trl_sched *s, const trl_hier_group *g, trl_coll coll,
                 const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv,
                 bool in_place)
{
    if (!algo || !algo->build || algo->coll != coll)
        return TRL_ERR_UNSUPPORTED;
    trl_params view;
    int rc = trl_params_view(params, algo, &view);
    if (rc)
        return rc;
    trl_coll_args args = *a;
    args.coll = coll;
    args.rank = g->me;
    args.size = g->n;
    args.root = g->leader;
    args.in_place = in_place;
    args.params = &view;
    args.algo = algo;
    args.topo = NULL; /* a group's own ranks; the levels did the placing */
    trl_sched sub;
    rc = trl_algo_unusable(algo, &args) ? TRL_ERR_UNSUPPORTED : trl_sched_init(&sub, g->me, g->n);
    if (rc == TRL_OK) {
        rc = algo->build(&args, &sub);
        if (rc == TRL_OK) {
            trl_sched_map map = {g->ranks, send, recv};
            rc = trl_sched_append(s, &sub, &map);
        }
        trl_sched_free(&sub);
    }
    trl_params_release(&view);
    if (rc == TRL_OK)
        trl_sched_fence(s);
    return rc ? rc : s->status;
}
