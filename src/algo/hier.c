#include "algo/hier.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo/builders.h"
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

/* The ranks taking part in a level (part[0..n), in rank order), each with
 * the key of its group, sorted into groups: m[] (n entries) by key, each
 * group's ranks in rank order. */
static member *level_groups(const trl_levels *levels, const trl_coll_args *a, int level,
                            const int *part, int n)
{
    trl_level_kind kind = levels->kind[level];
    member *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    if (!m)
        return NULL;
    for (int i = 0; i < n; i++)
        m[i] = (member){domain(a->topo, kind, part[i]), part[i]};
    if (kind == TRL_LEVEL_GROUP) {
        /* Runs of K within a host: part[] is in rank order, so a stable
         * sort by host keeps each host's ranks in order. */
        qsort(m, (size_t)n, sizeof *m, by_key_then_rank);
        for (int i = 0, pos = 0; i < n; i++) {
            pos = i > 0 && (m[i].key >> 42) == (m[i - 1].key >> 42) ? pos + 1 : 0;
            m[i].key = (m[i].key >> 42) << 42 | (uint64_t)(pos / levels->group);
        }
    }
    qsort(m, (size_t)n, sizeof *m, by_key_then_rank);
    return m;
}

/* One level: sort the ranks taking part (part[0..n)) into groups, keep
 * this rank's, and leave the leaders in part[] for the next level. */
static int one_level(trl_hier *h, const trl_coll_args *a, int level, int root, int *part, int *n)
{
    member *m = level_groups(&h->levels, a, level, part, *n);
    if (!m)
        return TRL_ERR_NOMEM;
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
        rc = one_level(h, a, level, root, part, &n);
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

const trl_algo *trl_hier_level_algo(const trl_coll_args *a, const trl_hier *h, int i,
                                    const trl_params **params)
{
    return trl_param_level(a, trl_level_name(h->levels.kind[i]), params);
}

int trl_hier_run(const trl_coll_args *a, trl_sched *s, const trl_hier_group *g, trl_coll coll,
                 const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv,
                 bool in_place)
{
    trl_coll_args call = *a;
    call.coll = coll;
    call.in_place = in_place;
    return trl_hier_run_call(&call, s, g, algo, params, send, recv);
}

int trl_hier_run_call(const trl_coll_args *call, trl_sched *s, const trl_hier_group *g,
                      const trl_algo *algo, const trl_params *params, trl_ref send, trl_ref recv)
{
    if (!algo || !algo->build || algo->coll != call->coll)
        return TRL_ERR_UNSUPPORTED;
    trl_params view;
    int rc = trl_params_view(params, algo, &view);
    if (rc)
        return rc;
    trl_coll_args args = *call;
    args.rank = g->me;
    args.size = g->n;
    args.root = g->leader;
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

/* ---- hosts as a whole, levels' algorithms, rank order --------------------- */

static int by_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

static int by_lowest_rank(const void *x, const void *y)
{
    const member *a = x, *b = y;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

int trl_hier_hosts_init(trl_hier_hosts *hh, const trl_coll_args *a)
{
    memset(hh, 0, sizeof *hh);
    const trl_topo *t = a->topo;
    int p = a->size, nh = t && t->nhosts > 0 ? t->nhosts : 1;
    /* Each host's lowest rank and its place in the host order. */
    member *low = malloc((size_t)nh * sizeof *low);
    int *order = malloc((size_t)nh * sizeof *order), *count = calloc((size_t)nh + 1, sizeof *count);
    hh->first = malloc(((size_t)nh + 1) * sizeof *hh->first);
    hh->rank = malloc((size_t)(p > 0 ? p : 1) * sizeof *hh->rank);
    int rc = low && order && count && hh->first && hh->rank ? TRL_OK : TRL_ERR_NOMEM;
    for (int h = 0; rc == TRL_OK && h < nh; h++)
        low[h] = (member){(uint64_t)h, p};
    for (int r = p - 1; rc == TRL_OK && r >= 0; r--) {
        int h = t && t->nhosts > 0 ? t->host[r] : 0;
        low[h].rank = r;
        count[h]++;
    }
    if (rc == TRL_OK) {
        qsort(low, (size_t)nh, sizeof *low, by_lowest_rank);
        while (nh > 0 && low[nh - 1].rank == p) /* a host with no rank here */
            nh--;
        hh->n = nh;
        hh->first[0] = 0;
        for (int i = 0; i < nh; i++) {
            order[low[i].key] = i;
            hh->first[i + 1] = hh->first[i] + count[low[i].key];
        }
        for (int i = 0; i < nh; i++) /* now where host i's next rank goes */
            count[i] = hh->first[i];
        for (int r = 0; r < p; r++) {
            int i = order[t && t->nhosts > 0 ? t->host[r] : 0];
            if (r == a->rank) {
                hh->mine = i;
                hh->me_at = count[i];
            }
            hh->rank[count[i]++] = r;
        }
    }
    free(low);
    free(order);
    free(count);
    if (rc)
        trl_hier_hosts_free(hh);
    return rc;
}

void trl_hier_hosts_free(trl_hier_hosts *hh)
{
    free(hh->first);
    free(hh->rank);
    memset(hh, 0, sizeof *hh);
}

trl_hier_group trl_hier_host_group(const trl_hier_hosts *hh, int h, int leader)
{
    int at = hh->first[h];
    trl_hier_group g = {hh->first[h + 1] - at, hh->rank + at, leader, -1};
    if (h == hh->mine)
        g.me = hh->me_at - at;
    return g;
}

int trl_hier_hosts_one_each(const trl_hier_hosts *hh, bool last, trl_hier_group *g)
{
    *g = (trl_hier_group){hh->n, malloc((size_t)hh->n * sizeof *g->ranks), 0, -1};
    if (!g->ranks)
        return TRL_ERR_NOMEM;
    for (int h = 0; h < hh->n; h++) {
        int at = last ? hh->first[h + 1] - 1 : hh->first[h];
        g->ranks[h] = hh->rank[at];
        if (at == hh->me_at)
            g->me = h;
    }
    return TRL_OK;
}

const char *trl_hier_level_unusable(const trl_coll_args *a, const char *name)
{
    const trl_params *params;
    const trl_algo *algo = trl_param_level(a, name, &params);
    if (!algo)
        return "a level's algorithm is missing";
    /* As trl_hier_run runs it: its own parameters, no topology. */
    trl_coll_args level = *a;
    level.coll = algo->coll;
    level.params = params;
    level.algo = algo;
    level.topo = NULL;
    return trl_algo_unusable(algo, &level) ? "a level's algorithm needs a commutative operation"
                                           : NULL;
}

bool trl_hier_keeps_rank_order(const trl_coll_args *a, const trl_levels *levels)
{
    int n = a->size;
    /* The ranks taking part, in rank order, and the run of ranks each
     * stands for: [lo[r], hi[r]) for rank r. */
    int *part = malloc((size_t)(n > 0 ? n : 1) * sizeof *part);
    int *lo = malloc((size_t)(n > 0 ? n : 1) * sizeof *lo);
    int *hi = malloc((size_t)(n > 0 ? n : 1) * sizeof *hi);
    bool keeps = part && lo && hi;
    for (int r = 0; keeps && r < n; r++) {
        part[r] = r;
        lo[r] = r;
        hi[r] = r + 1;
    }
    for (int level = 0; keeps && level < levels->n - 1; level++) { /* world is one group */
        member *m = level_groups(levels, a, level, part, n);
        if (!m) {
            keeps = false;
            break;
        }
        int leaders = 0;
        for (int g = 0, end; g < n; g = end) {
            for (end = g + 1; end < n && m[end].key == m[g].key; end++)
                keeps = keeps && lo[m[end].rank] == hi[m[end - 1].rank];
            int lead = m[g].rank; /* which member leads does not change the run */
            hi[lead] = hi[m[end - 1].rank];
            part[leaders++] = lead;
        }
        free(m);
        /* Leaders in rank order, as trl_hier_init keeps them. */
        qsort(part, (size_t)leaders, sizeof *part, by_int);
        n = leaders;
    }
    free(part);
    free(lo);
    free(hi);
    return keeps;
}

const char *trl_hier_unusable(const trl_coll_args *a)
{
    if (a->commutative)
        return NULL;
    trl_levels levels;
    trl_levels_decode(trl_param_int(a, "levels"), &levels);
    for (int i = 0; i < levels.n; i++) {
        const char *why = trl_hier_level_unusable(a, trl_level_name(levels.kind[i]));
        if (why)
            return why;
    }
    if (!trl_hier_keeps_rank_order(a, &levels))
        return "a non-commutative operation needs every group of every level to hold "
               "consecutive ranks (placement=block)";
    return NULL;
}
