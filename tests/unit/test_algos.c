/* Every algorithm of one collective, run in one process with ranks as
 * threads, over rank counts x counts x roots x element types x parameter
 * variants, checked against values computed here independently (a plain
 * loop in rank order).
 *
 *   test_algos <collective> <algorithm> [--quick]
 *
 * Element types:
 *   i64  sum of 64-bit integers: exact.
 *   f64  sum of doubles: within the rounding error of any order.
 *   mat  2x2 matrix product mod 2^32: associative but not commutative, so
 *        a contribution combined out of rank order gives a wrong answer.
 * Barriers carry no data; for them the check is that every rank, before it
 * finishes, has heard (through a chain of messages) from every other rank.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "exec/exec_threads.h"

/* ---- element types ---------------------------------------------------- */

typedef struct {
    const char *name;
    size_t size;
    bool commutative;
    void (*fill)(void *buf, int rank, size_t count, unsigned salt);
    void (*reduce)(const void *in, void *inout, size_t count); /* inout = in (op) inout */
    void (*fold_expected)(void *acc, const void *next, size_t count); /* acc = acc (op) next */
    bool (*close)(const void *got, const void *want, size_t count, int nranks, size_t *bad);
} elem_type;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x9E3779B97F4A7C15ULL;
    x ^= x >> 29;
    return x;
}

static void i64_fill(void *buf, int rank, size_t count, unsigned salt)
{
    int64_t *v = buf;
    for (size_t i = 0; i < count; i++)
        v[i] = (int64_t)(mix(((uint64_t)salt << 40) ^ ((uint64_t)rank << 24) ^ i) % 2000001) - 1000000;
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
static bool exact(const void *got, const void *want, size_t count, size_t size, size_t *bad)
{
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
    return exact(got, want, count, sizeof(int64_t), bad);
}

static void f64_fill(void *buf, int rank, size_t count, unsigned salt)
{
    double *v = buf;
    for (size_t i = 0; i < count; i++)
        v[i] = (double)(mix(((uint64_t)salt << 40) ^ ((uint64_t)rank << 24) ^ i) % 1000003) / 997.0 -
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
    for (size_t i = 0; i < count; i++)
        for (int k = 0; k < 4; k++)
            v[i].m[k] = (uint32_t)mix(((uint64_t)salt << 44) ^ ((uint64_t)rank << 28) ^ (i << 2) ^ (uint64_t)k);
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
    return exact(got, want, count, sizeof(mat), bad);
}

static const elem_type types[] = {
    {"i64", sizeof(int64_t), true, i64_fill, i64_reduce, i64_fold, i64_close},
    {"f64", sizeof(double), true, f64_fill, f64_reduce, f64_fold, f64_close},
    {"mat", sizeof(mat), false, mat_fill, mat_reduce, mat_fold, mat_close},
};

/* ---- the sweep -------------------------------------------------------- */

static const int all_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16};
static const size_t all_counts[] = {0, 1, 7, 1000, 100003};

/* Parameter variants per algorithm, and the largest count each is tried
 * with (tiny segments make very many messages). */
typedef struct {
    const char *params;
    size_t max_count;
} variant;

static int variants_for(const trl_algo *algo, variant *out)
{
    int n = 0;
    out[n++] = (variant){"", SIZE_MAX};
    if (trl_algo_param(algo, "radix", 5)) {
        const trl_param_spec *spec = trl_algo_param(algo, "radix", 5);
        for (int r = (int)spec->min; r <= 8; r++) {
            static char text[16][32];
            snprintf(text[r], sizeof text[r], "radix=%d", r);
            out[n++] = (variant){text[r], SIZE_MAX};
        }
    }
    if (trl_algo_param(algo, "segment", 7)) {
        out[n++] = (variant){"segment=24", 1000}; /* a few elements, not dividing counts */
        out[n++] = (variant){"segment=1K", SIZE_MAX};
    }
    if (trl_algo_param(algo, "reduce", 6)) {
        static const char *reds[] = {"linear", "binomial", "knomial", "kary", "chain", "rabenseifner"};
        static const char *bcs[] = {"linear", "binomial", "knomial", "kary", "chain", "scatter_allgather"};
        static char text[12][64];
        for (int i = 0; i < 6; i++) {
            snprintf(text[i], sizeof text[i], "reduce=%s bcast=binomial", reds[i]);
            out[n++] = (variant){text[i], SIZE_MAX};
            snprintf(text[6 + i], sizeof text[6 + i], "reduce=binomial bcast=%s segment=512", bcs[i]);
            out[n++] = (variant){text[6 + i], SIZE_MAX};
        }
    }
    return n;
}

typedef struct {
    int failures, cases;
    bool quick;
} tally;

static void report(tally *t, const trl_algo *algo, const char *params, const char *tname, int p,
                   size_t count, int root, bool in_place, const char *what)
{
    t->failures++;
    if (t->failures <= 20)
        fprintf(stderr, "FAIL %s %s [%s] type=%s ranks=%d count=%zu root=%d%s: %s\n",
                trl_coll_name(algo->coll), algo->name, params, tname, p, count, root,
                in_place ? " in-place" : "", what);
}

/* Which ranks each step has heard from (bitsets over <= 64 ranks), to a
 * fixed point across message edges. Used for barriers. */
static bool barrier_informs_all(trl_sched *s, int p, char *why, size_t whylen)
{
    uint64_t **know = calloc((size_t)p, sizeof *know);
    for (int r = 0; r < p; r++)
        know[r] = calloc(s[r].nsteps + 1, sizeof **know);
    bool changed = true;
    while (changed) {
        changed = false;
        for (int r = 0; r < p; r++) {
            for (size_t i = 0; i < s[r].nsteps; i++) {
                const trl_step *st = &s[r].steps[i];
                uint64_t k = 1ULL << r;
                for (uint32_t d = 0; d < st->ndeps; d++)
                    k |= know[r][s[r].deps[st->dep_first + d]];
                if (st->kind == TRL_STEP_RECV) {
                    const trl_sched *src = &s[st->peer];
                    for (size_t j = 0; j < src->nsteps; j++)
                        if (src->steps[j].kind == TRL_STEP_SEND && src->steps[j].peer == r &&
                            src->steps[j].tag == st->tag)
                            k |= know[st->peer][j];
                }
                if (k != know[r][i]) {
                    know[r][i] = k;
                    changed = true;
                }
            }
        }
    }
    bool ok = true;
    uint64_t all = p == 64 ? ~0ULL : (1ULL << p) - 1;
    for (int r = 0; r < p && ok; r++) {
        uint64_t k = 1ULL << r;
        for (size_t i = 0; i < s[r].nsteps; i++)
            k |= know[r][i];
        if (k != all) {
            snprintf(why, whylen, "rank %d can finish without hearing from every rank (knows %#llx)",
                     r, (unsigned long long)k);
            ok = false;
        }
    }
    for (int r = 0; r < p; r++)
        free(know[r]);
    free(know);
    return ok;
}

static void run_case(tally *t, const trl_algo *algo, const char *params_text, const trl_params *params,
                     const elem_type *ty, int p, size_t count, int root, bool in_place, unsigned seed)
{
    trl_coll coll = algo->coll;
    t->cases++;
    trl_coll_args args = {.coll = coll, .size = p, .root = root, .count = count,
                          .elem_size = ty->size, .commutative = ty->commutative, .params = params};
    bool has_both = coll == TRL_COLL_ALLREDUCE || coll == TRL_COLL_REDUCE;
    trl_sched *s = calloc((size_t)p, sizeof *s);
    void **send = calloc((size_t)p, sizeof *send), **recv = calloc((size_t)p, sizeof *recv);
    size_t *send_n = calloc((size_t)p, sizeof *send_n), *recv_n = calloc((size_t)p, sizeof *recv_n);
    void *expect = calloc(count + 1, ty->size), *tmp = calloc(count + 1, ty->size);
    char why[256];
    int built = 0;

    for (; built < p; built++) {
        args.rank = built;
        args.in_place = in_place && has_both && (coll == TRL_COLL_ALLREDUCE || built == root);
        int rc = trl_algo_build(algo, &args, &s[built]);
        if (rc) {
            snprintf(why, sizeof why, "builder failed on rank %d: %d", built, rc);
            report(t, algo, params_text, ty->name, p, count, root, in_place, why);
            goto out;
        }
    }

    if (coll == TRL_COLL_BARRIER) {
        if (!barrier_informs_all(s, p, why, sizeof why))
            report(t, algo, params_text, ty->name, p, count, root, in_place, why);
    }

    /* Inputs, and the expected result computed by a plain loop. */
    for (int r = 0; r < p; r++) {
        bool has_send = coll == TRL_COLL_REDUCE || coll == TRL_COLL_ALLREDUCE;
        bool has_recv = coll == TRL_COLL_BCAST || coll == TRL_COLL_ALLREDUCE ||
                        (coll == TRL_COLL_REDUCE && r == root);
        if (has_send) {
            send[r] = malloc(count * ty->size + 1);
            send_n[r] = count;
            ty->fill(send[r], r, count, seed);
        }
        if (has_recv) {
            recv[r] = malloc(count * ty->size + 1);
            recv_n[r] = count;
            if (coll == TRL_COLL_BCAST)
                ty->fill(recv[r], r == root ? 1000 : r, count, seed + (r == root ? 0 : 7));
            else
                memset(recv[r], 0x5A, count * ty->size); /* garbage the result must replace */
        }
        if (in_place && has_send && has_recv) {
            memcpy(recv[r], send[r], count * ty->size);
            free(send[r]);
            send[r] = recv[r];
        }
    }
    if (coll == TRL_COLL_BCAST) {
        ty->fill(expect, 1000, count, seed);
    } else if (coll != TRL_COLL_BARRIER) {
        ty->fill(expect, 0, count, seed);
        for (int r = 1; r < p; r++) {
            ty->fill(tmp, r, count, seed);
            ty->fold_expected(expect, tmp, count);
        }
    }

    trl_thread_job job = {.size = p, .elem_size = ty->size, .reduce = ty->reduce, .scheds = s,
                          .sendbuf = send, .recvbuf = recv, .send_elems = send_n,
                          .recv_elems = recv_n, .seed = seed, .timeout_s = 5};
    if (trl_thread_run(&job)) {
        report(t, algo, params_text, ty->name, p, count, root, in_place, job.error);
        goto out;
    }
    for (int r = 0; r < p; r++) {
        if (!recv[r] || coll == TRL_COLL_BARRIER)
            continue;
        size_t bad;
        if (!ty->close(recv[r], expect, count, p, &bad)) {
            snprintf(why, sizeof why, "rank %d: element %zu is wrong", r, bad);
            report(t, algo, params_text, ty->name, p, count, root, in_place, why);
            break;
        }
    }
    /* Send buffers are read-only. */
    for (int r = 0; r < p; r++) {
        if (!send[r] || send[r] == recv[r])
            continue;
        ty->fill(tmp, r, count, seed);
        size_t bad;
        if (!exact(send[r], tmp, count, ty->size, &bad)) {
            snprintf(why, sizeof why, "rank %d's send buffer was modified", r);
            report(t, algo, params_text, ty->name, p, count, root, in_place, why);
            break;
        }
    }
out:
    for (int r = 0; r < built; r++)
        trl_sched_free(&s[r]);
    for (int r = 0; r < p; r++) {
        if (send[r] != recv[r])
            free(send[r]);
        free(recv[r]);
    }
    free(s);
    free(send);
    free(recv);
    free(send_n);
    free(recv_n);
    free(expect);
    free(tmp);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <collective> <algorithm> [--quick]\n", argv[0]);
        return 2;
    }
    int coll = trl_coll_from_name(argv[1], strlen(argv[1]));
    const trl_algo *algo = coll < 0 ? NULL : trl_algo_find((trl_coll)coll, argv[2], strlen(argv[2]));
    if (!algo || !algo->build) {
        fprintf(stderr, "no such algorithm: %s %s\n", argv[1], argv[2]);
        return 2;
    }
    tally t = {0};
    t.quick = argc > 3 && strcmp(argv[3], "--quick") == 0;

    variant vars[64];
    int nvars = variants_for(algo, vars);
    unsigned seed = 1;
    for (int v = 0; v < nvars; v++) {
        trl_params params;
        const char *why;
        if (trl_params_from_string(algo, vars[v].params, &params, &why)) {
            fprintf(stderr, "bad test parameters '%s': %s\n", vars[v].params, why);
            return 2;
        }
        for (size_t si = 0; si < sizeof all_sizes / sizeof *all_sizes; si++) {
            int p = all_sizes[si];
            for (size_t ci = 0; ci < sizeof all_counts / sizeof *all_counts; ci++) {
                size_t count = all_counts[ci];
                if (coll == TRL_COLL_BARRIER && count > 0)
                    continue;
                if (count > vars[v].max_count || (t.quick && count > 1000))
                    continue;
                /* The big count once per variant and size, not per root and type. */
                bool big = count > 1000;
                int roots[4] = {0, p - 1, p / 2, 1 % p}, nroots = coll == TRL_COLL_BCAST ||
                                                                     coll == TRL_COLL_REDUCE ? 4 : 1;
                for (int ri = 0; ri < nroots; ri++) {
                    int root = roots[ri];
                    bool dup = false;
                    for (int k = 0; k < ri; k++)
                        dup |= roots[k] == root;
                    if (dup || (big && ri > 1))
                        continue;
                    size_t ntypes = coll == TRL_COLL_BARRIER ? 1 : sizeof types / sizeof *types;
                    for (size_t ti = 0; ti < ntypes; ti++) {
                        const elem_type *ty = &types[ti];
                        trl_coll_args probe = {.coll = (trl_coll)coll, .commutative = ty->commutative,
                                               .params = &params, .algo = algo};
                        if (trl_algo_unusable(algo, &probe))
                            continue;
                        if (big && ti == 1)
                            continue;
                        bool can_in_place = coll == TRL_COLL_REDUCE || coll == TRL_COLL_ALLREDUCE;
                        for (int ip = 0; ip <= (can_in_place ? 1 : 0); ip++)
                            run_case(&t, algo, vars[v].params, &params, ty, p, count, root, ip,
                                     seed++);
                    }
                }
            }
        }
        trl_params_free(&params);
    }
    printf("%s %s: %d cases, %d failed\n", argv[1], argv[2], t.cases, t.failures);
    return t.failures ? 1 : 0;
}
