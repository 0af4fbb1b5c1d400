/* A plain MPI program that checks MPI_Bcast, MPI_Reduce, MPI_Allreduce and
 * MPI_Barrier against values it computes itself. It knows nothing of
 * Trellis: the test suite runs it under `trellis run` / LD_PRELOAD with each
 * algorithm forced by TRELLIS_RULES, and without Trellis as a control.
 *
 * Covered: counts 0, 1, 7, 1000, 100003; every root; MPI_IN_PLACE; every
 * predefined operation on the types it applies to (expected values by a
 * plain loop written here, and for the full type x op matrix by
 * MPI_Reduce_local folded in rank order); MINLOC/MAXLOC pairs; a
 * commutative and a non-commutative user operation; a strided derived
 * datatype whose gaps must stay untouched; a broadcast where ranks describe
 * the same bytes with different datatypes; sub-communicators from
 * MPI_Comm_split with reversed rank order; a barrier that must hold every
 * rank until the slowest arrives; and a user receive posted with
 * MPI_ANY_SOURCE/MPI_ANY_TAG that collective traffic must not match.
 *
 *   coll_check [--quick]      exit status 0 when every check passed
 */
#include <math.h>
#include <mpi.h>

#include "call_mode.h" /* collectives in the form TRELLIS_TEST_MODE says */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int failures, checks, world_rank;
static int quick;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            if (failures <= 20) {                                                                  \
                fprintf(stderr, "rank %d FAIL %s:%d: ", world_rank, __FILE__, __LINE__);           \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static const int counts[] = {0, 1, 7, 1000, 100003};
#define NCOUNTS (int)(sizeof counts / sizeof *counts)

/* Small values, so sums and products stay exact in any order. */
static int ival(int rank, int i)
{
    return (int)((rank * 7 + i * 13) % 19) - 9;
}
static int pval(int rank, int i)
{
    return ((rank + i) % 5 == 0) ? -1 : ((rank * 3 + i) % 7 == 0 ? 2 : 1);
}

/* ---- integer and floating-point operations, expected by plain loops ---- */

typedef struct {
    MPI_Op op;
    const char *name;
} named_op;

static long expect_int(MPI_Op op, int p, int i)
{
    long acc = op == MPI_PROD ? pval(0, i) : ival(0, i);
    for (int r = 1; r < p; r++) {
        long v = op == MPI_PROD ? pval(r, i) : ival(r, i);
        if (op == MPI_SUM)
            acc += v;
        else if (op == MPI_PROD)
            acc *= v;
        else if (op == MPI_MAX)
            acc = v > acc ? v : acc;
        else if (op == MPI_MIN)
            acc = v < acc ? v : acc;
        else if (op == MPI_LAND)
            acc = acc && v;
        else if (op == MPI_LOR)
            acc = acc || v;
        else if (op == MPI_LXOR)
            acc = !acc != !v;
        else if (op == MPI_BAND)
            acc &= v;
        else if (op == MPI_BOR)
            acc |= v;
        else if (op == MPI_BXOR)
            acc ^= v;
    }
    return acc;
}

static void check_int_ops(MPI_Comm comm, const char *where)
{
    static const named_op ops[] = {{MPI_SUM, "sum"},   {MPI_PROD, "prod"}, {MPI_MAX, "max"},
                                   {MPI_MIN, "min"},   {MPI_LAND, "land"}, {MPI_LOR, "lor"},
                                   {MPI_LXOR, "lxor"}, {MPI_BAND, "band"}, {MPI_BOR, "bor"},
                                   {MPI_BXOR, "bxor"}};
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        for (int ci = 0; ci < NCOUNTS; ci++) {
            int n = counts[ci];
            if (quick && n > 1000)
                continue;
            int *in = malloc(sizeof(int) * (size_t)(n + 1)),
                *out = malloc(sizeof(int) * (size_t)(n + 1));
            for (int i = 0; i < n; i++)
                in[i] = ops[o].op == MPI_PROD ? pval(rank, i) : ival(rank, i);
            for (int in_place = 0; in_place < 2; in_place++) {
                /* allreduce */
                for (int i = 0; i < n; i++)
                    out[i] = in_place ? in[i] : 12345;
                MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, n, MPI_INT, ops[o].op, comm);
                int bad = -1;
                for (int i = 0; i < n && bad < 0; i++)
                    if (out[i] != expect_int(ops[o].op, p, i))
                        bad = i;
                CHECK(bad < 0, "%s allreduce int %s n=%d%s: element %d is %d, expected %ld", where,
                      ops[o].name, n, in_place ? " in-place" : "", bad, bad >= 0 ? out[bad] : 0,
                      bad >= 0 ? expect_int(ops[o].op, p, bad) : 0);
                /* reduce, every root */
                for (int root = 0; root < p; root++) {
                    int me = rank == root;
                    for (int i = 0; i < n; i++)
                        out[i] = (in_place && me) ? in[i] : 12345;
                    MPI_Reduce((in_place && me) ? MPI_IN_PLACE : in, me ? out : NULL, n, MPI_INT,
                               ops[o].op, root, comm);
                    bad = -1;
                    for (int i = 0; me && i < n && bad < 0; i++)
                        if (out[i] != expect_int(ops[o].op, p, i))
                            bad = i;
                    CHECK(bad < 0, "%s reduce int %s n=%d root=%d%s: element %d wrong", where,
                          ops[o].name, n, root, in_place ? " in-place" : "", bad);
                }
            }
            free(in);
            free(out);
        }
    }
}

static void check_double_sum_max(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        if (quick && n > 1000)
            continue;
        double *in = malloc(sizeof(double) * (size_t)(n + 1)),
               *out = malloc(sizeof(double) * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            in[i] = ival(rank, i) * 0.5; /* exact in binary */
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, comm);
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++) {
            double e = 0;
            for (int r = 0; r < p; r++)
                e += ival(r, i) * 0.5;
            if (out[i] != e)
                bad = i;
        }
        CHECK(bad < 0, "%s allreduce double sum n=%d: element %d wrong", where, n, bad);
        MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_MAX, comm);
        bad = -1;
        for (int i = 0; i < n && bad < 0; i++) {
            double e = -1e300;
            for (int r = 0; r < p; r++)
                e = fmax(e, ival(r, i) * 0.5);
            if (out[i] != e)
                bad = i;
        }
        CHECK(bad < 0, "%s allreduce double max n=%d: element %d wrong", where, n, bad);
        free(in);
        free(out);
    }
}

/* ---- MINLOC / MAXLOC ---------------------------------------------------- */

typedef struct {
    double v;
    int loc;
} double_int;

static void check_loc(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int n = quick ? 1000 : 5003;
    double_int *in = malloc(sizeof *in * (size_t)n), *out = malloc(sizeof *out * (size_t)n);
    int(*in2)[2] = malloc(sizeof *in2 * (size_t)n), (*out2)[2] = malloc(sizeof *out2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        in[i].v = (double)(ival(rank, i) / 3); /* ties across ranks: lowest rank must win */
        in[i].loc = rank;
        in2[i][0] = ival(rank, i) / 4;
        in2[i][1] = rank;
    }
    for (int which = 0; which < 2; which++) {
        MPI_Op op = which ? MPI_MAXLOC : MPI_MINLOC;
        MPI_Allreduce(in, out, n, MPI_DOUBLE_INT, op, comm);
        MPI_Allreduce(in2, out2, n, MPI_2INT, op, comm);
        int bad = -1, bad2 = -1;
        for (int i = 0; i < n; i++) {
            double best = in[i].v;
            int loc = -1, best2 = 0, loc2 = -1;
            for (int r = 0; r < p; r++) {
                double v = (double)(ival(r, i) / 3);
                if (loc < 0 || (which ? v > best : v < best))
                    best = v, loc = r;
                int v2 = ival(r, i) / 4;
                if (loc2 < 0 || (which ? v2 > best2 : v2 < best2))
                    best2 = v2, loc2 = r;
            }
            if (bad < 0 && (out[i].v != best || out[i].loc != loc))
                bad = i;
            if (bad2 < 0 && (out2[i][0] != best2 || out2[i][1] != loc2))
                bad2 = i;
        }
        CHECK(bad < 0, "%s allreduce DOUBLE_INT %s: element %d wrong", where,
              which ? "maxloc" : "minloc", bad);
        CHECK(bad2 < 0, "%s allreduce 2INT %s: element %d wrong", where,
              which ? "maxloc" : "minloc", bad2);
    }
    free(in);
    free(out);
    free(in2);
    free(out2);
}

/* The other predefined pair types, one function each from one macro: a
 * value (ties across ranks, so the lowest rank must win) and its rank. */
#define PAIR_CHECK(fn, vtype, mpitype)                                                             \
    static void fn(MPI_Comm comm, const char *where)                                               \
    {                                                                                              \
        typedef struct {                                                                           \
            vtype v;                                                                               \
            int loc;                                                                               \
        } pair;                                                                                    \
        int rank, p;                                                                               \
        MPI_Comm_rank(comm, &rank);                                                                \
        MPI_Comm_size(comm, &p);                                                                   \
        const int n = 257;                                                                         \
        pair *in = malloc(sizeof *in * n), *out = malloc(sizeof *out * n);                         \
        for (int i = 0; i < n; i++) {                                                              \
            in[i].v = (vtype)(ival(rank, i) / 3);                                                  \
            in[i].loc = rank;                                                                      \
        }                                                                                          \
        for (int which = 0; which < 2; which++) {                                                  \
            MPI_Allreduce(in, out, n, mpitype, which ? MPI_MAXLOC : MPI_MINLOC, comm);             \
            int bad = -1;                                                                          \
            for (int i = 0; i < n && bad < 0; i++) {                                               \
                vtype best = 0;                                                                    \
                int loc = -1;                                                                      \
                for (int r = 0; r < p; r++) {                                                      \
                    vtype v = (vtype)(ival(r, i) / 3);                                             \
                    if (loc < 0 || (which ? v > best : v < best))                                  \
                        best = v, loc = r;                                                         \
                }                                                                                  \
                if (out[i].v != best || out[i].loc != loc)                                         \
                    bad = i;                                                                       \
            }                                                                                      \
            CHECK(bad < 0, "%s allreduce %s %s: element %d wrong", where, #mpitype,                \
                  which ? "maxloc" : "minloc", bad);                                               \
        }                                                                                          \
        free(in);                                                                                  \
        free(out);                                                                                 \
    }
PAIR_CHECK(check_float_int, float, MPI_FLOAT_INT)
PAIR_CHECK(check_long_int, long, MPI_LONG_INT)
PAIR_CHECK(check_short_int, short, MPI_SHORT_INT)
PAIR_CHECK(check_long_double_int, long double, MPI_LONG_DOUBLE_INT)

/* ---- every predefined (type, op) pair MPI allows ------------------------ */

/* Expected values here come from MPI_Reduce_local folded in rank order: the
 * MPI library's arithmetic, but none of its (or Trellis') communication. */
static void check_type_op_matrix(MPI_Comm comm, const char *where)
{
    enum { INT_LIKE, FLOAT_LIKE, LOGICAL, BYTE_LIKE, COMPLEX };
    static const struct {
        MPI_Datatype t;
        int cls;
        const char *name;
    } types[] = {
        {MPI_CHAR, INT_LIKE, "char"},
        {MPI_SIGNED_CHAR, INT_LIKE, "signed char"},
        {MPI_UNSIGNED_CHAR, INT_LIKE, "unsigned char"},
        {MPI_SHORT, INT_LIKE, "short"},
        {MPI_UNSIGNED_SHORT, INT_LIKE, "unsigned short"},
        {MPI_INT, INT_LIKE, "int"},
        {MPI_UNSIGNED, INT_LIKE, "unsigned"},
        {MPI_LONG, INT_LIKE, "long"},
        {MPI_UNSIGNED_LONG, INT_LIKE, "unsigned long"},
        {MPI_LONG_LONG, INT_LIKE, "long long"},
        {MPI_UNSIGNED_LONG_LONG, INT_LIKE, "unsigned long long"},
        {MPI_INT8_T, INT_LIKE, "int8"},
        {MPI_INT16_T, INT_LIKE, "int16"},
        {MPI_INT32_T, INT_LIKE, "int32"},
        {MPI_INT64_T, INT_LIKE, "int64"},
        {MPI_UINT8_T, INT_LIKE, "uint8"},
        {MPI_UINT16_T, INT_LIKE, "uint16"},
        {MPI_UINT32_T, INT_LIKE, "uint32"},
        {MPI_UINT64_T, INT_LIKE, "uint64"},
        {MPI_FLOAT, FLOAT_LIKE, "float"},
        {MPI_DOUBLE, FLOAT_LIKE, "double"},
        {MPI_LONG_DOUBLE, FLOAT_LIKE, "long double"},
        {MPI_C_BOOL, LOGICAL, "bool"},
        {MPI_BYTE, BYTE_LIKE, "byte"},
        {MPI_C_FLOAT_COMPLEX, COMPLEX, "float complex"},
        {MPI_C_DOUBLE_COMPLEX, COMPLEX, "double complex"},
    };
    static const struct {
        MPI_Op op;
        const char *name;
        unsigned classes;
    } ops[] = {
        {MPI_SUM, "sum", 1u << INT_LIKE | 1u << FLOAT_LIKE | 1u << COMPLEX},
        {MPI_PROD, "prod", 1u << INT_LIKE | 1u << FLOAT_LIKE | 1u << COMPLEX},
        {MPI_MAX, "max", 1u << INT_LIKE | 1u << FLOAT_LIKE},
        {MPI_MIN, "min", 1u << INT_LIKE | 1u << FLOAT_LIKE},
        {MPI_LAND, "land", 1u << INT_LIKE | 1u << LOGICAL},
        {MPI_LOR, "lor", 1u << INT_LIKE | 1u << LOGICAL},
        {MPI_LXOR, "lxor", 1u << INT_LIKE | 1u << LOGICAL},
        {MPI_BAND, "band", 1u << INT_LIKE | 1u << BYTE_LIKE},
        {MPI_BOR, "bor", 1u << INT_LIKE | 1u << BYTE_LIKE},
        {MPI_BXOR, "bxor", 1u << INT_LIKE | 1u << BYTE_LIKE},
    };
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int n = 37;
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        int size;
        MPI_Type_size(types[t].t, &size);
        unsigned char *mine = malloc((size_t)(n * size)), *out = malloc((size_t)(n * size)),
                      *expect = malloc((size_t)(n * size)), *theirs = malloc((size_t)(n * size));
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            if (!(ops[o].classes & (1u << types[t].cls)))
                continue;
            /* Byte patterns that are valid values of every type: 0 or 1 in
             * each element's low byte (bool-safe, exact for floats via
             * small integers). */
            for (int r = 0; r < p; r++) {
                unsigned char *dst = r == 0 ? expect : theirs;
                memset(dst, 0, (size_t)(n * size));
                for (int i = 0; i < n; i++) {
                    int v = (r + i) % 3 == 0 ? 0 : 1;
                    if (types[t].cls == FLOAT_LIKE || types[t].cls == COMPLEX) {
                        if (types[t].t == MPI_FLOAT || types[t].t == MPI_C_FLOAT_COMPLEX)
                            ((float *)dst)[i * (size / (int)sizeof(float))] = (float)(v + 1);
                        else if (types[t].t == MPI_DOUBLE || types[t].t == MPI_C_DOUBLE_COMPLEX)
                            ((double *)dst)[i * (size / (int)sizeof(double))] = v + 1;
                        else
                            ((long double *)dst)[i] = v + 1;
                    } else {
                        dst[i * size] = (unsigned char)(types[t].cls == BYTE_LIKE
                                                            ? (r * 37 + i) & 0xff
                                                            : v);
                    }
                }
                if (r == rank)
                    memcpy(mine, dst, (size_t)(n * size));
                if (r > 0) {
                    /* expect = expect (op) theirs, rank order: Reduce_local's
                     * inout is the right operand, so fold via a copy. */
                    memcpy(out, theirs, (size_t)(n * size));
                    MPI_Reduce_local(expect, out, n, types[t].t, ops[o].op);
                    memcpy(expect, out, (size_t)(n * size));
                }
            }
            memset(out, 0xEE, (size_t)(n * size));
            MPI_Allreduce(mine, out, n, types[t].t, ops[o].op, comm);
            CHECK(memcmp(out, expect, (size_t)(n * size)) == 0, "%s allreduce %s %s wrong", where,
                  types[t].name, ops[o].name);
            memset(out, 0xEE, (size_t)(n * size));
            MPI_Reduce(mine, out, n, types[t].t, ops[o].op, p - 1, comm);
            if (rank == p - 1)
                CHECK(memcmp(out, expect, (size_t)(n * size)) == 0, "%s reduce %s %s wrong", where,
                      types[t].name, ops[o].name);
        }
        free(mine);
        free(out);
        free(expect);
        free(theirs);
    }
}

/* ---- user operations ---------------------------------------------------- */

typedef struct {
    uint32_t m[4];
} mat; /* row-major 2x2, arithmetic mod 2^32 */

static mat mat_mul(mat x, mat y)
{
    mat r = {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
              x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
    return r;
}

/* inout = in * inout: MPI's order, in is the lower-ranked operand. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    mat *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = mat_mul(a[i], b[i]);
}

/* A commutative user operation: addition mod 2^32 written by hand. */
static void wrapping_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    uint32_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

static mat mat_of(int rank, int i)
{
    mat m = {{(uint32_t)(rank * 2654435761u + (uint32_t)i), (uint32_t)(rank + 3 * i + 1),
              (uint32_t)(7 * rank + i), (uint32_t)(rank * rank + (uint32_t)i * 5u + 2)}};
    return m;
}

static void check_user_ops(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype mat_t;
    MPI_Type_contiguous(4, MPI_UINT32_T, &mat_t);
    MPI_Type_commit(&mat_t);
    MPI_Op noncomm, comm_op;
    MPI_Op_create(mat_op, 0, &noncomm);
    MPI_Op_create(wrapping_sum, 1, &comm_op);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        if (quick && n > 1000)
            continue;
        mat *in = malloc(sizeof *in * (size_t)(n + 1)),
            *out = malloc(sizeof *out * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            in[i] = mat_of(rank, i);
        for (int root = 0; root < p; root++) {
            MPI_Reduce(in, out, n, mat_t, noncomm, root, comm);
            int bad = -1;
            for (int i = 0; rank == root && i < n && bad < 0; i++) {
                mat e = mat_of(0, i);
                for (int r = 1; r < p; r++)
                    e = mat_mul(e, mat_of(r, i));
                if (memcmp(&e, &out[i], sizeof e))
                    bad = i;
            }
            CHECK(bad < 0, "%s reduce non-commutative n=%d root=%d: element %d out of order", where,
                  n, root, bad);
        }
        for (int in_place = 0; in_place < 2; in_place++) {
            if (in_place)
                memcpy(out, in, sizeof *in * (size_t)n);
            MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, n, mat_t, noncomm, comm);
            int bad = -1;
            for (int i = 0; i < n && bad < 0; i++) {
                mat e = mat_of(0, i);
                for (int r = 1; r < p; r++)
                    e = mat_mul(e, mat_of(r, i));
                if (memcmp(&e, &out[i], sizeof e))
                    bad = i;
            }
            CHECK(bad < 0, "%s allreduce non-commutative n=%d%s: element %d out of order", where, n,
                  in_place ? " in-place" : "", bad);
        }
        /* A commutative user op on plain uint32: result independent of order. */
        uint32_t *u = (uint32_t *)in, *uo = (uint32_t *)out;
        for (int i = 0; i < n; i++)
            u[i] = (uint32_t)(rank * 31 + i);
        MPI_Allreduce(u, uo, n, MPI_UINT32_T, comm_op, comm);
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++) {
            uint32_t e = 0;
            for (int r = 0; r < p; r++)
                e += (uint32_t)(r * 31 + i);
            if (uo[i] != e)
                bad = i;
        }
        CHECK(bad < 0, "%s allreduce commutative user op n=%d: element %d wrong", where, n, bad);
        free(in);
        free(out);
    }
    MPI_Op_free(&noncomm);
    MPI_Op_free(&comm_op);
    MPI_Type_free(&mat_t);
}

/* ---- broadcast ---------------------------------------------------------- */

static void check_bcast(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        if (quick && n > 1000)
            continue;
        int *buf = malloc(sizeof(int) * (size_t)(n + 1));
        for (int root = 0; root < p; root++) {
            for (int i = 0; i < n; i++)
                buf[i] = rank == root ? ival(root + 100, i) : -777;
            MPI_Bcast(buf, n, MPI_INT, root, comm);
            int bad = -1;
            for (int i = 0; i < n && bad < 0; i++)
                if (buf[i] != ival(root + 100, i))
                    bad = i;
            CHECK(bad < 0, "%s bcast int n=%d root=%d: element %d wrong", where, n, root, bad);
        }
        /* The same bytes described differently: the root sends n ints, the
         * others receive n/2 pairs of ints. */
        if (n % 2 == 0 && n > 0) {
            MPI_Datatype pair;
            MPI_Type_contiguous(2, MPI_INT, &pair);
            MPI_Type_commit(&pair);
            for (int i = 0; i < n; i++)
                buf[i] = rank == 0 ? ival(55, i) : -1;
            if (rank == 0)
                MPI_Bcast(buf, n, MPI_INT, 0, comm);
            else
                MPI_Bcast(buf, n / 2, pair, 0, comm);
            int bad = -1;
            for (int i = 0; i < n && bad < 0; i++)
                if (buf[i] != ival(55, i))
                    bad = i;
            CHECK(bad < 0, "%s bcast int vs pair n=%d: element %d wrong", where, n, bad);
            MPI_Type_free(&pair);
        }
        free(buf);
    }
}

/* ---- a strided derived datatype: gaps must stay untouched --------------- */

/* MPI's predefined operations take only predefined types in Open MPI, so
 * reductions on the strided type use this user operation: sum of the data
 * ints of each element, leaving the gaps alone. */
static void strided_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < 9; k++)
            if (k % 3 != 2)
                b[e * 9 + k] += a[e * 9 + k];
}

static void check_derived(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    /* Each element: 2 ints, then a gap of 1 int (extent 3 ints), and the
     * vector of 3 such blocks resized so elements interleave with gaps. */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Datatype strided;
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(9 * sizeof(int)), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&vec);
    for (int ci = 0; ci < NCOUNTS; ci++) {
        int n = counts[ci];
        if (n > 1000)
            continue;
        size_t ints = (size_t)n * 9 + 1;
        int *in = malloc(sizeof(int) * ints), *out = malloc(sizeof(int) * ints);
        for (size_t k = 0; k < ints; k++) {
            in[k] = ival(rank, (int)k);
            out[k] = -5; /* gaps keep this */
        }
        MPI_Op sum_op;
        MPI_Op_create(strided_sum, 1, &sum_op);
        /* Copying a non-contiguous type locally must not use a channel a
         * program's own receive on MPI_COMM_SELF could match. */
        int self_got = -1;
        MPI_Request self_req;
        MPI_Irecv(&self_got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &self_req);
        MPI_Allreduce(in, out, n, strided, sum_op, comm);
        int self_msg = 777;
        MPI_Send(&self_msg, 1, MPI_INT, 0, 5, MPI_COMM_SELF);
        MPI_Wait(&self_req, MPI_STATUS_IGNORE);
        CHECK(self_got == 777, "%s a receive on MPI_COMM_SELF matched collective traffic", where);
        int bad = -1;
        for (size_t k = 0; k < (size_t)n * 9 && bad < 0; k++) {
            int data = (k % 9) % 3 != 2;
            int e = -5;
            if (data) {
                e = 0;
                for (int r = 0; r < p; r++)
                    e += ival(r, (int)k);
            }
            if (out[k] != e)
                bad = (int)k;
        }
        CHECK(bad < 0, "%s allreduce strided n=%d: int %d wrong (gap or data)", where, n, bad);
        for (int root = 0; root < p; root++) {
            for (size_t k = 0; k < ints; k++)
                out[k] = rank == root ? ival(root + 9, (int)k) : -5;
            MPI_Bcast(out, n, strided, root, comm);
            bad = -1;
            for (size_t k = 0; k < (size_t)n * 9 && bad < 0; k++) {
                int data = (k % 9) % 3 != 2;
                int e = rank == root || data ? ival(root + 9, (int)k) : -5;
                if (out[k] != e)
                    bad = (int)k;
            }
            CHECK(bad < 0, "%s bcast strided n=%d root=%d: int %d wrong", where, n, root, bad);
            for (size_t k = 0; k < ints; k++)
                out[k] = -5;
            MPI_Reduce(in, rank == root ? out : NULL, n, strided, sum_op, root, comm);
            bad = -1;
            for (size_t k = 0; rank == root && k < (size_t)n * 9 && bad < 0; k++) {
                int data = (k % 9) % 3 != 2;
                int e = -5;
                if (data) {
                    e = 0;
                    for (int r = 0; r < p; r++)
                        e += ival(r, (int)k);
                }
                if (out[k] != e)
                    bad = (int)k;
            }
            CHECK(bad < 0, "%s reduce strided n=%d root=%d: int %d wrong", where, n, root, bad);
        }
        MPI_Op_free(&sum_op);
        free(in);
        free(out);
    }
    MPI_Type_free(&strided);
}

/* ---- barrier: nobody leaves before the last one arrives ------------------ */

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static double monotonic_now(void)
{
    /* One clock for every process on this host (the tests run on one). */
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void check_barrier(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    const int late_ms = 30;
    for (int late = 0; late < p; late++) {
        PMPI_Barrier(comm); /* the MPI library's own, to line up */
        if (rank == late)
            sleep_ms(late_ms);
        double entered = monotonic_now();
        MPI_Barrier(comm);
        double left = monotonic_now();
        /* Nobody may leave before the late rank has entered. */
        double late_entered = entered;
        PMPI_Bcast(&late_entered, 1, MPI_DOUBLE, late, comm);
        CHECK(left >= late_entered, "%s barrier: rank %d left %.3f ms before rank %d entered",
              where, rank, (late_entered - left) * 1e3, late);
    }
}

/* ---- collective traffic never matches the user's own messages ------------ */

static void check_isolation(MPI_Comm comm, const char *where)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (p < 2)
        return;
    int got = -1, v = rank * 10, sum = 0;
    MPI_Request req;
    if (rank == 0)
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &req);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, comm);
    MPI_Bcast(&v, 1, MPI_INT, p - 1, comm);
    MPI_Barrier(comm);
    if (rank == p - 1) {
        int msg = 4242;
        MPI_Send(&msg, 1, MPI_INT, 0, 7, comm);
    }
    if (rank == 0) {
        MPI_Status st;
        MPI_Wait(&req, &st);
        CHECK(got == 4242 && st.MPI_TAG == 7 && st.MPI_SOURCE == p - 1,
              "%s a user receive matched collective traffic (got %d tag %d from %d)", where, got,
              st.MPI_TAG, st.MPI_SOURCE);
    }
    CHECK(sum == 10 * p * (p - 1) / 2, "%s allreduce beside user traffic wrong", where);
}

/* ---- intercommunicators go to the MPI library unchanged ------------------ */

static void check_intercomm(void)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 2)
        return;
    MPI_Comm local, inter;
    int color = rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local);
    /* Leaders: world rank 0 for the evens, world rank 1 for the odds. */
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 99, &inter);
    int v = rank + 1, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter);
    int e = 0; /* the sum over the other group */
    for (int r = 0; r < p; r++)
        if (r % 2 != color)
            e += r + 1;
    CHECK(sum == e, "intercomm allreduce: %d, expected %d", sum, e);
    int b = rank == 0 ? 31337 : -1, lrank;
    MPI_Comm_rank(local, &lrank);
    /* Group 0's rank 0 broadcasts to group 1. */
    int root = color == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_Bcast(&b, 1, MPI_INT, root, inter);
    if (color == 1)
        CHECK(b == 31337, "intercomm bcast: %d", b);
    MPI_Barrier(inter);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

static void check_all(MPI_Comm comm, const char *where)
{
    check_bcast(comm, where);
    check_int_ops(comm, where);
    check_double_sum_max(comm, where);
    check_loc(comm, where);
    check_float_int(comm, where);
    check_long_int(comm, where);
    check_short_int(comm, where);
    check_long_double_int(comm, where);
    check_user_ops(comm, where);
    check_derived(comm, where);
    check_type_op_matrix(comm, where);
    check_isolation(comm, where);
    check_barrier(comm, where);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int p;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    check_all(MPI_COMM_WORLD, "world");
    check_intercomm();

    /* Reversed rank order: key = -rank. */
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &reversed);
    check_all(reversed, "reversed");
    MPI_Comm_free(&reversed);

    /* Two halves (odd and even world ranks), each reversed. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &half);
    check_all(half, "half");
    MPI_Comm_free(&half);

    int total_fail = 0, total_checks = 0;
    PMPI_Reduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&checks, &total_checks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("coll_check ranks=%d: %d checks, %d failed\n", p, total_checks, total_fail);
    MPI_Finalize();
    return failures ? 1 : 0;
}
