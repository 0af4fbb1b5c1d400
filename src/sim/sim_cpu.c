/* A rank's CPU and ports in the simulation: steps made ready, started,
 * worked on and completed, messages sent and taken in, in the order the
 * executor (src/exec/exec_mpi.c) takes them, or under style=loggopsim in
 * LogGOPSim's. */
#include "sim/sim_cpu.h"

#include <math.h>
#include <stdbool.h>

#include "core/status.h"

static void advance(sim *S, sim_rank *R, double now);
static void push_ready(sim *S, sim_rank *R, uint32_t i);

/* Rank R enters the call at t: its first steps are ready. */
void trl__sim_enter(sim *S, sim_rank *R, double t)
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

int trl__sim_push(sim *S, double t, ev_type type, int rank, int a, int b, int c)
{
    int rc = trl__sim_heap_push(
        &S->events, (event){.t = t, .type = type, .rank = rank, .a = a, .b = b, .c = c});
    return rc ? trl__sim_fail(S, rc, "out of memory") : TRL_OK;
}

/* A stamp no event or step has had: later than every one before. */
uint64_t trl__sim_fresh_stamp(sim *S)
{
    return S->events.seq++;
}

/* The bytes a message's per-byte costs count: s, or s-1 (engine bytes=s-1). */
double trl__sim_charged(const sim *S, uint64_t bytes)
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
    trl__sim_push(S, t, EV_WAKE, R->rank, 0, 0, 0);
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
void trl__sim_complete(sim *S, sim_rank *R, uint32_t i, double now)
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
void trl__sim_transmit(sim *S, sim_rank *R, uint32_t i, double now)
{
    const trl_sim_step *x = &R->rec[i];
    const trl_link_model *l = &S->m->link[x->link];
    double dur = trl__sim_charged(S, x->bytes) * l->per_byte,
           start = fmax(now, R->port_free[x->link]);
    if (x->link == TRL_LINK_WORLD)
        start = fmax(start, S->host_out[S->topo->host[R->rank]]);
    R->port_free[x->link] = start + fmax(l->gap, dur);
    if (x->link == TRL_LINK_WORLD) {
        S->host_out[S->topo->host[R->rank]] = start + dur;
        trl__sim_push(S, start + l->latency, EV_WIRE, x->peer, R->rank, x->tag, 0);
    } else {
        trl__sim_push(S, start + l->latency + dur, EV_ARRIVE, x->peer, R->rank, x->tag, 0);
    }
    trl__sim_push(S, start + dur, EV_SENT, R->rank, (int)i, 0, 0);
    S->res->messages++;
}

/* The CPU of R works on step i for `cost` ns; work of no cost is done now. */
static void work(sim *S, sim_rank *R, uint32_t i, int what, double cost, double now);

void trl__sim_work_done(sim *S, sim_rank *R, uint32_t i, int what, double now)
{
    const trl_sim_step *x = &R->rec[i];
    R->ready_stamp = R->busy_stamp;
    if (S->lgs && what == WORK_RECV) { /* taken in: done if posted, else once posted */
        R->st[i].arrived = now;
        if (R->st[i].state == ST_POSTED)
            trl__sim_complete(S, R, i, now);
        return;
    }
    if (what != WORK_SEND || S->lgs) { /* under loggopsim a send's message left at its start */
        trl__sim_complete(S, R, i, now);
        return;
    }
    const trl_link_model *l = &S->m->link[x->link];
    if ((double)x->bytes <= l->eager)
        trl__sim_transmit(S, R, i, now);
    else /* rendezvous: ask first */
        trl__sim_push(S, now + l->latency, EV_RTS, x->peer, R->rank, x->tag, (int)i);
}

static void work(sim *S, sim_rank *R, uint32_t i, int what, double cost, double now)
{
    if (S->lgs)
        R->busy_stamp = trl__sim_fresh_stamp(S);
    if (cost <= 0) {
        trl__sim_work_done(S, R, i, what, now);
        return;
    }
    R->busy = (int32_t)i;
    R->busy_work = what;
    R->cpu_until = now + cost;
    trl__sim_push(S, now + cost, EV_CPU, R->rank, 0, 0, 0);
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
    double per_bytes = trl__sim_charged(S, R->rec[i].bytes) * l->recv_per_byte;
    R->recv_free[port_of(S, R->rec[i].link)] = now + (S->lgs ? l->recv_gap + per_bytes
                                                             : fmax(l->recv_gap, per_bytes));
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
                R->ready_stamp = trl__sim_fresh_stamp(S);
                trl__sim_complete(S, R, i, now);
            }
        } else if (st->arrived >= 0) {
            R->in[R->in_tail++] = i;
        } else if (st->rts_step >= 0) { /* a rendezvous sender waits to hear */
            trl__sim_push(S, now + S->m->link[x->link].latency, EV_CTS, x->peer, st->rts_step, 0,
                          0);
        }
        break;
    case TRL_STEP_SEND:
        if (S->lgs) { /* the port from now, the message overhead + latency away */
            const trl_link_model *l = &S->m->link[x->link];
            R->port_free[port_of(S, x->link)] = now + l->gap +
                                                trl__sim_charged(S, x->bytes) * l->per_byte;
            trl__sim_push(S, now + l->overhead + l->latency, EV_ARRIVE, x->peer, R->rank, x->tag,
                          0);
            S->res->messages++;
        }
        work(S, R, i, WORK_SEND, S->m->link[x->link].overhead, now);
        break;
    case TRL_STEP_COPY:
    case TRL_STEP_REDUCE: work(S, R, i, WORK_LOCAL, local_cost(S->m, x), now); break;
    case TRL_STEP_NOP:
        if (S->lgs) /* work of no cost, but in its turn for the CPU */
            work(S, R, i, WORK_LOCAL, 0, now);
        else
            trl__sim_complete(S, R, i, now);
        break;
    }
}

/* The messages a loggopsim rank has not taken in: a heap of receive steps
 * by their message's stamp, in R->in[0 .. in_tail). */
void trl__sim_in_push(sim_rank *R, uint32_t i)
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
            trl__sim_fail(S, rc, "writing rank %d's steps failed", R->rank);
    }
    if (now > S->res->t_end || S->res->last_rank < 0) {
        S->res->t_end = now;
        S->res->last_rank = R->rank;
    }
    trl__sim_drop(S, R, RANK_FINISHED);
}

/* R may start work now. The executor's rules: at once. LogGOPSim's: once
 * every event of this instant is in (settle_all), so that what was ready
 * first goes first whatever order the events came in. */
void trl__sim_settle(sim *S, sim_rank *R, double now)
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
void trl__sim_settle_all(sim *S, double now)
{
    for (int k = 0; k < S->ndirty; k++)
        S->is_dirty[S->dirty[k]] = 0;
    for (int k = 0; k < S->ndirty || S->choices.n > 0;) {
        bool its_turn = k >= S->ndirty;
        int r = its_turn ? trl__sim_heap_pop(&S->choices).rank : S->dirty[k++];
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
            if (trl__sim_heap_insert(&S->choices, choice))
                trl__sim_fail(S, TRL_ERR_NOMEM, "out of memory");
            continue;
        }
        if (wait < INFINITY)
            wake_at(S, R, wait, now);
        finish(S, R, now);
    }
    S->ndirty = 0;
}
