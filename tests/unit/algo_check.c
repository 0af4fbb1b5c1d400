/* Shared parts of the threads tier: element types and helpers (see
 * algo_check.h). */
#include "algo_check.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- element types ---------------------------------------------------- */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return x;
}

/* x scaled to 0..n-1 (a multiply, not a division: the fills are much of
 * this tier's time). */
static uint64_t range_of(uint64_t x, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

static void i64_fill(void *buf, int rank, size_t count, unsigned salt)
{
    int64_t *v = buf;
    for (size_t i = 0; i < count; i++)
        v[i] = (int64_t)range_of(mix(((uint64_t)salt << 40) ^ ((uint64_t)rank << 24) ^ i),
                                 2000001) -
               1000000;
}
static void i64_reduce(const void *in, void *inout, size_t n)
{
    const int64_t *a = in;
    int64_t *b = inout;
    for (size_t i = 0; i < n; i++)
        b[i] = a[i] + b[i];
}
static void i64_fold(void *acc, const void *next, size_t n)
{
    int64_t *a = acc;
    const int64_t *b = next;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}
bool check_exact(const void *got, const void *want, size_t count, size_t size, size_t *bad)
{
    if (!memcmp(got, want, count * size))
        return true; /* the usual case, in one pass; then which element */
    for (size_t i = 0; i < count; i++)
        if (memcmp((const char *)got + i * size, (const char *)want + i * size, size)) {
            *bad = i;
            return false;
        }
    return true;
}
static bool i64_close(const void *got, const void *want, size_t count, int nranks, size_t *bad)
{
    (void)nranks;
    return check_exact(got, want, count, sizeof(int64_t), bad);
}

static void f64_fill(void *buf, int rank, size_t count, unsigned salt)
{
    double *v = buf;
    for (size_t i = 0; i < count; i++)
        v[i] = (double)range_of(mix(((uint64_t)salt << 40) ^ ((uint64_t)rank << 24) ^ i), 1000003) /
                   997.0 -
               300.0;
}
static void f64_reduce(const void *in, void *inout, size_t n)
{
    const double *a = in;
    double *b = inout;
    for (size_t i = 0; i < n; i++)
        b[i] = a[i] + b[i];
}
static void f64_fold(void *acc, const void *next, size_t n)
{
    double *a = acc;
    const double *b = next;
    for (size_t i = 0; i < n; i++)
        a[i] += b[i];
}
static bool f64_close(const void *got, const void *want, size_t count, int nranks, size_t *bad)
{
    const double *g = got, *w = want;
    for (size_t i = 0; i < count; i++) {
        /* Any summation order is within p ulps of the magnitudes summed;
         * the inputs are bounded by 1300, so this bound is generous but
         * still catches a missing or doubled contribution. */
        double tol = (double)nranks * 1400.0 * 4.0 * 2.3e-16 * (double)nranks;
        if (!(fabs(g[i] - w[i]) <= tol)) {
            *bad = i;
            return false;
        }
    }
    return true;
}

typedef struct {
    uint32_t m[4]; /* row-major 2x2 */
} mat;
static mat mat_mul(mat x, mat y)
{
    mat r = {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
              x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
    return r;
}
static void mat_fill(void *buf, int rank, size_t count, unsigned salt)
{
    mat *v = buf;
    for (size_t i = 0; i < count; i++) {
        /* Two 64-bit values make the four entries. */
        uint64_t x = mix(((uint64_t)salt << 44) ^ ((uint64_t)rank << 28) ^ i);
        uint64_t y = x * 0xD6E8FEB86659FD93ULL + 0x9E3779B97F4A7C15ULL;
        v[i].m[0] = (uint32_t)x;
        v[i].m[1] = (uint32_t)(x >> 32);
        v[i].m[2] = (uint32_t)(y >> 32);
        v[i].m[3] = (uint32_t)(y >> 7);
    }
}
static void mat_reduce(const void *in, void *inout, size_t n)
{
    const mat *a = in;
    mat *b = inout;
    for (size_t i = 0; i < n; i++)
        b[i] = mat_mul(a[i], b[i]);
}
static void mat_fold(void *acc, const void *next, size_t n)
{
    mat *a = acc;
    const mat *b = next;
    for (size_t i = 0; i < n; i++)
        a[i] = mat_mul(a[i], b[i]);
}
static bool mat_close(const void *got, const void *want, size_t count, int nranks, size_t *bad)
{
    (void)nranks;
    return check_exact(got, want, count, sizeof(mat), bad);
}

const elem_type check_types[] = {
    {"i64", sizeof(int64_t), true, i64_fill, i64_reduce, i64_fold, i64_close},
    {"f64", sizeof(double), true, f64_fill, f64_reduce, f64_fold, f64_close},
    {"mat", sizeof(mat), false, mat_fill, mat_reduce, mat_fold, mat_close},
};

const size_t check_ntypes = sizeof check_types / sizeof *check_types;

/* ---- helpers ---------------------------------------------------------- */

bool check_picked(tally *t, bool core, unsigned key)
{
    if (!t->rotate || core)
        return true;
    /* splitmix64's finalizer (mix's low bits cycle with consecutive keys): the
     * cases of one shape, and the shapes, fall in slices independently. */
    uint64_t z = (uint64_t)key + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    if ((z % CHECK_SLICES + t->seed % CHECK_SLICES) % CHECK_SLICES == 0)
        return true;
    t->left++;
    return false;
}

void check_fail(tally *t, const check_case *c, const char *fmt, ...)
{
    t->failures++;
    if (t->failures > 20)
        return;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    fprintf(stderr, "FAIL %s %s [%s]%s%s type=%s ranks=%d count=%zu root=%d%s: %s\n",
            trl_coll_name(c->algo->coll), c->algo->name, c->params_text,
            c->layout_text ? " layout: " : "", c->layout_text ? c->layout_text : "", c->ty->name,
            c->p, c->count, c->root, c->in_place ? " in-place" : "", what);
}

trl_coll_args check_args(const check_case *c)
{
    trl_coll_args a = {.coll = c->algo->coll,
                       .size = c->p,
                       .root = c->root,
                       .count = c->count,
                       .elem_size = c->ty->size,
                       .commutative = c->ty->commutative,
                       .params = c->params,
                       .topo = c->topo};
    return a;
}

void check_irregular_counts(int p, size_t count, size_t *counts)
{
    for (int r = 0; r < p; r++)
        counts[r] = count == 0 || r % 3 == 2 ? 0 : count + (size_t)r * 3;
}

size_t check_scattered_displs(int p, const size_t *counts, size_t *displs)
{
    size_t at = 1;
    for (int r = p - 1; r >= 0; r--) {
        displs[r] = at;
        at += counts[r] + 1;
    }
    return at;
}

void check_fold_ranks(const check_case *c, void *want, void *tmp, size_t n)
{
    c->ty->fill(want, 0, n, c->seed);
    for (int r = 1; r < c->p; r++) {
        c->ty->fill(tmp, r, n, c->seed);
        c->ty->fold_expected(want, tmp, n);
    }
}

bool check_bufs_init(check_bufs *b, int p)
{
    size_t np = (size_t)p;
    *b = (check_bufs){.p = p};
    b->s = calloc(np, sizeof *b->s);
    b->send = calloc(np, sizeof *b->send);
    b->recv = calloc(np, sizeof *b->recv);
    b->send_n = calloc(np, sizeof *b->send_n);
    b->recv_n = calloc(np, sizeof *b->recv_n);
    return b->s && b->send && b->recv && b->send_n && b->recv_n;
}

void check_bufs_free(check_bufs *b)
{
    for (int r = 0; r < b->built; r++)
        trl_sched_free(&b->s[r]);
    for (int r = 0; r < b->p && b->send && b->recv; r++) {
        if (b->recv[r] != b->send[r])
            free(b->recv[r]);
        free(b->send[r]);
    }
    free(b->s);
    free(b->send);
    free(b->recv);
    free(b->send_n);
    free(b->recv_n);
}

bool check_build_all(tally *t, const check_case *c, check_bufs *b, check_args_fn args_of, void *ctx)
{
    for (b->built = 0; b->built < c->p; b->built++) {
        int r = b->built;
        trl_coll_args a = check_args(c);
        a.rank = r;
        args_of(c, r, &a, ctx);
        int rc = trl_algo_build(c->algo, &a, &b->s[r]);
        if (rc) {
            check_fail(t, c, "builder failed on rank %d: %d", r, rc);
            return false;
        }
    }
    return true;
}

bool check_run(tally *t, const check_case *c, const check_bufs *b, size_t elem_size)
{
    trl_thread_job job = {.size = c->p,
                          .elem_size = elem_size,
                          .reduce = c->ty->reduce,
                          .scheds = b->s,
                          .sendbuf = b->send,
                          .recvbuf = b->recv,
                          .send_elems = b->send_n,
                          .recv_elems = b->recv_n,
                          .seed = c->seed,
                          .timeout_s = 5};
    if (trl_thread_run(&job)) {
        check_fail(t, c, "%s", job.error);
        return false;
    }
    return true;
}

bool check_sends_unchanged(tally *t, const check_case *c, const check_bufs *b)
{
    bool ok = true;
    for (int r = 0; r < c->p && ok; r++) {
        if (!b->send[r] || b->send[r] == b->recv[r])
            continue;
        size_t n = b->send_n[r], bad;
        void *want = malloc(n * c->ty->size + 1);
        c->ty->fill(want, r, n, c->seed);
        if (!check_exact(b->send[r], want, n, c->ty->size, &bad)) {
            check_fail(t, c, "rank %d's send buffer was modified (element %zu)", r, bad);
            ok = false;
        }
        free(want);
    }
    return ok;
}
