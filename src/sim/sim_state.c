/* The simulator's state: the queue of events, the ranks it holds (each
 * rank's schedule built compact when it is needed, dropped when done), the
 * phase names, and the first failure. */
#include "sim/sim_state.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

static bool before(const event *x, const event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/* Add e as it is (its seq kept). */
int trl__sim_heap_insert(heap *h, event e)
{
    if (h->n == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 1024;
        event *v = realloc(h->v, cap * sizeof *v);
        if (!v)
            return TRL_ERR_NOMEM;
        h->v = v;
        h->cap = cap;
    }
    size_t i = h->n++;
    while (i > 0 && before(&e, &h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = e;
    return TRL_OK;
}

/* Add e after every event added before it at its time. */
int trl__sim_heap_push(heap *h, event e)
{
    e.seq = h->seq++;
    return trl__sim_heap_insert(h, e);
}

event trl__sim_heap_pop(heap *h)
{
    event top = h->v[0], last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && before(&h->v[c + 1], &h->v[c]))
            c++;
        if (!before(&h->v[c], &last))
            break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n)
        h->v[i] = last;
    return top;
}

int trl__sim_fail(sim *S, int status, const char *fmt, ...)
{
    if (S->status == TRL_OK) {
        S->status = status;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(S->res->why, sizeof S->res->why, fmt, ap);
        va_end(ap);
    }
    return status;
}

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The global index of a phase name, added if new. */
int trl__sim_intern(sim *S, const char *name)
{
    if (2 * (uint32_t)(S->nnames + 1) > S->name_mask + 1) {
        uint32_t cap = S->name_mask ? 2 * (S->name_mask + 1) : 64;
        int32_t *at = malloc(cap * sizeof *at);
        char **names = realloc(S->names, cap * sizeof *names);
        if (!at || !names) {
            free(at);
            if (names)
                S->names = names;
            return trl__sim_fail(S, TRL_ERR_NOMEM, "out of memory");
        }
        S->names = names;
        for (uint32_t i = 0; i < cap; i++)
            at[i] = -1;
        for (int i = 0; i < S->nnames; i++) {
            uint32_t j = hash_str(names[i]) & (cap - 1);
            while (at[j] >= 0)
                j = (j + 1) & (cap - 1);
            at[j] = i;
        }
        free(S->name_at);
        S->name_at = at;
        S->name_mask = cap - 1;
    }
    uint32_t j = hash_str(name) & S->name_mask;
    for (; S->name_at[j] >= 0; j = (j + 1) & S->name_mask)
        if (!strcmp(S->names[S->name_at[j]], name))
            return S->name_at[j];
    if (S->nnames > UINT16_MAX)
        return trl__sim_fail(S, TRL_ERR_INVALID, "more than %d phase names", UINT16_MAX);
    char *copy = strdup(name);
    if (!copy)
        return trl__sim_fail(S, TRL_ERR_NOMEM, "out of memory");
    S->names[S->nnames] = copy;
    S->name_at[j] = S->nnames;
    return S->nnames++;
}

static uint32_t recv_key(int peer, int tag)
{
    return (uint32_t)peer * 2654435761u ^ (uint32_t)tag * 40503u;
}

int32_t trl__sim_find_recv(const sim_rank *R, int peer, int tag)
{
    for (uint32_t j = recv_key(peer, tag) & R->recv_mask; R->recv_at[j] >= 0;
         j = (j + 1) & R->recv_mask) {
        const trl_sim_step *x = &R->rec[R->recv_at[j]];
        if (x->peer == peer && x->tag == tag)
            return R->recv_at[j];
    }
    return -1;
}

static size_t round8(size_t n)
{
    return (n + 7) & ~(size_t)7;
}

/* Build rank r's schedule and keep it compact. */
sim_rank *trl__sim_build(sim *S, int r)
{
    trl_coll_args a = S->c->args;
    a.rank = r;
    a.memo = S->memo;
    trl_sched s;
    int rc = trl_algo_build(S->c->algo, &a, &s);
    if (rc) {
        trl__sim_fail(S, rc, "%s %s cannot build the schedule of rank %d of %d: %s",
                      trl_coll_name(a.coll), S->c->algo->name, r, a.size, trl_status_str(rc));
        return NULL;
    }
    uint32_t n = (uint32_t)s.nsteps, nrecv = 0;
    for (uint32_t i = 0; i < n; i++)
        nrecv += s.steps[i].kind == TRL_STEP_RECV;
    uint32_t cap = 1;
    while (cap < 2 * nrecv)
        cap *= 2;
    size_t size = round8(sizeof(sim_rank)) + round8(n * sizeof(trl_sim_step)) +
                  round8(n * sizeof(step_state)) + round8(s.ndeps * sizeof(uint32_t)) +
                  4 * round8(n * sizeof(uint32_t)) + round8(cap * sizeof(int32_t));
    if (S->lgs)
        size += round8(n * sizeof(uint64_t)) + round8(n * sizeof(uint32_t));
    char *block = malloc(size);
    int *global = malloc((s.nphases ? s.nphases : 1) * sizeof *global);
    if (!block || !global) {
        free(block);
        free(global);
        trl_sched_free(&s);
        trl__sim_fail(S, TRL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    sim_rank *R = (sim_rank *)block;
    char *at = block + round8(sizeof *R);
#define CARVE(ptr, count)                                                                          \
    do {                                                                                           \
        (ptr) = (void *)at;                                                                        \
        at += round8((count) * sizeof *(ptr));                                                     \
    } while (0)
    *R = (sim_rank){.rank = r,
                    .busy = -1,
                    .wake_at = -1,
                    .nsteps = n,
                    .nroots = (uint32_t)s.nroots,
                    .recv_mask = cap - 1,
                    .bytes = size};
    CARVE(R->rec, n);
    CARVE(R->st, n);
    CARVE(R->succ, s.ndeps);
    CARVE(R->roots, n);
    CARVE(R->ready, n);
    CARVE(R->in, n);
    CARVE(R->recv_at, cap);
    if (S->lgs) {
        CARVE(R->stamp, n);
        CARVE(R->local, n);
    }
#undef CARVE
    for (int i = 0; i < s.nphases; i++)
        global[i] = trl__sim_intern(S, s.phase_names[i]);
    for (uint32_t i = 0; i < n; i++) {
        const trl_step *x = &s.steps[i];
        bool msg = x->kind == TRL_STEP_SEND || x->kind == TRL_STEP_RECV;
        R->rec[i] = (trl_sim_step){
            .t_ready = -1,
            .t_posted = -1,
            .t_done = -1,
            .bytes = (uint64_t)x->count * a.elem_size,
            .step = (int32_t)i,
            .peer = msg ? x->peer : -1,
            .tag = msg ? x->tag : -1,
            .after = -1,
            .phase = (uint16_t)(global[x->phase] > 0 ? global[x->phase] : 0),
            .kind = (uint8_t)x->kind,
            .link = (uint8_t)(msg ? trl_link_between(S->topo, r, x->peer) : TRL_LINK_COUNT)};
        R->st[i] = (step_state){
            .arrived = -1, .waiting = x->ndeps, .succ_first = s.succ_first[i], .rts_step = -1};
    }
    memcpy(R->succ, s.succ, s.ndeps * sizeof *R->succ);
    memcpy(R->roots, s.roots, s.nroots * sizeof *R->roots);
    for (uint32_t j = 0; j < cap; j++)
        R->recv_at[j] = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (R->rec[i].kind != TRL_STEP_RECV)
            continue;
        uint32_t j = recv_key(R->rec[i].peer, R->rec[i].tag) & R->recv_mask;
        while (R->recv_at[j] >= 0)
            j = (j + 1) & R->recv_mask;
        R->recv_at[j] = (int32_t)i;
    }
    R->nsucc = (uint32_t)s.ndeps; /* where the last step's successors end */
    free(global);
    trl_sched_free(&s);
    S->alive++;
    S->alive_bytes += size;
    if (S->alive > S->res->peak_ranks)
        S->res->peak_ranks = S->alive;
    if (S->alive_bytes > S->res->peak_bytes)
        S->res->peak_bytes = S->alive_bytes;
    return R;
}

void trl__sim_drop(sim *S, sim_rank *R, uint8_t state)
{
    S->alive--;
    S->alive_bytes -= R->bytes;
    S->rank[R->rank] = NULL;
    S->rank_state[R->rank] = state;
    free(R);
}
