/* The simulation of one call (docs/simulate.md): the ranks enter in time
 * order, and the events (sim_state.h) are handled in time order, each
 * moving a rank's CPU and ports on (sim_cpu.c), until every rank is done
 * or the run fails. Ranks are built when they are first needed and dropped
 * when done (sim_state.c). */
#define _GNU_SOURCE /* qsort_r */
#include "sim/sim.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "sched/sched.h"
#include "sim/sim_cpu.h"
#include "sim/sim_state.h"
#include "topo/topo.h"

static double entry_time(const sim *S, int r)
{
    return S->c->enter ? S->c->enter[r] : 0.0;
}

static sim_rank *rank_of(sim *S, int r)
{
    uint8_t state = S->rank_state[r];
    if (state == RANK_UNBUILT || state == RANK_DORMANT) {
        S->rank[r] = trl__sim_build(S, r);
        if (!S->rank[r])
            return NULL;
        S->rank_state[r] = RANK_ALIVE;
        if (state == RANK_UNBUILT)
            S->res->steps += S->rank[r]->nsteps;
        if (state == RANK_DORMANT) /* it entered before: replay that */
            trl__sim_enter(S, S->rank[r], entry_time(S, r));
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

/* The receive step of rank `to` that a message from `from` with `tag`
 * matches, or a failure. */
static int32_t matching(sim *S, sim_rank **R, int to, int from, int tag)
{
    if (S->rank_state[to] == RANK_FINISHED) {
        trl__sim_fail(S, TRL_ERR_MISMATCH,
                      "rank %d sends rank %d a message (tag %d) after it finished", from, to, tag);
        return -1;
    }
    *R = rank_of(S, to);
    if (!*R)
        return -1;
    int32_t i = trl__sim_find_recv(*R, from, tag);
    if (i < 0)
        trl__sim_fail(S, TRL_ERR_MISMATCH,
                      "rank %d sends rank %d a message (tag %d) it never receives", from, to, tag);
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
            S->entry_stamp = trl__sim_fresh_stamp(S);
        }
        if (!(R = rank_of(S, e->rank)))
            return;
        trl__sim_enter(S, R, now);
        if (waits_only(R)) {
            trl__sim_drop(S, R, RANK_DORMANT);
            return;
        }
        break;
    case EV_CPU:
        R = S->rank[e->rank];
        i = R->busy;
        R->busy = -1;
        trl__sim_work_done(S, R, (uint32_t)i, R->busy_work, now);
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
        double dur = trl__sim_charged(S, R->rec[i].bytes) * S->m->link[TRL_LINK_WORLD].per_byte;
        double *in = &S->host_in[S->topo->host[e->rank]];
        *in = fmax(now + dur, *in + dur);
        trl__sim_push(S, *in, EV_ARRIVE, e->rank, e->a, e->b, 0);
        return;
    }
    case EV_ARRIVE:
        if ((i = matching(S, &R, e->rank, e->a, e->b)) < 0)
            return;
        if (S->lgs) { /* to be taken in, posted or not, in the order sent */
            R->stamp[i] = e->seq;
            trl__sim_in_push(R, (uint32_t)i);
            break;
        }
        R->st[i].arrived = now;
        if (R->st[i].state == ST_POSTED)
            R->in[R->in_tail++] = (uint32_t)i;
        break;
    case EV_SENT:
        R = S->rank[e->rank];
        trl__sim_complete(S, R, (uint32_t)e->a, now);
        break;
    case EV_RTS:
        if ((i = matching(S, &R, e->rank, e->a, e->b)) < 0)
            return;
        R->st[i].rts_step = e->c;
        if (R->st[i].state == ST_POSTED)
            trl__sim_push(S, now + S->m->link[R->rec[i].link].latency, EV_CTS, e->a, e->c, 0, 0);
        return;
    case EV_CTS: trl__sim_transmit(S, S->rank[e->rank], (uint32_t)e->a, now); return;
    }
    trl__sim_settle(S, R, now);
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
    sim S = {.c = c,
             .m = c->model,
             .topo = c->args.topo,
             .p = p,
             .res = res,
             .lgs = c->model->style == TRL_ENGINE_LOGGOPSIM,
             .entry_at = NAN};
    trl_topo single = {0};
    if (!S.topo) { /* one host; args.topo stays NULL, as builders see it in a run */
        if (trl_topo_single_host(p, &single))
            return trl__sim_fail(&S, TRL_ERR_NOMEM, "out of memory");
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
        trl__sim_fail(&S, TRL_ERR_NOMEM, "out of memory");
    for (int l = 0; S.lgs && l < TRL_LINK_COUNT; l++)
        if (isfinite(c->model->link[l].eager))
            trl__sim_fail(&S, TRL_ERR_INVALID,
                          "style=loggopsim sends every message eager, but %s has "
                          "eager=%.0f",
                          trl_link_name((trl_link)l), c->model->link[l].eager);
    /* The unnamed phase is index 0 everywhere. */
    trl__sim_intern(&S, "");
    /* Entries come from a list in time order rather than the heap (a
     * million of them would make every heap operation slower); at equal
     * times they go before the other events, as if pushed first. */
    int *order = NULL;
    if (c->enter && S.status == TRL_OK) {
        order = malloc((size_t)p * sizeof *order);
        if (!order)
            trl__sim_fail(&S, TRL_ERR_NOMEM, "out of memory");
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
            e = trl__sim_heap_pop(&S.events);
        }
        res->events++;
        handle(&S, &e);
        if (S.ndirty) { /* the CPUs choose once this instant's events are all in */
            double later = next < p ? entry_time(&S, order ? order[next] : next) : INFINITY;
            if (S.events.n > 0)
                later = fmin(later, S.events.v[0].t);
            if (later > e.t)
                trl__sim_settle_all(&S, e.t);
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
        trl__sim_fail(&S, TRL_ERR_MISMATCH,
                      "deadlock: rank %d never finishes (step l%u, %s %d, not done)", r, k + 1,
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
