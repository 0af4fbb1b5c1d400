/* The collectives of bench/latency: sizes, calls, data and checks (see
 * latency_colls.h).
 *
 * Data. Element j of a block holds mult * base(call, j) + offset, where
 * base depends on the checked call's number (so on the iteration) and on
 * the element, and offset on the rank that sent the block (and, for
 * alltoall, on the rank it goes to as well), so a block that lands in the
 * wrong place, or a stale one from an earlier call, is caught. Each
 * collective's expected result follows in closed form:
 *
 *   bcast          root sends base + root+1; every rank must hold that
 *   reduce         rank r sends base + r+1; the root must hold
 *   allreduce      p * base + p(p+1)/2 (every rank, for allreduce)
 *   gather(v)      rank r sends base + r+1; the root's block q must be
 *                  base + q+1
 *   scatter(v)     the root's block q is base + q+1; rank r must get
 *                  base + r+1
 *   allgather(v)   as gather, on every rank
 *   alltoall(v,w)  rank r's block for rank d is base + r*p + d+1; rank d's
 *                  block q must be base + q*p + d+1
 *   reduce_scatter rank r sends the whole vector, element k = base(k) +
 *   (_block)       r+1; rank r's block must be p * base(r*count + j) +
 *                  p(p+1)/2
 *   scan           rank r sends base + r+1 and must get (r+1) * base +
 *                  (r+1)(r+2)/2
 *   exscan         rank r > 0 must get r * base + r(r+1)/2 (rank 0's result
 *                  is undefined in MPI and not checked)
 *
 * The values stay small integers, below (p + 1) * (p + 1021), so float
 * sums are exact in any order of combination (up to a few thousand ranks). */
#include "latency_colls.h"

#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

const char *const coll_names[NCOLL] = {
    "bcast",    "reduce",    "allreduce", "barrier",        "gather",
    "gatherv",  "scatter",   "scatterv",  "allgather",      "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",     "exscan",
};

const char *const coll_mpi_names[NCOLL] = {
    "MPI_Bcast",      "MPI_Reduce",         "MPI_Allreduce",
    "MPI_Barrier",    "MPI_Gather",         "MPI_Gatherv",
    "MPI_Scatter",    "MPI_Scatterv",       "MPI_Allgather",
    "MPI_Allgatherv", "MPI_Alltoall",       "MPI_Alltoallv",
    "MPI_Alltoallw",  "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
    "MPI_Scan",       "MPI_Exscan",
};

const char *const coll_inames[NCOLL] = {
    "ibcast",    "ireduce",    "iallreduce", "ibarrier",        "igather",
    "igatherv",  "iscatter",   "iscatterv",  "iallgather",      "iallgatherv",
    "ialltoall", "ialltoallv", "ialltoallw", "ireduce_scatter", "ireduce_scatter_block",
    "iscan",     "iexscan",
};

const char *const coll_impi_names[NCOLL] = {
    "MPI_Ibcast",      "MPI_Ireduce",         "MPI_Iallreduce",
    "MPI_Ibarrier",    "MPI_Igather",         "MPI_Igatherv",
    "MPI_Iscatter",    "MPI_Iscatterv",       "MPI_Iallgather",
    "MPI_Iallgatherv", "MPI_Ialltoall",       "MPI_Ialltoallv",
    "MPI_Ialltoallw",  "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block",
    "MPI_Iscan",       "MPI_Iexscan",
};

const char *const var_names[NVAR] = {"mpi", "trellis", "blocking"};

/* Sizes ------------------------------------------------------------------- */

/* Elements for a message of the given size: bytes / 4, at least 1 (seed
 * 000's 4-byte allreduce is one int). */
static size_t count_for(size_t bytes)
{
    size_t n = bytes / 4;
    return n < 1 ? 1 : n;
}

static int is_reduce_scatter(enum coll c)
{
    return c == COLL_REDUCE_SCATTER || c == COLL_REDUCE_SCATTER_BLOCK;
}

/* One block per rank in the send or the receive buffer. */
static int has_blocks(enum coll c)
{
    return c >= COLL_GATHER && c <= COLL_ALLTOALLW;
}

int coll_row(enum coll c, size_t nominal, int ranks, size_t *bytes)
{
    if (c == COLL_BARRIER) {
        *bytes = 0;
        return 0;
    }
    if (is_reduce_scatter(c)) {
        size_t block = nominal / 4 / (size_t)ranks;
        if (block < 1) {
            block = 1;
        }
        *bytes = block * (size_t)ranks * 4;
        return (int)block;
    }
    size_t n = count_for(nominal);
    *bytes = n * 4;
    return (int)n;
}

size_t coll_buffer_bytes(enum coll c, size_t max_nominal, int ranks)
{
    size_t bytes = 0;
    size_t count = (size_t)coll_row(c, max_nominal, ranks, &bytes);
    if (has_blocks(c) || is_reduce_scatter(c)) {
        return count * (size_t)ranks * 4;
    }
    return count * 4;
}

int coll_alloc_counts(bench *b)
{
    b->counts = malloc(sizeof(int) * (size_t)b->size);
    b->displs = malloc(sizeof(int) * (size_t)b->size);
    b->byte_displs = malloc(sizeof(int) * (size_t)b->size);
    b->types = malloc(sizeof(MPI_Datatype) * (size_t)b->size);
    return b->counts && b->displs && b->byte_displs && b->types ? 0 : -1;
}

void coll_free(bench *b)
{
    free(b->sbuf);
    free(b->rbuf);
    free(b->counts);
    free(b->displs);
    free(b->byte_displs);
    free(b->types);
}

int coll_set_counts(bench *b, int count)
{
    if ((size_t)count * (size_t)b->size * 4 > (size_t)INT_MAX) {
        return -1;
    }
    for (int r = 0; r < b->size; r++) {
        b->counts[r] = count;
        b->displs[r] = r * count;
        b->byte_displs[r] = r * count * 4;
        b->types[r] = b->dtype;
    }
    return 0;
}

/* Data ------------------------------------------------------------------- */

/* The part of every element's value that depends on the call and the
 * element index. Small enough that sums over thousands of ranks stay exact
 * integers in a float. */
static inline long long base_value(long call, size_t j)
{
    return (long long)((j * 7u + (size_t)call * 13u) % 1021u);
}

/* Where a buffer's checked or filled data lie: `blocks` blocks of `len`
 * elements, element j of block q holding
 *   mult * base(call, shift + j) + off + q * step. */
typedef struct {
    void *buf; /* NULL: nothing on this rank */
    int blocks;
    size_t len;
    long long mult;
    long long off;
    long long step;
    size_t shift;
} layout;

static layout one_block(void *buf, size_t len, long long mult, long long off)
{
    return (layout){.buf = buf, .blocks = 1, .len = len, .mult = mult, .off = off};
}

static layout per_rank(void *buf, int p, size_t len, long long off, long long step)
{
    return (layout){.buf = buf, .blocks = p, .len = len, .mult = 1, .off = off, .step = step};
}

/* What this rank sends in a checked call of collective c. */
static layout send_layout(const bench *b, enum coll c, int count)
{
    const int p = b->size;
    const int r = b->rank;
    const size_t n = (size_t)count;
    const int root = r == b->root;
    switch (c) {
    case COLL_BCAST: return one_block(root ? b->rbuf : NULL, n, 1, b->root + 1);
    case COLL_REDUCE:
    case COLL_ALLREDUCE:
    case COLL_GATHER:
    case COLL_GATHERV:
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV:
    case COLL_SCAN:
    case COLL_EXSCAN: return one_block(b->sbuf, n, 1, r + 1);
    case COLL_SCATTER:
    case COLL_SCATTERV: return per_rank(root ? b->sbuf : NULL, p, n, 1, 1);
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV:
    case COLL_ALLTOALLW: return per_rank(b->sbuf, p, n, (long long)r * p + 1, 1);
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK: return one_block(b->sbuf, n * (size_t)p, 1, r + 1);
    default: return one_block(NULL, 0, 0, 0);
    }
}

/* What this rank must hold after a checked call of collective c. */
static layout recv_layout(const bench *b, enum coll c, int count)
{
    const long long p = b->size;
    const long long r = b->rank;
    const size_t n = (size_t)count;
    const int root = r == b->root;
    const long long sum = p * (p + 1) / 2;
    switch (c) {
    case COLL_BCAST: return one_block(b->rbuf, n, 1, b->root + 1);
    case COLL_REDUCE: return one_block(root ? b->rbuf : NULL, n, p, sum);
    case COLL_ALLREDUCE: return one_block(b->rbuf, n, p, sum);
    case COLL_GATHER:
    case COLL_GATHERV: return per_rank(root ? b->rbuf : NULL, (int)p, n, 1, 1);
    case COLL_SCATTER:
    case COLL_SCATTERV: return one_block(b->rbuf, n, 1, r + 1);
    case COLL_ALLGATHER:
    case COLL_ALLGATHERV: return per_rank(b->rbuf, (int)p, n, 1, 1);
    case COLL_ALLTOALL:
    case COLL_ALLTOALLV:
    case COLL_ALLTOALLW: return per_rank(b->rbuf, (int)p, n, r + 1, p);
    case COLL_REDUCE_SCATTER:
    case COLL_REDUCE_SCATTER_BLOCK: {
        layout l = one_block(b->rbuf, n, p, sum);
        l.shift = (size_t)r * n;
        return l;
    }
    case COLL_SCAN: return one_block(b->rbuf, n, r + 1, (r + 1) * (r + 2) / 2);
    case COLL_EXSCAN: return one_block(r > 0 ? b->rbuf : NULL, n, r, r * (r + 1) / 2);
    default: return one_block(NULL, 0, 0, 0);
    }
}

static void fill(const bench *b, const layout *l, long call)
{
    for (int q = 0; l->buf != NULL && q < l->blocks; q++) {
        long long off = l->off + (long long)q * l->step;
        size_t at = (size_t)q * l->len;
        if (b->use_float) {
            float *f = (float *)l->buf + at;
            for (size_t j = 0; j < l->len; j++) {
                f[j] = (float)(l->mult * base_value(call, l->shift + j) + off);
            }
        } else {
            int *x = (int *)l->buf + at;
            for (size_t j = 0; j < l->len; j++) {
                x[j] = (int)(l->mult * base_value(call, l->shift + j) + off);
            }
        }
    }
}

static void poison(const bench *b, const layout *l)
{
    if (l->buf == NULL) {
        return;
    }
    size_t total = (size_t)l->blocks * l->len;
    if (b->use_float) {
        float *f = l->buf;
        for (size_t k = 0; k < total; k++) {
            f[k] = -1.0f;
        }
    } else {
        int *x = l->buf;
        for (size_t k = 0; k < total; k++) {
            x[k] = -1;
        }
    }
}

void coll_prepare(const bench *b, enum coll c, int count, long call)
{
    /* Poison first, then fill: for bcast the root's send and receive
     * buffer is the same one. */
    layout rl = recv_layout(b, c, count);
    layout sl = send_layout(b, c, count);
    poison(b, &rl);
    fill(b, &sl, call);
}

int coll_verify(bench *b, enum coll c, enum variant v, int count, long call)
{
    layout l = recv_layout(b, c, count);
    if (l.buf == NULL) {
        return 0;
    }
    size_t total = (size_t)l.blocks * l.len;
    size_t wrong = 0;
    size_t first = 0;
    double got_first = 0.0;
    long long want_first = 0;
    for (int q = 0; q < l.blocks; q++) {
        long long off = l.off + (long long)q * l.step;
        size_t at = (size_t)q * l.len;
        for (size_t j = 0; j < l.len; j++) {
            long long want = l.mult * base_value(call, l.shift + j) + off;
            double got = b->use_float ? (double)((const float *)l.buf)[at + j]
                                      : (double)((const int *)l.buf)[at + j];
            if (got != (double)want) {
                if (wrong++ == 0) {
                    first = at + j;
                    got_first = got;
                    want_first = want;
                }
            }
        }
    }
    if (wrong == 0) {
        return 0;
    }
    if (b->printed_errors++ < MAX_PRINTED_ERRORS) {
        fprintf(stderr,
                "latency: WRONG RESULT: rank %d %s %s count=%d call=%ld: %zu of %zu elements "
                "wrong, first at [%zu]: got %.17g, want %lld\n",
                b->rank, var_names[v], coll_names[c], count, call, wrong, total, first, got_first,
                want_first);
    }
    if (b->abort_on_error) {
        fprintf(stderr, "latency: aborting at the first wrong result (--abort-on-error)\n");
        MPI_Abort(b->comm, 3);
    }
    return 1;
}

/* Calls ------------------------------------------------------------------ */

/* One call of collective Name (MPI_Name, non-blocking MPI_Iname): blocking
 * when req is NULL, started otherwise; the MPI library's own (PMPI_) for
 * VAR_MPI, the program's call (MPI_, Trellis when preloaded) otherwise. */
#define CALL(Name, name, ...)                                                                      \
    (req == NULL                                                                                   \
         ? (v == VAR_MPI ? PMPI_##Name(__VA_ARGS__) : MPI_##Name(__VA_ARGS__))                     \
         : (v == VAR_MPI ? PMPI_I##name(__VA_ARGS__, req) : MPI_I##name(__VA_ARGS__, req)))

static int dispatch(const bench *b, enum coll c, enum variant v, int count, MPI_Request *req)
{
    void *s = b->sbuf;
    void *r = b->rbuf;
    const int n = count;
    const MPI_Datatype t = b->dtype;
    const int root = b->root;
    const MPI_Comm comm = b->comm;
    const int *cnt = b->counts;
    const int *dis = b->displs;
    const int *bdis = b->byte_displs;
    const MPI_Datatype *ts = b->types;
    switch (c) {
    case COLL_BCAST: return CALL(Bcast, bcast, r, n, t, root, comm);
    case COLL_REDUCE: return CALL(Reduce, reduce, s, r, n, t, MPI_SUM, root, comm);
    case COLL_ALLREDUCE: return CALL(Allreduce, allreduce, s, r, n, t, MPI_SUM, comm);
    case COLL_BARRIER: return CALL(Barrier, barrier, comm);
    case COLL_GATHER: return CALL(Gather, gather, s, n, t, r, n, t, root, comm);
    case COLL_GATHERV: return CALL(Gatherv, gatherv, s, n, t, r, cnt, dis, t, root, comm);
    case COLL_SCATTER: return CALL(Scatter, scatter, s, n, t, r, n, t, root, comm);
    case COLL_SCATTERV: return CALL(Scatterv, scatterv, s, cnt, dis, t, r, n, t, root, comm);
    case COLL_ALLGATHER: return CALL(Allgather, allgather, s, n, t, r, n, t, comm);
    case COLL_ALLGATHERV: return CALL(Allgatherv, allgatherv, s, n, t, r, cnt, dis, t, comm);
    case COLL_ALLTOALL: return CALL(Alltoall, alltoall, s, n, t, r, n, t, comm);
    case COLL_ALLTOALLV: return CALL(Alltoallv, alltoallv, s, cnt, dis, t, r, cnt, dis, t, comm);
    case COLL_ALLTOALLW:
        return CALL(Alltoallw, alltoallw, s, cnt, bdis, ts, r, cnt, bdis, ts, comm);
    case COLL_REDUCE_SCATTER:
        return CALL(Reduce_scatter, reduce_scatter, s, r, cnt, t, MPI_SUM, comm);
    case COLL_REDUCE_SCATTER_BLOCK:
        return CALL(Reduce_scatter_block, reduce_scatter_block, s, r, n, t, MPI_SUM, comm);
    case COLL_SCAN: return CALL(Scan, scan, s, r, n, t, MPI_SUM, comm);
    case COLL_EXSCAN: return CALL(Exscan, exscan, s, r, n, t, MPI_SUM, comm);
    default: return MPI_ERR_OTHER;
    }
}

int coll_start(const bench *b, enum coll c, enum variant v, int count, MPI_Request *req)
{
    return dispatch(b, c, v, count, req);
}

int coll_call(const bench *b, enum coll c, enum variant v, int count, int nonblocking)
{
    if (!nonblocking || v == VAR_BLOCKING)
        return dispatch(b, c, v, count, NULL);
    MPI_Request req;
    int rc = dispatch(b, c, v, count, &req);
    if (rc != MPI_SUCCESS)
        return rc;
    return v == VAR_MPI ? PMPI_Wait(&req, MPI_STATUS_IGNORE) : MPI_Wait(&req, MPI_STATUS_IGNORE);
}
