#include "mpi/context/cache.h"

#include <stdlib.h>
#include <string.h>

#include "algo/nbhd.h"
#include "algo/neighbor/neighbor_blocks.h"

bool trl_cache_init(trl_cache *k, int cap)
{
    *k = (trl_cache){
        .entries = calloc((size_t)cap, sizeof *k->entries), .cap = cap, .last_hit = -1};
    return k->entries != NULL;
}

void trl_cache_free(trl_cache *k)
{
    for (int i = 0; k->entries && i < k->cap; i++) {
        if (k->entries[i].valid)
            trl_sched_free(&k->entries[i].sched);
        free(k->entries[i].vec);
    }
    free(k->entries);
    k->entries = NULL;
}

/* The per-rank arrays of a call, in a fixed order, and their lengths:
 * size entries, but size x size for the matrix of send counts an alltoallv
 * or alltoallw algorithm that needs all counts gets in a->counts. */
static int vectors(const trl_coll_args *a, int size, const size_t *out[6], size_t len[6])
{
    const size_t *all[6] = {a->counts,      a->displs,      a->send_counts,
                            a->send_displs, a->recv_counts, a->recv_displs};
    bool matrix = a->coll == TRL_COLL_ALLTOALLV || a->coll == TRL_COLL_ALLTOALLW;
    /* A neighbourhood call's send arrays have an entry per out-edge, its
     * receive arrays one per in-edge. */
    const trl_nbhd *g = trl_coll_is_neighbor(a->coll) ? a->nbhd : NULL;
    int n = 0;
    for (int i = 0; i < 6; i++)
        if (all[i]) {
            len[n] = (size_t)size * (i == 0 && matrix ? (size_t)size : 1);
            if (g && i == 0) /* every edge's size */
                len[n] = trl_nb_edges(g);
            else if (g && i >= 4)
                len[n] = (size_t)trl_nbhd_indegree(g, a->rank);
            else if (g)
                len[n] = a->coll == TRL_COLL_NEIGHBOR_ALLGATHER ||
                                 a->coll == TRL_COLL_NEIGHBOR_ALLGATHERV
                             ? 1
                             : (size_t)trl_nbhd_outdegree(g, a->rank);
            out[n++] = all[i];
        }
    return n;
}

static bool same_key(const trl_cache_entry *e, const trl_coll_args *a, int size, unsigned rules)
{
    if (!e->valid || e->coll != a->coll || e->root != a->root || e->count != a->count ||
        e->elem_size != a->elem_size || e->commutative != a->commutative ||
        e->in_place != a->in_place || e->direct_apart != a->direct_apart || e->call != a->call ||
        e->rules != rules)
        return false;
    const size_t *v[6];
    size_t len[6], at = 0;
    int n = vectors(a, size, v, len);
    for (int i = 0; i < n; i++) {
        if (len[i] == 0) /* v[i] and e->vec may be NULL, which memcmp must not get */
            continue;
        if (at + len[i] > e->nvec || memcmp(e->vec + at, v[i], len[i] * sizeof *e->vec))
            return false;
        at += len[i];
    }
    return at == e->nvec;
}

const trl_cache_entry *trl_cache_find(trl_cache *k, const trl_coll_args *a, int size,
                                      unsigned rules)
{
    for (int pass = 0; pass < 2; pass++) {
        int from = pass == 0 ? k->last_hit : 0, to = pass == 0 ? k->last_hit + 1 : k->cap;
        for (int i = from < 0 ? 0 : from; i < to; i++) {
            if (same_key(&k->entries[i], a, size, rules)) {
                k->last_hit = i;
                return &k->entries[i];
            }
        }
        if (k->last_hit < 0)
            break;
    }
    return NULL;
}

bool trl_cache_key_arrays(const trl_coll_args *a, int size, size_t **vec, size_t *nvec)
{
    const size_t *v[6];
    size_t len[6];
    int n = vectors(a, size, v, len);
    *vec = NULL;
    *nvec = 0;
    for (int i = 0; i < n; i++)
        *nvec += len[i];
    if (!*nvec)
        return true;
    *vec = malloc(*nvec * sizeof **vec);
    if (!*vec)
        return false;
    size_t at = 0;
    for (int i = 0; i < n; at += len[i++])
        memcpy(*vec + at, v[i], len[i] * sizeof **vec);
    return true;
}

trl_cache_entry *trl_cache_claim(trl_cache *k, bool *transient)
{
    /* Evict round-robin, passing over entries in use (an op in flight, a
     * persistent request): the cache is bounded whatever a program does.
     * With every entry in use, the entry lives outside the cache until its
     * user is done with it. */
    trl_cache_entry *e = NULL;
    for (int i = 0; i < k->cap && !e; i++) {
        trl_cache_entry *cand = &k->entries[(k->next + i) % k->cap];
        if (cand->pins == 0) {
            k->next = (k->next + i) % k->cap;
            e = cand;
        }
    }
    *transient = !e;
    if (*transient) {
        e = calloc(1, sizeof *e);
        if (!e)
            return NULL;
    }
    if (e->valid)
        trl_sched_free(&e->sched);
    free(e->vec);
    e->vec = NULL; /* a build that fails leaves the entry empty */
    e->nvec = 0;
    e->valid = false;
    k->gen++; /* a memo may point at it (trl_move_memo) */
    return e;
}

void trl_cache_fill(trl_cache_entry *e, const trl_coll_args *a, unsigned rules, bool transient,
                    size_t *vec, size_t nvec, const trl_algo *algo, trl_sched sched)
{
    *e = (trl_cache_entry){.coll = a->coll,
                           .root = a->root,
                           .count = a->count,
                           .elem_size = a->elem_size,
                           .commutative = a->commutative,
                           .in_place = a->in_place,
                           .direct_apart = a->direct_apart,
                           .call = a->call,
                           .rules = rules,
                           .valid = true,
                           .tag_class = a->inter && trl_coll_is_rooted(a->coll) ? 1 + a->root : 0,
                           .transient = transient,
                           .vec = vec,
                           .nvec = nvec,
                           .algo = algo,
                           .sched = sched,
                           .rule_bytes = trl_coll_rule_bytes(a)};
}

void trl_cache_filled(trl_cache *k, bool transient)
{
    if (transient)
        return;
    k->last_hit = k->next;
    k->next = (k->next + 1) % k->cap;
}

trl_cache_entry *trl_cache_pin(const trl_cache_entry *e)
{
    trl_cache_entry *w = (trl_cache_entry *)e; /* the cache's own, or transient */
    w->pins++;
    return w;
}

static void entry_free(trl_cache_entry *e)
{
    if (e->valid)
        trl_sched_free(&e->sched);
    free(e->vec);
    free(e);
}

void trl_cache_unpin(trl_cache_entry *e)
{
    if (--e->pins > 0 || !e->transient)
        return;
    entry_free(e);
}

void trl_cache_drop(trl_cache_entry *e)
{
    e->transient = true;
    if (e->pins == 0)
        entry_free(e);
}
