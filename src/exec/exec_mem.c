#include "exec/exec_mem.h"

#include <stdlib.h>
#include <string.h>

bool trl_exec_mem_grow_flight(trl_exec_mem *m, size_t cap)
{
    if (cap <= m->cap_flight)
        return true;
    MPI_Request *r = realloc(m->reqs, cap * sizeof *r);
    if (r)
        m->reqs = r;
    uint32_t *a = realloc(m->req_step, cap * sizeof *a);
    if (a)
        m->req_step = a;
    uint32_t *b = realloc(m->shm_step, cap * sizeof *b);
    if (b)
        m->shm_step = b;
    int *d = realloc(m->done_idx, cap * sizeof *d);
    if (d)
        m->done_idx = d;
    MPI_Status *st = realloc(m->statuses, cap * sizeof *st);
    if (st)
        m->statuses = st;
    if (!r || !a || !b || !d || !st)
        return false;
    m->cap_flight = cap;
    return true;
}

int trl_exec_mem_grow(trl_exec_mem *m, const trl_sched *s, size_t scratch_bytes, size_t window)
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
        uint32_t *a = realloc(m->waiting, n * sizeof *a);
        if (a)
            m->waiting = a;
        uint32_t *b = realloc(m->recv_q, n * sizeof *b);
        if (b)
            m->recv_q = b;
        uint32_t *c = realloc(m->other_q, n * sizeof *c);
        if (c)
            m->other_q = c;
        if (!a || !b || !c)
            return MPI_ERR_NO_MEM;
        m->cap_steps = n;
    }
    if (s->size > 0 && (size_t)s->size > m->cap_peers) {
        int *o = realloc(m->open_until, (size_t)s->size * sizeof *o);
        if (!o)
            return MPI_ERR_NO_MEM;
        m->open_until = o;
        m->cap_peers = (size_t)s->size;
    }
    /* Sends and receives each get `window` slots. */
    return trl_exec_mem_grow_flight(m, 2 * window) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

void trl_exec_mem_free(trl_exec_mem *m)
{
    free(m->scratch);
    free(m->waiting);
    free(m->recv_q);
    free(m->other_q);
    free(m->reqs);
    free(m->req_step);
    free(m->shm_step);
    free(m->done_idx);
    free(m->statuses);
    free(m->open_until);
    memset(m, 0, sizeof *m);
}
