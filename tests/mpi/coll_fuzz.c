/* A plain MPI program that fuzzes the 17 intracommunicator collectives
 * differentially, blocking, non-blocking or persistent. It knows nothing of
 * Trellis: every call runs twice, on two copies of its buffers prefilled alike (a sentinel pattern in
 * receive buffers, in the gaps of derived datatypes and in guard bytes on
 * both sides of every buffer), once as MPI_X (under LD_PRELOAD, Trellis) and
 * once as PMPI_X (always the MPI library's own), and the two copies must then
 * agree byte for byte, send buffers, gaps and guards included. Only what MPI
 * leaves undefined is not compared: a reduce's receive buffer off the root,
 * exscan's at rank 0, an in-place reduce_scatter(_block)'s beyond the result.
 *
 * Every rank derives the same choices from --seed (splitmix64, one stream
 * per call, so call i's parameters do not depend on the calls before it):
 * the communicator (MPI_COMM_WORLD, a dup, a split in reverse rank order, a
 * split into rank % 3 == 0 and the rest with shuffled keys, and one from
 * MPI_Comm_create on a shuffled group that leaves one rank out), the
 * collective, a count from {0, 1, 2, 3, 7, 31, 100, 1000, 4099, 65537}
 * (mostly small ones, and never more than BUDGET bytes a buffer), the
 * datatypes, the operation, the root, MPI_IN_PLACE where MPI allows it,
 * per-rank counts (zeros among them) for the v and w variants, and which
 * arguments a rank's role makes insignificant are passed as NULL / 0 /
 * MPI_DATATYPE_NULL. Each rank places its own blocks (random order, gaps
 * between them) and fills its own data from a stream of its own.
 *
 * Data movers: MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_CHAR, MPI_DOUBLE,
 * MPI_FLOAT, MPI_2INT, contiguous 3 and 4 MPI_INT, a vector of 3 x 2 ints
 * with gaps (extent 9 ints) and one of 2 doubles with gaps (extent 4
 * doubles); the receive side may describe the same data with another type
 * of the same base type (n*6 MPI_INT against n vectors), and in a bcast the
 * ranks other than the root each pick one; alltoallw picks a type per peer
 * on either side. Reductions: SUM, PROD, MAX, MIN, BAND, BOR, BXOR, LAND,
 * LOR, LXOR on MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_CHAR, and the
 * first four on MPI_DOUBLE and MPI_FLOAT, all holding small integers so
 * that any order of combining gives the same bytes (PROD: -1, 1, and 2 on
 * at most three ranks); MINLOC and MAXLOC on MPI_2INT (ties); and user
 * operations: 2x2 matrix product mod 1009 on contiguous 4 MPI_INT and
 * composition of affine maps mod 1009 on MPI_2INT (both commute=0), sum mod
 * 1009 on contiguous 3 MPI_INT and a wrapping sum on the vector with gaps.
 *
 * Open MPI 4.1.4's MPI_Alltoallw on one rank (coll/self) multiplies the byte
 * displacements by the first types' extents, writing outside the buffer (found
 * here): on one rank the calls place their blocks at displacement 0.
 * Under MPICH the calls its own collectives get wrong (docs/install.md) are
 * not made: MPI_Reduce in place at a root other than 0, MPI_Reduce_scatter in
 * place, MPI_Allgatherv on one rank; and no argument is passed as NULL. Its
 * MPI_MAX and MPI_MIN compare MPI_UNSIGNED_CHAR as signed (found here): there
 * those values stay below 128.
 *
 * In the non-blocking and persistent forms (--form) copy 0's calls are
 * MPI_IX or MPI_X_init instead, 1 to 4 of them outstanding at once (a
 * batch, the same on every rank) while copy 1's blocking PMPI_X calls run;
 * persistent requests are started in an order of each rank's own (MPI
 * matches them by their inits) and freed after; a batch completes through
 * MPI_Wait in an order of the rank's own, MPI_Waitall, MPI_Testany or
 * MPI_Waitsome. Copy 0's derived datatypes and user operations are then
 * duplicates of its own, freed as soon as its call returned: MPI keeps them
 * until the call completes.
 *
 *   coll_fuzz --seed S --calls N [--first K] [--only <collective>]
 *             [--form blocking|nonblocking|persistent] [--verbose]
 *
 * --first K runs calls K..N-1 only (call K alone: --first K --calls K+1; in
 * the other forms batches then start at K, so a call may need its batch),
 * --only runs one collective's calls, --verbose has rank 0 print each call.
 * Each mismatch prints one line to stderr with every parameter; rank 0 ends
 * with "coll_fuzz: N calls, F failed" (F: calls that failed on some rank),
 * and the exit status is 1 when F > 0.
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXP   64         /* most ranks of a communicator a call describes */
#define GUARD  64         /* sentinel bytes on either side of every buffer */
#define BUDGET (2u << 20) /* most bytes a buffer may take */
#define MOD    1009       /* the user operations' modulus */

static uint64_t seed;
static int world_rank, world_size, verbose;
static unsigned char *failed; /* per call: failed here */
static long bad_userop_type;  /* user operations called with another datatype */
enum { F_BLOCKING, F_NONBLOCKING, F_PERSISTENT };
static const char *const form_names[] = {"blocking", "nonblocking", "persistent"};
static int form = F_BLOCKING; /* how copy 0's calls are made (--form) */

#ifdef MPICH_VERSION
static const int is_mpich = 1;
#else
static const int is_mpich = 0;
#endif

/* ---- random numbers: splitmix64 ---------------------------------------------- */

typedef struct {
    uint64_t s;
} rng;

static uint64_t rnext(rng *g)
{
    uint64_t z = (g->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int rbelow(rng *g, int n)
{
    return n <= 1 ? 0 : (int)(rnext(g) % (uint64_t)n);
}
static int rrange(rng *g, int lo, int hi)
{
    return lo + rbelow(g, hi - lo + 1);
}

/* A stream of its own for (a, b, c). */
static rng rng_for(uint64_t a, uint64_t b, uint64_t c)
{
    rng g = {a};
    g.s = rnext(&g) ^ (b * 0xd1b54a32d192ed03ull);
    g.s = rnext(&g) ^ (c * 0x8cb92ba72f3d8dd7ull);
    rnext(&g);
    return g;
}

static void shuffle(rng *g, int *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rbelow(g, i + 1), t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "coll_fuzz: rank %d: out of memory (%zu bytes)\n", world_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}
static int lcm(int a, int b)
{
    return a / gcd(a, b) * b;
}

/* ---- datatypes ----------------------------------------------------------------- */

enum { B_INT, B_LONG, B_SHORT, B_UCHAR, B_DOUBLE, B_FLOAT };

typedef struct {
    const char *name;
    MPI_Datatype t;
    int base, bsize; /* the basic type of its elements, and its size */
    int nsig;        /* basic elements per element (its type signature) */
    size_t ext;      /* extent in bytes */
    int off[6];      /* where each basic element lies, in bytes */
} tdesc;

enum { T_INT, T_LONG, T_SHORT, T_UCHAR, T_DOUBLE, T_FLOAT, T_2INT, T_C3, T_C4, T_VEC6, T_VECD, NT };
static tdesc types[NT] = {
    {"int", 0, B_INT, sizeof(int), 1, sizeof(int), {0}},
    {"long", 0, B_LONG, sizeof(long), 1, sizeof(long), {0}},
    {"short", 0, B_SHORT, sizeof(short), 1, sizeof(short), {0}},
    {"uchar", 0, B_UCHAR, 1, 1, 1, {0}},
    {"double", 0, B_DOUBLE, sizeof(double), 1, sizeof(double), {0}},
    {"float", 0, B_FLOAT, sizeof(float), 1, sizeof(float), {0}},
    {"2int", 0, B_INT, sizeof(int), 2, 2 * sizeof(int), {0, 4}},
    {"contig3int", 0, B_INT, sizeof(int), 3, 3 * sizeof(int), {0, 4, 8}},
    {"contig4int", 0, B_INT, sizeof(int), 4, 4 * sizeof(int), {0, 4, 8, 12}},
    /* 3 blocks of 2 ints, stride 3, resized to 9 ints: a gap after each block */
    {"vec3x2int", 0, B_INT, sizeof(int), 6, 9 * sizeof(int), {0, 4, 12, 16, 24, 28}},
    /* 2 doubles, stride 2, resized to 4 doubles */
    {"vec2dbl", 0, B_DOUBLE, sizeof(double), 2, 4 * sizeof(double), {0, 16}},
};

static void make_types(void)
{
    types[T_INT].t = MPI_INT;
    types[T_LONG].t = MPI_LONG;
    types[T_SHORT].t = MPI_SHORT;
    types[T_UCHAR].t = MPI_UNSIGNED_CHAR;
    types[T_DOUBLE].t = MPI_DOUBLE;
    types[T_FLOAT].t = MPI_FLOAT;
    types[T_2INT].t = MPI_2INT;
    MPI_Type_contiguous(3, MPI_INT, &types[T_C3].t);
    MPI_Type_contiguous(4, MPI_INT, &types[T_C4].t);
    MPI_Datatype v;
    MPI_Type_vector(3, 2, 3, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)types[T_VEC6].ext, &types[T_VEC6].t);
    MPI_Type_free(&v);
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)types[T_VECD].ext, &types[T_VECD].t);
    MPI_Type_free(&v);
    for (int k = T_C3; k < NT; k++)
        MPI_Type_commit(&types[k].t);
}

static void free_types(void)
{
    for (int k = T_C3; k < NT; k++)
        MPI_Type_free(&types[k].t);
}

/* The types that describe the same basic type as t (t among them). */
static int same_base(int t, int *out)
{
    int n = 0;
    for (int k = 0; k < NT; k++)
        if (types[k].base == types[t].base)
            out[n++] = k;
    return n;
}

/* The type signature every same_base type divides: units of alltoallw. */
static int base_unit(int t)
{
    int fam[NT], n = same_base(t, fam), u = 1;
    for (int k = 0; k < n; k++)
        u = lcm(u, types[fam[k]].nsig);
    return u;
}

/* ---- operations ---------------------------------------------------------------- */

enum {
    O_SUM,
    O_PROD,
    O_MAX,
    O_MIN,
    O_BAND,
    O_BOR,
    O_BXOR,
    O_LAND,
    O_LOR,
    O_LXOR,
    O_MINLOC,
    O_MAXLOC,
    O_MATMUL,
    O_AFFINE,
    O_SUM3,
    O_VECSUM,
    NO
};
static const char *const op_names[NO] = {"MPI_SUM",
                                         "MPI_PROD",
                                         "MPI_MAX",
                                         "MPI_MIN",
                                         "MPI_BAND",
                                         "MPI_BOR",
                                         "MPI_BXOR",
                                         "MPI_LAND",
                                         "MPI_LOR",
                                         "MPI_LXOR",
                                         "MPI_MINLOC",
                                         "MPI_MAXLOC",
                                         "user:matmul2x2mod1009(noncommutative)",
                                         "user:affinemod1009(noncommutative)",
                                         "user:sum3mod1009",
                                         "user:wrapsum(vector)"};
static MPI_Op ops[NO];

static int is_alias(MPI_Datatype t, int k);

static void check_type(MPI_Datatype *t, int want)
{
    if (*t != types[want].t && !is_alias(*t, want))
        bad_userop_type++;
}

/* inout = in x inout, in from the lower ranks; 2x2 row-major mod 1009. */
static void uop_matmul(void *in, void *inout, int *len, MPI_Datatype *t)
{
    check_type(t, T_C4);
    const int *a = in;
    int *b = inout;
    for (int e = 0; e < *len; e++, a += 4, b += 4) {
        long long r0 = ((long long)a[0] * b[0] + (long long)a[1] * b[2]) % MOD;
        long long r1 = ((long long)a[0] * b[1] + (long long)a[1] * b[3]) % MOD;
        long long r2 = ((long long)a[2] * b[0] + (long long)a[3] * b[2]) % MOD;
        long long r3 = ((long long)a[2] * b[1] + (long long)a[3] * b[3]) % MOD;
        b[0] = (int)r0, b[1] = (int)r1, b[2] = (int)r2, b[3] = (int)r3;
    }
}

/* (m, c) is x -> m x + c mod 1009; inout = inout after in (in applied first). */
static void uop_affine(void *in, void *inout, int *len, MPI_Datatype *t)
{
    check_type(t, T_2INT);
    const int *a = in;
    int *b = inout;
    for (int e = 0; e < *len; e++, a += 2, b += 2) {
        long long m = (long long)b[0] * a[0] % MOD, c = ((long long)b[0] * a[1] + b[1]) % MOD;
        b[0] = (int)m, b[1] = (int)c;
    }
}

static void uop_sum3(void *in, void *inout, int *len, MPI_Datatype *t)
{
    check_type(t, T_C3);
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len * 3; i++)
        b[i] = (int)(((long long)a[i] + b[i]) % MOD);
}

/* The data ints of the vector added mod 2^32; its gaps left alone. */
static void uop_vecsum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    check_type(t, T_VEC6);
    const unsigned *a = in;
    unsigned *b = inout;
    for (int e = 0; e < *len; e++, a += 9, b += 9)
        for (int k = 0; k < 9; k++)
            if (k % 3 != 2)
                b[k] += a[k];
}

static void (*const user_fns[NO])(void *, void *, int *, MPI_Datatype *) = {
    [O_MATMUL] = uop_matmul, [O_AFFINE] = uop_affine, [O_SUM3] = uop_sum3, [O_VECSUM] = uop_vecsum};
static const int user_commutes[NO] = {[O_SUM3] = 1, [O_VECSUM] = 1};

static void make_ops(void)
{
    MPI_Op pre[] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN,  MPI_BAND,   MPI_BOR,
                    MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_MINLOC, MPI_MAXLOC};
    for (int k = 0; k <= O_MAXLOC; k++)
        ops[k] = pre[k];
    for (int k = O_MATMUL; k < NO; k++)
        MPI_Op_create(user_fns[k], user_commutes[k], &ops[k]);
}

static void free_ops(void)
{
    for (int k = O_MATMUL; k < NO; k++)
        MPI_Op_free(&ops[k]);
}

/* The reduction types, and the operations each takes. */
static const int red_types[] = {T_INT,   T_LONG, T_SHORT, T_UCHAR, T_DOUBLE,
                                T_FLOAT, T_2INT, T_C3,    T_C4,    T_VEC6};
#define NRED (int)(sizeof red_types / sizeof *red_types)

static int pick_op(rng *g, int t)
{
    switch (t) {
    case T_INT:
    case T_LONG:
    case T_SHORT:
    case T_UCHAR: return rrange(g, O_SUM, O_LXOR);
    case T_DOUBLE:
    case T_FLOAT: return rrange(g, O_SUM, O_MIN);
    case T_2INT: {
        static const int o[] = {O_MINLOC, O_MAXLOC, O_AFFINE};
        return o[rbelow(g, 3)];
    }
    case T_C3: return O_SUM3;
    case T_C4: return O_MATMUL;
    default: return O_VECSUM;
    }
}

/* ---- data ------------------------------------------------------------------------ */

/* Basic element k of an element a rank contributes to op: small values, so
 * any order of combining gives the same result, exactly. */
static int64_t gen(rng *l, int op, int base, int k, int crank)
{
    int uns = base == B_UCHAR;
    int64_t nz = uns ? (int64_t)(1 + rbelow(l, 255))
                     : (rbelow(l, 2) ? rrange(l, 1, 9) : -rrange(l, 1, 9));
    switch (op) {
    case O_SUM: return uns ? rrange(l, 0, 6) : rrange(l, -6, 6);
    case O_PROD:
        if (crank < 3 && rbelow(l, 3) == 0)
            return 2;
        return uns || rbelow(l, 2) ? 1 : -1;
    case O_MAX:
    case O_MIN: return uns ? rrange(l, 0, is_mpich ? 127 : 255) : rrange(l, -60, 60);
    case O_BAND: return (int64_t)(rnext(l) | rnext(l));
    case O_BOR: return (int64_t)(rnext(l) & rnext(l) & rnext(l));
    case O_BXOR: return (int64_t)rnext(l);
    case O_LAND: return rbelow(l, 6) ? nz : 0;
    case O_LOR: return rbelow(l, 6) ? 0 : nz;
    case O_LXOR: return rbelow(l, 2) ? 0 : nz;
    case O_MINLOC:
    case O_MAXLOC: return k == 0 ? rrange(l, -3, 3) : rrange(l, 0, 9);
    case O_AFFINE: return k == 0 ? rrange(l, 1, MOD - 1) : rrange(l, 0, MOD - 1);
    case O_MATMUL:
    case O_SUM3: return rrange(l, 0, MOD - 1);
    default: return (int64_t)(uint32_t)rnext(l);
    }
}

static void put(unsigned char *p, int base, int64_t v)
{
    switch (base) {
    case B_INT: {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
        break;
    }
    case B_LONG: {
        long x = (long)v;
        memcpy(p, &x, sizeof x);
        break;
    }
    case B_SHORT: {
        short x = (short)v;
        memcpy(p, &x, sizeof x);
        break;
    }
    case B_UCHAR: *p = (unsigned char)v; break;
    case B_DOUBLE: {
        double x = (double)v;
        memcpy(p, &x, sizeof x);
        break;
    }
    default: {
        float x = (float)v;
        memcpy(p, &x, sizeof x);
        break;
    }
    }
}

/* count elements of T at at: random bytes (op < 0, data movement) or a
 * rank's values for op. Gaps keep what they hold. */
static void fill(unsigned char *at, const tdesc *T, size_t count, int op, int crank, rng *l)
{
    for (size_t e = 0; e < count; e++)
        for (int k = 0; k < T->nsig; k++) {
            unsigned char *p = at + e * T->ext + (size_t)T->off[k];
            if (op < 0) {
                uint64_t x = rnext(l);
                memcpy(p, &x, (size_t)T->bsize);
            } else {
                put(p, T->base, gen(l, op, T->base, k, crank));
            }
        }
}

/* ---- buffers: two copies, sentinels, comparison ------------------------------------ */

typedef struct {
    const char *what;
    unsigned char *m[2];     /* [0]: for MPI_X, [1]: for PMPI_X; GUARD bytes each side */
    size_t n;                /* data bytes */
    int check;               /* compared afterwards */
    size_t skip_lo, skip_hi; /* data bytes left undefined: not compared */
} fbuf;

static void fb_init(fbuf *f, const char *what, size_t n)
{
    f->what = what;
    f->n = n;
    f->check = 1;
    f->skip_lo = f->skip_hi = 0;
    for (int s = 0; s < 2; s++)
        f->m[s] = xmalloc(n + 2 * GUARD);
    for (size_t i = 0; i < n + 2 * GUARD; i++)
        f->m[0][i] = (unsigned char)(0xa5 ^ (i * 29));
    memcpy(f->m[1], f->m[0], n + 2 * GUARD);
}

/* Where the data go (copy 0: fill it, then fb_sync). */
static unsigned char *fb_data(fbuf *f)
{
    return f->m[0] + GUARD;
}
static void fb_sync(fbuf *f)
{
    memcpy(f->m[1], f->m[0], f->n + 2 * GUARD);
}
static void *fb_ptr(fbuf *f, int side)
{
    return f->m[side] + GUARD;
}

static void fb_free(fbuf *f)
{
    free(f->m[0]);
    free(f->m[1]);
}

/* ---- a call ---------------------------------------------------------------------- */

enum {
    C_BARRIER,
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_GATHER,
    C_GATHERV,
    C_SCATTER,
    C_SCATTERV,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_ALLTOALLW,
    C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK,
    C_SCAN,
    C_EXSCAN,
    NCOLL
};
static const char *const coll_names[NCOLL] = {
    "barrier",  "bcast",     "reduce",    "allreduce",      "gather",
    "gatherv",  "scatter",   "scatterv",  "allgather",      "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",     "exscan"};

typedef struct {
    const char *name;
    MPI_Comm comm;
} fcomm;
enum { NCOMMS = 5 };
static fcomm comms[NCOMMS];

static const int counts[] = {0, 1, 2, 3, 7, 31, 100, 1000, 4099, 65537};
static const int count_weights[] = {6, 8, 6, 6, 6, 4, 4, 3, 2, 1};
#define NCOUNTS (int)(sizeof counts / sizeof *counts)

typedef struct {
    int idx, coll;
    const char *comm_name;
    MPI_Comm comm;
    int p, r;
    int count;      /* the count drawn: per block, or units of the v variants */
    int S, R, a, b; /* send and receive types; counts per unit of count */
    int op;         /* reductions: the operation, else -1 */
    int root, inpl;
    int nullins;         /* insignificant arguments passed as NULL / 0 / DATATYPE_NULL */
    int k[MAXP];         /* gatherv, scatterv, allgatherv, reduce_scatter: units per rank */
    int *K;              /* alltoallv/w: units from rank i to rank j, K[i * p + j] */
    int *ST, *RT;        /* alltoallw: the sender's and receiver's type of each pair */
    int peer_types_unit; /* alltoallw: basic elements per unit */
} call;

static int pick_count(rng *g, int maxi)
{
    int total = 0;
    for (int i = 0; i <= maxi; i++)
        total += count_weights[i];
    int x = rbelow(g, total);
    for (int i = 0; i <= maxi; i++) {
        if (x < count_weights[i])
            return counts[i];
        x -= count_weights[i];
    }
    return counts[0];
}

/* A v variant's count for one rank: zeros among them. */
static int vcount(rng *g, int n)
{
    if (n == 0)
        return 0;
    switch (rbelow(g, 5)) {
    case 0: return 0;
    case 1: return n;
    case 2: return rbelow(g, n + 1);
    case 3: return n / 2 + 1;
    default: return 2 * n - 1;
    }
}

/* Places n blocks of len[i] units (random order, gaps of 0 to 2 units
 * before each and at the end): off[i] in units; returns the units spanned. */
static size_t place(rng *l, int n, const size_t *len, size_t *off)
{
    int order[MAXP];
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(l, order, n);
    size_t at = 0;
    for (int k = 0; k < n; k++) {
        at += (size_t)rbelow(l, 3);
        off[order[k]] = at;
        at += len[order[k]];
    }
    return at + (size_t)rbelow(l, 3);
}

/* The blocks of a gather, scatter or allgather, in units: rank i's count
 * (c->k[i] for the v forms, else the count) in cnt, len and, as
 * displacements, off and dsp; in rank order, or for the v forms where this
 * rank describes them (`placed`) by place. Returns the span. */
static size_t lay_out_blocks(const call *c, int v, int unit, int placed, rng *l, int *cnt,
                             size_t *len, size_t *off, int *dsp)
{
    int p = c->p, n = c->count;
    for (int i = 0; i < p; i++) {
        cnt[i] = (v ? c->k[i] : n) * unit;
        len[i] = (size_t)cnt[i];
        off[i] = (size_t)i * (size_t)(n * unit);
    }
    size_t span = (size_t)p * (size_t)(n * unit);
    if (v && placed)
        span = place(l, p, len, off);
    for (int i = 0; i < p; i++)
        dsp[i] = (int)off[i];
    return span;
}

static int describe(const call *c, char *out, size_t size)
{
    int at = snprintf(
        out, size, "seed=%llu form=%s call=%d coll=%s comm=%s size=%d rank=%d (world %d) count=%d",
        (unsigned long long)seed, form_names[form], c->idx, coll_names[c->coll], c->comm_name, c->p,
        c->r, world_rank, c->count);
    if (c->op >= 0)
        at += snprintf(out + at, size - (size_t)at, " type=%s op=%s", types[c->S].name,
                       op_names[c->op]);
    else if (c->coll != C_BARRIER && c->coll != C_ALLTOALLW)
        at += snprintf(out + at, size - (size_t)at, " sendtype=%s x%d recvtype=%s x%d",
                       types[c->S].name, c->a, types[c->R].name, c->b);
    if (c->coll == C_BCAST || c->coll == C_REDUCE || c->coll == C_GATHER || c->coll == C_GATHERV ||
        c->coll == C_SCATTER || c->coll == C_SCATTERV)
        at += snprintf(out + at, size - (size_t)at, " root=%d", c->root);
    if (c->coll != C_BARRIER && c->coll != C_BCAST)
        at += snprintf(out + at, size - (size_t)at, " in_place=%s%s", c->inpl ? "yes" : "no",
                       c->nullins && c->r != c->root &&
                               (c->coll == C_REDUCE || c->coll == C_GATHER ||
                                c->coll == C_GATHERV || c->coll == C_SCATTER ||
                                c->coll == C_SCATTERV)
                           ? " insignificant_args=NULL"
                           : "");
    if (c->coll == C_GATHERV || c->coll == C_SCATTERV || c->coll == C_ALLGATHERV ||
        c->coll == C_REDUCE_SCATTER) {
        at += snprintf(out + at, size - (size_t)at, " counts=");
        for (int i = 0; i < c->p && at < (int)size - 16; i++)
            at += snprintf(out + at, size - (size_t)at, "%s%d", i ? "," : "", c->k[i]);
    }
    if (c->coll == C_ALLTOALLV || c->coll == C_ALLTOALLW) {
        at += snprintf(out + at, size - (size_t)at, " units(from,to)=");
        for (int i = 0; i < c->p && at < (int)size - 16; i++)
            for (int j = 0; j < c->p && at < (int)size - 16; j++)
                at += snprintf(out + at, size - (size_t)at, "%s%d", i + j ? (j ? "," : "/") : "",
                               c->K[i * c->p + j]);
    }
    if (c->coll == C_ALLTOALLW) {
        at += snprintf(out + at, size - (size_t)at,
                       " x%d-basic-elements sendtypes=", c->peer_types_unit);
        for (int j = 0; j < c->p && at < (int)size - 24; j++)
            at += snprintf(out + at, size - (size_t)at, "%s%s", j ? "," : "",
                           types[c->ST[c->r * c->p + j]].name);
        at += snprintf(out + at, size - (size_t)at, " recvtypes=");
        for (int j = 0; j < c->p && at < (int)size - 24; j++)
            at += snprintf(out + at, size - (size_t)at, "%s%s", j ? "," : "",
                           types[c->RT[j * c->p + c->r]].name);
    }
    return at;
}

#define MAX_REPORTS 10 /* lines a rank prints; it counts the rest */
static int reports;

static void report(const call *c, const char *what)
{
    if (++reports > MAX_REPORTS)
        return;
    char d[2048];
    describe(c, d, sizeof d);
    fprintf(stderr,
            "coll_fuzz: MISMATCH %s: %s (rerun: --seed %llu --form %s --first %d --calls %d)\n", d,
            what, (unsigned long long)seed, form_names[form], c->idx, c->idx + 1);
}

static int call_failed;

static void compare(const call *c, fbuf *f)
{
    if (!f->check)
        return;
    size_t all = f->n + 2 * GUARD;
    for (size_t i = 0; i < all; i++) {
        long at = (long)i - GUARD;
        if (at >= 0 && (size_t)at >= f->skip_lo && (size_t)at < f->skip_hi)
            continue;
        if (f->m[0][i] == f->m[1][i])
            continue;
        size_t n_diff = 0;
        for (size_t j = i; j < all; j++)
            n_diff += f->m[0][j] != f->m[1][j];
        char what[512];
        snprintf(what, sizeof what,
                 "%s of %zu bytes: first differing byte %ld%s (MPI_X 0x%02x, PMPI_X 0x%02x, "
                 "sentinel 0x%02x), %zu bytes differ",
                 f->what, f->n, at,
                 at < 0               ? " (guard before)"
                 : (size_t)at >= f->n ? " (guard after)"
                                      : "",
                 f->m[0][i], f->m[1][i], (unsigned char)(0xa5 ^ (i * 29)), n_diff);
        report(c, what);
        call_failed = 1;
        return;
    }
}

static void check_rc(const call *c, const int rc[2])
{
    if (rc[0] == MPI_SUCCESS && rc[1] == MPI_SUCCESS)
        return;
    char what[512], e0[MPI_MAX_ERROR_STRING] = "", e1[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (rc[0] != MPI_SUCCESS)
        MPI_Error_string(rc[0], e0, &len);
    if (rc[1] != MPI_SUCCESS)
        MPI_Error_string(rc[1], e1, &len);
    snprintf(what, sizeof what, "return codes MPI_X %d (%s), PMPI_X %d (%s)", rc[0], e0, rc[1], e1);
    report(c, what);
    call_failed = 1;
}

/* ---- forms of call: blocking, non-blocking, persistent ------------------------------ */

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define PINIT(Name) MPI_##Name##_init
#endif


/* A call made and not yet compared: in the non-blocking and persistent
 * forms several are outstanding at once, so everything MPI may still read
 * or write lives here until the batch completes. */
enum { MAX_OWN = 2 * NT + 2 };
typedef struct {
    call c;
    fbuf sb, rb;
    int rc[2];
    MPI_Request req; /* copy 0's, in the non-blocking and persistent forms */
    int cnt[MAXP], dsp[MAXP], scnt[MAXP], sdsp[MAXP];
    MPI_Datatype stype[MAXP], rtype[MAXP], own_stype[MAXP], own_rtype[MAXP];
    /* Copy 0's own datatypes and operation, freed as soon as its call
     * returned (MPI keeps them until the call completes). */
    MPI_Datatype own_from[MAX_OWN], own_to[MAX_OWN];
    int nown;
    MPI_Op own_op;
} pending;

/* Datatypes made as duplicates of types[k] for copy 0's calls: the user
 * operations accept them as types[k] (check_type). A ring: old entries are
 * long freed. */
enum { ALIASES = 256 };
typedef struct {
    MPI_Datatype t;
    int k;
} alias;
static alias aliases[ALIASES];
static int next_alias;

static void add_alias(MPI_Datatype t, int k)
{
    for (int i = 0; i < ALIASES; i++)
        if (aliases[i].t == t) {
            aliases[i].k = k;
            return;
        } /* a handle freed and reused */
    aliases[next_alias] = (alias){t, k};
    next_alias = (next_alias + 1) % ALIASES;
}

static int is_alias(MPI_Datatype t, int k)
{
    for (int i = 0; i < ALIASES; i++)
        if (aliases[i].t == t && aliases[i].k == k)
            return 1;
    return 0;
}

/* Whether copy 0's derived datatypes and user operation are its own, freed
 * right after the call returned. Open MPI 4.1's own persistent collectives
 * crash on objects freed after the init (tests/mpi/test_request_rules.c):
 * there only where Trellis serves the call (loaded, more than one rank). */
static int frees_early(const call *c)
{
    if (form == F_BLOCKING)
        return 0;
#if defined(OPEN_MPI) && OPEN_MPI
    if (form == F_PERSISTENT && (!dlsym(RTLD_DEFAULT, "trellis_version") || c->p == 1))
        return 0;
#endif
    (void)c;
    return 1;
}

/* Copy 0's datatype for t: a duplicate of a derived one where it frees
 * early (one per call and type), t itself otherwise. */
static MPI_Datatype own_type(pending *pc, MPI_Datatype t)
{
    int k = -1;
    for (int i = T_C3; i < NT; i++)
        if (types[i].t == t)
            k = i;
    if (k < 0 || !frees_early(&pc->c))
        return t;
    for (int i = 0; i < pc->nown; i++)
        if (pc->own_from[i] == t)
            return pc->own_to[i];
    MPI_Datatype d;
    MPI_Type_dup(t, &d);
    MPI_Type_commit(&d);
    add_alias(d, k);
    pc->own_from[pc->nown] = t;
    pc->own_to[pc->nown++] = d;
    return d;
}

static MPI_Datatype *own_types(pending *pc, const MPI_Datatype *t, MPI_Datatype *out)
{
    for (int j = 0; j < pc->c.p; j++)
        out[j] = own_type(pc, t[j]);
    return out;
}

/* Copy 0's operation k: a new one with the same function where it frees
 * early, ops[k] otherwise. */
static MPI_Op own_op(pending *pc, int k)
{
    if (k < O_MATMUL || !frees_early(&pc->c))
        return ops[k];
    if (pc->own_op == MPI_OP_NULL)
        MPI_Op_create(user_fns[k], user_commutes[k], &pc->own_op);
    return pc->own_op;
}

/* Copy 0's call returned: free its own objects now. */
static void free_own(pending *pc)
{
    for (int i = 0; i < pc->nown; i++)
        MPI_Type_free(&pc->own_to[i]);
    pc->nown = 0;
    if (pc->own_op != MPI_OP_NULL)
        MPI_Op_free(&pc->own_op);
}

/* Both calls: copy 0 through MPI_X (or MPI_IX, or MPI_X_init, in the other
 * forms: completed with its batch), then copy 1 through PMPI_X, blocking. */
#ifdef PINIT
#define START0(Name, name, ...)                                                                    \
    (form == F_BLOCKING      ? MPI_##Name(__VA_ARGS__)                                             \
     : form == F_NONBLOCKING ? MPI_I##name(__VA_ARGS__, &pc->req)                                  \
                             : PINIT(Name)(__VA_ARGS__, MPI_INFO_NULL, &pc->req))
#else
#define START0(Name, name, ...)                                                                    \
    (form == F_BLOCKING ? MPI_##Name(__VA_ARGS__) : MPI_I##name(__VA_ARGS__, &pc->req))
#endif
#define BOTH(Name, name, ...)                                                                      \
    do {                                                                                           \
        for (int side = 0; side < 2; side++) {                                                     \
            rc[side] = side ? PMPI_##Name(__VA_ARGS__) : START0(Name, name, __VA_ARGS__);          \
            if (!side)                                                                             \
                free_own(pc);                                                                      \
        }                                                                                          \
    } while (0)
#define PTR(f) fb_ptr(&(f), side)
#define TY(t)  (side ? (t) : own_type(pc, (t)))
#define OPX(k) (side ? ops[k] : own_op(pc, (k)))
#define TYS(a) (side ? (a) : own_types(pc, (a), (a) == pc->stype ? pc->own_stype : pc->own_rtype))

static pending *start_call(int idx, int only)
{
    rng g = rng_for(seed, (uint64_t)idx, 0x5eed); /* the same on every rank */
    call c;
    memset(&c, 0, sizeof c);
    c.idx = idx;
    int ci = rbelow(&g, NCOMMS);
    c.coll = rbelow(&g, NCOLL);
    if (comms[ci].comm == MPI_COMM_NULL || (only >= 0 && c.coll != only))
        return NULL;
    c.comm = comms[ci].comm;
    c.comm_name = comms[ci].name;
    MPI_Comm_size(c.comm, &c.p);
    MPI_Comm_rank(c.comm, &c.r);
    if (c.p > MAXP)
        return NULL;
    int p = c.p, r = c.r, coll = c.coll;
    rng l = rng_for(seed, (uint64_t)idx, 1000 + (uint64_t)world_rank); /* this rank's own */

    int reduction = coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_REDUCE_SCATTER ||
                    coll == C_REDUCE_SCATTER_BLOCK || coll == C_SCAN || coll == C_EXSCAN;
    int vvar = coll == C_GATHERV || coll == C_SCATTERV || coll == C_ALLGATHERV ||
               coll == C_REDUCE_SCATTER;
    c.op = -1;
    if (reduction) {
        c.S = c.R = red_types[rbelow(&g, NRED)];
        c.op = pick_op(&g, c.S);
        c.a = c.b = 1;
    } else {
        c.S = rbelow(&g, NT);
        int fam[NT], nf = same_base(c.S, fam);
        c.R = fam[rbelow(&g, nf)];
        int u = lcm(types[c.S].nsig, types[c.R].nsig);
        c.a = u / types[c.S].nsig;
        c.b = u / types[c.R].nsig;
    }
    /* Bytes per unit of count per block, and blocks a buffer holds at most. */
    size_t ub = types[c.S].ext * (size_t)c.a > types[c.R].ext * (size_t)c.b
                    ? types[c.S].ext * (size_t)c.a
                    : types[c.R].ext * (size_t)c.b;
    if (coll == C_ALLTOALLW) {
        c.peer_types_unit = base_unit(c.S);
        int fam[NT], nf = same_base(c.S, fam);
        ub = 0;
        for (int k = 0; k < nf; k++) {
            size_t per = types[fam[k]].ext * (size_t)(c.peer_types_unit / types[fam[k]].nsig);
            if (per > ub)
                ub = per;
        }
        ub += 16; /* alignment and gaps */
    }
    size_t blocks = 1;
    if (coll == C_GATHER || coll == C_SCATTER || coll == C_ALLGATHER || coll == C_ALLTOALL ||
        coll == C_REDUCE_SCATTER_BLOCK)
        blocks = (size_t)p;
    else if (vvar || coll == C_ALLTOALLV || coll == C_ALLTOALLW)
        blocks = 2 * (size_t)p + 2;
    for (int maxi = NCOUNTS - 1;; maxi--) {
        c.count = pick_count(&g, maxi);
        if ((size_t)c.count * ub * blocks <= BUDGET || maxi == 0)
            break;
    }
    c.root = rbelow(&g, p);
    c.inpl = rbelow(&g, 3) == 0;
    if (coll == C_BARRIER || coll == C_BCAST)
        c.inpl = 0;
    if (is_mpich && ((coll == C_REDUCE && c.root != 0) || coll == C_REDUCE_SCATTER))
        c.inpl = 0;
    c.nullins = !is_mpich && rbelow(&l, 2);
    int n = c.count;
    for (int i = 0; i < p; i++)
        c.k[i] = vcount(&g, n);
    if (coll == C_ALLTOALLV || coll == C_ALLTOALLW) {
        c.K = xmalloc((size_t)p * (size_t)p * sizeof(int));
        c.ST = xmalloc((size_t)p * (size_t)p * sizeof(int));
        c.RT = xmalloc((size_t)p * (size_t)p * sizeof(int));
        int fam[NT], nf = same_base(c.S, fam);
        for (int i = 0; i < p * p; i++) {
            c.K[i] = vcount(&g, n);
            c.ST[i] = fam[rbelow(&g, nf)];
            c.RT[i] = fam[rbelow(&g, nf)];
        }
        /* In place a rank's receive side describes what it sends too: the
         * same amounts both ways between each pair. */
        if (c.inpl)
            for (int i = 0; i < p; i++)
                for (int j = 0; j < i; j++)
                    c.K[i * p + j] = c.K[j * p + i];
    }
    if (is_mpich && coll == C_ALLGATHERV && p == 1)
        goto done;

    if (verbose && world_rank == 0) {
        char d[2048];
        describe(&c, d, sizeof d);
        printf("coll_fuzz: %s\n", d);
        fflush(stdout);
    }

    const tdesc *S = &types[c.S], *R = &types[c.R];
    int me = r == c.root, rc[2] = {MPI_SUCCESS, MPI_SUCCESS};
    pending *pc = xmalloc(sizeof *pc);
    memset(pc, 0, sizeof *pc);
    pc->c = c;
    pc->req = MPI_REQUEST_NULL;
    pc->own_op = MPI_OP_NULL;
    fbuf sb, rb;
    fb_init(&sb, "sendbuf", 0);
    fb_init(&rb, "recvbuf", 0);
    size_t len[MAXP] = {0}, off[MAXP] = {0}, soff[MAXP] = {0}, roff[MAXP] = {0};
    int *cnt = pc->cnt, *dsp = pc->dsp, *scnt = pc->scnt, *sdsp = pc->sdsp;

    switch (coll) {
    case C_BARRIER: BOTH(Barrier, barrier, c.comm); break;

    case C_BCAST: {
        /* The root describes the data with S, every other rank with S or R. */
        int useR[MAXP];
        for (int i = 0; i < p; i++)
            useR[i] = i != c.root && rbelow(&g, 2);
        const tdesc *T = useR[r] ? R : S;
        int cn = n * (useR[r] ? c.b : c.a);
        fb_free(&rb);
        fb_init(&rb, "buffer", (size_t)cn * T->ext);
        if (me)
            fill(fb_data(&rb), T, (size_t)cn, -1, r, &l);
        fb_sync(&rb);
        BOTH(Bcast, bcast, PTR(rb), cn, TY(T->t), c.root, c.comm);
        break;
    }

    case C_REDUCE:
    case C_ALLREDUCE:
    case C_SCAN:
    case C_EXSCAN: {
        int all_inpl = c.inpl && (coll != C_REDUCE || me);
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", (size_t)n * S->ext);
        fb_init(&rb, "recvbuf", (size_t)n * S->ext);
        fill(fb_data(all_inpl ? &rb : &sb), S, (size_t)n, c.op, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        if (coll == C_REDUCE) {
            if (!me)
                rb.check = 0; /* insignificant off the root */
            BOTH(Reduce, reduce, all_inpl ? MPI_IN_PLACE : PTR(sb),
                 !me && c.nullins ? NULL : PTR(rb), n, TY(S->t), OPX(c.op), c.root, c.comm);
        } else if (coll == C_ALLREDUCE) {
            BOTH(Allreduce, allreduce, all_inpl ? MPI_IN_PLACE : PTR(sb), PTR(rb), n, TY(S->t),
                 OPX(c.op), c.comm);
        } else {
            if (coll == C_EXSCAN && r == 0) { /* undefined at rank 0 */
                rb.skip_lo = 0;
                rb.skip_hi = rb.n;
            }
            if (coll == C_SCAN)
                BOTH(Scan, scan, all_inpl ? MPI_IN_PLACE : PTR(sb), PTR(rb), n, TY(S->t), OPX(c.op),
                     c.comm);
            else
                BOTH(Exscan, exscan, all_inpl ? MPI_IN_PLACE : PTR(sb), PTR(rb), n, TY(S->t),
                     OPX(c.op), c.comm);
        }
        break;
    }

    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK: {
        int block = coll == C_REDUCE_SCATTER_BLOCK;
        size_t total = 0;
        for (int i = 0; i < p; i++) {
            cnt[i] = block ? n : c.k[i];
            total += (size_t)cnt[i];
        }
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", c.inpl ? 0 : total * S->ext);
        fb_init(&rb, "recvbuf", (c.inpl ? total : (size_t)cnt[r]) * S->ext);
        fill(fb_data(c.inpl ? &rb : &sb), S, total, c.op, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        if (c.inpl) { /* in place only the result is defined */
            rb.skip_lo = (size_t)cnt[r] * S->ext;
            rb.skip_hi = rb.n;
        }
        if (block)
            BOTH(Reduce_scatter_block, reduce_scatter_block, c.inpl ? MPI_IN_PLACE : PTR(sb),
                 PTR(rb), n, TY(S->t), OPX(c.op), c.comm);
        else
            BOTH(Reduce_scatter, reduce_scatter, c.inpl ? MPI_IN_PLACE : PTR(sb), PTR(rb), cnt,
                 TY(S->t), OPX(c.op), c.comm);
        break;
    }

    case C_GATHER:
    case C_GATHERV: {
        int v = coll == C_GATHERV;
        int sn = (v ? c.k[r] : n) * c.a;
        size_t span = lay_out_blocks(&c, v, c.b, me, &l, cnt, len, off, dsp);
        int inpl = me && c.inpl;
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", inpl ? 0 : (size_t)sn * S->ext);
        fb_init(&rb, "recvbuf", me ? span * R->ext : 0);
        if (!me)
            rb.check = 0;
        fill(fb_data(&sb), S, inpl ? 0 : (size_t)sn, -1, r, &l);
        if (inpl)
            fill(fb_data(&rb) + off[r] * R->ext, R, (size_t)cnt[r], -1, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        int nul = !me && c.nullins;
        if (v)
            BOTH(Gatherv, gatherv, inpl ? MPI_IN_PLACE : PTR(sb), sn, TY(S->t),
                 nul ? NULL : PTR(rb), nul ? NULL : cnt, nul ? NULL : dsp,
                 nul ? MPI_DATATYPE_NULL : TY(R->t), c.root, c.comm);
        else
            BOTH(Gather, gather, inpl ? MPI_IN_PLACE : PTR(sb), sn, TY(S->t), nul ? NULL : PTR(rb),
                 nul ? 0 : n * c.b, nul ? MPI_DATATYPE_NULL : TY(R->t), c.root, c.comm);
        break;
    }

    case C_SCATTER:
    case C_SCATTERV: {
        int v = coll == C_SCATTERV;
        int rn = (v ? c.k[r] : n) * c.b;
        size_t span = lay_out_blocks(&c, v, c.a, me, &l, cnt, len, off, dsp);
        int inpl = me && c.inpl;
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", me ? span * S->ext : 0);
        fb_init(&rb, "recvbuf", inpl ? 0 : (size_t)rn * R->ext);
        if (!me)
            sb.check = 0;
        if (me)
            for (int i = 0; i < p; i++)
                fill(fb_data(&sb) + off[i] * S->ext, S, (size_t)cnt[i], -1, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        int nul = !me && c.nullins;
        if (v)
            BOTH(Scatterv, scatterv, nul ? NULL : PTR(sb), nul ? NULL : cnt, nul ? NULL : dsp,
                 nul ? MPI_DATATYPE_NULL : TY(S->t), inpl ? MPI_IN_PLACE : PTR(rb), rn, TY(R->t),
                 c.root, c.comm);
        else
            BOTH(Scatter, scatter, nul ? NULL : PTR(sb), nul ? 0 : n * c.a,
                 nul ? MPI_DATATYPE_NULL : TY(S->t), inpl ? MPI_IN_PLACE : PTR(rb), rn, TY(R->t),
                 c.root, c.comm);
        break;
    }

    case C_ALLGATHER:
    case C_ALLGATHERV: {
        int v = coll == C_ALLGATHERV;
        int sn = (v ? c.k[r] : n) * c.a;
        /* Every rank places the blocks, each its own way. */
        size_t span = lay_out_blocks(&c, v, c.b, 1, &l, cnt, len, off, dsp);
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", c.inpl ? 0 : (size_t)sn * S->ext);
        fb_init(&rb, "recvbuf", span * R->ext);
        if (c.inpl)
            fill(fb_data(&rb) + off[r] * R->ext, R, (size_t)cnt[r], -1, r, &l);
        else
            fill(fb_data(&sb), S, (size_t)sn, -1, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        if (v)
            BOTH(Allgatherv, allgatherv, c.inpl ? MPI_IN_PLACE : PTR(sb), sn, TY(S->t), PTR(rb),
                 cnt, dsp, TY(R->t), c.comm);
        else
            BOTH(Allgather, allgather, c.inpl ? MPI_IN_PLACE : PTR(sb), sn, TY(S->t), PTR(rb),
                 n * c.b, TY(R->t), c.comm);
        break;
    }

    case C_ALLTOALL: {
        size_t sblk = (size_t)(n * c.a), rblk = (size_t)(n * c.b);
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", c.inpl ? 0 : (size_t)p * sblk * S->ext);
        fb_init(&rb, "recvbuf", (size_t)p * rblk * R->ext);
        if (c.inpl)
            fill(fb_data(&rb), R, (size_t)p * rblk, -1, r, &l);
        else
            fill(fb_data(&sb), S, (size_t)p * sblk, -1, r, &l);
        fb_sync(&sb);
        fb_sync(&rb);
        BOTH(Alltoall, alltoall, c.inpl ? MPI_IN_PLACE : PTR(sb), n * c.a, TY(S->t), PTR(rb),
             n * c.b, TY(R->t), c.comm);
        break;
    }

    case C_ALLTOALLV: {
        for (int j = 0; j < p; j++) {
            scnt[j] = c.K[r * p + j] * c.a;
            cnt[j] = c.K[j * p + r] * c.b;
            len[j] = (size_t)scnt[j];
        }
        size_t sspan = place(&l, p, len, soff);
        for (int j = 0; j < p; j++)
            len[j] = (size_t)cnt[j];
        size_t rspan = place(&l, p, len, roff);
        for (int j = 0; j < p; j++) {
            sdsp[j] = (int)soff[j];
            dsp[j] = (int)roff[j];
        }
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", c.inpl ? 0 : sspan * S->ext);
        fb_init(&rb, "recvbuf", rspan * R->ext);
        for (int j = 0; j < p; j++) {
            if (c.inpl)
                fill(fb_data(&rb) + roff[j] * R->ext, R, (size_t)cnt[j], -1, r, &l);
            else
                fill(fb_data(&sb) + soff[j] * S->ext, S, (size_t)scnt[j], -1, r, &l);
        }
        fb_sync(&sb);
        fb_sync(&rb);
        BOTH(Alltoallv, alltoallv, c.inpl ? MPI_IN_PLACE : PTR(sb), scnt, sdsp, TY(S->t), PTR(rb),
             cnt, dsp, TY(R->t), c.comm);
        break;
    }

    case C_ALLTOALLW: {
        MPI_Datatype *stype = pc->stype, *rtype = pc->rtype;
        size_t sbytes[MAXP], rbytes[MAXP];
        int u = c.peer_types_unit;
        for (int j = 0; j < p; j++) {
            const tdesc *ts = &types[c.ST[r * p + j]], *tr = &types[c.RT[j * p + r]];
            scnt[j] = c.K[r * p + j] * (u / ts->nsig);
            cnt[j] = c.K[j * p + r] * (u / tr->nsig);
            stype[j] = ts->t;
            rtype[j] = tr->t;
            sbytes[j] = (size_t)scnt[j] * ts->ext;
            rbytes[j] = (size_t)cnt[j] * tr->ext;
        }
        /* Byte displacements: blocks in random order, 8-byte aligned, gaps of 0 to 16.
         * Open MPI 4.1.4's alltoallw on one rank (coll/self) multiplies the byte
         * displacements by the first types' extents: there, no gaps. */
        int no_gaps = !is_mpich && p == 1;
        size_t span[2];
        for (int s = 0; s < 2; s++) {
            size_t *o = s ? roff : soff, *bytes = s ? rbytes : sbytes;
            int order[MAXP];
            for (int j = 0; j < p; j++)
                order[j] = j;
            shuffle(&l, order, p);
            size_t at = 0;
            for (int k = 0; k < p; k++) {
                at += no_gaps ? 0 : 8 * (size_t)rbelow(&l, 3);
                o[order[k]] = at;
                at += (bytes[order[k]] + 7) / 8 * 8;
            }
            span[s] = at + 8 * (size_t)rbelow(&l, 3);
        }
        for (int j = 0; j < p; j++) {
            sdsp[j] = (int)soff[j];
            dsp[j] = (int)roff[j];
        }
        fb_free(&sb);
        fb_free(&rb);
        fb_init(&sb, "sendbuf", c.inpl ? 0 : span[0]);
        fb_init(&rb, "recvbuf", span[1]);
        for (int j = 0; j < p; j++) {
            if (c.inpl)
                fill(fb_data(&rb) + roff[j], &types[c.RT[j * p + r]], (size_t)cnt[j], -1, r, &l);
            else
                fill(fb_data(&sb) + soff[j], &types[c.ST[r * p + j]], (size_t)scnt[j], -1, r, &l);
        }
        fb_sync(&sb);
        fb_sync(&rb);
        BOTH(Alltoallw, alltoallw, c.inpl ? MPI_IN_PLACE : PTR(sb), scnt, sdsp, TYS(pc->stype),
             PTR(rb), cnt, dsp, TYS(pc->rtype), c.comm);
        break;
    }
    }

    pc->c = c;
    pc->sb = sb;
    pc->rb = rb;
    pc->rc[0] = rc[0];
    pc->rc[1] = rc[1];
    return pc;
done:
    free(c.K);
    free(c.ST);
    free(c.RT);
    return NULL;
}

/* Compare a call whose copy 0 completed, and let it go. */
static void finish_call(pending *pc)
{
    call_failed = 0;
    check_rc(&pc->c, pc->rc);
    compare(&pc->c, &pc->sb);
    compare(&pc->c, &pc->rb);
    fb_free(&pc->sb);
    fb_free(&pc->rb);
    if (form == F_PERSISTENT && pc->req != MPI_REQUEST_NULL)
        MPI_Request_free(&pc->req);
    free(pc->c.K);
    free(pc->c.ST);
    free(pc->c.RT);
    if (call_failed)
        failed[pc->c.idx] = 1;
    free(pc);
}

/* A failed completion's error, where the start had none. */
static void completed(pending *pc, int rc)
{
    if (pc->rc[0] == MPI_SUCCESS)
        pc->rc[0] = rc;
}

/* Complete copy 0 of a batch's calls (non-blocking and persistent forms):
 * persistent ones started first, in an order of this rank's own (MPI
 * matches them by their inits); then every request completed by one of
 * MPI_Wait in an order of this rank's own, MPI_Waitall, MPI_Testany or
 * MPI_Waitsome, drawn per batch and rank. */
enum { MAX_BATCH = 4 };

static void complete_batch(pending **pcs, int n, int first)
{
    rng l = rng_for(seed, (uint64_t)first, 2000 + (uint64_t)world_rank);
    int order[MAX_BATCH];
    for (int i = 0; i < n; i++)
        order[i] = i;
    shuffle(&l, order, n);
    if (form == F_PERSISTENT)
        for (int k = 0; k < n; k++) {
            pending *pc = pcs[order[k]];
            if (pc->req != MPI_REQUEST_NULL && pc->rc[0] == MPI_SUCCESS)
                completed(pc, MPI_Start(&pc->req));
        }
    MPI_Request reqs[MAX_BATCH];
    MPI_Status st[MAX_BATCH];
    for (int i = 0; i < n; i++)
        reqs[i] = pcs[i]->rc[0] == MPI_SUCCESS ? pcs[i]->req : MPI_REQUEST_NULL;
    int how = rbelow(&l, 4), rc, idx, flag, outcount, indices[MAX_BATCH];
    switch (how) {
    case 0:
        for (int k = 0; k < n; k++)
            completed(pcs[order[k]], MPI_Wait(&reqs[order[k]], MPI_STATUS_IGNORE));
        break;
    case 1:
        rc = MPI_Waitall(n, reqs, st);
        for (int i = 0; rc != MPI_SUCCESS && i < n; i++)
            completed(pcs[i], rc == MPI_ERR_IN_STATUS ? st[i].MPI_ERROR : rc);
        break;
    case 2:
        for (;;) {
            rc = MPI_Testany(n, reqs, &idx, &flag, &st[0]);
            if (rc != MPI_SUCCESS && idx >= 0 && idx < n)
                completed(pcs[idx], rc);
            if (rc != MPI_SUCCESS && (idx < 0 || idx >= n)) {
                for (int i = 0; i < n; i++)
                    completed(pcs[i], rc);
                break;
            }
            if (flag && idx == MPI_UNDEFINED)
                break;
            if (flag && form == F_PERSISTENT)
                reqs[idx] = MPI_REQUEST_NULL;
        }
        break;
    default:
        for (;;) {
            rc = MPI_Waitsome(n, reqs, &outcount, indices, st);
            if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) {
                for (int i = 0; i < n; i++)
                    completed(pcs[i], rc);
                break;
            }
            if (outcount == MPI_UNDEFINED)
                break;
            for (int k = 0; k < outcount; k++) {
                if (rc == MPI_ERR_IN_STATUS)
                    completed(pcs[indices[k]], st[k].MPI_ERROR);
                if (form == F_PERSISTENT)
                    reqs[indices[k]] = MPI_REQUEST_NULL;
            }
        }
        break;
    }
}

/* Calls first..first+n-1 made, completed together and compared. */
static void run_batch(int first, int n, int only)
{
    pending *pcs[MAX_BATCH];
    int k = 0;
    for (int i = first; i < first + n; i++) {
        pending *pc = start_call(i, only);
        if (pc)
            pcs[k++] = pc;
    }
    if (form != F_BLOCKING)
        complete_batch(pcs, k, first);
    for (int i = 0; i < k; i++)
        finish_call(pcs[i]);
}

/* How many calls from call i on are outstanding together: one in the
 * blocking form, 1 to MAX_BATCH in the others (the same on every rank). */
static int batch_at(int i)
{
    rng g = rng_for(seed, (uint64_t)i, 0xba7c4);
    return form == F_BLOCKING ? 1 : 1 + rbelow(&g, MAX_BATCH);
}

/* ---- communicators -------------------------------------------------------------- */

static void make_comms(void)
{
    rng g = rng_for(seed, 0xc0117, 0xc0117); /* the same on every rank */
    int p = world_size, r = world_rank;
    int *perm = xmalloc((size_t)p * sizeof(int));
    comms[0].name = "world";
    comms[0].comm = MPI_COMM_WORLD;
    comms[1].name = "dup";
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1].comm);
    comms[2].name = "reversed";
    MPI_Comm_split(MPI_COMM_WORLD, 0, p - 1 - r, &comms[2].comm);
    /* rank % 3 == 0 and the rest, each in a shuffled order */
    for (int i = 0; i < p; i++)
        perm[i] = i;
    shuffle(&g, perm, p);
    comms[3].name = r % 3 == 0 ? "split-mod3-zero-shuffled" : "split-mod3-rest-shuffled";
    MPI_Comm_split(MPI_COMM_WORLD, r % 3 == 0, perm[r], &comms[3].comm);
    /* a shuffled group, one rank left out from 3 ranks on */
    for (int i = 0; i < p; i++)
        perm[i] = i;
    shuffle(&g, perm, p);
    MPI_Group wg, cg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, p >= 3 ? p - 1 : p, perm, &cg);
    comms[4].name = "created-shuffled";
    MPI_Comm_create(MPI_COMM_WORLD, cg, &comms[4].comm);
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    free(perm);
    for (int i = 0; i < NCOMMS; i++)
        if (comms[i].comm != MPI_COMM_NULL)
            MPI_Comm_set_errhandler(comms[i].comm, MPI_ERRORS_RETURN);
}

static void free_comms(void)
{
    for (int i = 1; i < NCOMMS; i++)
        if (comms[i].comm != MPI_COMM_NULL)
            MPI_Comm_free(&comms[i].comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    int calls = -1, first = 0, only = -1, bad = 0, have_seed = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--seed") == 0 && a + 1 < argc) {
            seed = strtoull(argv[++a], NULL, 0);
            have_seed = 1;
        } else if (strcmp(argv[a], "--calls") == 0 && a + 1 < argc) {
            calls = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--first") == 0 && a + 1 < argc) {
            first = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) {
            a++;
            for (int k = 0; k < NCOLL; k++)
                if (strcmp(argv[a], coll_names[k]) == 0)
                    only = k;
            bad |= only < 0;
        } else if (strcmp(argv[a], "--verbose") == 0) {
            verbose = 1;
        } else if (strcmp(argv[a], "--form") == 0 && a + 1 < argc) {
            a++;
            form = -1;
            for (int k = 0; k < 3; k++)
                if (strcmp(argv[a], form_names[k]) == 0)
                    form = k;
#ifndef PINIT
            if (form == F_PERSISTENT)
                form = -1;
#endif
            bad |= form < 0;
        } else {
            bad = 1;
        }
    }
    if (bad || !have_seed || calls < 0 || first < 0 || first > calls) {
        if (world_rank == 0)
            fprintf(stderr,
                    "usage: %s --seed S --calls N [--first K] [--only <collective>] "
                    "[--form blocking|nonblocking|persistent] [--verbose]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_types();
    make_ops();
    make_comms();
    failed = calloc((size_t)calls + 1, 1);
    for (int i = first, n; i < calls; i += n) {
        n = batch_at(i);
        if (n > calls - i)
            n = calls - i;
        run_batch(i, n, only);
    }
    if (bad_userop_type) {
        fprintf(stderr,
                "coll_fuzz: rank %d: user operations called %ld times with a datatype "
                "other than the call's (seed=%llu)\n",
                world_rank, bad_userop_type, (unsigned long long)seed);
        failed[calls] = 1;
    }
    if (reports > MAX_REPORTS)
        fprintf(stderr, "coll_fuzz: rank %d: %d more mismatches not printed (seed=%llu)\n",
                world_rank, reports - MAX_REPORTS, (unsigned long long)seed);
    /* Through PMPI, so the summary does not depend on what is tested. */
    unsigned char *any = calloc((size_t)calls + 1, 1);
    PMPI_Allreduce(failed, any, calls + 1, MPI_UNSIGNED_CHAR, MPI_MAX, MPI_COMM_WORLD);
    int nfailed = 0;
    for (int i = 0; i <= calls; i++)
        nfailed += any[i] != 0;
    if (world_rank == 0)
        printf("coll_fuzz: %d calls (%s), %d failed\n", calls - first, form_names[form], nfailed);
    free(failed);
    free(any);
    free_comms();
    free_ops();
    free_types();
    MPI_Finalize();
    return nfailed ? 1 : 0;
}
