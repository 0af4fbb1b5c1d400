#define _GNU_SOURCE
#include "exec/exec_mpi.h"
#include "reduce/reduce.h"

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Resolve a symbolic reference to an address. Offsets count elements of
 * the call's datatype; scratch is laid out like a user buffer of that type,
 * shifted so its first element's true lower bound is the allocation. */
typedef struct {
    char *base[3];
    MPI_Aint extent;
} frame;

static inline void *at(const frame *f, trl_ref r)
{
    return f->base[r.buf] + (MPI_Aint)r.off * f->extent;
}

static int grow(trl_exec_mem *m, const trl_sched *s, size_t scratch_bytes)
{
    if (scratch_bytes > m->scratch_bytes) {
        void *p = realloc(m->scratch, scratch_bytes);
        if (!p)
            return MPI_ERR_NO_MEM;
        m->scratch = p;
        m->scratch_bytes = scratch_bytes;
    }
    if (s->nsteps > m->cap_steps) {
        size_t n = s->nsteps;
        MPI_Request *r = realloc(m->reqs, n * sizeof *r);
        if (r)
            m->reqs = r;
        uint32_t *a = realloc(m->req_step, n * sizeof *a);
        if (a)
            m->req_step = a;
        uint32_t *b = realloc(m->waiting, n * sizeof *b);
        if (b)
            m->waiting = b;
        uint32_t *c = realloc(m->ready, n * sizeof *c);
        if (c)
            m->ready = c;
        uint32_t *d = realloc(m->shm_waiting, n * sizeof *d);
        if (d)
            m->shm_waiting = d;
        if (!r || !a || !b || !c || !d)
            return MPI_ERR_NO_MEM;
        m->cap_steps = n;
    }
    return MPI_SUCCESS;
}

void trl_exec_mem_free(trl_exec_mem *m)
{
    free(m->scratch);
    free(m->reqs);
    free(m->req_step);
    free(m->waiting);
    free(m->ready);
    free(m->shm_waiting);
    memset(m, 0, sizeof *m);
}

/* Copy count elements between two buffers of the call's datatype. A
 * contiguous type is one memcpy; any other goes through the MPI library,
 * which knows the type map and leaves the gaps alone. */
static int copy(const trl_exec_call *c, const void *src, void *dst, size_t count,
                int contiguous, int type_size)
{
    if (src == dst || count == 0)
        return MPI_SUCCESS;
    if (contiguous) {
        memmove(dst, src, count * (size_t)type_size);
        return MPI_SUCCESS;
    }
    /* To itself on the private communicator: schedules never message their
     * own rank there, so nothing else can match it (MPI_COMM_SELF could
     * match a receive the program posted on it). */
    int self;
    PMPI_Comm_rank(c->comm, &self);
    return PMPI_Sendrecv(src, (int)count, c->dtype, self, 0, dst, (int)count, c->dtype, self, 0,
                         c->comm, MPI_STATUS_IGNORE);
}

/* Polls without progress between two drains of the rings (trl_shm_drain),
 * and between two turns of MPI's progress engine while waiting only on
 * shared memory. */
enum { SHM_DRAIN_EVERY = 1024, SHM_MPI_EVERY = 64 };

/* A send or receive through shared memory; *done false: not yet. */
static int shm_step(const trl_exec_call *c, const frame *f, const trl_step *st, bool *done)
{
    int tag = st->tag % c->tag_limit;
    if (st->kind == TRL_STEP_SEND)
        return trl_shm_send(c->shm, st->peer, tag, at(f, st->a), (int)st->count, c->dtype,
                            c->comm, done);
    return trl_shm_recv(c->shm, st->peer, tag, at(f, st->b), (int)st->count, c->dtype, c->comm,
                        done);
}

int trl_exec_mpi(const trl_sched *s, const trl_exec_call *c, trl_exec_mem *m)
{
    MPI_Aint lb, extent, true_lb, true_extent;
    int type_size;
    PMPI_Type_get_extent(c->dtype, &lb, &extent);
    PMPI_Type_get_true_extent(c->dtype, &true_lb, &true_extent);
    PMPI_Type_size(c->dtype, &type_size);
    int contiguous = (MPI_Aint)type_size == extent && true_extent == extent && true_lb == 0;

    /* Scratch holds s->scratch elements laid out like a user buffer; with a
     * negative extent later elements lie lower, so the first one sits at
     * the top of the allocation. */
    size_t scratch_bytes = 0;
    MPI_Aint span_before = 0; /* bytes below element 0's true lower bound */
    if (s->scratch > 0) {
        MPI_Aint steps = (MPI_Aint)(s->scratch - 1) * extent;
        span_before = steps < 0 ? -steps : 0;
        scratch_bytes = (size_t)((steps < 0 ? -steps : steps) + true_extent);
    }
    int rc = grow(m, s, scratch_bytes);
    if (rc != MPI_SUCCESS)
        return rc;

    frame f = {{(char *)c->sendbuf, (char *)c->recvbuf,
                (char *)m->scratch + span_before - true_lb},
               extent};

    /* Ready steps wait on two stacks in one array: receives from the top
     * down, everything else from the bottom up. Receives are posted first,
     * so a peer's message finds its receive waiting instead of arriving
     * unexpected (an extra copy, and for mid-size messages a slower
     * protocol). */
    size_t n = s->nsteps, nready = 0, nrecv = 0, nactive = 0, done = 0, nshm = 0;
    for (size_t i = 0; i < n; i++)
        m->waiting[i] = s->steps[i].ndeps;
#define PUSH_READY(i)                                  \
    do {                                               \
        if (s->steps[i].kind == TRL_STEP_RECV)         \
            m->ready[n - 1 - nrecv++] = (uint32_t)(i); \
        else                                           \
            m->ready[nready++] = (uint32_t)(i);        \
    } while (0)
    /* The stacks pop the last pushed first: push in reverse, so the steps
     * ready at the start go out in the order the builder wrote them (a
     * linear bcast serves root+1 first). */
    for (size_t i = s->nroots; i-- > 0;)
        PUSH_READY(s->roots[i]);
#define COMPLETE(i)                                                          \
    do {                                                                     \
        done++;                                                              \
        for (uint32_t k = s->succ_first[i]; k < s->succ_first[(i) + 1]; k++) \
            if (--m->waiting[s->succ[k]] == 0)                               \
                PUSH_READY(s->succ[k]);                                      \
    } while (0)
    unsigned long idle = 0; /* polls since the last step finished */

    while (done < n) {
        /* Start everything that is ready; local steps finish at once and
         * may make more steps ready. */
        while (nready + nrecv > 0) {
            uint32_t i = nrecv ? m->ready[n - nrecv--] : m->ready[--nready];
            const trl_step *st = &s->steps[i];
            if ((st->kind == TRL_STEP_SEND || st->kind == TRL_STEP_RECV) &&
                trl_shm_carries(c->shm, st->peer, st->count * (size_t)type_size)) {
                bool sent;
                rc = shm_step(c, &f, st, &sent);
                if (rc != MPI_SUCCESS)
                    goto fail;
                if (sent)
                    COMPLETE(i);
                else
                    m->shm_waiting[nshm++] = i;
                continue;
            }
            switch (st->kind) {
            case TRL_STEP_SEND:
                rc = PMPI_Isend(at(&f, st->a), (int)st->count, c->dtype, st->peer,
                                st->tag % c->tag_limit, c->comm, &m->reqs[nactive]);
                if (rc == MPI_SUCCESS)
                    m->req_step[nactive++] = i;
                break;
            case TRL_STEP_RECV:
                rc = PMPI_Irecv(at(&f, st->b), (int)st->count, c->dtype, st->peer,
                                st->tag % c->tag_limit, c->comm, &m->reqs[nactive]);
                if (rc == MPI_SUCCESS)
                    m->req_step[nactive++] = i;
                break;
            case TRL_STEP_COPY:
                rc = copy(c, at(&f, st->a), at(&f, st->b), st->count, contiguous, type_size);
                break;
            case TRL_STEP_REDUCE:
                rc = st->count ? trl_reduce_local(at(&f, st->a), at(&f, st->b), st->count,
                                                  c->dtype, c->op)
                               : MPI_SUCCESS;
                break;
            case TRL_STEP_NOP:
                break;
            }
            if (rc != MPI_SUCCESS)
                goto fail;
            if (st->kind != TRL_STEP_SEND && st->kind != TRL_STEP_RECV)
                COMPLETE(i);
        }
        if (done == n)
            break;

        int idx, flag = 1;
        if (nactive == 0 && nshm == 0) {
            rc = MPI_ERR_INTERN; /* steps left, none started: a broken schedule */
            goto fail;
        }
        if (c->shm && c->shm->n > 0) {
            /* Read the doorbell before looking, so a message that lands
             * after the look still ends the sleep below. */
            uint32_t bell = trl_shm_doorbell(c->shm);
            bool moved = false;
            for (size_t k = 0; k < nshm;) {
                uint32_t i = m->shm_waiting[k];
                bool finished;
                rc = shm_step(c, &f, &s->steps[i], &finished);
                if (rc != MPI_SUCCESS)
                    goto fail;
                if (!finished) {
                    k++;
                    continue;
                }
                m->shm_waiting[k] = m->shm_waiting[--nshm];
                moved = true;
                COMPLETE(i);
            }
            if (moved) {
                idle = 0;
                continue;
            }
            idle++;
            bool sleepy = nactive == 0 && idle > (unsigned long)c->shm->spin;
            if (idle % SHM_DRAIN_EVERY == 0 || sleepy) {
                /* A sender may be stuck on a full ring to this rank (see
                 * trl_shm_drain); and messages drained may be awaited. */
                bool drained;
                rc = trl_shm_drain(c->shm, &drained);
                if (rc != MPI_SUCCESS)
                    goto fail;
                if (drained)
                    continue;
            }
            if (nactive == 0) {
                /* Only shared memory to wait for: poll a while, then sleep
                 * until a sender rings. Now and then let MPI progress too:
                 * the program may have operations pending (an Isend whose
                 * receiver waits for this collective's result), and MPI
                 * only moves them while called. */
                if (idle % SHM_MPI_EVERY == 0 || sleepy) {
                    int any;
                    rc = PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, c->comm, &any,
                                     MPI_STATUS_IGNORE);
                    if (rc != MPI_SUCCESS)
                        goto fail;
                }
                if (sleepy)
                    trl_shm_sleep(c->shm, bell);
                else if (c->shm->yield)
                    sched_yield();
                continue;
            }
            /* MPI requests pending too: one look at them (which also
             * progresses them), then the rings again. */
            rc = PMPI_Testany((int)nactive, m->reqs, &idx, &flag, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS && (!flag || idx == MPI_UNDEFINED))
                continue;
        } else {
            rc = PMPI_Waitany((int)nactive, m->reqs, &idx, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS || idx == MPI_UNDEFINED) {
            rc = rc != MPI_SUCCESS ? rc : MPI_ERR_INTERN;
            goto fail;
        }
        uint32_t i = m->req_step[idx];
        /* Keep the active requests packed. */
        nactive--;
        m->reqs[idx] = m->reqs[nactive];
        m->req_step[idx] = m->req_step[nactive];
        COMPLETE(i);
        idle = 0;
    }
#undef COMPLETE
#undef PUSH_READY
    return MPI_SUCCESS;

fail:
    /* Leave no request behind: cancel and complete what was started. */
    for (size_t k = 0; k < nactive; k++) {
        if (m->reqs[k] == MPI_REQUEST_NULL)
            continue;
        PMPI_Cancel(&m->reqs[k]);
        PMPI_Wait(&m->reqs[k], MPI_STATUS_IGNORE);
    }
    return rc;
}
