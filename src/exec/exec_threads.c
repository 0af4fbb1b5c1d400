#include "exec/exec_threads.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/status.h"

/* A posted send waits here until its receiver copies it. */
typedef struct {
    int src, dst, tag;
    const void *data;
    size_t count;
    bool taken;
} posted_send;

/* Messages posted to one rank and not yet taken. The entries point into
 * the senders' own arrays, which stay put until their sends complete. */
typedef struct {
    posted_send **v;
    size_t n, cap;
} inbox;

typedef struct {
    trl_thread_job *job;
    pthread_mutex_t lock;
    pthread_cond_t *wake; /* per rank: a message to it was posted, or one it
                             sent was taken (one condition each: waking every
                             rank at every message cost more than the tier's
                             copies) */
    inbox *inboxes;       /* one per rank */
    double last_progress; /* by any rank: no progress anywhere is a deadlock */
    bool failed;
    int copying; /* receives copying outside the lock: a failed rank frees its
                    buffers only once none is left */
} world;

typedef struct {
    world *w;
    int rank;
} rank_arg;

static void fail(world *w, const char *fmt, ...)
{
    /* Called with w->lock held. The first failure wins. */
    if (w->failed)
        return;
    w->failed = true;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->job->error, sizeof w->job->error, fmt, ap);
    va_end(ap);
    for (int r = 0; r < w->job->size; r++)
        pthread_cond_broadcast(&w->wake[r]);
}

typedef struct {
    void *base[TRL_BUF_KINDS];
    size_t cap[TRL_BUF_KINDS]; /* AUX: none (the runtime's own schedules only) */
} buffers;

static void *resolve(world *w, const buffers *b, int rank, size_t step, trl_ref r, size_t count)
{
    if (r.off + count > b->cap[r.buf] || (count > 0 && !b->base[r.buf])) {
        pthread_mutex_lock(&w->lock);
        fail(w, "rank %d step l%zu: %s+%zu x%zu is outside the buffer (%zu elements)", rank,
             step + 1, trl_buf_name(r.buf), r.off, count, b->cap[r.buf]);
        pthread_mutex_unlock(&w->lock);
        return NULL;
    }
    return (char *)b->base[r.buf] + r.off * w->job->elem_size;
}

static void *run_rank(void *p)
{
    rank_arg *arg = p;
    world *w = arg->w;
    trl_thread_job *job = w->job;
    int rank = arg->rank;
    const trl_sched *s = &job->scheds[rank];
    size_t n = s->nsteps, es = job->elem_size;
    unsigned seed = job->seed * 7919u + (unsigned)rank;

    buffers b = {{job->sendbuf[rank], job->recvbuf[rank], NULL},
                 {job->send_elems[rank], job->recv_elems[rank], s->scratch}};
    b.base[TRL_BUF_SCRATCH] = malloc(s->scratch * es + 1);
    uint32_t *waiting = malloc((n + 1) * sizeof *waiting); /* deps left */
    size_t *ready = malloc((n + 1) * sizeof *ready);
    size_t *pending = malloc((n + 1) * sizeof *pending); /* posted, not done */
    posted_send *sent = malloc((n + 1) * sizeof *sent);  /* indexed by step */
    if (!b.base[TRL_BUF_SCRATCH] || !waiting || !ready || !pending || !sent) {
        pthread_mutex_lock(&w->lock);
        fail(w, "rank %d: out of memory", rank);
        pthread_mutex_unlock(&w->lock);
        goto out;
    }
    /* Garbage in scratch, so reading scratch before writing it shows. */
    memset(b.base[TRL_BUF_SCRATCH], 0xA5, s->scratch * es + 1);

    size_t nready = 0, npending = 0, done = 0;
    for (size_t i = 0; i < n; i++)
        waiting[i] = s->steps[i].ndeps;
    for (size_t i = 0; i < s->nroots; i++)
        ready[nready++] = s->roots[i];

#define COMPLETE(i)                                                                                \
    do {                                                                                           \
        done++;                                                                                    \
        for (uint32_t k = s->succ_first[i]; k < s->succ_first[(i) + 1]; k++)                       \
            if (--waiting[s->succ[k]] == 0)                                                        \
                ready[nready++] = s->succ[k];                                                      \
    } while (0)

    while (done < n) {
        /* Sometimes finish posted messages before running a ready local
         * step: a receive may then land before a copy that should have
         * been ordered before it, and a missing dependency shows. */
        if (nready > 0 && (npending == 0 || rand_r(&seed) % 2)) {
            size_t pick = (size_t)rand_r(&seed) % nready;
            size_t i = ready[pick];
            ready[pick] = ready[--nready];
            const trl_step *st = &s->steps[i];
            if (st->kind == TRL_STEP_SEND) {
                const void *data = resolve(w, &b, rank, i, st->a, st->count);
                pthread_mutex_lock(&w->lock);
                if (!data || w->failed) {
                    pthread_mutex_unlock(&w->lock);
                    goto out;
                }
                inbox *box = &w->inboxes[st->peer];
                if (box->n == box->cap) {
                    size_t cap = box->cap ? 2 * box->cap : 16;
                    posted_send **nv = realloc(box->v, cap * sizeof *nv);
                    if (!nv) {
                        fail(w, "out of memory");
                        pthread_mutex_unlock(&w->lock);
                        goto out;
                    }
                    box->v = nv;
                    box->cap = cap;
                }
                sent[i] = (posted_send){rank, st->peer, st->tag, data, st->count, false};
                box->v[box->n++] = &sent[i];
                pthread_cond_signal(&w->wake[st->peer]);
                pthread_mutex_unlock(&w->lock);
                pending[npending++] = i;
            } else if (st->kind == TRL_STEP_RECV) {
                if (!resolve(w, &b, rank, i, st->b, st->count))
                    goto out;
                pending[npending++] = i;
            } else {
                if (st->kind == TRL_STEP_COPY || st->kind == TRL_STEP_REDUCE) {
                    void *src = resolve(w, &b, rank, i, st->a, st->count);
                    void *dst = resolve(w, &b, rank, i, st->b, st->count);
                    if (!src || !dst)
                        goto out;
                    if (st->kind == TRL_STEP_COPY) {
                        memmove(dst, src, st->count * es);
                    } else {
                        /* A copy folded in (trl_sched_finish): do it first. */
                        void *from = resolve(w, &b, rank, i, st->c, st->count);
                        if (!from)
                            goto out;
                        memmove(dst, from, st->count * es);
                        job->reduce(src, dst, st->count);
                    }
                }
                COMPLETE(i);
            }
            continue;
        }

        /* See whether a posted send or receive finished. */
        pthread_mutex_lock(&w->lock);
        bool progressed = false;
        for (size_t k = 0; k < npending && !w->failed;) {
            size_t i = pending[k];
            const trl_step *st = &s->steps[i];
            bool finished = false;
            if (st->kind == TRL_STEP_SEND) {
                finished = sent[i].taken;
            } else {
                inbox *box = &w->inboxes[rank];
                for (size_t m = 0; m < box->n; m++) {
                    posted_send *ps = box->v[m];
                    if (ps->src != st->peer || ps->tag != st->tag)
                        continue;
                    if (ps->count != st->count) {
                        fail(w, "rank %d step l%zu: receives %zu elements from %d, which sends %zu",
                             rank, i + 1, st->count, st->peer, ps->count);
                        break;
                    }
                    /* Out of the inbox first, then copied without the lock:
                     * the sender keeps the data until it is marked taken. */
                    box->v[m] = box->v[--box->n];
                    w->copying++;
                    pthread_mutex_unlock(&w->lock);
                    void *dst = (char *)b.base[st->b.buf] + st->b.off * es;
                    memcpy(dst, ps->data, st->count * es);
                    pthread_mutex_lock(&w->lock);
                    w->copying--;
                    ps->taken = true;
                    pthread_cond_signal(&w->wake[ps->src]);
                    finished = true;
                    break;
                }
            }
            if (finished) {
                pending[k] = pending[--npending];
                COMPLETE(i);
                progressed = true;
            } else {
                k++;
            }
        }
        if (w->failed) {
            pthread_mutex_unlock(&w->lock);
            goto out;
        }
        if (progressed)
            w->last_progress = trl_now_s();
        if (!progressed && nready == 0) {
            if (trl_now_s() - w->last_progress > job->timeout_s) {
                fail(w, "deadlock: rank %d has %zu of %zu steps done and waits on l%zu", rank, done,
                     n, npending ? pending[0] + 1 : 0);
                pthread_mutex_unlock(&w->lock);
                goto out;
            }
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            t.tv_nsec += 20 * 1000 * 1000;
            if (t.tv_nsec >= 1000000000L) {
                t.tv_sec++;
                t.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&w->wake[rank], &w->lock, &t);
        }
        pthread_mutex_unlock(&w->lock);
    }
#undef COMPLETE
out:
    /* After a failure a receiver may still be copying from this rank's
     * scratch (or marking its send taken): wait for it (rare: failures). */
    pthread_mutex_lock(&w->lock);
    while (w->copying > 0) {
        pthread_mutex_unlock(&w->lock);
        sched_yield();
        pthread_mutex_lock(&w->lock);
    }
    pthread_mutex_unlock(&w->lock);
    free(b.base[TRL_BUF_SCRATCH]);
    free(waiting);
    free(ready);
    free(pending);
    free(sent);
    return NULL;
}

int trl_thread_run(trl_thread_job *job)
{
    world w = {.job = job};
    job->error[0] = '\0';
    if (job->timeout_s <= 0)
        job->timeout_s = 10;
    pthread_mutex_init(&w.lock, NULL);
    w.last_progress = trl_now_s();
    pthread_t *tid = calloc((size_t)job->size, sizeof *tid);
    rank_arg *args = calloc((size_t)job->size, sizeof *args);
    w.inboxes = calloc((size_t)job->size, sizeof *w.inboxes);
    w.wake = calloc((size_t)job->size, sizeof *w.wake);
    for (int r = 0; w.wake && r < job->size; r++)
        pthread_cond_init(&w.wake[r], NULL);
    int started = 0;
    if (tid && args && w.inboxes && w.wake) {
        for (; started < job->size; started++) {
            args[started] = (rank_arg){&w, started};
            if (pthread_create(&tid[started], NULL, run_rank, &args[started]))
                break;
        }
    }
    for (int r = 0; r < started; r++)
        pthread_join(tid[r], NULL);
    if (!w.failed && started < job->size)
        snprintf(job->error, sizeof job->error, "cannot start %d threads", job->size);
    /* A rank completes a send only once it was received, so when every rank
     * finished, every message was received; a stray one is a failure. */
    for (int r = 0; w.inboxes && !job->error[0] && r < job->size; r++)
        if (w.inboxes[r].n > 0)
            snprintf(job->error, sizeof job->error, "a message to rank %d was never received", r);
    free(tid);
    free(args);
    for (int r = 0; w.inboxes && r < job->size; r++)
        free(w.inboxes[r].v);
    free(w.inboxes);
    for (int r = 0; w.wake && r < job->size; r++)
        pthread_cond_destroy(&w.wake[r]);
    free(w.wake);
    pthread_mutex_destroy(&w.lock);
    return job->error[0] ? TRL_ERR_INVALID : TRL_OK;
}
