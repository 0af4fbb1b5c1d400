#include "algo/hier.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/builders.h"
#include "algo/usable.h"
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
    case TRL_LEVEL_NUMA: return host << 42 | socket << 21 | numa;
    case TRL_LEVEL_SOCKET: return host << 42 | socket << 21;
    case TRL_LEVEL_HOST:
    case TRL_LEVEL_GROUP: /* refined by the caller */ return host << 42;
    default: return 0;
    }
}

/* The ranks taking part in a level (part[0..n), in rank order), each with
 * the key of its group, sorted into groups: m[] (n entries) by key, each
 * group's ranks in rank order. */
static member *level_groups(const trl_levels *levels, const trl_topo *topo, int level,
                            const int *part, int n)
{
    trl_level_kind kind = levels->kind[level];
    member *m = malloc((size_t)(n > 0 ? n : 1) * sizeof *m);
    if (!m)
        return NULL;
    for (int i = 0; i < n; i++)
        m[i] = (member){domain(topo, kind, part[i]), part[i]};
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

/* Every rank's groups at every level of one call shape: what each rank's
 * trl_hier_init reads its own groups from. Tools that build every rank's
 * schedule keep it in a trl_build_memo, so it is computed once per call
 * shape instead of once per rank (49,152 ranks would sort 49,152 members
 * 49,152 times). */
typedef struct hier_plan {
    const trl_topo *topo; /* the key: the call's layout, size, root, levels= */
    int size, root;
    long long levels;
    int nlevels;
    struct {
        int *group_of; /* per rank: its group at this level, -1 if not taking part */
        int ngroups;
        int *first; /* group g's members: member[first[g] .. first[g+1]), in rank order */
        int *member;
        int *leader; /* per group: index of its leader among its members */
    } level[TRL_LEVEL_COUNT];
    struct hier_plan *next; /* in a memo */
} hier_plan;

struct trl_build_memo {
    hier_plan *plans;
};

static void plan_free(hier_plan *p)
{
    for (int i = 0; i < TRL_LEVEL_COUNT; i++) {
        free(p->level[i].group_of);
        free(p->level[i].first);
        free(p->level[i].member);
        free(p->level[i].leader);
    }
    free(p);
}

/* One level: sort the ranks taking part (part[0..n)) into groups, record
 * them all, and leave the leaders in part[] for the next level. */
static int plan_level(hier_plan *p, const trl_levels *lv, int level, int *part, int *n)
{
    member *m = level_groups(lv, p->topo, level, part, *n);
    int *group_of = malloc((size_t)p->size * sizeof *group_of);
    int *first = malloc(((size_t)*n + 1) * sizeof *first);
    int *mem = malloc((size_t)(*n ? *n : 1) * sizeof *mem);
    int *leader = malloc((size_t)(*n ? *n : 1) * sizeof *leader);
    p->level[level].group_of = group_of;
    p->level[level].first = first;
    p->level[level].member = mem;
    p->level[level].leader = leader;
    if (!m || !group_of || !first || !mem || !leader) {
        free(m);
        return TRL_ERR_NOMEM;
    }
    for (int r = 0; r < p->size; r++)
        group_of[r] = -1;
    int leaders = 0;
    for (int lo = 0, hi; lo < *n; lo = hi) {
        int lead = lo;
        for (hi = lo; hi < *n && m[hi].key == m[lo].key; hi++) {
            if (m[hi].rank == p->root)
                lead = hi;
            group_of[m[hi].rank] = leaders;
            mem[hi] = m[hi].rank;
        }
        first[leaders] = lo;
        leader[leaders] = lead - lo;
        part[leaders++] = m[lead].rank;
    }
    first[leaders] = *n;
    p->level[level].ngroups = leaders;
    free(m);
    /* Leaders in rank order: the next level groups them the same way. */
    for (int i = 1; i < leaders; i++)
        for (int j = i; j > 0 && part[j - 1] > part[j]; j--) {
            int x = part[j];
            part[j] = part[j - 1];
            part[j - 1] = x;
        }
    *n = leaders;
    return TRL_OK;
}

/* levels: the rule's levels= as decoded (lv) and as given (the memo's key). */
static int plan_new(const trl_coll_args *a, int root, const trl_levels *levels, long long key,
                    hier_plan **out)
{
    hier_plan *p = calloc(1, sizeof *p);
    int n = a->size, *part = malloc((size_t)(n > 0 ? n : 1) * sizeof *part);
    if (!p || !part) {
        free(p);
        free(part);
        return TRL_ERR_NOMEM;
    }
    *p = (hier_plan){.topo = a->topo, .size = a->size, .root = root, .levels = key};
    trl_levels lv = *levels;
    p->nlevels = lv.n;
    for (int i = 0; i < n; i++)
        part[i] = i;
    int rc = TRL_OK;
    for (int level = 0; level < lv.n && rc == TRL_OK; level++)
        rc = plan_level(p, &lv, level, part, &n);
    free(part);
    if (rc) {
        plan_free(p);
        return rc;
    }
    *out = p;
    return TRL_OK;
}

trl_build_memo *trl_build_memo_new(void)
{
    return calloc(1, sizeof(trl_build_memo));
}

void trl_build_memo_free(trl_build_memo *memo)
{
    if (!memo)
        return;
    while (memo->plans) {
        hier_plan *next = memo->plans->next;
        plan_free(memo->plans);
        memo->plans = next;
    }
    free(memo);
}

int trl_hier_init(trl_hier *h, const trl_coll_args *a, int root)
{
    memset(h, 0, sizeof *h);
    long long levels = trl_param_int(a, "levels");
    trl_levels_decode(levels, &h->levels);
    hier_plan *p = NULL;
    for (p = a->memo ? a->memo->plans : NULL; p; p = p->next)
        if (p->topo == a->topo && p->size == a->size && p->root == root && p->levels == levels)
            break;
    bool owned = !p;
    int rc = p ? TRL_OK : plan_new(a, root, &h->levels, levels, &p);
    if (rc)
        return rc;
    if (owned && a->memo) {
        p->next = a->memo->plans;
        a->memo->plans = p;
        owned = false;
    }
    for (int level = 0; level < p->nlevels; level++) {
        int g = p->level[level].group_of[a->rank];
        if (g < 0) /* this rank stopped at an earlier level */
            break;
        const int *mem = p->level[level].member + p->level[level].first[g];
        trl_hier_group *mine = &h->group[level];
        mine->level = h->levels.kind[level];
        mine->n = p->level[level].first[g + 1] - p->level[level].first[g];
        mine->leader = p->level[level].leader[g];
        mine->ranks = malloc((size_t)mine->n * sizeof *mine->ranks);
        if (!mine->ranks) {
            rc = TRL_ERR_NOMEM;
            break;
        }
        memcpy(mine->ranks, mem, (size_t)mine->n * sizeof *mem);
        for (int i = 0; i < mine->n; i++)
            if (mem[i] == a->rank)
                mine->me = i;
        h->active = level + 1;
    }
    if (owned)
        plan_free(p);
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
    int p = a->size;
    memset(m, 0, sizeof *m);
    m->levels = *levels;
    m->size = p;
    m->lead = malloc(((size_t)levels->n * (size_t)p + 1) * sizeof *m->lead);
    hier_plan *plan = NULL;
    int rc = m->lead ? plan_new(a, root, levels, -1, &plan) : TRL_ERR_NOMEM;
    for (int level = 0; rc == TRL_OK && level < levels->n; level++) {
        const typeof(plan->level[0]) *lv = &plan->level[level];
        for (int r = 0; r < p; r++) {
            int g = lv->group_of[r];
            m->lead[(size_t)level * (size_t)p + (size_t)r] =
                g < 0 ? -1 : lv->member[lv->first[g] + lv->leader[g]];
        }
    }
    if (plan)
        plan_free(plan);
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
    g->level = m->levels.kind[level];
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
    args.memo = NULL; /* its plans are for the whole communicator's layout */
    /* The level's phase ("host reduce"); the group's own phases go under it. */
    char phase[64];
    snprintf(phase, sizeof phase, "%s %s", trl_level_name(g->level), trl_coll_name(call->coll));
    trl_sched_phase(s, phase);
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
    /* A bcast's or barrier's later levels need only the data it received:
     * they never write what its sends still read (trl_sched_fence_data). */
    bool data_only = call->coll == TRL_COLL_BCAST || call->coll == TRL_COLL_BARRIER;
    if (rc == TRL_OK)
        data_only ? trl_sched_fence_data(s) : trl_sched_fence(s);
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
    hh->host_of = malloc((size_t)(p > 0 ? p : 1) * sizeof *hh->host_of);
    hh->local_of = malloc((size_t)(p > 0 ? p : 1) * sizeof *hh->local_of);
    int rc = low && order && count && hh->first && hh->rank && hh->host_of && hh->local_of
                 ? TRL_OK
                 : TRL_ERR_NOMEM;
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
            hh->host_of[r] = i;
            hh->local_of[r] = count[i] - hh->first[i];
            hh->rank[count[i]++] = r;
        }
        for (int i = 0; i < nh; i++)
            hh->most = trl_hier_host_size(hh, i) > hh->most ? trl_hier_host_size(hh, i) : hh->most;
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
    free(hh->host_of);
    free(hh->local_of);
    memset(hh, 0, sizeof *hh);
}

trl_hier_group trl_hier_host_group(const trl_hier_hosts *hh, int h, int leader)
{
    int at = hh->first[h];
    trl_hier_group g = {TRL_LEVEL_HOST, hh->first[h + 1] - at, hh->rank + at, leader, -1};
    if (h == hh->mine)
        g.me = hh->me_at - at;
    return g;
}

int trl_hier_hosts_one_each(const trl_hier_hosts *hh, bool last, trl_hier_group *g)
{
    *g = (trl_hier_group){TRL_LEVEL_WORLD, hh->n, malloc((size_t)hh->n * sizeof *g->ranks), 0, -1};
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
        member *m = level_groups(levels, a->topo, level, part, n);
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
