/* A plain MPI program that checks MPI's corner cases and argument errors in
 * all 17 collectives. It knows nothing of Trellis: the test suite runs it
 * with libtrellis.so preloaded (some algorithms forced) and without.
 *
 * Corners, checked against values computed here with plain loops: NULL
 * buffers where nothing is read or written (count 0, a zero-size datatype,
 * a rank with a zero count in a v-variant, a buffer MPI calls
 * insignificant on this rank, such as reduce's receive buffer off the
 * root) and MPI_IN_PLACE passed there; zero-size datatypes; MPI_BOTTOM
 * with datatypes of absolute addresses (MPI_Get_address, struct types);
 * MPI_IN_PLACE wherever MPI allows it.
 *
 * Errors, with every handler recording and returning: each erroneous
 * call runs first through the PMPI_ function on a duplicate communicator
 * (the MPI library alone: Trellis only intercepts MPI_), then through MPI_
 * on another one. Every rank must get the same error class both ways,
 * through the same number of handler calls on the same communicator (the
 * call's, or MPI_COMM_WORLD's where the MPI library uses that), and no rank
 * may hang; then a correct call of the same collective must give the right
 * result on the same communicator, so no message of the failed call is
 * left over. Three kinds of error:
 *   symmetric   every rank passes the wrong argument and can see it;
 *   ranks       only the root, or only the other ranks, can see it;
 *   all         also counts that disagree between ranks, seen only where
 *               a message arrives longer than its receive block.
 * The last two leave the other ranks' messages behind (with the MPI
 * library too): the correct call after them goes to another communicator.
 * --errors symmetric is for algorithms where the other ranks wait for the
 * one that failed (reduce rabenseifner needs the root's half), as they may
 * with the MPI library's own algorithms.
 *
 * Only cases where the MPI library alone lets no rank hang are run (Open
 * MPI 4.1.4: see the table of errors).
 *
 *   coll_check_corner [--quick] [--only <collective>] [--errors none|symmetric|ranks|all]
 *
 * --errors none: the corners only. The table of errors is Open MPI's; MPICH
 * 4.0.2 stops the program on several of its rows (MPI_LAND on MPI_FLOAT, a
 * negative count: docs/install.md), so under MPICH the corners run alone.
 */
#include <stdbool.h>
#include <stdint.h>
#include <strings.h>

#include "coll_check_common.h"

static int error_scopes = 3; /* --errors: kinds run, 0 none, 1 symmetric .. 3 all */

/* ---- datatypes and an operation for the corners -------------------------- */

static MPI_Datatype T_ZERO; /* contiguous(0, MPI_INT): size 0, extent 0 */
static MPI_Op OP_USUM;      /* sum of ints, for derived datatypes */

/* A datatype of absolute addresses, for MPI_BOTTOM: its element k is the
 * ints x[4k], x[4k+2], x[4k+3] (x[4k+1] a gap), found through
 * MPI_Get_address. The operation below reads the same displacements. */
enum { ABS_EXT = 4, ABS_N = 3 };
static const int abs_field[ABS_N] = {0, 2, 3};
static MPI_Datatype T_ABS;
static MPI_Aint abs_disp[ABS_N];

static void abs_make(int *x)
{
    int len[2] = {1, 2};
    MPI_Aint d[2];
    MPI_Get_address(&x[0], &d[0]);
    MPI_Get_address(&x[2], &d[1]);
    MPI_Datatype t[2] = {MPI_INT, MPI_INT}, s;
    MPI_Type_create_struct(2, len, d, t, &s);
    MPI_Type_create_resized(s, d[0], (MPI_Aint)(ABS_EXT * sizeof(int)), &T_ABS);
    MPI_Type_free(&s);
    MPI_Type_commit(&T_ABS);
    abs_disp[0] = d[0];
    abs_disp[1] = d[1];
    abs_disp[2] = d[1] + (MPI_Aint)sizeof(int);
}

static void abs_free(void)
{
    MPI_Type_free(&T_ABS);
}

/* Sums ints: plain MPI_INT, T_ABS's fields, nothing for T_ZERO. */
static void usum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type == MPI_INT) {
        for (int i = 0; i < *len; i++)
            ((int *)inout)[i] += ((int *)in)[i];
    } else if (*type == T_ABS) {
        for (int k = 0; k < *len; k++)
            for (int f = 0; f < ABS_N; f++) {
                /* Absolute displacements: a buffer's base plus them wraps,
                 * which only integer arithmetic may do. */
                MPI_Aint at = (MPI_Aint)k * ABS_EXT * (MPI_Aint)sizeof(int) + abs_disp[f];
                int *to = (int *)((uintptr_t)inout + (uintptr_t)at);
                *to += *(const int *)((uintptr_t)in + (uintptr_t)at);
            }
    }
}

/* The j-th int rank r contributes; small, so sums stay exact. */
static int v(int r, int j)
{
    return (r * 7 + j * 3) % 11 + 1;
}
static int v_sum(int from, int to, int j) /* ranks from..to-1 */
{
    int s = 0;
    for (int r = from; r < to; r++)
        s += v(r, j);
    return s;
}

/* A buffer of n ints set to -1 (the marker of "untouched"). */
static int *ints(size_t n)
{
    int *b = xmalloc(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        b[i] = -1;
    return b;
}

static int rank_of(MPI_Comm c)
{
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int size_of(MPI_Comm c)
{
    int p;
    MPI_Comm_size(c, &p);
    return p;
}

#define OK(rc, ...) CHECK((rc) == MPI_SUCCESS, __VA_ARGS__)

/* MPICH 4.0.2 stops the program on a call whose send and receive buffers
 * are both NULL with a zero-size datatype ("Buffers must not be aliased"),
 * which MPI allows: its own control run cannot pass them, so under MPICH
 * they are left out. */
#ifdef MPICH_VERSION
enum { LIB_TAKES_NULL_ALIAS = 0 };
#else
enum { LIB_TAKES_NULL_ALIAS = 1 };
#endif

/* x holds n elements of T_ABS: fill its fields with v(r, .), the gaps -1. */
static void abs_fill(int *x, int n, int r)
{
    for (int i = 0; i < ABS_EXT * n; i++)
        x[i] = -1;
    for (int k = 0; k < n; k++)
        for (int f = 0; f < ABS_N; f++)
            x[ABS_EXT * k + abs_field[f]] = v(r, k * ABS_N + f);
}

/* x's fields must hold want(k*ABS_N+f) and its gaps -1. */
static void abs_check(const int *x, int n, int (*want)(int j, void *ctx), void *ctx,
                      const char *what)
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < ABS_EXT; i++) {
            int f = i == 0 ? 0 : i == 2 ? 1 : i == 3 ? 2 : -1;
            int expect = f < 0 ? -1 : want(k * ABS_N + f, ctx);
            CHECK(x[ABS_EXT * k + i] == expect, "%s: int %d is %d, expected %d", what,
                  ABS_EXT * k + i, x[ABS_EXT * k + i], expect);
        }
}

typedef struct {
    int from, to;
} range;
static int want_sum(int j, void *ctx)
{
    range *r = ctx;
    return v_sum(r->from, r->to, j);
}
static int want_of_rank(int j, void *ctx)
{
    return v(*(int *)ctx, j);
}

/* The same call through the MPI library alone (nat: PMPI_) or as the
 * program would make it (MPI_). */
#define CALL(fn, ...) (nat ? P##fn(__VA_ARGS__) : fn(__VA_ARGS__))

/* A reduction collective by name, root 0, every count n. */
static int reduction(const char *coll, const void *s, void *r, int n, MPI_Datatype t, MPI_Op op,
                     MPI_Comm c, int nat)
{
    int counts[64];
    for (int i = 0; i < 64; i++)
        counts[i] = n;
    if (!strcmp(coll, "allreduce"))
        return CALL(MPI_Allreduce, s, r, n, t, op, c);
    if (!strcmp(coll, "reduce"))
        return CALL(MPI_Reduce, s, r, n, t, op, 0, c);
    if (!strcmp(coll, "scan"))
        return CALL(MPI_Scan, s, r, n, t, op, c);
    if (!strcmp(coll, "exscan"))
        return CALL(MPI_Exscan, s, r, n, t, op, c);
    if (!strcmp(coll, "reduce_scatter"))
        return CALL(MPI_Reduce_scatter, s, r, counts, t, op, c);
    return CALL(MPI_Reduce_scatter_block, s, r, n, t, op, c);
}

/* A data mover by name, root `root`: every block sc elements of st on the
 * send side, rc of rt on the receive side. */
static int mover(const char *coll, const void *s, int sc, MPI_Datatype st, void *r, int rc,
                 MPI_Datatype rt, int root, MPI_Comm c, int nat)
{
    int scs[64], rcs[64], displs[64], bytes[64];
    MPI_Datatype sts[64], rts[64];
    for (int i = 0; i < 64; i++) {
        scs[i] = sc, rcs[i] = rc, sts[i] = st, rts[i] = rt;
        displs[i] = 16 * i, bytes[i] = 64 * i * (int)sizeof(int);
    }
    if (!strcmp(coll, "bcast"))
        return CALL(MPI_Bcast, (void *)s, sc, st, root, c);
    if (!strcmp(coll, "gather"))
        return CALL(MPI_Gather, s, sc, st, r, rc, rt, root, c);
    if (!strcmp(coll, "gatherv"))
        return CALL(MPI_Gatherv, s, sc, st, r, rcs, displs, rt, root, c);
    if (!strcmp(coll, "scatter"))
        return CALL(MPI_Scatter, s, sc, st, r, rc, rt, root, c);
    if (!strcmp(coll, "scatterv"))
        return CALL(MPI_Scatterv, s, scs, displs, st, r, rc, rt, root, c);
    if (!strcmp(coll, "allgather"))
        return CALL(MPI_Allgather, s, sc, st, r, rc, rt, c);
    if (!strcmp(coll, "allgatherv"))
        return CALL(MPI_Allgatherv, s, sc, st, r, rcs, displs, rt, c);
    if (!strcmp(coll, "alltoall"))
        return CALL(MPI_Alltoall, s, sc, st, r, rc, rt, c);
    if (!strcmp(coll, "alltoallv"))
        return CALL(MPI_Alltoallv, s, scs, displs, st, r, rcs, displs, rt, c);
    return CALL(MPI_Alltoallw, s, scs, bytes, sts, r, rcs, bytes, rts, c);
}

/* Calls with nothing to move, NULL buffers: count 0, and a zero-size
 * datatype. */
static void nothing_moves(const char *coll, int root, MPI_Comm comm, const char *where)
{
    OK(mover(coll, NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, root, comm, 0), "%s %s NULL count 0",
       where, coll);
    if (LIB_TAKES_NULL_ALIAS)
        OK(mover(coll, NULL, 3, T_ZERO, NULL, 3, T_ZERO, root, comm, 0), "%s %s zero-size type",
           where, coll);
}

/* ---- corners: the reductions ------------------------------------------------ */

static void corner_reduce(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    for (int root = 0; root<p; root += p> 1 ? p - 1 : 1) {
        bool is_root = me == root;
        /* NULL as both buffers at the root is aliasing (Open MPI refuses
         * it): the errors below check that. */
        int unused[1] = {-1};
        OK(MPI_Reduce(NULL, is_root ? unused : NULL, 0, MPI_INT, MPI_SUM, root, comm),
           "%s reduce NULL count 0", where);
        CHECK(unused[0] == -1, "%s reduce count 0 wrote the receive buffer", where);
        /* The receive buffer is insignificant off the root: NULL there,
         * then MPI_IN_PLACE there with MPI_IN_PLACE at the root. */
        for (int pass = 0; pass < 2; pass++) {
            int send[5], *recv = is_root ? ints(5) : NULL;
            for (int j = 0; j < 5; j++)
                send[j] = v(me, j);
            if (is_root && pass == 1)
                memcpy(recv, send, sizeof send);
            const void *s = is_root && pass == 1 ? MPI_IN_PLACE : send;
            void *r = is_root ? recv : pass == 1 ? MPI_IN_PLACE : NULL;
            OK(MPI_Reduce(s, r, 5, MPI_INT, MPI_SUM, root, comm), "%s reduce pass %d", where, pass);
            for (int j = 0; is_root && j < 5; j++)
                CHECK(recv[j] == v_sum(0, p, j), "%s reduce root=%d pass %d: [%d] %d != %d", where,
                      root, pass, j, recv[j], v_sum(0, p, j));
            free(recv);
        }
        if (LIB_TAKES_NULL_ALIAS)
            OK(MPI_Reduce(NULL, is_root ? unused : NULL, 4, T_ZERO, OP_USUM, root, comm),
               "%s reduce zero-size type", where);
        /* No MPI_BOTTOM here: Open MPI 4.1.4's own reduce leaves an
         * MPI_BOTTOM receive buffer at the root unwritten (its temporary
         * result is never copied back), so the control run would fail;
         * allreduce, scan and exscan check it. */
    }
}

/* allreduce, scan, exscan: the corners they share. */
typedef int (*reduction_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);

static void corner_prefix(MPI_Comm comm, const char *where, const char *name, reduction_fn fn,
                          int kind /* 0 all, 1 inclusive, 2 exclusive */)
{
    int p = size_of(comm), me = rank_of(comm);
    OK(fn(NULL, NULL, 0, MPI_INT, MPI_SUM, comm), "%s %s NULL count 0", where, name);
    OK(fn(MPI_IN_PLACE, NULL, 0, MPI_INT, MPI_SUM, comm), "%s %s in place NULL count 0", where,
       name);
    if (LIB_TAKES_NULL_ALIAS)
        OK(fn(NULL, NULL, 3, T_ZERO, OP_USUM, comm), "%s %s zero-size type", where, name);
    int x[2 * ABS_EXT];
    abs_fill(x, 2, me);
    abs_make(x);
    OK(fn(MPI_IN_PLACE, MPI_BOTTOM, 2, T_ABS, OP_USUM, comm), "%s %s MPI_BOTTOM", where, name);
    range r = {0, kind == 0 ? p : kind == 1 ? me + 1 : me};
    char what[96];
    snprintf(what, sizeof what, "%s %s MPI_BOTTOM in place", where, name);
    if (kind != 2 || me > 0)
        abs_check(x, 2, want_sum, &r, what); /* exscan: rank 0 undefined */
    abs_free();
}

static void corner_allreduce(MPI_Comm comm, const char *where)
{
    corner_prefix(comm, where, "allreduce", MPI_Allreduce, 0);
}
static void corner_scan(MPI_Comm comm, const char *where)
{
    corner_prefix(comm, where, "scan", MPI_Scan, 1);
}
static void corner_exscan(MPI_Comm comm, const char *where)
{
    corner_prefix(comm, where, "exscan", MPI_Exscan, 2);
}

static void corner_reduce_scatter(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    int *counts = xmalloc((size_t)p * sizeof(int)), total = 0, before = 0;
    /* Zero counts on some ranks: those pass a NULL receive buffer. */
    for (int i = 0; i < p; i++) {
        counts[i] = i % 2 ? 0 : i + 1;
        if (i < me)
            before += counts[i];
        total += counts[i];
    }
    for (int inpl = 0; inpl < 2; inpl++) {
        int *send = xmalloc((size_t)total * sizeof(int));
        for (int j = 0; j < total; j++)
            send[j] = v(me, j);
        int *recv = inpl ? send : counts[me] ? ints((size_t)counts[me]) : NULL;
        OK(MPI_Reduce_scatter(inpl ? MPI_IN_PLACE : send, recv, counts, MPI_INT, MPI_SUM, comm),
           "%s reduce_scatter zero counts%s", where, inpl ? " in place" : "");
        for (int j = 0; j < counts[me]; j++)
            CHECK(recv[j] == v_sum(0, p, before + j), "%s reduce_scatter%s [%d]: %d != %d", where,
                  inpl ? " in place" : "", j, recv[j], v_sum(0, p, before + j));
        if (!inpl)
            free(recv);
        free(send);
    }
    for (int i = 0; i < p; i++)
        counts[i] = 0;
    OK(MPI_Reduce_scatter(NULL, NULL, counts, MPI_INT, MPI_SUM, comm),
       "%s reduce_scatter all zero NULL", where);
    OK(MPI_Reduce_scatter(MPI_IN_PLACE, NULL, counts, MPI_INT, MPI_SUM, comm),
       "%s reduce_scatter all zero in place", where);
    for (int i = 0; i < p; i++)
        counts[i] = 2;
    if (LIB_TAKES_NULL_ALIAS)
        OK(MPI_Reduce_scatter(NULL, NULL, counts, T_ZERO, OP_USUM, comm),
           "%s reduce_scatter zero-size type", where);
    free(counts);
}

static void corner_reduce_scatter_block(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    OK(MPI_Reduce_scatter_block(NULL, NULL, 0, MPI_INT, MPI_SUM, comm),
       "%s reduce_scatter_block NULL count 0", where);
    if (LIB_TAKES_NULL_ALIAS)
        OK(MPI_Reduce_scatter_block(NULL, NULL, 2, T_ZERO, OP_USUM, comm),
           "%s reduce_scatter_block zero-size type", where);
    /* MPI_BOTTOM in place: p elements of T_ABS in, this rank's first. */
    int *x = xmalloc((size_t)(p * ABS_EXT) * sizeof(int));
    abs_fill(x, p, me);
    abs_make(x);
    OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, MPI_BOTTOM, 1, T_ABS, OP_USUM, comm),
       "%s reduce_scatter_block MPI_BOTTOM", where);
    for (int f = 0; f < ABS_N; f++) {
        int expect = v_sum(0, p, me * ABS_N + f);
        CHECK(x[abs_field[f]] == expect, "%s reduce_scatter_block MPI_BOTTOM field %d: %d != %d",
              where, f, x[abs_field[f]], expect);
    }
    abs_free();
    free(x);
}

static void corner_barrier(MPI_Comm comm, const char *where)
{
    OK(MPI_Barrier(comm), "%s barrier", where);
}

/* ---- corners: the data movers -------------------------------------------------- */

/* The int rank src sends rank dst, j-th. */
static int mv(int src, int dst, int j)
{
    return (src * 31 + dst * 7 + j) % 1000 + 1;
}

static void corner_bcast(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    for (int root = 0; root<p; root += p> 1 ? p - 1 : 1) {
        nothing_moves("bcast", root, comm, where);
        int keep[3] = {-1, -1, -1};
        OK(MPI_Bcast(keep, 0, MPI_INT, root, comm), "%s bcast count 0", where);
        CHECK(keep[0] == -1 && keep[2] == -1, "%s bcast count 0 wrote the buffer", where);
        int x[2 * ABS_EXT];
        abs_fill(x, 2, me == root ? root : 1000);
        if (me != root)
            for (int i = 0; i < 2 * ABS_EXT; i++)
                x[i] = -1;
        abs_make(x);
        OK(MPI_Bcast(MPI_BOTTOM, 2, T_ABS, root, comm), "%s bcast MPI_BOTTOM", where);
        abs_check(x, 2, want_of_rank, &root, "bcast MPI_BOTTOM");
        abs_free();
    }
}

/* gather and gatherv; scatter and scatterv mirror them. */
static void corner_gather(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    for (int root = 0; root<p; root += p> 1 ? p - 1 : 1) {
        bool is_root = me == root;
        /* The call of the report: NULL and 0 everywhere. */
        nothing_moves("gather", root, comm, where);
        nothing_moves("gatherv", root, comm, where);
        OK(MPI_Gather(is_root ? MPI_IN_PLACE : NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, root, comm),
           "%s gather NULL 0 in place", where);
        /* Insignificant receive arguments off the root: NULL, then
         * MPI_IN_PLACE with MPI_DATATYPE_NULL. */
        for (int pass = 0; pass < 2; pass++) {
            int send[2] = {mv(me, root, 0), mv(me, root, 1)},
                *recv = is_root ? ints(2 * (size_t)p) : NULL;
            void *r = is_root ? recv : pass ? MPI_IN_PLACE : NULL;
            OK(MPI_Gather(send, 2, MPI_INT, r, is_root ? 2 : 0,
                          is_root || !pass ? MPI_INT : MPI_DATATYPE_NULL, root, comm),
               "%s gather insignificant pass %d", where, pass);
            for (int i = 0; is_root && i < 2 * p; i++)
                CHECK(recv[i] == mv(i / 2, root, i % 2), "%s gather pass %d [%d]=%d", where, pass,
                      i, recv[i]);
            free(recv);
        }
        /* MPI_BOTTOM on the send side: 2 elements of T_ABS, 6 ints each. */
        int x[2 * ABS_EXT], *recv = is_root ? ints(6 * (size_t)p) : NULL;
        abs_fill(x, 2, me);
        abs_make(x);
        OK(MPI_Gather(MPI_BOTTOM, 2, T_ABS, recv, 6, MPI_INT, root, comm), "%s gather MPI_BOTTOM",
           where);
        for (int i = 0; is_root && i < 6 * p; i++)
            CHECK(recv[i] == v(i / 6, i % 6), "%s gather MPI_BOTTOM [%d]=%d", where, i, recv[i]);
        /* gatherv: zero counts on some ranks, which pass NULL; counts and
         * displacements NULL off the root; the same from MPI_BOTTOM. */
        int *counts = xmalloc((size_t)p * sizeof(int)), *displs = xmalloc((size_t)p * sizeof(int));
        for (int i = 0; i < p; i++) {
            counts[i] = i % 2 ? 0 : 6;
            displs[i] = 6 * i;
        }
        for (int i = 0; is_root && i < 6 * p; i++)
            recv[i] = -1;
        OK(MPI_Gatherv(counts[me] ? MPI_BOTTOM : NULL, counts[me] ? 2 : 0, T_ABS, recv,
                       is_root ? counts : NULL, is_root ? displs : NULL, MPI_INT, root, comm),
           "%s gatherv zero counts", where);
        for (int i = 0; is_root && i < 6 * p; i++) {
            int expect = (i / 6) % 2 ? -1 : v(i / 6, i % 6);
            CHECK(recv[i] == expect, "%s gatherv zero counts [%d]=%d, expected %d", where, i,
                  recv[i], expect);
        }
        for (int i = 0; i < p; i++)
            counts[i] = displs[i] = 0;
        OK(MPI_Gatherv(NULL, 0, MPI_INT, NULL, counts, displs, MPI_INT, root, comm),
           "%s gatherv all zero NULL", where);
        OK(MPI_Gatherv(is_root ? MPI_IN_PLACE : NULL, 0, MPI_INT, NULL, counts, displs, MPI_INT,
                       root, comm),
           "%s gatherv all zero in place", where);
        abs_free();
        free(recv), free(counts), free(displs);
    }
}

static void corner_scatter(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    for (int root = 0; root<p; root += p> 1 ? p - 1 : 1) {
        bool is_root = me == root;
        nothing_moves("scatter", root, comm, where);
        nothing_moves("scatterv", root, comm, where);
        OK(MPI_Scatter(NULL, 0, MPI_BYTE, is_root ? MPI_IN_PLACE : NULL, 0, MPI_BYTE, root, comm),
           "%s scatter NULL 0 in place", where);
        int *send = is_root ? ints(6 * (size_t)p) : NULL;
        for (int i = 0; is_root && i < 6 * p; i++)
            send[i] = v(i / 6, i % 6);
        /* Insignificant send arguments off the root: NULL, then
         * MPI_IN_PLACE; the root's own block in place the second time. */
        for (int pass = 0; pass < 2; pass++) {
            int recv[6] = {-1, -1, -1, -1, -1, -1};
            const void *s = is_root ? send : pass ? MPI_IN_PLACE : NULL;
            void *r = is_root && pass ? MPI_IN_PLACE : recv;
            OK(MPI_Scatter(s, is_root ? 6 : 0, is_root ? MPI_INT : MPI_DATATYPE_NULL, r, 6, MPI_INT,
                           root, comm),
               "%s scatter insignificant pass %d", where, pass);
            for (int j = 0; !(is_root && pass) && j < 6; j++)
                CHECK(recv[j] == v(me, j), "%s scatter pass %d [%d]=%d", where, pass, j, recv[j]);
        }
        /* MPI_BOTTOM on the receive side. */
        int x[2 * ABS_EXT];
        for (int i = 0; i < 2 * ABS_EXT; i++)
            x[i] = -1;
        abs_make(x);
        OK(MPI_Scatter(send, 6, MPI_INT, MPI_BOTTOM, 2, T_ABS, root, comm), "%s scatter MPI_BOTTOM",
           where);
        abs_check(x, 2, want_of_rank, &me, "scatter MPI_BOTTOM");
        /* scatterv: zero counts on some ranks, which pass NULL; counts
         * and displacements NULL off the root. */
        int *counts = xmalloc((size_t)p * sizeof(int)), *displs = xmalloc((size_t)p * sizeof(int));
        for (int i = 0; i < p; i++) {
            counts[i] = i % 2 ? 0 : 6;
            displs[i] = 6 * i;
        }
        for (int i = 0; i < 2 * ABS_EXT; i++)
            x[i] = -1;
        OK(MPI_Scatterv(send, is_root ? counts : NULL, is_root ? displs : NULL, MPI_INT,
                        counts[me] ? MPI_BOTTOM : NULL, counts[me] ? 2 : 0, T_ABS, root, comm),
           "%s scatterv zero counts", where);
        if (counts[me])
            abs_check(x, 2, want_of_rank, &me, "scatterv MPI_BOTTOM");
        for (int i = 0; i < p; i++)
            counts[i] = displs[i] = 0;
        OK(MPI_Scatterv(NULL, counts, displs, MPI_INT, NULL, 0, MPI_INT, root, comm),
           "%s scatterv all zero NULL", where);
        abs_free();
        free(send), free(counts), free(displs);
    }
}

static void corner_allgather(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    nothing_moves("allgather", 0, comm, where);
    nothing_moves("allgatherv", 0, comm, where);
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, NULL, 0, MPI_INT, comm), "%s allgather in place 0",
       where);
    int x[2 * ABS_EXT], *recv = ints(6 * (size_t)p);
    abs_fill(x, 2, me);
    abs_make(x);
    OK(MPI_Allgather(MPI_BOTTOM, 2, T_ABS, recv, 6, MPI_INT, comm), "%s allgather MPI_BOTTOM",
       where);
    for (int i = 0; i < 6 * p; i++)
        CHECK(recv[i] == v(i / 6, i % 6), "%s allgather MPI_BOTTOM [%d]=%d", where, i, recv[i]);
    int *counts = xmalloc((size_t)p * sizeof(int)), *displs = xmalloc((size_t)p * sizeof(int));
    for (int i = 0; i < p; i++) {
        counts[i] = i % 2 ? 0 : 6;
        displs[i] = 6 * i;
    }
    for (int i = 0; i < 6 * p; i++)
        recv[i] = -1;
    OK(MPI_Allgatherv(counts[me] ? MPI_BOTTOM : NULL, counts[me] ? 2 : 0, T_ABS, recv, counts,
                      displs, MPI_INT, comm),
       "%s allgatherv zero counts", where);
    for (int i = 0; i < 6 * p; i++) {
        int expect = (i / 6) % 2 ? -1 : v(i / 6, i % 6);
        CHECK(recv[i] == expect, "%s allgatherv zero counts [%d]=%d", where, i, recv[i]);
    }
    for (int i = 0; i < p; i++)
        counts[i] = displs[i] = 0;
    OK(MPI_Allgatherv(NULL, 0, MPI_INT, NULL, counts, displs, MPI_INT, comm),
       "%s allgatherv all zero", where);
    OK(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_INT, NULL, counts, displs, MPI_INT, comm),
       "%s allgatherv all zero in place", where);
    abs_free();
    free(recv), free(counts), free(displs);
}

/* A datatype of one int at the absolute address of b[0], extent one int:
 * element i is b[i]. */
static MPI_Datatype abs_ints(int *b)
{
    int one = 1;
    MPI_Aint d;
    MPI_Get_address(b, &d);
    MPI_Datatype t = MPI_INT, s, r;
    MPI_Type_create_struct(1, &one, &d, &t, &s);
    MPI_Type_create_resized(s, d, (MPI_Aint)sizeof(int), &r);
    MPI_Type_free(&s);
    MPI_Type_commit(&r);
    return r;
}

static void corner_alltoall(MPI_Comm comm, const char *where)
{
    int p = size_of(comm), me = rank_of(comm);
    nothing_moves("alltoall", 0, comm, where);
    nothing_moves("alltoallv", 0, comm, where);
    nothing_moves("alltoallw", 0, comm, where);
    OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_INT, NULL, 0, MPI_INT, comm), "%s alltoall in place 0",
       where);
    /* MPI_BOTTOM on both sides: types of absolute addresses. */
    int *send = ints(2 * (size_t)p), *recv = ints(2 * (size_t)p);
    for (int i = 0; i < 2 * p; i++)
        send[i] = mv(me, i / 2, i % 2);
    MPI_Datatype ts = abs_ints(send), tr = abs_ints(recv);
    OK(MPI_Alltoall(MPI_BOTTOM, 2, ts, MPI_BOTTOM, 2, tr, comm), "%s alltoall MPI_BOTTOM", where);
    for (int i = 0; i < 2 * p; i++)
        CHECK(recv[i] == mv(i / 2, me, i % 2), "%s alltoall MPI_BOTTOM [%d]=%d", where, i, recv[i]);
    /* alltoallv: zero counts between some pairs; a rank with none at all
     * passes NULL buffers. */
    int *sc = xmalloc((size_t)p * sizeof(int)), *sd = xmalloc((size_t)p * sizeof(int));
    int *rc = xmalloc((size_t)p * sizeof(int)), *rd = xmalloc((size_t)p * sizeof(int));
    bool none = p >= 3 && me == 1;
    for (int i = 0; i < p; i++) {
        sc[i] = none || (p >= 3 && i == 1) || (me + i) % 2 ? 0 : 2;
        rc[i] = none || (p >= 3 && i == 1) || (me + i) % 2 ? 0 : 2;
        sd[i] = rd[i] = 2 * i;
    }
    for (int i = 0; i < 2 * p; i++)
        recv[i] = -1;
    OK(MPI_Alltoallv(none ? NULL : MPI_BOTTOM, sc, sd, ts, none ? NULL : MPI_BOTTOM, rc, rd, tr,
                     comm),
       "%s alltoallv zero counts", where);
    for (int i = 0; i < 2 * p; i++) {
        int expect = rc[i / 2] ? mv(i / 2, me, i % 2) : -1;
        CHECK(recv[i] == expect, "%s alltoallv zero counts [%d]=%d, expected %d", where, i, recv[i],
              expect);
    }
    for (int i = 0; i < p; i++)
        sc[i] = rc[i] = 0;
    OK(MPI_Alltoallv(NULL, sc, sd, MPI_INT, NULL, rc, rd, MPI_INT, comm), "%s alltoallv all zero",
       where);
    OK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_INT, NULL, rc, rd, MPI_INT, comm),
       "%s alltoallv all zero in place", where);
    /* alltoallw: per-peer datatypes, absolute and zero-size among them,
     * displacements 0 from MPI_BOTTOM. */
    MPI_Datatype *st = xmalloc((size_t)p * sizeof *st), *rt = xmalloc((size_t)p * sizeof *rt);
    MPI_Datatype *tsend = xmalloc((size_t)p * sizeof *tsend),
                 *trecv = xmalloc((size_t)p * sizeof *trecv);
    for (int i = 0; i < p; i++) {
        tsend[i] = abs_ints(send + 2 * i);
        trecv[i] = abs_ints(recv + 2 * i);
        bool zero = (me + i) % 3 == 2; /* the same both ways between two ranks */
        st[i] = zero ? T_ZERO : tsend[i];
        rt[i] = zero ? T_ZERO : trecv[i];
        sc[i] = rc[i] = 2;
        sd[i] = rd[i] = 0;
    }
    for (int i = 0; i < 2 * p; i++)
        recv[i] = -1;
    OK(MPI_Alltoallw(MPI_BOTTOM, sc, sd, st, MPI_BOTTOM, rc, rd, rt, comm),
       "%s alltoallw MPI_BOTTOM", where);
    for (int i = 0; i < 2 * p; i++) {
        int expect = (me + i / 2) % 3 == 2 ? -1 : mv(i / 2, me, i % 2);
        CHECK(recv[i] == expect, "%s alltoallw MPI_BOTTOM [%d]=%d, expected %d", where, i, recv[i],
              expect);
    }
    for (int i = 0; i < p; i++)
        sc[i] = rc[i] = 0, st[i] = rt[i] = MPI_INT;
    OK(MPI_Alltoallw(NULL, sc, sd, st, NULL, rc, rd, rt, comm), "%s alltoallw all zero", where);
    for (int i = 0; i < p; i++)
        MPI_Type_free(&tsend[i]), MPI_Type_free(&trecv[i]);
    MPI_Type_free(&ts);
    MPI_Type_free(&tr);
    free(send), free(recv), free(sc), free(sd), free(rc), free(rd);
    free(st), free(rt), free(tsend), free(trecv);
}

/* ---- a correct call of each collective, checked ------------------------------ */

/* Every rank's block is 2 ints; the call must give the right answer. */
static void check_ok(const char *coll, MPI_Comm c, const char *after)
{
    int p = size_of(c), me = rank_of(c), rc = MPI_SUCCESS;
    int *s = ints(2 * (size_t)p), *r = ints(2 * (size_t)p);
    int *counts = xmalloc((size_t)p * sizeof(int)), *displs = xmalloc((size_t)p * sizeof(int));
    MPI_Datatype *types = xmalloc((size_t)p * sizeof *types);
    for (int i = 0; i < p; i++)
        counts[i] = 2, displs[i] = 2 * i, types[i] = MPI_INT;
    int *bytes = xmalloc((size_t)p * sizeof(int));
    for (int i = 0; i < p; i++)
        bytes[i] = 2 * i * (int)sizeof(int);
    /* s: this rank's ints to each rank; r: what each rank sends here. */
    for (int i = 0; i < 2 * p; i++)
        s[i] = mv(me, i / 2, i % 2);
    bool gathered = false, scattered = false, exchanged = false, summed = false;
    int from = 0, to = p, nsum = 2, at = 0; /* summed: ranks from..to-1, nsum ints at s[at] */
    if (!strcmp(coll, "bcast")) {
        if (me != 0)
            for (int i = 0; i < 2; i++)
                s[i] = -1;
        rc = MPI_Bcast(s, 2, MPI_INT, 0, c);
        for (int j = 0; j < 2 && rc == MPI_SUCCESS; j++)
            CHECK(s[j] == mv(0, 0, j), "bcast after %s: [%d]=%d", after, j, s[j]);
    } else if (!strcmp(coll, "barrier")) {
        rc = MPI_Barrier(c);
    } else if (!strcmp(coll, "reduce")) {
        rc = MPI_Reduce(s, r, 2, MPI_INT, MPI_SUM, 0, c);
        summed = me == 0;
    } else if (!strcmp(coll, "allreduce")) {
        rc = MPI_Allreduce(s, r, 2, MPI_INT, MPI_SUM, c);
        summed = true;
    } else if (!strcmp(coll, "scan")) {
        rc = MPI_Scan(s, r, 2, MPI_INT, MPI_SUM, c);
        summed = true, to = me + 1;
    } else if (!strcmp(coll, "exscan")) {
        rc = MPI_Exscan(s, r, 2, MPI_INT, MPI_SUM, c);
        summed = me > 0, to = me;
    } else if (!strcmp(coll, "reduce_scatter")) {
        rc = MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, c);
        summed = true, at = 2 * me;
    } else if (!strcmp(coll, "reduce_scatter_block")) {
        rc = MPI_Reduce_scatter_block(s, r, 2, MPI_INT, MPI_SUM, c);
        summed = true, at = 2 * me;
    } else if (!strcmp(coll, "gather")) {
        rc = MPI_Gather(s + 2 * me, 2, MPI_INT, r, 2, MPI_INT, 0, c);
        gathered = me == 0;
    } else if (!strcmp(coll, "gatherv")) {
        rc = MPI_Gatherv(s + 2 * me, 2, MPI_INT, r, counts, displs, MPI_INT, 0, c);
        gathered = me == 0;
    } else if (!strcmp(coll, "scatter") || !strcmp(coll, "scatterv")) {
        for (int i = 0; i < 2 * p; i++)
            s[i] = mv(0, i / 2, i % 2);
        rc = coll[7] ? MPI_Scatterv(s, counts, displs, MPI_INT, r, 2, MPI_INT, 0, c)
                     : MPI_Scatter(s, 2, MPI_INT, r, 2, MPI_INT, 0, c);
        scattered = true;
    } else if (!strcmp(coll, "allgather")) {
        rc = MPI_Allgather(s + 2 * me, 2, MPI_INT, r, 2, MPI_INT, c);
        gathered = true;
    } else if (!strcmp(coll, "allgatherv")) {
        rc = MPI_Allgatherv(s + 2 * me, 2, MPI_INT, r, counts, displs, MPI_INT, c);
        gathered = true;
    } else if (!strcmp(coll, "alltoall")) {
        rc = MPI_Alltoall(s, 2, MPI_INT, r, 2, MPI_INT, c);
        exchanged = true;
    } else if (!strcmp(coll, "alltoallv")) {
        rc = MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, c);
        exchanged = true;
    } else if (!strcmp(coll, "alltoallw")) {
        rc = MPI_Alltoallw(s, counts, bytes, types, r, counts, bytes, types, c);
        exchanged = true;
    }
    OK(rc, "a correct %s after %s", coll, after);
    for (int i = 0; gathered && rc == MPI_SUCCESS && i < 2 * p; i++)
        CHECK(r[i] == mv(i / 2, i / 2, i % 2), "%s after %s: [%d]=%d", coll, after, i, r[i]);
    for (int j = 0; scattered && rc == MPI_SUCCESS && j < 2; j++)
        CHECK(r[j] == mv(0, me, j), "%s after %s: [%d]=%d", coll, after, j, r[j]);
    for (int i = 0; exchanged && rc == MPI_SUCCESS && i < 2 * p; i++)
        CHECK(r[i] == mv(i / 2, me, i % 2), "%s after %s: [%d]=%d", coll, after, i, r[i]);
    for (int j = 0; summed && rc == MPI_SUCCESS && j < nsum; j++) {
        int expect = 0;
        for (int k = from; k < to; k++)
            expect += mv(k, (at + j) / 2, (at + j) % 2);
        CHECK(r[j] == expect, "%s after %s: [%d]=%d, expected %d", coll, after, j, r[j], expect);
    }
    free(s), free(r), free(counts), free(displs), free(types), free(bytes);
}

/* ---- errors ------------------------------------------------------------------ */

/* What an error handler saw: calls, the last class, on MPI_COMM_WORLD. */
static struct {
    int calls, cls, world;
} seen;

static void record(MPI_Comm *comm, int *code, ...)
{
    seen.calls++;
    MPI_Error_class(*code, &seen.cls);
    seen.world = *comm == MPI_COMM_WORLD;
}

static MPI_Datatype T_CONTIG, T_STRUCT, T_VECTOR, T_UNCOMMITTED;
static int sb[4096], rb[4096];

/* SYMMETRIC: every rank passes the wrong argument and can see it.
 * RANK_SPECIFIC: only the root, or only the other ranks, can.
 * MISMATCHED: counts that disagree between ranks, seen only where a
 * message arrives longer than its receive block. */
enum { SYMMETRIC, RANK_SPECIFIC, MISMATCHED };
/* Buffers: sb, rb, or these. */
enum { B_SEND, B_RECV, B_NULL, B_IN_PLACE };
/* Datatypes and operations by name (some are made at run time). REMADE:
 * a committed type the library accepts, freed, then one made again
 * (likely the same handle) and left uncommitted. */
enum {
    D_INT,
    D_2INT,
    D_DOUBLE,
    D_FLOAT,
    D_COMPLEX,
    D_CONTIG,
    D_STRUCT,
    D_VECTOR,
    D_ZERO,
    D_UNCOMMITTED,
    D_NULL,
    D_REMADE
};
enum { O_MOVE, O_SUM, O_BAND, O_MINLOC, O_LAND, O_MAX, O_USER, O_NULL };

typedef struct {
    const char *coll, *what;
    int scope;
    int type, op;         /* O_MOVE: a data mover, type on both sides */
    int count, rcount[2]; /* the send count (a reduction's count); receive
                             counts elsewhere and [1] at the root, rank 0 */
    int send[2], recv[2]; /* buffers, elsewhere and [1] at the root */
    int bad_root;         /* the root out of range */
} err_case;

static MPI_Datatype datatype(int d)
{
    const MPI_Datatype all[] = {
        MPI_INT,  MPI_2INT, MPI_DOUBLE, MPI_FLOAT,     MPI_C_DOUBLE_COMPLEX, T_CONTIG,
        T_STRUCT, T_VECTOR, T_ZERO,     T_UNCOMMITTED, MPI_DATATYPE_NULL};
    return all[d];
}

static MPI_Op operation(int o)
{
    const MPI_Op all[] = {MPI_OP_NULL, MPI_SUM, MPI_BAND, MPI_MINLOC,
                          MPI_LAND,    MPI_MAX, OP_USUM,  MPI_OP_NULL};
    return all[o];
}

static void *buffer(int b)
{
    void *all[] = {sb, rb, NULL, MPI_IN_PLACE};
    return all[b];
}

/* Make e's call on this rank, through the MPI library alone or not. */
static int call_with(const err_case *e, MPI_Datatype t, int me, MPI_Comm c, int nat)
{
    int root = me == 0, at = e->bad_root ? size_of(c) : 0;
    void *s = buffer(e->send[root]), *r = buffer(e->recv[root]);
    if (e->op != O_MOVE)
        return reduction(e->coll, s, r, e->count, t, operation(e->op), c, nat);
    return mover(e->coll, s, e->count, t, r, e->rcount[root], t, at, c, nat);
}

static int err_call(const err_case *e, int me, MPI_Comm c, int nat)
{
    for (int i = 0; i < 64; i++)
        sb[i] = i; /* aliased calls may run: small values */
    if (e->type != D_REMADE)
        return call_with(e, datatype(e->type), me, c, nat);
    MPI_Datatype t;
    for (int pass = 0; pass < 2; pass++) {
        MPI_Type_contiguous(2, MPI_INT, &t);
        if (pass == 0)
            MPI_Type_commit(&t);
        int rc = call_with(e, t, me, c, nat);
        MPI_Type_free(&t);
        if (rc != MPI_SUCCESS || pass == 1)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Rows of the table. */
#define ROW(coll, what, scope, type, op, n, rc, rc_root, s, s_root, r, r_root, bad)                \
    {                                                                                              \
        coll, what, scope, type, op, n, {rc, rc_root}, {s, s_root}, {r, r_root}, bad               \
    }
#define PAIR(coll, what, type, op, n)                                                              \
    ROW(coll, what, SYMMETRIC, type, op, n, n, n, B_SEND, B_SEND, B_RECV, B_RECV, 0)
#define UNROOTED(what, type, op, n)                                                                \
    PAIR("allreduce", what, type, op, n), PAIR("scan", what, type, op, n),                         \
        PAIR("exscan", what, type, op, n), PAIR("reduce_scatter", what, type, op, n),              \
        PAIR("reduce_scatter_block", what, type, op, n)
#define REDUCTIONS(what, type, op, n) PAIR("reduce", what, type, op, n), UNROOTED(what, type, op, n)
#define BUFFERS(coll, what, scope, op, n, s, s_root, r, r_root)                                    \
    ROW(coll, what, scope, D_INT, op, n, n, n, s, s_root, r, r_root, 0)
#define UNROOTED_BUFFERS(what, n, s, r)                                                            \
    BUFFERS("allreduce", what, SYMMETRIC, O_SUM, n, s, s, r, r),                                   \
        BUFFERS("scan", what, SYMMETRIC, O_SUM, n, s, s, r, r),                                    \
        BUFFERS("exscan", what, SYMMETRIC, O_SUM, n, s, s, r, r),                                  \
        BUFFERS("reduce_scatter", what, SYMMETRIC, O_SUM, n, s, s, r, r),                          \
        BUFFERS("reduce_scatter_block", what, SYMMETRIC, O_SUM, n, s, s, r, r)
#define MOVE(coll, what, type, n, rc)                                                              \
    ROW(coll, what, SYMMETRIC, type, O_MOVE, n, rc, rc, B_SEND, B_SEND, B_RECV, B_RECV, 0)
#define MOVERS(what, type, n)                                                                      \
    MOVE("bcast", what, type, n, n), MOVE("gather", what, type, n, n),                             \
        MOVE("gatherv", what, type, n, n), MOVE("scatter", what, type, n, n),                      \
        MOVE("allgather", what, type, n, n), MOVE("allgatherv", what, type, n, n),                 \
        MOVE("alltoall", what, type, n, n), MOVE("alltoallv", what, type, n, n),                   \
        MOVE("alltoallw", what, type, n, n)
#define IN_PLACE_MOVE(coll, what, s)                                                               \
    BUFFERS(coll, what, SYMMETRIC, O_MOVE, 1, s, s, B_IN_PLACE, B_IN_PLACE)
#define BAD_ROOT(coll, op)                                                                         \
    ROW(coll, "a root out of range", SYMMETRIC, D_INT, op, 1, 1, 1, B_SEND, B_SEND, B_RECV,        \
        B_RECV, 1)

/* Only cases where the MPI library alone lets no rank hang (Open MPI
 * 4.1.4: scatterv with an uncommitted type, allgatherv with mismatched
 * own blocks, MPI_IN_PLACE as exscan's receive buffer and MPI_IN_PLACE
 * off the root of gather or reduce hang or crash there). */
static const err_case errors[] = {
    REDUCTIONS("MPI_SUM on MPI_2INT", D_2INT, O_SUM, 1),
    REDUCTIONS("MPI_BAND on MPI_DOUBLE", D_DOUBLE, O_BAND, 1),
    REDUCTIONS("MPI_MINLOC on MPI_INT", D_INT, O_MINLOC, 2),
    REDUCTIONS("MPI_LAND on MPI_FLOAT", D_FLOAT, O_LAND, 1),
    REDUCTIONS("MPI_MAX on MPI_C_DOUBLE_COMPLEX", D_COMPLEX, O_MAX, 1),
    REDUCTIONS("MPI_SUM on a contiguous type", D_CONTIG, O_SUM, 1),
    REDUCTIONS("MPI_SUM on a struct type", D_STRUCT, O_SUM, 1),
    REDUCTIONS("MPI_SUM on a vector type", D_VECTOR, O_SUM, 1),
    REDUCTIONS("MPI_SUM on a zero-size type", D_ZERO, O_SUM, 3),
    REDUCTIONS("a user operation on an uncommitted type", D_UNCOMMITTED, O_USER, 1),
    REDUCTIONS("MPI_SUM on an uncommitted type", D_UNCOMMITTED, O_SUM, 1),
    REDUCTIONS("MPI_SUM on MPI_2INT, count 0", D_2INT, O_SUM, 0),
    REDUCTIONS("MPI_SUM on MPI_2INT again (cached)", D_2INT, O_SUM, 1),
    REDUCTIONS("a negative count", D_INT, O_SUM, -1),
    REDUCTIONS("MPI_DATATYPE_NULL", D_NULL, O_SUM, 1),
    REDUCTIONS("MPI_OP_NULL", D_INT, O_NULL, 1),
    REDUCTIONS("a freed handle made again, uncommitted", D_REMADE, O_USER, 1),
    /* Aliasing: reduce's below, where only the root's buffers count. */
    UNROOTED_BUFFERS("send and receive buffer the same, count 2", 2, B_SEND, B_SEND),
    UNROOTED_BUFFERS("send and receive buffer the same, count 1", 1, B_SEND, B_SEND),
    BUFFERS("allreduce", "MPI_IN_PLACE as the receive buffer", SYMMETRIC, O_SUM, 1, B_SEND, B_SEND,
            B_IN_PLACE, B_IN_PLACE),
    BUFFERS("scan", "MPI_IN_PLACE as the receive buffer", SYMMETRIC, O_SUM, 1, B_SEND, B_SEND,
            B_IN_PLACE, B_IN_PLACE),
    BUFFERS("reduce_scatter", "MPI_IN_PLACE as the receive buffer", SYMMETRIC, O_SUM, 1, B_SEND,
            B_SEND, B_IN_PLACE, B_IN_PLACE),
    BUFFERS("reduce_scatter_block", "MPI_IN_PLACE as the receive buffer", SYMMETRIC, O_SUM, 1,
            B_SEND, B_SEND, B_IN_PLACE, B_IN_PLACE),
    BUFFERS("reduce", "MPI_IN_PLACE as the root's receive buffer", RANK_SPECIFIC, O_SUM, 1, B_SEND,
            B_SEND, B_RECV, B_IN_PLACE),
    BUFFERS("reduce", "the root's send and receive buffer the same", RANK_SPECIFIC, O_SUM, 2,
            B_SEND, B_SEND, B_RECV, B_SEND),
    BUFFERS("reduce", "NULL as both buffers, count 0", RANK_SPECIFIC, O_SUM, 0, B_NULL, B_NULL,
            B_NULL, B_NULL),
    BAD_ROOT("reduce", O_SUM),
    MOVERS("an uncommitted type", D_UNCOMMITTED, 1),
    MOVERS("an uncommitted type, count 0", D_UNCOMMITTED, 0),
    MOVERS("a negative count", D_INT, -1),
    MOVERS("MPI_DATATYPE_NULL", D_NULL, 1),
    MOVERS("a freed handle made again, uncommitted", D_REMADE, 1),
    MOVE("scatterv", "a negative count", D_INT, -1, -1),
    MOVE("scatterv", "MPI_DATATYPE_NULL", D_NULL, 1, 1),
    IN_PLACE_MOVE("bcast", "MPI_IN_PLACE as the buffer", B_IN_PLACE),
    IN_PLACE_MOVE("allgather", "MPI_IN_PLACE as the receive buffer", B_SEND),
    IN_PLACE_MOVE("allgatherv", "MPI_IN_PLACE as the receive buffer", B_SEND),
    IN_PLACE_MOVE("alltoall", "MPI_IN_PLACE as the receive buffer", B_SEND),
    IN_PLACE_MOVE("alltoallv", "MPI_IN_PLACE as the receive buffer", B_SEND),
    IN_PLACE_MOVE("alltoallw", "MPI_IN_PLACE as the receive buffer", B_SEND),
    IN_PLACE_MOVE("allgather", "MPI_IN_PLACE as both buffers", B_IN_PLACE),
    IN_PLACE_MOVE("alltoall", "MPI_IN_PLACE as both buffers", B_IN_PLACE),
    MOVE("allgather", "a send block larger than the receive block", D_INT, 2, 1),
    MOVE("alltoall", "a send block larger than the receive block", D_INT, 2, 1),
    MOVE("alltoallv", "a send block larger than the receive block", D_INT, 2, 1),
    MOVE("alltoallw", "a send block larger than the receive block", D_INT, 2, 1),
    MOVE("allgather", "a send block smaller than the receive block", D_INT, 1, 2),
    MOVE("alltoall", "a send block smaller than the receive block", D_INT, 1, 2),
    MOVE("alltoallv", "a send block smaller than the receive block", D_INT, 1, 2),
    MOVE("alltoallw", "a send block smaller than the receive block", D_INT, 1, 2),
    MOVE("alltoall", "a receive block of 0", D_INT, 2, 0),
    BAD_ROOT("bcast", O_MOVE),
    BAD_ROOT("gather", O_MOVE),
    BAD_ROOT("gatherv", O_MOVE),
    BAD_ROOT("scatter", O_MOVE),
    BAD_ROOT("scatterv", O_MOVE),
    BUFFERS("gather", "MPI_IN_PLACE as the root's receive buffer", RANK_SPECIFIC, O_MOVE, 1, B_SEND,
            B_SEND, B_RECV, B_IN_PLACE),
    BUFFERS("gatherv", "MPI_IN_PLACE as the root's receive buffer", RANK_SPECIFIC, O_MOVE, 1,
            B_SEND, B_SEND, B_RECV, B_IN_PLACE),
    BUFFERS("scatter", "MPI_IN_PLACE as the others' receive buffer", RANK_SPECIFIC, O_MOVE, 1,
            B_SEND, B_SEND, B_IN_PLACE, B_RECV),
    ROW("gatherv", "blocks longer than the root's receive blocks", MISMATCHED, D_INT, O_MOVE, 2, 2,
        1, B_SEND, B_SEND, B_RECV, B_RECV, 0),
    ROW("scatterv", "blocks longer than the others' receive blocks", MISMATCHED, D_INT, O_MOVE, 2,
        1, 2, B_SEND, B_SEND, B_RECV, B_RECV, 0),
};
#define NERRORS (int)(sizeof errors / sizeof *errors)

static void make_error_types(void)
{
    MPI_Type_contiguous(2, MPI_INT, &T_CONTIG);
    MPI_Type_commit(&T_CONTIG);
    int len[2] = {1, 1};
    MPI_Aint d[2] = {0, (MPI_Aint)sizeof(double)};
    MPI_Datatype t[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, len, d, t, &T_STRUCT);
    MPI_Type_commit(&T_STRUCT);
    MPI_Type_vector(2, 1, 2, MPI_INT, &T_VECTOR);
    MPI_Type_commit(&T_VECTOR);
    MPI_Type_contiguous(2, MPI_INT, &T_UNCOMMITTED);
}

static void free_error_types(void)
{
    MPI_Type_free(&T_CONTIG);
    MPI_Type_free(&T_STRUCT);
    MPI_Type_free(&T_VECTOR);
    MPI_Type_free(&T_UNCOMMITTED);
}

/* Run e on fresh duplicates of base: the MPI library alone, then as the
 * program would; compare, then check a correct call goes through. */
static void run_error(const err_case *e, MPI_Comm base, const char *where)
{
    MPI_Comm nat_c, trl_c;
    MPI_Comm_dup(base, &nat_c);
    MPI_Comm_dup(base, &trl_c);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(nat_c, eh);
    MPI_Comm_set_errhandler(trl_c, eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Barrier(trl_c); /* whatever a library sets up on first use, before the error */
    int me = rank_of(base), cls[2], rcs[2], calls[2], world[2];
    for (int nat = 1; nat >= 0; nat--) {
        seen.calls = seen.world = 0;
        seen.cls = -1;
        rcs[nat] = err_call(e, me, nat ? nat_c : trl_c, nat);
        MPI_Error_class(rcs[nat], &cls[nat]);
        calls[nat] = seen.calls;
        world[nat] = seen.world;
        CHECK(seen.calls == 0 || seen.cls == cls[nat],
              "%s %s %s: handler saw class %d, returned %d", where, e->coll, e->what, seen.cls,
              cls[nat]);
    }
    CHECK(cls[0] == cls[1] && calls[0] == calls[1] && world[0] == world[1],
          "%s %s %s (rank %d): error class %d through %d handler call(s)%s, the MPI library alone "
          "gives %d through %d%s",
          where, e->coll, e->what, me, cls[0], calls[0], world[0] ? " (MPI_COMM_WORLD's)" : "",
          cls[1], calls[1], world[1] ? " (MPI_COMM_WORLD's)" : "");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(trl_c, MPI_ERRORS_RETURN);
    /* Rank-specific errors leave the other ranks' messages behind (with
     * the MPI library too): the next call goes to another communicator,
     * and these two are never freed. Open MPI reuses a freed
     * communicator's context id, and a message left over on it can then
     * take the place of a new communicator's first message (seen as a
     * hang in the next communicator's creation). */
    check_ok(e->coll, e->scope == SYMMETRIC ? trl_c : base, e->what);
    MPI_Errhandler_free(&eh);
    if (e->scope != SYMMETRIC)
        return; /* kept: see above */
    MPI_Comm_free(&nat_c);
    MPI_Comm_free(&trl_c);
}

/* ---- driver ------------------------------------------------------------------ */

static const char *const colls[] = {
    "bcast",    "reduce",    "allreduce", "barrier",        "gather",
    "gatherv",  "scatter",   "scatterv",  "allgather",      "allgatherv",
    "alltoall", "alltoallv", "alltoallw", "reduce_scatter", "reduce_scatter_block",
    "scan",     "exscan"};
typedef void (*corner_fn)(MPI_Comm, const char *);
static const corner_fn corners[] = {corner_bcast,
                                    corner_reduce,
                                    corner_allreduce,
                                    corner_barrier,
                                    corner_gather,
                                    NULL,
                                    corner_scatter,
                                    NULL,
                                    corner_allgather,
                                    NULL,
                                    corner_alltoall,
                                    NULL,
                                    NULL,
                                    corner_reduce_scatter,
                                    corner_reduce_scatter_block,
                                    corner_scan,
                                    corner_exscan};
/* gatherv, scatterv, allgatherv, alltoallv, alltoallw: their corners run
 * with gather, scatter, allgather and alltoall's. */
static const char *const corner_owner[] = {
    NULL,        NULL, NULL,       NULL,       NULL, "gather", NULL, "scatter", NULL,
    "allgather", NULL, "alltoall", "alltoall", NULL, NULL,     NULL, NULL};
#define NCOLLS (int)(sizeof colls / sizeof *colls)

static bool corner_wanted(int k)
{
    if (want(colls[k]))
        return true;
    for (int j = 0; j < NCOLLS; j++) /* a v-variant asked for: its owner's corners */
        if (corner_owner[j] && !strcmp(corner_owner[j], colls[k]) && want(colls[j]))
            return true;
    return false;
}

static void check_all(MPI_Comm comm, const char *where)
{
    for (int k = 0; k < NCOLLS; k++)
        if (corners[k] && corner_wanted(k))
            corners[k](comm, where);
    /* Erroneous calls end the job under TRELLIS_CHECK, by design
     * (docs/check.md): the error table is for runs without it. */
    const char *check = getenv("TRELLIS_CHECK");
    if (check && *check && strcmp(check, "0") != 0 && strcasecmp(check, "off") != 0 &&
        strcasecmp(check, "no") != 0 && strcasecmp(check, "false") != 0)
        return;
    for (int i = 0; i < NERRORS; i++)
        if (want(errors[i].coll) && errors[i].scope < error_scopes)
            run_error(&errors[i], comm, where);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int n = 1;
    for (int a = 1; a < argc; a++) { /* ours; the rest go to parse_args */
        if (strcmp(argv[a], "--errors") == 0 && a + 1 < argc) {
            const char *e = argv[++a];
            error_scopes = !strcmp(e, "none")        ? 0
                           : !strcmp(e, "symmetric") ? 1
                           : !strcmp(e, "ranks")     ? 2
                                                     : 3;
        } else {
            argv[n++] = argv[a];
        }
    }
    if (parse_args(n, argv, colls, NCOLLS)) {
        MPI_Finalize();
        return 2;
    }
    MPI_Type_contiguous(0, MPI_INT, &T_ZERO);
    MPI_Type_commit(&T_ZERO);
    MPI_Op_create(usum, 1, &OP_USUM);
    make_error_types();
    run_everywhere(check_all);
    free_error_types();
    MPI_Op_free(&OP_USUM);
    MPI_Type_free(&T_ZERO);
    int rc = summary("coll_check_corner");
    MPI_Finalize();
    return rc;
}
