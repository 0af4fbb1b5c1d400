/* A plain MPI program that checks MPI_Reduce_scatter,
 * MPI_Reduce_scatter_block, MPI_Scan and MPI_Exscan against values it
 * computes itself (each rank's input is a known function of rank and
 * index, folded in rank order by a plain loop, never by another
 * collective). It knows nothing of Trellis: the test suite runs it with
 * each algorithm forced, and without Trellis as a control.
 *
 * Covered, for each of the four: counts 0, 1, 7, 1000, 100003 (per block
 * for reduce_scatter_block); MPI_IN_PLACE; MPI_SUM on int and double,
 * MPI_MAX on int, MPI_MINLOC on MPI_DOUBLE_INT (ties: the lower index
 * wins), a commutative user operation (addition mod 2^32), a
 * non-commutative one (2x2 matrix product mod 2^32 on a contiguous type of
 * 4 uint32, so the rank order must hold) and a commutative user operation
 * on a strided non-contiguous datatype whose gaps must stay untouched;
 * reduce_scatter with irregular counts (zeros, and for 3+ ranks a rank with
 * zero everywhere); nothing written past the result; send buffers
 * untouched; exscan's rank 0 result is undefined and not checked; and a
 * sub-communicator with reversed ranks and one of odd size in rotated order
 * run a representative subset.
 *
 *   coll_check_scan [--quick] [--only <collective>]
 */
#include <stddef.h>

#include "coll_check_common.h"

/* ---- operations: a datatype, an MPI_Op, and the same fold by hand -------- */

typedef struct {
    const char *name;
    size_t ext; /* bytes per element */
    MPI_Datatype type;
    MPI_Op op;
    int in_sub;  /* also on the sub-communicators */
    int max_n;   /* largest count run */
    int gaps[3]; /* ints of an element that are not data (strided) */
    int ngaps;
    void (*fill)(int rank, size_t i, void *e);      /* rank's input element i */
    void (*fold)(void *acc, const void *x);         /* acc = acc op x, acc the lower ranks */
    int (*same)(const void *got, const void *want); /* data equal (gaps apart) */
} redop;

/* Small values, so sums stay exact in any order. */
static int ival(int rank, size_t i)
{
    return (int)(((size_t)rank * 7 + i * 13) % 19) - 9;
}

static void fill_int(int r, size_t i, void *e)
{
    *(int *)e = ival(r, i);
}
static void fold_sum_int(void *a, const void *x)
{
    *(int *)a += *(const int *)x;
}
static void fold_max_int(void *a, const void *x)
{
    if (*(const int *)x > *(int *)a)
        *(int *)a = *(const int *)x;
}
static int same_int(const void *g, const void *w)
{
    return *(const int *)g == *(const int *)w;
}

static void fill_double(int r, size_t i, void *e)
{
    *(double *)e = ival(r, i) * 0.5; /* exact */
}
static void fold_sum_double(void *a, const void *x)
{
    *(double *)a += *(const double *)x;
}
static int same_double(const void *g, const void *w)
{
    return *(const double *)g == *(const double *)w;
}

typedef struct {
    double v;
    int loc;
} double_int;
static void fill_di(int r, size_t i, void *e)
{
    double_int *d = e;
    d->v = (double)(ival(r, i) / 4);         /* many ties across ranks */
    d->loc = (int)(((size_t)r * 5 + i) % 7); /* indices not in rank order */
}
static void fold_minloc(void *a, const void *x)
{
    double_int *acc = a;
    const double_int *y = x;
    if (y->v < acc->v || (y->v == acc->v && y->loc < acc->loc))
        *acc = *y;
}
static int same_di(const void *g, const void *w)
{
    const double_int *a = g, *b = w;
    return a->v == b->v && a->loc == b->loc;
}

/* A commutative user operation: addition mod 2^32 written by hand. */
static void fill_u32(int r, size_t i, void *e)
{
    *(uint32_t *)e = (uint32_t)r * 2654435761u + (uint32_t)i * 40503u;
}
static void fold_wrap(void *a, const void *x)
{
    *(uint32_t *)a += *(const uint32_t *)x;
}
static int same_u32(const void *g, const void *w)
{
    return *(const uint32_t *)g == *(const uint32_t *)w;
}
static void wrapping_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    uint32_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] += a[i];
}

/* A non-commutative one: 2x2 matrices (row-major) multiplied mod 2^32. */
typedef struct {
    uint32_t m[4];
} mat;
static mat mat_mul(mat x, mat y)
{
    mat r = {{x.m[0] * y.m[0] + x.m[1] * y.m[2], x.m[0] * y.m[1] + x.m[1] * y.m[3],
              x.m[2] * y.m[0] + x.m[3] * y.m[2], x.m[2] * y.m[1] + x.m[3] * y.m[3]}};
    return r;
}
static void fill_mat(int r, size_t i, void *e)
{
    mat m = {{(uint32_t)r * 2654435761u + (uint32_t)i, (uint32_t)(r + 3 * (int)(i % 1000) + 1),
              (uint32_t)(7 * r) + (uint32_t)i, (uint32_t)(r * r) + (uint32_t)i * 5u + 2u}};
    *(mat *)e = m;
}
static void fold_mat(void *a, const void *x)
{
    *(mat *)a = mat_mul(*(mat *)a, *(const mat *)x);
}
static int same_mat(const void *g, const void *w)
{
    return memcmp(g, w, sizeof(mat)) == 0;
}
/* MPI's order: inout = in * inout, in from the lower ranks. */
static void mat_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    mat *a = in, *b = inout;
    for (int i = 0; i < *len; i++)
        b[i] = mat_mul(a[i], b[i]);
}

/* A commutative user operation on a strided type: per element of extent 9
 * ints, 3 blocks of 2 data ints each followed by a gap; the data ints are
 * added mod 2^32, the gaps left alone. */
#define STRIDE_INTS 9
static int is_gap(int k)
{
    return k % 3 == 2;
}
static void fill_strided(int r, size_t i, void *e)
{
    uint32_t *u = e;
    for (int k = 0; k < STRIDE_INTS; k++)
        if (!is_gap(k))
            u[k] = (uint32_t)r * 2246822519u + (uint32_t)(i * STRIDE_INTS + (size_t)k);
}
static void fold_strided(void *a, const void *x)
{
    for (int k = 0; k < STRIDE_INTS; k++)
        if (!is_gap(k))
            ((uint32_t *)a)[k] += ((const uint32_t *)x)[k];
}
static int same_strided(const void *g, const void *w)
{
    for (int k = 0; k < STRIDE_INTS; k++)
        if (!is_gap(k) && ((const uint32_t *)g)[k] != ((const uint32_t *)w)[k])
            return 0;
    return 1;
}
static void strided_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    for (int e = 0; e < *len; e++)
        fold_strided((uint32_t *)inout + e * STRIDE_INTS, (uint32_t *)in + e * STRIDE_INTS);
}

#define BIG (1 << 30)
static redop ops[] = {
    {"int sum", sizeof(int), 0, 0, 1, BIG, {0}, 0, fill_int, fold_sum_int, same_int},
    {"double sum", sizeof(double), 0, 0, 0, BIG, {0}, 0, fill_double, fold_sum_double, same_double},
    {"int max", sizeof(int), 0, 0, 0, BIG, {0}, 0, fill_int, fold_max_int, same_int},
    {"double_int minloc", sizeof(double_int), 0, 0, 1, BIG, {0}, 0, fill_di, fold_minloc, same_di},
    {"user commutative", sizeof(uint32_t), 0, 0, 0, BIG, {0}, 0, fill_u32, fold_wrap, same_u32},
    {"user non-commutative mat", sizeof(mat), 0, 0, 1, BIG, {0}, 0, fill_mat, fold_mat, same_mat},
    {"user commutative strided",
     STRIDE_INTS * sizeof(int),
     0,
     0,
     1,
     1000,
     {2, 5, 8},
     3,
     fill_strided,
     fold_strided,
     same_strided},
};
#define NOPS (int)(sizeof ops / sizeof *ops)

static void make_ops(void)
{
    ops[0].type = MPI_INT, ops[0].op = MPI_SUM;
    ops[1].type = MPI_DOUBLE, ops[1].op = MPI_SUM;
    ops[2].type = MPI_INT, ops[2].op = MPI_MAX;
    ops[3].type = MPI_DOUBLE_INT, ops[3].op = MPI_MINLOC;
    ops[4].type = MPI_UINT32_T;
    MPI_Op_create(wrapping_sum, 1, &ops[4].op);
    MPI_Type_contiguous(4, MPI_UINT32_T, &ops[5].type);
    MPI_Type_commit(&ops[5].type);
    MPI_Op_create(mat_op, 0, &ops[5].op);
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(STRIDE_INTS * sizeof(int)), &ops[6].type);
    MPI_Type_commit(&ops[6].type);
    MPI_Type_free(&vec);
    MPI_Op_create(strided_sum, 1, &ops[6].op);
}

static void free_ops(void)
{
    MPI_Op_free(&ops[4].op);
    MPI_Type_free(&ops[5].type);
    MPI_Op_free(&ops[5].op);
    MPI_Type_free(&ops[6].type);
    MPI_Op_free(&ops[6].op);
}

/* ---- buffers ------------------------------------------------------------------ */

#define GAP_IN    ((int)0x5a5a5a5a) /* the gaps of input buffers (never copied out) */
#define UNTOUCHED 0xff              /* every byte of a receive buffer before the call */

static char *elem(const redop *o, void *buf, size_t k)
{
    return (char *)buf + k * o->ext;
}

/* Elements [0, count) of buf: rank's input from global index first on,
 * the gaps set to gap. */
static void fill_input(const redop *o, void *buf, size_t count, int rank, size_t first, int gap)
{
    for (size_t k = 0; k < count; k++) {
        char *e = elem(o, buf, k);
        o->fill(rank, first + k, e);
        for (int g = 0; g < o->ngaps; g++)
            ((int *)e)[o->gaps[g]] = gap;
    }
}

static void *untouched(const redop *o, size_t count)
{
    void *b = xmalloc(count * o->ext);
    memset(b, UNTOUCHED, count * o->ext);
    return b;
}

/* Checks elements [0, count) of buf against the fold of ranks lo..hi at
 * global indexes first.., gaps untouched (-1); then that `guard` elements
 * after them are untouched. */
static void check_result(const redop *o, void *buf, size_t count, size_t first, int lo, int hi,
                         size_t guard, const char *desc)
{
    long bad = -1;
    _Alignas(max_align_t) char want[64], x[64]; /* one element of any op */
    for (size_t k = 0; k < count && bad < 0; k++) {
        o->fill(lo, first + k, want);
        for (int r = lo + 1; r <= hi; r++) {
            o->fill(r, first + k, x);
            o->fold(want, x);
        }
        char *e = elem(o, buf, k);
        int gaps_ok = 1;
        for (int g = 0; g < o->ngaps; g++)
            gaps_ok &= ((int *)e)[o->gaps[g]] == -1;
        if (!o->same(e, want) || !gaps_ok)
            bad = (long)k;
    }
    CHECK(bad < 0, "%s: element %ld of %zu wrong (data or gap)", desc, bad, count);
    const unsigned char *g = (const unsigned char *)elem(o, buf, count);
    size_t gb = 0;
    while (gb < guard * o->ext && g[gb] == UNTOUCHED)
        gb++;
    CHECK(gb == guard * o->ext, "%s: written past the result (byte %zu after it)", desc, gb);
}

/* The send buffer is what fill_input wrote. */
static void check_send_untouched(const redop *o, void *sb, size_t count, int rank, size_t first,
                                 const char *desc)
{
    void *ref = xmalloc(count * o->ext);
    memcpy(ref, sb, count * o->ext); /* padding bytes as they are */
    fill_input(o, ref, count, rank, first, GAP_IN);
    CHECK(memcmp(ref, sb, count * o->ext) == 0, "%s: sendbuf changed", desc);
    free(ref);
}

/* ---- reduce_scatter and reduce_scatter_block ---------------------------------- */

static void reduce_scatter_case(MPI_Comm comm, const char *where, const redop *o, int n, int block)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    int *counts = xmalloc(sizeof(int) * (size_t)p);
    for (int salt = 0; salt < (block ? 1 : 2); salt++)
        for (int inpl = 0; inpl < 2; inpl++) {
            size_t total = 0, mine = 0;
            for (int i = 0; i < p; i++) {
                counts[i] = block ? n : vcount(i, p, n, salt);
                if (i < rank)
                    mine += (size_t)counts[i];
                total += (size_t)counts[i];
            }
            size_t rc = (size_t)counts[rank];
            void *sb = untouched(o, total), *rb = untouched(o, inpl ? total + 1 : rc + 1);
            /* In place the whole vector is the receive buffer's input, its
             * gaps as a receive buffer's. */
            fill_input(o, inpl ? rb : sb, total, rank, 0, inpl ? -1 : GAP_IN);
            if (block)
                MPI_Reduce_scatter_block(inpl ? MPI_IN_PLACE : sb, rb, n, o->type, o->op, comm);
            else
                MPI_Reduce_scatter(inpl ? MPI_IN_PLACE : sb, rb, counts, o->type, o->op, comm);
            snprintf(desc, sizeof desc, "%s %s %s n=%d%s%s", where,
                     block ? "reduce_scatter_block" : "reduce_scatter", o->name, n,
                     block ? "" : (salt ? " counts=B" : " counts=A"), inpl ? " in-place" : "");
            /* In place only the first rc elements are defined afterwards. */
            check_result(o, rb, rc, mine, 0, p - 1, inpl ? 0 : 1, desc);
            if (!inpl)
                check_send_untouched(o, sb, total, rank, 0, desc);
            free(sb);
            free(rb);
        }
    free(counts);
}

/* ---- scan and exscan ------------------------------------------------------------- */

static void scan_case(MPI_Comm comm, const char *where, const redop *o, int n, int exclusive)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    for (int inpl = 0; inpl < 2; inpl++) {
        void *sb = untouched(o, (size_t)n), *rb = untouched(o, (size_t)n + 1);
        fill_input(o, inpl ? rb : sb, (size_t)n, rank, 0, inpl ? -1 : GAP_IN);
        if (exclusive)
            MPI_Exscan(inpl ? MPI_IN_PLACE : sb, rb, n, o->type, o->op, comm);
        else
            MPI_Scan(inpl ? MPI_IN_PLACE : sb, rb, n, o->type, o->op, comm);
        snprintf(desc, sizeof desc, "%s %s %s n=%d%s", where, exclusive ? "exscan" : "scan",
                 o->name, n, inpl ? " in-place" : "");
        /* Exscan leaves rank 0's receive buffer undefined. */
        if (!(exclusive && rank == 0))
            check_result(o, rb, (size_t)n, 0, 0, exclusive ? rank - 1 : rank, 1, desc);
        if (!inpl)
            check_send_untouched(o, sb, (size_t)n, rank, 0, desc);
        free(sb);
        free(rb);
    }
}

/* ---- driver ------------------------------------------------------------------ */

static const char *const colls[] = {"reduce_scatter", "reduce_scatter_block", "scan", "exscan"};
#define NCOLLS (int)(sizeof colls / sizeof *colls)

static void check_all(MPI_Comm comm, const char *where)
{
    for (int c = 0; c < NCOLLS; c++) {
        if (!want(colls[c]))
            continue;
        for (int o = 0; o < NOPS; o++) {
            if (sub && !ops[o].in_sub)
                continue;
            for (int k = 0; k < NCOUNTS; k++) {
                int n = all_counts[k];
                if (!count_on(n, ops[o].max_n))
                    continue;
                if (c < 2)
                    reduce_scatter_case(comm, where, &ops[o], n, c == 1);
                else
                    scan_case(comm, where, &ops[o], n, c == 3);
            }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (parse_args(argc, argv, colls, NCOLLS)) {
        MPI_Finalize();
        return 2;
    }
    make_ops();
    run_everywhere(check_all);
    free_ops();
    int rc = summary("coll_check_scan");
    MPI_Finalize();
    return rc;
}
