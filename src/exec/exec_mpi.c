#define _GNU_SOURCE
#include "exec/exec_mpi.h"
#include "core/settings.h"
#include "exec/complete.h"
#include "exec/typeinfo.h"
#include "exec/mpi_impl.h"
#include "reduce/reduce.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* Polls without progress between two drains of the rings (trl_shm_drain),
 * and between two turns of MPI's progress engine while waiting only on
 * shared memory. */
enum { SHM_DRAIN_EVERY = 1024, SHM_MPI_EVERY = 64 };

/* How long every in-flight slot may stay taken, with steps queued and
 * nothing finishing, before the window doubles (looked at every
 * STALL_POLLS idle polls). The window bounds the work of finding
 * completions; it must never be what a schedule waits on: two ranks whose
 * windows are full of receives, each waiting for a send the other has
 * queued behind them, would wait forever. Growing on a stall keeps every
 * schedule that runs with all its ready steps posted running here too;
 * a peer descheduled a few time slices (ranks share cores) is no stall. */
enum { STALL_POLLS = 256 };
static const double STALL_SECONDS = 0.05;

size_t trl_exec_window(void)
{
    static size_t window;
    if (!window)
        window = (size_t)trl_setting_count("TRELLIS_EXEC_WINDOW", 64);
    return window;
}

/* In integers: a NULL (or MPI_BOTTOM) base plus an offset is undefined in C. */
static inline void *at(const trl_exec *x, trl_ref r)
{
    return (char *)((uintptr_t)x->base[r.buf] + (uintptr_t)((MPI_Aint)r.off * x->extent));
}

/* A traced execution's times (trl_exec_trace): which of ready, posted, done. */
enum { TRACE_READY, TRACE_POSTED, TRACE_DONE };
/* Whether this call is traced; constant false without the tracer's hooks
 * (cmake -DTRELLIS_TRACING=OFF, a build to measure what they cost). */
#ifdef TRL_NO_TRACE
#define TRACING(x) ((void)(x), false)
#else
#define TRACING(x) __builtin_expect((x)->call.trace != NULL, 0)
#endif
static inline void traced(const trl_exec *x, uint32_t i, int which)
{
    if (TRACING(x))
        x->call.trace->t[3 * (size_t)i + which] = trl_now_ns();
}

/* Queue a step whose dependencies are all done; `after`: the step whose
 * completion did it (-1: none). */
static inline void make_ready(trl_exec *x, uint32_t i, int32_t after)
{
    if (TRACING(x)) {
        traced(x, i, TRACE_READY);
        x->call.trace->after[i] = after;
    }
    if (x->s->steps[i].kind == TRL_STEP_RECV)
        x->m->recv_q[x->recv_tail++] = i;
    else
        x->m->other_q[x->other_tail++] = i;
}

static inline void complete(trl_exec *x, uint32_t i)
{
    const trl_sched *s = x->s;
    x->done++;
    x->idle = 0;
    traced(x, i, TRACE_DONE);
    for (uint32_t k = s->succ_first[i]; k < s->succ_first[i + 1]; k++)
        if (--x->m->waiting[s->succ[k]] == 0)
            make_ready(x, s->succ[k], (int32_t)i);
}

/* Copy count elements between two buffers of the call's datatype. A
 * contiguous type is one memcpy; any other goes through the MPI library,
 * which knows the type map and leaves the gaps alone. */
static int copy(const trl_exec *x, const void *src, void *dst, size_t count)
{
    if (src == dst || count == 0)
        return MPI_SUCCESS;
    if (x->contiguous) {
        memmove(dst, src, count * (size_t)x->type_size);
        return MPI_SUCCESS;
    }
    /* To itself on the private communicator: schedules never message their
     * own rank there, so nothing else can match it (MPI_COMM_SELF could
     * match a receive the program posted on it). */
    int self;
    PMPI_Comm_rank(x->call.comm, &self);
    return PMPI_Sendrecv(src, (int)count, x->call.dtype, self, 0, dst, (int)count, x->call.dtype,
                         self, 0, x->call.comm, MPI_STATUS_IGNORE);
}

/* b = a op c; a copy folded into the reduce (c not b) is done with it in
 * one pass where the type is contiguous, else as the copy it was. */
static int reduce(const trl_exec *x, const trl_step *st)
{
    void *b = at(x, st->b);
    if (!trl_ref_same(st->b, st->c)) {
        if (x->contiguous)
            return trl_reduce_into(at(x, st->a), at(x, st->c), b, st->count, (size_t)x->type_size,
                                   x->call.dtype, x->call.op);
        int rc = copy(x, at(x, st->c), b, st->count);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return trl_reduce_local(at(x, st->a), b, st->count, x->call.dtype, x->call.op);
}

static inline int mpi_tag(const trl_exec *x, const trl_step *st)
{
    return x->call.tag_base + st->tag % x->call.tag_span;
}

/* A send or receive through shared memory; *done false: not yet. */
static int shm_step(const trl_exec *x, const trl_step *st, bool *done)
{
    const trl_exec_call *c = &x->call;
    if (st->kind == TRL_STEP_SEND)
        return trl_shm_send(c->shm, st->peer, mpi_tag(x, st), at(x, st->a), (int)st->count,
                            c->dtype, c->comm, done);
    return trl_shm_recv(c->shm, st->peer, mpi_tag(x, st), at(x, st->b), (int)st->count, c->dtype,
                        c->comm, done);
}

/* Flow control (trl_exec.flow): is this MPI send a synchronous one, and
 * must this one wait for its peer to match earlier ones? */
static inline bool is_sync(const trl_exec *x, const trl_step *st)
{
    return x->flow && st->tag % x->flow == x->flow - 1;
}

static inline bool held_back(const trl_exec *x, const trl_step *st)
{
    return x->flow && st->tag >= x->m->open_until[st->peer] &&
           !trl_shm_carries(x->call.shm, st->peer, st->count * (size_t)x->type_size);
}

/* A synchronous send finished: its receiver has matched it, so the next
 * `credit` messages to that peer may go. A message with a synchronous tag
 * that went through shared memory (small, never held back) opens the way
 * the same: otherwise the larger messages after it would wait for a
 * synchronous send that never comes. */
static inline void opened(trl_exec *x, const trl_step *st)
{
    if (st->kind != TRL_STEP_SEND || !is_sync(x, st))
        return;
    int *open = &x->m->open_until[st->peer];
    if (st->tag + 1 + x->credit > *open)
        *open = st->tag + 1 + x->credit;
}

static inline size_t *in_flight(trl_exec *x, const trl_step *st)
{
    return st->kind == TRL_STEP_RECV ? &x->in_recv : &x->in_send;
}

/* Start one send or receive: through shared memory, finishing at once
 * when it can, or as an MPI request. */
static int post(trl_exec *x, uint32_t i)
{
    const trl_step *st = &x->s->steps[i];
    trl_exec_mem *m = x->m;
    traced(x, i, TRACE_POSTED);
    if (trl_shm_carries(x->call.shm, st->peer, st->count * (size_t)x->type_size)) {
        /* A receive waits to be looked at (reap_shm) until the sends ready
         * now are out: its peer may be waiting for one of them, and looking
         * first can cost a cache miss on the way. */
        bool finished = false;
        int rc = st->kind == TRL_STEP_RECV ? MPI_SUCCESS : shm_step(x, st, &finished);
        if (rc == MPI_SUCCESS) {
            if (finished) {
                opened(x, st);
                complete(x, i);
            } else {
                m->shm_step[x->nshm++] = i;
                x->nshm_send += st->kind == TRL_STEP_SEND;
                ++*in_flight(x, st);
                /* Its message may be in the stash already (put there by a
                 * look for another step, or by another call on this
                 * communicator), where no doorbell announces it: the next
                 * reap looks at every step, whatever the door says. */
                x->bell_seen = false;
            }
        }
        return rc;
    }
    MPI_Request *req = &m->reqs[x->nreqs];
    int rc;
    if (st->kind == TRL_STEP_RECV)
        rc = PMPI_Irecv(at(x, st->b), (int)st->count, x->call.dtype, st->peer, mpi_tag(x, st),
                        x->call.comm, req);
    else if (is_sync(x, st))
        rc = PMPI_Issend(at(x, st->a), (int)st->count, x->call.dtype, st->peer, mpi_tag(x, st),
                         x->call.comm, req);
    else
        rc = PMPI_Isend(at(x, st->a), (int)st->count, x->call.dtype, st->peer, mpi_tag(x, st),
                        x->call.comm, req);
    if (rc == MPI_SUCCESS) {
        m->req_step[x->nreqs++] = i;
        ++*in_flight(x, st);
    }
    return rc;
}

static int run_local(trl_exec *x, uint32_t i)
{
    const trl_step *st = &x->s->steps[i];
    int rc = MPI_SUCCESS;
    traced(x, i, TRACE_POSTED);
    if (st->kind == TRL_STEP_COPY)
        rc = copy(x, at(x, st->a), at(x, st->b), st->count);
    else if (st->kind == TRL_STEP_REDUCE && st->count)
        rc = reduce(x, st);
    if (rc == MPI_SUCCESS)
        complete(x, i);
    return rc;
}

/* Start what is ready, while the window has room: receives first, so a
 * peer's message finds its receive posted instead of arriving unexpected
 * (an extra copy, and for mid-size messages a slower protocol); then sends
 * and local steps in the order the builder wrote them. Local steps finish
 * at once and may make more steps ready. */
static int pump(trl_exec *x)
{
    trl_exec_mem *m = x->m;
    for (;;) {
        while (x->recv_head < x->recv_tail && x->in_recv < x->window) {
            int rc = post(x, m->recv_q[x->recv_head++]);
            if (rc != MPI_SUCCESS)
                return rc;
        }
        if (x->other_head == x->other_tail)
            return MPI_SUCCESS;
        uint32_t i = m->other_q[x->other_head];
        if (x->s->steps[i].kind != TRL_STEP_SEND) {
            x->other_head++;
            int rc = run_local(x, i);
            if (rc != MPI_SUCCESS)
                return rc;
            continue;
        }
        if (x->in_send >= x->window || held_back(x, &x->s->steps[i]))
            return MPI_SUCCESS;
        x->other_head++;
        int rc = post(x, i);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

static inline bool queued(const trl_exec *x)
{
    return x->recv_head < x->recv_tail || x->other_head < x->other_tail;
}

/* Nothing in flight and the next send held back by flow control: no
 * synchronous send is left to open the way (the sends to that peer may
 * skip every synchronous tag), so open it now rather than stop. */
static bool release_held(trl_exec *x)
{
    if (x->nreqs || x->nshm || x->other_head == x->other_tail)
        return false;
    const trl_step *st = &x->s->steps[x->m->other_q[x->other_head]];
    if (st->kind != TRL_STEP_SEND || !held_back(x, st))
        return false;
    x->m->open_until[st->peer] = st->tag + 1 + x->credit;
    return true;
}

/* Finish the shared-memory steps that can finish now. With few in flight,
 * look at each (a slot's cache line stays local until its sender writes
 * it); with many, watch the door (trl_shm_watch) and look only when it
 * moved since the last look, or when a send waits for a slot (no door
 * announces a freed slot). A drain that stashed messages forgets the last
 * look, and so does a step posted since (post): the door rang for its
 * message, if it did, before the step was there to be looked at. */
enum { SHM_DIRECT_MAX = 8 };
static int reap_shm(trl_exec *x)
{
    trl_exec_mem *m = x->m;
    if (x->nshm > SHM_DIRECT_MAX) {
        trl_shm_watch(x->call.shm);
        uint32_t bell = trl_shm_doorbell(x->call.shm);
        if (x->bell_seen && bell == x->bell && x->nshm_send == 0)
            return MPI_SUCCESS;
        x->bell = bell;
        x->bell_seen = true;
    }
    for (size_t k = 0; k < x->nshm;) {
        uint32_t i = m->shm_step[k];
        const trl_step *st = &x->s->steps[i];
        bool finished;
        int rc = shm_step(x, st, &finished);
        if (rc != MPI_SUCCESS)
            return rc;
        if (!finished) {
            k++;
            continue;
        }
        m->shm_step[k] = m->shm_step[--x->nshm];
        x->nshm_send -= st->kind == TRL_STEP_SEND;
        --*in_flight(x, st);
        opened(x, st);
        complete(x, i);
    }
    return MPI_SUCCESS;
}

/* Finish the MPI requests that are done: one Testsome (or, block, one
 * Waitsome) over the requests in flight, then keep the rest packed. */
static int reap_mpi(trl_exec *x, bool block)
{
    trl_exec_mem *m = x->m;
    if (x->nreqs == 0)
        return MPI_SUCCESS;
    int n;
    int rc = block ? PMPI_Waitsome((int)x->nreqs, m->reqs, &n, m->done_idx, m->statuses)
                   : PMPI_Testsome((int)x->nreqs, m->reqs, &n, m->done_idx, m->statuses);
    if (rc == MPI_ERR_IN_STATUS && n != MPI_UNDEFINED)
        rc = trl_status_error(m->statuses, n); /* the failed request's own */
    if (rc != MPI_SUCCESS)
        return rc;
    if (n == MPI_UNDEFINED || n == 0)
        return MPI_SUCCESS;
    /* The finished steps, before packing moves the requests. */
    for (int k = 0; k < n; k++)
        m->done_idx[k] = (int)m->req_step[m->done_idx[k]];
    size_t keep = 0;
    for (size_t k = 0; k < x->nreqs; k++) {
        if (m->reqs[k] == MPI_REQUEST_NULL)
            continue;
        m->reqs[keep] = m->reqs[k];
        m->req_step[keep++] = m->req_step[k];
    }
    x->nreqs = keep;
    for (int k = 0; k < n; k++) {
        uint32_t i = (uint32_t)m->done_idx[k];
        --*in_flight(x, &x->s->steps[i]);
        opened(x, &x->s->steps[i]);
        complete(x, i);
    }
    return MPI_SUCCESS;
}

int trl_exec_start(trl_exec *x, const trl_sched *s, const trl_exec_call *call, trl_exec_mem *m)
{
    *x = (trl_exec){.s = s, .call = *call, .m = m, .window = trl_exec_window()};
    trl_type_info tmp;
    const trl_type_info *t = trl_type_info_of(call->dtype, &tmp);
    MPI_Aint true_lb = t->true_lb, true_extent = t->true_extent;
    x->extent = t->extent;
    x->type_size = t->size;
    x->contiguous = t->contiguous;

    /* Scratch holds s->scratch elements laid out like a user buffer; with a
     * negative extent later elements lie lower, so the first one sits at the
     * top. Its base may be far off (a true lower bound an absolute address). */
    size_t scratch_bytes = 0;
    MPI_Aint span_before = 0; /* bytes below element 0's true lower bound */
    if (s->scratch > 0) {
        MPI_Aint steps = (MPI_Aint)(s->scratch - 1) * x->extent;
        span_before = steps < 0 ? -steps : 0;
        scratch_bytes = (size_t)((steps < 0 ? -steps : steps) + true_extent);
    }
    int rc = trl_exec_mem_fits(m, s, scratch_bytes, x->window)
                 ? MPI_SUCCESS
                 : trl_exec_mem_grow(m, s, scratch_bytes, x->window);
    if (rc != MPI_SUCCESS)
        return x->status = rc;
    x->base[TRL_BUF_SEND] = (char *)call->sendbuf;
    x->base[TRL_BUF_RECV] = (char *)call->recvbuf;
    x->base[TRL_BUF_SCRATCH] = (char *)((uintptr_t)m->scratch + span_before - (uintptr_t)true_lb);
    x->base[TRL_BUF_AUX] = call->aux;

    /* Flow control only where a peer can get 2 x flow messages: short
     * schedules, nearly all of them, never pay a synchronous send. */
    if (s->nsteps >= 2 * x->window) {
        x->flow = (int)x->window;
        x->credit = 2 * x->flow;
        for (int p = 0; p < s->size; p++)
            m->open_until[p] = x->credit;
    }
    for (size_t i = 0; i < s->nsteps; i++)
        m->waiting[i] = s->steps[i].ndeps;
    for (size_t i = 0; i < s->nroots; i++)
        make_ready(x, s->roots[i], -1);
    return x->status = pump(x);
}

/* The window doubles after STALL_POLLS polls with every slot of a kind
 * taken, steps queued behind it and nothing finishing (see STALL_POLLS). */
static int maybe_widen(trl_exec *x)
{
    bool full = x->in_recv >= x->window || x->in_send >= x->window;
    bool held = x->other_head < x->other_tail &&
                x->s->steps[x->m->other_q[x->other_head]].kind == TRL_STEP_SEND &&
                held_back(x, &x->s->steps[x->m->other_q[x->other_head]]);
    if (!queued(x) || !(full || held) || x->idle == 0 || x->idle % STALL_POLLS != 0)
        return MPI_SUCCESS;
    double now = PMPI_Wtime();
    if (x->stall_since == 0 || x->stall_idle > x->idle) {
        x->stall_since = now; /* a new stall: start the clock */
        x->stall_idle = x->idle;
        return MPI_SUCCESS;
    }
    if (now - x->stall_since < STALL_SECONDS)
        return MPI_SUCCESS;
    x->stall_since = 0;
    /* Flow control too may be what the schedule waits on (a message held
     * back that the peer needs before it can match the synchronous one):
     * every peer gets twice the credit. */
    if (x->flow) {
        for (int p = 0; p < x->s->size; p++)
            x->m->open_until[p] += x->credit;
        x->credit *= 2;
    }
    size_t w = 2 * x->window;
    if (!trl_exec_mem_grow_flight(x->m, 2 * w))
        return MPI_ERR_NO_MEM;
    x->window = w;
    return MPI_SUCCESS;
}

int trl_exec_progress(trl_exec *x, bool *finished)
{
    *finished = false;
    if (x->status != MPI_SUCCESS)
        return x->status;
    size_t before = x->done;
    int rc = pump(x);
    if (rc == MPI_SUCCESS && x->nshm)
        rc = reap_shm(x);
    if (rc == MPI_SUCCESS && x->nreqs)
        rc = reap_mpi(x, false);
    if (rc == MPI_SUCCESS)
        rc = pump(x);
    if (rc == MPI_SUCCESS && x->done == before && x->done < x->s->nsteps) {
        x->idle++;
        if (x->call.shm && x->call.shm->n > 0 && x->idle % SHM_DRAIN_EVERY == 0) {
            bool drained;
            rc = trl_shm_drain(x->call.shm, &drained);
            x->bell_seen = x->bell_seen && !drained;
        }
        if (rc == MPI_SUCCESS)
            rc = maybe_widen(x);
    }
    if (rc == MPI_SUCCESS && release_held(x))
        rc = pump(x);
    if (rc == MPI_SUCCESS && x->done < x->s->nsteps && x->nreqs == 0 && x->nshm == 0 && !queued(x))
        rc = MPI_ERR_INTERN; /* steps left, none startable: a broken schedule */
    x->status = rc;
    *finished = rc == MPI_SUCCESS && x->done == x->s->nsteps;
    return rc;
}

/* Sleep until a message to this rank rings, at most a millisecond: say so
 * first, then look once more, since a message published before the saying
 * rang nobody (the pairing of trl_shm_sleep_begin and the sender's notify). */
static int sleep_shm(trl_exec *x)
{
    trl_shm *shm = x->call.shm;
    uint32_t seen = trl_shm_sleep_begin(shm);
    size_t before = x->done;
    bool drained = false;
    x->bell_seen = false;
    int rc = reap_shm(x);
    if (rc == MPI_SUCCESS && x->done == before)
        rc = trl_shm_drain(shm, &drained);
    if (rc != MPI_SUCCESS || x->done != before || drained) {
        trl_shm_sleep_end(shm);
        return rc;
    }
    trl_shm_sleep(shm, seen);
    return MPI_SUCCESS;
}

/* Waiting with shared memory in use: look at the rings, and when nothing
 * moved, drain them now and then, let MPI progress, and yield or sleep as
 * docs/design.md ("Shared memory within a node") explains. */
static int wait_shm(trl_exec *x)
{
    trl_shm *shm = x->call.shm;
    size_t before = x->done;
    int rc = reap_shm(x);
    if (rc != MPI_SUCCESS || x->done != before)
        return rc;
    x->idle++;
    /* Never asleep while a send waits for a slot: no door announces one. */
    bool sleepy = x->nreqs == 0 && x->nshm_send == 0 && x->idle > (unsigned long)shm->spin;
    if (x->idle % SHM_DRAIN_EVERY == 0 || sleepy) {
        /* A sender may be stuck on a full ring to this rank (see
         * trl_shm_drain); and messages drained may be awaited. */
        bool drained;
        rc = trl_shm_drain(shm, &drained);
        x->bell_seen = x->bell_seen && !drained;
        if (rc != MPI_SUCCESS || drained)
            return rc;
    }
    if (x->nreqs > 0) {
        /* MPI requests pending too: one look at them (which also progresses
         * them), the caller's other work if nothing moved, then the rings. */
        rc = reap_mpi(x, false);
        if (rc == MPI_SUCCESS && x->done == before && x->call.idle)
            x->call.idle();
        return rc == MPI_SUCCESS ? maybe_widen(x) : rc;
    }
    /* Only shared memory to wait for: poll a while, then sleep until a
     * sender rings. Now and then let MPI progress too: the program may have
     * operations pending (an Isend whose receiver waits for this
     * collective's result), and MPI only moves them while called. */
    if (x->idle % SHM_MPI_EVERY == 0 || sleepy) {
        int any;
        rc = PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, x->call.comm, &any, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (x->call.idle)
        x->call.idle();
    else if (sleepy)
        rc = sleep_shm(x);
    else if (shm->yield)
        sched_yield();
    return rc == MPI_SUCCESS ? maybe_widen(x) : rc;
}

int trl_exec_finish(trl_exec *x)
{
    const size_t n = x->s->nsteps;
    int rc = x->status;
    while (rc == MPI_SUCCESS) {
        rc = pump(x);
        if (rc != MPI_SUCCESS || x->done == n)
            break;
        if (release_held(x))
            continue;
        if (x->nreqs == 0 && x->nshm == 0) {
            rc = MPI_ERR_INTERN; /* steps left, none started: a broken schedule */
            break;
        }
        if (x->call.shm && x->call.shm->n > 0) {
            rc = wait_shm(x);
        } else if (!queued(x) && !x->call.idle) {
            rc = reap_mpi(x, true); /* nothing else to do: block in MPI */
        } else {
            size_t before = x->done;
            rc = reap_mpi(x, false);
            if (rc == MPI_SUCCESS && x->done == before) {
                x->idle++;
                if (x->call.idle)
                    x->call.idle();
                rc = maybe_widen(x);
            }
        }
    }
    x->status = rc;
    if (rc != MPI_SUCCESS)
        trl_exec_cancel(x);
    return rc;
}

void trl_exec_cancel(trl_exec *x)
{
    /* Leave no request behind: cancel and complete what was started. */
    for (size_t k = 0; k < x->nreqs; k++) {
        if (x->m->reqs[k] == MPI_REQUEST_NULL)
            continue;
        PMPI_Cancel(&x->m->reqs[k]);
        PMPI_Wait(&x->m->reqs[k], MPI_STATUS_IGNORE);
    }
    x->nreqs = 0;
    x->nshm = 0;
    x->nshm_send = 0;
}

int trl_exec_mpi(const trl_sched *s, const trl_exec_call *call, trl_exec_mem *m)
{
    trl_exec x;
    int rc = trl_exec_start(&x, s, call, m);
    if (rc != MPI_SUCCESS) {
        trl_exec_cancel(&x);
        return rc;
    }
    return trl_exec_finish(&x);
}
