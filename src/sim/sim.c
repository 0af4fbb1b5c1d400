#define _GNU_SOURCE /* qsort_r */
#include "sim/sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "sched/sched.h"
#include "topo/topo.h"

/* ---- events ---------------------------------------------------------- */

typedef enum {
    EV_ENTER,  /* rank enters the call */
    EV_CPU,    /* rank's CPU ends the work it was busy with */
    EV_WIRE,   /* a message's first byte reaches the receiving host (across hosts) */
    EV_ARRIVE, /* a message is all in at its receiver: rank, a = sender, b = tag */
    EV_SENT,   /* a send's last byte has left: rank, a = step */
    EV_RTS,    /* rendezvous: the receiver hears of a send: rank, a = sender, b = tag, c = step */
    EV_CTS,    /* rendezvous: the sender hears the receive is posted: rank, a = step */
    EV_WAKE,   /* a port the rank's CPU waits for is free: rank */
} ev_type;

typedef struct {
    double t;
    uint64_t seq; /* ties in time go in the order the events were made */
    int32_t type, rank, a, b, c;
} event;

typedef struct {
    event *v;
    size_t n, cap;
    uint64_t seq;
} heap;

static bool before(const event *x, const event *y)
{
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/* Add e as it is (its seq kept). */
static int heap_insert(heap *h, event e)
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
static int heap_push(heap *h, event e)
{
    e.seq = h->seq++;
    return heap_insert(h, e);
}

static event heap_pop(heap *h)
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

/* ---- ranks ----------------------------------------------------------- */

enum { ST_WAITING, ST_READY, ST_POSTED, ST_DONE };
enum { WORK_SEND, WORK_LOCAL, WORK_RECV };

typedef struct {
    double arrived;      /* recv: when its message was all in (< 0: not yet); under
                          * style=loggopsim, when it was taken in */
    uint32_t waiting;    /* dependencies not done */
    uint32_t succ_first; /* its successors: succ[succ_first .. next's succ_first) */
    int32_t rts_step;    /* recv by rendezvous: the sender's step, once heard of (-1) */
    uint8_t state;
} step_state;

/* A rank holding its schedule, all in one allocation. */
typedef struct {
    int rank;
    bool entered, finished;
    double t_enter;
    double cpu_until;                /* when its CPU ends the current work */
    double port_free[TRL_LINK_COUNT]; /* when each of its ports may start a message */
    double recv_free[TRL_LINK_COUNT]; /* when each may start taking one in */
    double wake_at;                  /* a wake-up (EV_WAKE) is due then; < 0: none */
    int32_t busy;                    /* the step whose work the CPU is doing, -1: idle */
    int busy_work;                   /* WORK_* */
    uint32_t nsteps, ndone, nroots, nsucc;
    trl_sim_step *rec;
    step_state *st;
    uint32_t *succ, *roots;
    /* The executor's two FIFO queues (src/exec/exec_mpi.c): receives from
     * the top down, the rest from the bottom up; a step is queued once. */
    uint32_t *ready;
    uint32_t recv_head, recv_tail, other_head, other_tail;
    uint32_t *in; /* receives whose message is in, waiting for the CPU: a FIFO; under
                   * style=loggopsim, messages not yet taken in, a heap by stamp */
    uint32_t in_head, in_tail;
    /* style=loggopsim only (else NULL): when each step became ready or its
     * message was sent, as a stamp (the events' sequence: smaller, sooner),
     * and the local steps' own FIFO (sends keep the bottom of `ready`). */
    uint64_t *stamp;
    uint32_t *local;
    uint32_t local_head, local_tail;
    uint64_t ready_stamp; /* the stamp of steps made ready now */
    uint64_t busy_stamp;  /* the stamp the CPU's current work started at */
    int32_t *recv_at; /* receive steps by (peer, tag): open addressing */
    uint32_t recv_mask;
    size_t bytes;
} sim_rank;

/* A rank whose schedule starts with receives only is dormant after it
 * enters: it holds nothing, and is built again (and its entry replayed,
 * which only posts those receives) when its first message comes. In a
 * broadcast over a million ranks that keeps only the ranks in the thick of
 * it in memory. */
enum { RANK_UNBUILT, RANK_ALIVE, RANK_DORMANT, RANK_FINISHED };

typedef struct {
    const trl_sim_call *c;
    const trl_model *m;
    const trl_topo *topo;
    int p;
    sim_rank **rank;
    uint8_t *rank_state;
    double *host_out, *host_in; /* when each host's link is free, out and in */
    heap events;
    bool lgs;             /* style=loggopsim */
    double entry_at;      /* the entries stamped with entry_stamp were at this time */
    uint64_t entry_stamp;
    int *dirty;           /* style=loggopsim: ranks whose CPU must choose once this */
    uint8_t *is_dirty;    /* instant's events are all in */
    int ndirty;
    heap choices;         /* style=loggopsim: those ranks by their choice's stamp (as t) */
    trl_build_memo *memo;
    trl_sim_result *res;
    size_t alive, alive_bytes;
    /* Phase names of every rank, interned: open addressing over names. */
    char **names;
    int nnames;
    int32_t *name_at;
    uint32_t name_mask;
    int status;
} sim;

static int __attribute__((format(printf, 3, 4))) fail(sim *S, int status, const char *fmt, ...)
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
static int intern(sim *S, const char *name)
{
    if (2 * (uint32_t)(S->nnames + 1) > S->name_mask + 1) {
        uint32_t cap = S->name_mask ? 2 * (S->name_mask + 1) : 64;
        int32_t *at = malloc(cap * sizeof *at);
        char **names = realloc(S->names, cap * sizeof *names);
        if (!at || !names) {
            free(at);
            if (names)
                S->names = names;
            return fail(S, TRL_ERR_NOMEM, "out of memory");
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
        return fail(S, TRL_ERR_INVALID, "more than %d phase names", UINT16_MAX);
    char *copy = strdup(name);
    if (!copy)
        return fail(S, TRL_ERR_NOMEM, "out of memory");
    S->names[S->nnames] = copy;
    S->name_at[j] = S->nnames;
    return S->nnames++;
}

static uint32_t recv_key(int peer, int tag)
{
    return (uint32_t)peer * 2654435761u ^ (uint32_t)tag * 40503u;
}

static int32_t find_recv(const sim_rank *R, int peer, int tag)
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
static sim_rank *build(sim *S, int r)
{
    trl_coll_args a = S->c->args;
    a.rank = r;
    a.memo = S->memo;
    trl_sched s;
    int rc = trl_algo_build(S->c->algo, &a, &s);
    if (rc) {
        fail(S, rc, "%s %s cannot build the schedule of rank %d of %d: %s",
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
        fail(S, TRL_ERR_NOMEM, "out of memory");
        return NULL;
    }
    sim_rank *R = (sim_rank *)block;
    char *at = block + round8(sizeof *R);
#define CARVE(ptr, count)                           \
    do {                                            \
        (ptr) = (void *)at;                         \
        at += round8((count) * sizeof *(ptr));      \
    } while (0)
    *R = (sim_rank){.rank = r, .busy = -1, .wake_at = -1, .nsteps = n,
                    .nroots = (uint32_t)s.nroots, .recv_mask = cap - 1, .bytes = size};
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
        global[i] = intern(S, s.phase_names[i]);
    for (uint32_t i = 0; i < n; i++) {
        const trl_step *x = &s.steps[i];
        bool msg = x->kind == TRL_STEP_SEND || x->kind == TRL_STEP_RECV;
        R->rec[i] = (trl_sim_step){
            .t_ready = -1, .t_posted = -1, .t_done = -1,
            .bytes = (uint64_t)x->count * a.elem_size, .step = (int32_t)i,
            .peer = msg ? x->peer : -1, .tag = msg ? x->tag : -1, .after = -1,
            .phase = (uint16_t)(global[x->phase] > 0 ? global[x->phase] : 0),
            .kind = (uint8_t)x->kind,
            .link = (uint8_t)(msg ? trl_link_between(S->topo, r, x->peer) : TRL_LINK_COUNT)};
        R->st[i] = (step_state){.arrived = -1, .waiting = x->ndeps,
                                .succ_first = s.succ_first[i], .rts_step = -1};
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

static double entry_time(const sim *S, int r)
{
    return S->c->enter ? S->c->enter[r] : 0.0;
}

static void advance(sim *S, sim_rank *R, double now);
static void push_ready(sim *S, sim_rank *R, uint32_t i);

/* Rank R enters the call at t: its first steps are ready. */
static void enter(sim *S, sim_rank *R, double t)
{
    R->entered = true;
    R->t_enter = t;
    R->ready_stamp = S->entry_stamp;
    for (uint32_t k = 0; k < R->nroots; k++) { /* in order, as the executor queues them */
        R->rec[R->roots[k]].t_ready = t;
        push_ready(S, R, R->roots[k]);
    }
    if (R->nsteps == 0)
        R->finished = true;
    if (!S->lgs) /* under loggopsim, once this instant's events are all in (settle) */
        advance(S, R, t);
}

static sim_rank *rank_of(sim *S, int r)
{
    uint8_t state = S->rank_state[r];
    if (state == RANK_UNBUILT || state == RANK_DORMANT) {
        S->rank[r] = build(S, r);
        if (!S->rank[r])
            return NULL;
        S->rank_state[r] = RANK_ALIVE;
        if (state == RANK_UNBUILT)
            S->res->steps += S->rank[r]->nsteps;
        if (state == RANK_DORMANT) /* it entered before: replay that */
            enter(S, S->rank[r], entry_time(S, r));
    }
    return S->rank[r];
}

/* Whether R, just entered, only waits for messages that have not come. */
static bool waits_only(const sim_rank *R)
{
    if (R->finished || R->busy >= 0 || R->ndone > 0 || R->in_head != R->in_tail)
        return false;
    for (uint32_t i = 0; i < R->nsteps; i++) {
        const step_state *st = &R->st[i];
        if (st->arrived >= 0 || st->rts_step >= 0 ||
            (st->state != ST_WAITING && R->rec[i].kind != TRL_STEP_RECV))
            return false;
    }
    return true;
}

static void drop(sim *S, sim_rank *R, uint8_t state)
{
    S->alive--;
    S->alive_bytes -= R->bytes;
    S->rank[R->rank] = NULL;
    S->rank_state[R->rank] = state;
    free(R);
}

static int push(sim *S, double t, ev_type type, int rank, int a, int b, int c)
{
    int rc = heap_push(&S->events, (event){.t = t, .type = type, .rank = rank, .a = a, .b = b, .c = c});
    return rc ? fail(S, rc, "out of memory") : TRL_OK;
}

/* A stamp no event or step has had: later than every one before. */
static uint64_t fresh_stamp(sim *S)
{
    return S->events.seq++;
}

/* The bytes a message's per-byte costs count: s, or s-1 (engine bytes=s-1). */
static double charged(const sim *S, uint64_t bytes)
{
    return S->m->bytes_after_first && bytes > 0 ? (double)(bytes - 1) : (double)bytes;
}

/* The port a message of class `link` uses: one per class, or under
 * loggopsim one per rank (LogGOPSim's one network interface). */
static int port_of(const sim *S, int link)
{
    return S->lgs ? 0 : link;
}

/* R's CPU waits for a port free at t: look again then. */
static void wake_at(sim *S, sim_rank *R, double t, double now)
{
    if (R->wake_at >= now && R->wake_at <= t)
        return; /* a wake-up as early is due */
    R->wake_at = t;
    push(S, t, EV_WAKE, R->rank, 0, 0, 0);
}

static void push_ready(sim *S, sim_rank *R, uint32_t i)
{
    R->st[i].state = ST_READY;
    uint8_t kind = R->rec[i].kind;
    if (S->lgs && kind != TRL_STEP_RECV) /* a receive's stamp is its message's */
        R->stamp[i] = R->ready_stamp;
    if (kind == TRL_STEP_RECV)
        R->ready[R->nsteps - 1 - R->recv_tail++] = i;
    else if (S->lgs && kind != TRL_STEP_SEND)
        R->local[R->local_tail++] = i;
    else
        R->ready[R->other_tail++] = i;
}

/* Step i is done; the steps it frees are ready with R->ready_stamp. */
static void complete(sim *S, sim_rank *R, uint32_t i, double now)
{
    R->rec[i].t_done = now;
    R->st[i].state = ST_DONE;
    R->ndone++;
    uint32_t end = i + 1 < R->nsteps ? R->st[i + 1].succ_first : R->nsucc;
    for (uint32_t k = R->st[i].succ_first; k < end; k++) {
        uint32_t j = R->succ[k];
        if (--R->st[j].waiting == 0) {
            R->rec[j].t_ready = now;
            R->rec[j].after = (int32_t)i;
            push_ready(S, R, j);
        }
    }
    if (R->ndone == R->nsteps)
        R->finished = true;
}

/* A send's data leaves rank R's port: the send completes when its last
 * byte is out; across hosts the message also takes its turn on both hosts'
 * links. */
static void transmit(sim *S, sim_rank *R, uint32_t i, double now)
{
    const trl_sim_step *x = &R->rec[i];
    const trl_link_model *l = &S->m->link[x->link];
    double dur = charged(S, x->bytes) * l->per_byte, start = fmax(now, R->port_free[x->link]);
    if (x->link == TRL_LINK_WORLD)
        start = fmax(start, S->host_out[S->topo->host[R->rank]]);
    R->port_free[x->link] = start + fmax(l->gap, dur);
    if (x->link == TRL_LINK_WORLD) {
        S->host_out[S->topo->host[R->rank]] = start + dur;
        push(S, start + l->latency, EV_WIRE, x->peer, R->rank, x->tag, 0);
    } else {
        push(S, start + l->latency + dur, EV_ARRIVE, x->peer, R->rank, x->tag, 0);
    }
    push(S, start + dur, EV_SENT, R->rank, (int)i, 0, 0);
    S->res->messages++;
}

/* The CPU of R works on step i for `cost` ns; work of no cost is done now. */
static void work(sim *S, sim_rank *R, uint32_t i, int what, double cost, double now);

static void work_done(sim *S, sim_rank *R, uint32_t i, int what, double now)
{
    const trl_sim_step *x = &R->rec[i];
    R->ready_stamp = R->busy_stamp;
    if (S->lgs && what == WORK_RECV) { /* taken in: done if posted, else once posted */
        R->st[i].arrived = now;
        if (R->st[i].state == ST_POSTED)
            complete(S, R, i, now);
        return;
    }
    if (what != WORK_SEND || S->lgs) { /* under loggopsim a send's message left at its start */
        complete(S, R, i, now);
        return;
    }
    const trl_link_model *l = &S->m->link[x->link];
    if ((double)x->bytes <= l->eager)
        transmit(S, R, i, now);
    else /* rendezvous: ask first */
        push(S, now + l->latency, EV_RTS, x->peer, R->rank, x->tag, (int)i);
}

static void work(sim *S, sim_rank *R, uint32_t i, int what, double cost, double now)
{
    if (S->lgs)
        R->busy_stamp = fresh_stamp(S);
    if (cost <= 0) {
        work_done(S, R, i, what, now);
        return;
    }
    R->busy = (int32_t)i;
    R->busy_work = what;
    R->cpu_until = now + cost;
    push(S, now + cost, EV_CPU, R->rank, 0, 0, 0);
}

static double local_cost(const trl_model *m, const trl_sim_step *x)
{
    const trl_local_model *l = x->kind == TRL_STEP_REDUCE ? &m->reduce : &m->copy;
    return l->per_step + (double)x->bytes * l->per_byte;
}

/* R's CPU takes in the message of receive i: overhead + s recv_per_byte of
 * CPU, the receiving port held max(recv_gap, s recv_per_byte), or under
 * loggopsim recv_gap + s recv_per_byte. */
static void take_in(sim *S, sim_rank *R, uint32_t i, double now)
{
    const trl_link_model *l = &S->m->link[R->rec[i].link];
    double per_bytes = charged(S, R->rec[i].bytes) * l->recv_per_byte;
    R->recv_free[port_of(S, R->rec[i].link)] =
        now + (S->lgs ? l->recv_gap + per_bytes : fmax(l->recv_gap, per_bytes));
    work(S, R, i, WORK_RECV, l->overhead + per_bytes, now);
}

static void start(sim *S, sim_rank *R, uint32_t i, double now)
{
    trl_sim_step *x = &R->rec[i];
    step_state *st = &R->st[i];
    x->t_posted = now;
    st->state = ST_POSTED;
    switch ((trl_step_kind)x->kind) {
    case TRL_STEP_RECV:
        if (S->lgs) { /* its message taken in already: done now */
            if (st->arrived >= 0) {
                R->ready_stamp = fresh_stamp(S);
                complete(S, R, i, now);
            }
        } else if (st->arrived >= 0) {
            R->in[R->in_tail++] = i;
        } else if (st->rts_step >= 0) { /* a rendezvous sender waits to hear */
            push(S, now + S->m->link[x->link].latency, EV_CTS, x->peer, st->rts_step, 0, 0);
        }
        break;
    case TRL_STEP_SEND:
        if (S->lgs) { /* the port from now, the message overhead + latency away */
            const trl_link_model *l = &S->m->link[x->link];
            R->port_free[port_of(S, x->link)] = now + l->gap + charged(S, x->bytes) * l->per_byte;
            push(S, now + l->overhead + l->latency, EV_ARRIVE, x->peer, R->rank, x->tag, 0);
            S->res->messages++;
        }
        work(S, R, i, WORK_SEND, S->m->link[x->link].overhead, now);
        break;
    case TRL_STEP_COPY:
    case TRL_STEP_REDUCE:
        work(S, R, i, WORK_LOCAL, local_cost(S->m, x), now);
        break;
    case TRL_STEP_NOP:
        if (S->lgs) /* work of no cost, but in its turn for the CPU */
            work(S, R, i, WORK_LOCAL, 0, now);
        else
            complete(S, R, i, now);
        break;
    }
}

/* The messages a loggopsim rank has not taken in: a heap of receive steps
 * by their message's stamp, in R->in[0 .. in_tail). */
static void in_push(sim_rank *R, uint32_t i)
{
    uint32_t k = R->in_tail++;
    while (k > 0 && R->stamp[R->in[(k - 1) / 2]] > R->stamp[i]) {
        R->in[k] = R->in[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    R->in[k] = i;
}

static uint32_t in_pop(sim_rank *R)
{
    uint32_t top = R->in[0], last = R->in[--R->in_tail], k = 0;
    for (;;) {
        uint32_t c = 2 * k + 1;
        if (c >= R->in_tail)
            break;
        if (c + 1 < R->in_tail && R->stamp[R->in[c + 1]] < R->stamp[R->in[c]])
            c++;
        if (R->stamp[R->in[c]] >= R->stamp[last])
            break;
        R->in[k] = R->in[c];
        k = c;
    }
    if (R->in_tail)
        R->in[k] = last;
    return top;
}

enum { PICK_NONE, PICK_SEND, PICK_LOCAL, PICK_MESSAGE };

/* Under loggopsim, what R's free CPU serves next (PICK_*): once its ready
 * receives are posted (at no cost), what was ready first (*stamp) of the
 * next send (once the port is free), the next local step and the message
 * sent first that is not taken in (once the port is free). A send goes
 * before a local step made ready with it, as LogGOPSim orders them. With
 * nothing to serve, *wait: when a port R waits for is free (or infinity). */
static int lgs_pick(sim *S, sim_rank *R, double now, uint64_t *stamp, double *wait)
{
    while (R->recv_head < R->recv_tail && S->status == TRL_OK)
        start(S, R, R->ready[R->nsteps - 1 - R->recv_head++], now);
    int pick = PICK_NONE;
    *wait = INFINITY;
    if (R->other_head < R->other_tail) {
        if (R->port_free[0] <= now) {
            pick = PICK_SEND;
            *stamp = R->stamp[R->ready[R->other_head]];
        } else {
            *wait = R->port_free[0];
        }
    }
    if (R->local_head < R->local_tail &&
        (pick == PICK_NONE || R->stamp[R->local[R->local_head]] < *stamp)) {
        pick = PICK_LOCAL;
        *stamp = R->stamp[R->local[R->local_head]];
    }
    if (R->in_tail > 0) {
        if (R->recv_free[0] > now) {
            *wait = fmin(*wait, R->recv_free[0]);
        } else if (pick == PICK_NONE || R->stamp[R->in[0]] < *stamp) {
            pick = PICK_MESSAGE;
            *stamp = R->stamp[R->in[0]];
        }
    }
    return pick;
}

static void lgs_serve(sim *S, sim_rank *R, int pick, double now)
{
    if (pick == PICK_SEND)
        start(S, R, R->ready[R->other_head++], now);
    else if (pick == PICK_LOCAL)
        start(S, R, R->local[R->local_head++], now);
    else
        take_in(S, R, in_pop(R), now);
}

/* While the CPU is free: start every ready step (receives first, each
 * queue in the order its steps became ready, as the executor does), then
 * take in the messages that have arrived, in order, each once its
 * receiving port is free. */
static void advance(sim *S, sim_rank *R, double now)
{
    while (R->busy < 0 && R->entered && S->status == TRL_OK) {
        if (R->recv_head < R->recv_tail || R->other_head < R->other_tail) {
            uint32_t i = R->recv_head < R->recv_tail ? R->ready[R->nsteps - 1 - R->recv_head++]
                                                     : R->ready[R->other_head++];
            start(S, R, i, now);
        } else if (R->in_head != R->in_tail) {
            uint32_t i = R->in[R->in_head];
            double free_at = R->recv_free[port_of(S, R->rec[i].link)];
            if (free_at > now) {
                wake_at(S, R, free_at, now);
                break;
            }
            R->in_head++;
            take_in(S, R, i, now);
        } else {
            break;
        }
    }
}

static void finish(sim *S, sim_rank *R, double now)
{
    if (!R->finished || R->busy >= 0)
        return;
    trl_sim_rank out = {R->rank, R->t_enter, now, R->nsteps, R->rec};
    if (S->c->sink) {
        int rc = S->c->sink(S->c->ctx, &out);
        if (rc)
            fail(S, rc, "writing rank %d's steps failed", R->rank);
    }
    if (now > S->res->t_end || S->res->last_rank < 0) {
        S->res->t_end = now;
        S->res->last_rank = R->rank;
    }
    drop(S, R, RANK_FINISHED);
}

/* R may start work now. The executor's rules: at once. LogGOPSim's: once
 * every event of this instant is in (settle_all), so that what was ready
 * first goes first whatever order the events came in. */
static void settle(sim *S, sim_rank *R, double now)
{
    if (!S->lgs) {
        advance(S, R, now);
        finish(S, R, now);
    } else if (!S->is_dirty[R->rank]) {
        S->is_dirty[R->rank] = 1;
        S->dirty[S->ndirty++] = R->rank;
    }
}

/* Under loggopsim, once every event of the instant is in: the free CPUs
 * serve their choices in the order of those choices' stamps, across ranks,
 * one at a time (what LogGOPSim's event queue does with the events of an
 * instant), until every CPU is busy or has nothing to serve. */
static void settle_all(sim *S, double now)
{
    for (int k = 0; k < S->ndirty; k++)
        S->is_dirty[S->dirty[k]] = 0;
    for (int k = 0; k < S->ndirty || S->choices.n > 0;) {
        bool its_turn = k >= S->ndirty;
        int r = its_turn ? heap_pop(&S->choices).rank : S->dirty[k++];
        if (S->rank_state[r] != RANK_ALIVE || S->status != TRL_OK)
            continue;
        sim_rank *R = S->rank[r];
        if (R->busy >= 0 || !R->entered)
            continue;
        uint64_t stamp = 0;
        double wait;
        int pick = lgs_pick(S, R, now, &stamp, &wait);
        if (its_turn && pick != PICK_NONE) { /* serve it; then what is next, if still free */
            lgs_serve(S, R, pick, now);
            if (R->busy >= 0)
                continue;
            pick = lgs_pick(S, R, now, &stamp, &wait);
        }
        if (pick != PICK_NONE) { /* by stamp, then rank: LogGOPSim's order at entry */
            event choice = {.t = (double)stamp, .seq = (uint64_t)r, .rank = r};
            if (heap_insert(&S->choices, choice))
                fail(S, TRL_ERR_NOMEM, "out of memory");
            continue;
        }
        if (wait < INFINITY)
            wake_at(S, R, wait, now);
        finish(S, R, now);
    }
    S->ndirty = 0;
}

/* The receive step of rank `to` that a message from `from` with `tag`
 * matches, or a failure. */
static int32_t matching(sim *S, sim_rank **R, int to, int from, int tag)
{
    if (S->rank_state[to] == RANK_FINISHED) {
        fail(S, TRL_ERR_MISMATCH, "rank %d sends rank %d a message (tag %d) after it finished",
             from, to, tag);
        return -1;
    }
    *R = rank_of(S, to);
    if (!*R)
        return -1;
    int32_t i = find_recv(*R, from, tag);
    if (i < 0)
        fail(S, TRL_ERR_MISMATCH, "rank %d sends rank %d a message (tag %d) it never receives",
             from, to, tag);
    return i;
}

static void handle(sim *S, const event *e)
{
    double now = e->t;
    sim_rank *R = NULL;
    int32_t i;
    switch ((ev_type)e->type) {
    case EV_ENTER:
        if (S->lgs && now != S->entry_at) { /* ready at entry: before any message since */
            S->entry_at = now;
            S->entry_stamp = fresh_stamp(S);
        }
        if (!(R = rank_of(S, e->rank)))
            return;
        enter(S, R, now);
        if (waits_only(R)) {
            drop(S, R, RANK_DORMANT);
            return;
        }
        break;
    case EV_CPU:
        R = S->rank[e->rank];
        i = R->busy;
        R->busy = -1;
        work_done(S, R, (uint32_t)i, R->busy_work, now);
        break;
    case EV_WAKE:
        if (S->rank_state[e->rank] != RANK_ALIVE)
            return;
        R = S->rank[e->rank];
        if (R->wake_at == now)
            R->wake_at = -1;
        break;
    case EV_WIRE: {
        if ((i = matching(S, &R, e->rank, e->a, e->b)) < 0)
            return;
        double dur = charged(S, R->rec[i].bytes) * S->m->link[TRL_LINK_WORLD].per_byte;
        double *in = &S->host_in[S->topo->host[e->rank]];
        *in = fmax(now + dur, *in + dur);
        push(S, *in, EV_ARRIVE, e->rank, e->a, e->b, 0);
        return;
    }
    case EV_ARRIVE:
        if ((i = matching(S, &R, e->rank, e->a, e->b)) < 0)
            return;
        if (S->lgs) { /* to be taken in, posted or not, in the order sent */
            R->stamp[i] = e->seq;
            in_push(R, (uint32_t)i);
            break;
        }
        R->st[i].arrived = now;
        if (R->st[i].state == ST_POSTED)
            R->in[R->in_tail++] = (uint32_t)i;
        break;
    case EV_SENT:
        R = S->rank[e->rank];
        complete(S, R, (uint32_t)e->a, now);
        break;
    case EV_RTS:
        if ((i = matching(S, &R, e->rank, e->a, e->b)) < 0)
            return;
        R->st[i].rts_step = e->c;
        if (R->st[i].state == ST_POSTED)
            push(S, now + S->m->link[R->rec[i].link].latency, EV_CTS, e->a, e->c, 0, 0);
        return;
    case EV_CTS:
        transmit(S, S->rank[e->rank], (uint32_t)e->a, now);
        return;
    }
    settle(S, R, now);
}

static int by_entry(const void *x, const void *y, void *enter)
{
    const double *t = enter;
    int a = *(const int *)x, b = *(const int *)y;
    if (t[a] != t[b])
        return t[a] < t[b] ? -1 : 1;
    return (a > b) - (a < b);
}

int trl_sim_run(const trl_sim_call *c, trl_sim_result *res)
{
    memset(res, 0, sizeof *res);
    res->last_rank = -1;
    int p = c->args.size;
    sim S = {.c = c, .m = c->model, .topo = c->args.topo, .p = p, .res = res,
             .lgs = c->model->style == TRL_ENGINE_LOGGOPSIM, .entry_at = NAN};
    trl_topo single = {0};
    if (!S.topo) { /* one host; args.topo stays NULL, as builders see it in a run */
        if (trl_topo_single_host(p, &single))
            return fail(&S, TRL_ERR_NOMEM, "out of memory");
        S.topo = &single;
    }
    S.rank = calloc((size_t)p, sizeof *S.rank);
    S.rank_state = calloc((size_t)p, 1);
    S.host_out = calloc((size_t)S.topo->nhosts, sizeof *S.host_out);
    S.host_in = calloc((size_t)S.topo->nhosts, sizeof *S.host_in);
    S.memo = trl_build_memo_new();
    if (S.lgs) {
        S.dirty = malloc((size_t)p * sizeof *S.dirty);
        S.is_dirty = calloc((size_t)p, 1);
    }
    if (!S.rank || !S.rank_state || !S.host_out || !S.host_in || !S.memo ||
        (S.lgs && (!S.dirty || !S.is_dirty)))
        fail(&S, TRL_ERR_NOMEM, "out of memory");
    for (int l = 0; S.lgs && l < TRL_LINK_COUNT; l++)
        if (isfinite(c->model->link[l].eager))
            fail(&S, TRL_ERR_INVALID, "style=loggopsim sends every message eager, but %s has "
                 "eager=%.0f", trl_link_name((trl_link)l), c->model->link[l].eager);
    /* The unnamed phase is index 0 everywhere. */
    intern(&S, "");
    /* Entries come from a list in time order rather than the heap (a
     * million of them would make every heap operation slower); at equal
     * times they go before the other events, as if pushed first. */
    int *order = NULL;
    if (c->enter && S.status == TRL_OK) {
        order = malloc((size_t)p * sizeof *order);
        if (!order)
            fail(&S, TRL_ERR_NOMEM, "out of memory");
        for (int r = 0; order && r < p; r++)
            order[r] = r;
        if (order)
            qsort_r(order, (size_t)p, sizeof *order, by_entry, (void *)c->enter);
    }
    for (int next = 0; S.status == TRL_OK && (next < p || S.events.n > 0);) {
        event e;
        int r = next < p ? (order ? order[next] : next) : -1;
        if (r >= 0 && (S.events.n == 0 || entry_time(&S, r) <= S.events.v[0].t)) {
            e = (event){.t = entry_time(&S, r), .type = EV_ENTER, .rank = r};
            next++;
        } else {
            e = heap_pop(&S.events);
        }
        res->events++;
        handle(&S, &e);
        if (S.ndirty) { /* the CPUs choose once this instant's events are all in */
            double later = next < p ? entry_time(&S, order ? order[next] : next) : INFINITY;
            if (S.events.n > 0)
                later = fmin(later, S.events.v[0].t);
            if (later > e.t)
                settle_all(&S, e.t);
        }
    }
    free(order);
    for (int r = 0; r < p && S.status == TRL_OK; r++) {
        if (S.rank_state[r] == RANK_FINISHED)
            continue;
        const sim_rank *R = S.rank[r];
        uint32_t k = 0;
        while (R && k < R->nsteps && R->st[k].state == ST_DONE)
            k++;
        fail(&S, TRL_ERR_MISMATCH, "deadlock: rank %d never finishes (step l%u, %s %d, not done)",
             r, k + 1,
             R && k < R->nsteps ? (R->rec[k].kind == TRL_STEP_SEND   ? "send to"
                                   : R->rec[k].kind == TRL_STEP_RECV ? "recv from"
                                                                     : "local,")
                                : "?",
             R && k < R->nsteps ? R->rec[k].peer : -1);
    }
    for (int r = 0; S.rank && r < p; r++)
        free(S.rank[r]);
    free(S.rank);
    free(S.rank_state);
    free(S.host_out);
    free(S.host_in);
    free(S.dirty);
    free(S.is_dirty);
    free(S.choices.v);
    free(S.events.v);
    free(S.name_at);
    trl_build_memo_free(S.memo);
    trl_topo_free(&single);
    res->phase_names = S.names;
    res->nphases = S.nnames;
    return S.status;
}

void trl_sim_result_free(trl_sim_result *res)
{
    for (int i = 0; i < res->nphases; i++)
        free(res->phase_names[i]);
    free(res->phase_names);
    res->phase_names = NULL;
    res->nphases = 0;
}
