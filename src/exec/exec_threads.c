#include "exec/exec_threads.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/status.h"

/* A posted send waits here until its receiver copies it. */
typedef struct {
    int src, dst, tag;
    const void *data;
    size_t count;
    bool taken;
} posted_send;

typedef struct {
    trl_thread_job *job;
    pthread_mutex_t lock;
    pthread_cond_t moved; /* some message was taken or posted */
    posted_send *sends;
    size_t nsends, cap;
    bool failed;
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
    pthread_cond_broadcast(&w->moved);
}

typedef struct {
    void *base[3];
    size_t cap[3];
} buffers;

static void *resolve(world *w, const buffers *b, int rank, size_t step, trl_ref r, size_t count)
{
    if (r.off + count > b->cap[r.buf] || (count > 0 && !b->base[r.buf])) {
        static const char *names[] = {"send", "recv", "scratch"};
        pthread_mutex_lock(&w->lock);
        fail(w, "rank %d step l%zu: %s+%zu x%zu is outside the buffer (%zu elements)", rank,
             step + 1, names[r.buf], r.off, count, b->cap[r.buf]);
        pthread_mutex_unlock(&w->lock);
        return NULL;
    }
    return (char *)b->base[r.buf] + r.off * w->job->elem_size;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
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
    size_t *send_slot = malloc((n + 1) * sizeof *send_slot);
    if (!b.base[TRL_BUF_SCRATCH] || !waiting || !ready || !pending || !send_slot) {
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

#define COMPLETE(i)                                                          \
    do {                                                                     \
        done++;                                                              \
        for (uint32_t k = s->succ_first[i]; k < s->succ_first[(i) + 1]; k++) \
            if (--waiting[s->succ[k]] == 0)                                  \
                ready[nready++] = s->succ[k];                                \
    } while (0)

    double idle_since = now();
    while (done < n) {
        if (nready > 0) {
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
                if (w->nsends == w->cap) {
                    size_t cap = w->cap ? 2 * w->cap : 64;
                    posted_send *ns = realloc(w->sends, cap * sizeof *ns);
                    if (!ns) {
                        fail(w, "out of memory");
                        pthread_mutex_unlock(&w->lock);
                        goto out;
                    }
                    w->sends = ns;
                    w->cap = cap;
                }
                send_slot[i] = w->nsends;
                w->sends[w->nsends++] =
                    (posted_send){rank, st->peer, st->tag, data, st->count, false};
                pthread_cond_broadcast(&w->moved);
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
                    if (st->kind == TRL_STEP_COPY)
                        memmove(dst, src, st->count * es);
                    else
                        job->reduce(src, dst, st->count);
                }
                COMPLETE(i);
            }
            idle_since = now();
            continue;
        }

        /* Nothing ready: see whether a posted send or receive finished. */
        pthread_mutex_lock(&w->lock);
        bool progressed = false;
        for (size_t k = 0; k < npending && !w->failed;) {
            size_t i = pending[k];
            const trl_step *st = &s->steps[i];
            bool finished = false;
            if (st->kind == TRL_STEP_SEND) {
                finished = w->sends[send_slot[i]].taken;
            } else {
                for (size_t m = 0; m < w->nsends; m++) {
                    posted_send *ps = &w->sends[m];
                    if (ps->taken || ps->src != st->peer || ps->dst != rank || ps->tag != st->tag)
                        continue;
                    if (ps->count != st->count) {
                        fail(w, "rank %d step l%zu: receives %zu elements from %d, which sends %zu",
                             rank, i + 1, st->count, st->peer, ps->count);
                        break;
                    }
                    void *dst = (char *)b.base[st->b.buf] + st->b.off * es;
                    memcpy(dst, ps->data, st->count * es);
                    ps->taken = true;
                    pthread_cond_broadcast(&w->moved);
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
        if (!progressed) {
            if (now() - idle_since > job->timeout_s) {
                fail(w, "deadlock: rank %d has %zu of %zu steps done and waits on l%zu", rank,
                     done, n, npending ? pending[0] + 1 : 0);
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
            pthread_cond_timedwait(&w->moved, &w->lock, &t);
        } else {
            idle_since = now();
        }
        pthread_mutex_unlock(&w->lock);
    }
#undef COMPLETE
out:
    free(b.base[TRL_BUF_SCRATCH]);
    free(waiting);
    free(ready);
    free(pending);
    free(send_slot);
    return NULL;
}

int trl_thread_run(trl_thread_job *job)
{
    world w = {.job = job};
    job->error[0] = '\0';
    if (job->timeout_s <= 0)
        job->timeout_s = 10;
    pthread_mutex_init(&w.lock, NULL);
    pthread_cond_init(&w.moved, NULL);
    pthread_t *tid = calloc((size_t)job->size, sizeof *tid);
    rank_arg *args = calloc((size_t)job->size, sizeof *args);
    int started = 0;
    if (tid && args) {
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
    /* Every send must have been received. */
    for (size_t m = 0; !w.failed && !job->error[0] && m < w.nsends; m++)
        if (!w.sends[m].taken)
            snprintf(job->error, sizeof job->error, "rank %d's message to %d (tag %d) was never received",
                     w.sends[m].src, w.sends[m].dst, w.sends[m].tag);
    free(tid);
    free(args);
    free(w.sends);
    pthread_mutex_destroy(&w.lock);
    pthread_cond_destroy(&w.moved);
    return job->error[0] ? TRL_ERR_INVALID : TRL_OK;
}
