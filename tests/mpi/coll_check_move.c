/* A plain MPI program that checks the data-movement collectives MPI_Gather,
 * MPI_Gatherv, MPI_Scatter, MPI_Scatterv, MPI_Allgather, MPI_Allgatherv,
 * MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw against values it computes
 * itself (plain loops over a known fill pattern, never another collective).
 * It knows nothing of Trellis: the test suite runs it with each algorithm
 * forced, and without Trellis as a control.
 *
 * Covered: counts 0, 1, 7, 1000, 100003 (in units of 1, 2 or 6 ints: a
 * whole number of elements of each datatype in the call);
 * every root; MPI_IN_PLACE wherever MPI allows it; v-variants with
 * irregular counts (zeros, and for 3+ ranks a rank with zero count
 * everywhere) at non-monotone displacements with gaps that must stay
 * untouched; a strided non-contiguous datatype (gaps untouched) on the send
 * side, the receive side, or both; send and receive type signatures that
 * differ but match in ints (n*2 MPI_INT against n pairs of ints, and per
 * rank different datatypes); alltoallw with per-peer datatypes; send
 * buffers must stay untouched; arguments MPI calls insignificant (the
 * non-root's receive side of a gather, say) are passed as NULL / 0 /
 * MPI_DATATYPE_NULL; and a sub-communicator with reversed ranks and one of
 * odd size in rotated order run a representative subset.
 *
 *   coll_check_move [--quick] [--only <collective>]
 */
#include "coll_check_common.h"

/* ---- layouts: a datatype and where its ints lie -------------------------- */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int ext;    /* extent in ints */
    int nsig;   /* ints of data per element (its type signature) */
    int off[6]; /* where, within the extent, in signature order */
} layout;

static layout L_INT = {"int", 0, 1, 1, {0}};
static layout L_PAIR = {"pair", 0, 2, 2, {0, 1}};                   /* contiguous 2 ints */
static layout L_STRIDED = {"strided", 0, 9, 6, {0, 1, 3, 4, 6, 7}}; /* 3 x (2 ints, gap) */

static void make_layouts(void)
{
    L_INT.type = MPI_INT;
    MPI_Type_contiguous(2, MPI_INT, &L_PAIR.type);
    MPI_Type_commit(&L_PAIR.type);
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 3, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(9 * sizeof(int)), &L_STRIDED.type);
    MPI_Type_commit(&L_STRIDED.type);
    MPI_Type_free(&vec);
}

static void free_layouts(void)
{
    MPI_Type_free(&L_PAIR.type);
    MPI_Type_free(&L_STRIDED.type);
}

/* The j-th int of the data rank src sends to rank dst: never negative, so
 * never the -1 every buffer starts as. */
static int val(int src, int dst, size_t j)
{
    uint32_t h = (uint32_t)(src + 1) * 2654435761u ^ (uint32_t)(dst + 7) * 40503u;
    return (int)((h + (uint32_t)j * 2246822519u) & 0x7fffffffu);
}

/* count elements of L at base: ints 0.. of the data src sends dst. */
static void lay_fill(const layout *L, int *base, size_t count, int src, int dst)
{
    for (size_t e = 0; e < count; e++)
        for (int k = 0; k < L->nsig; k++)
            base[e * (size_t)L->ext + (size_t)L->off[k]] = val(src, dst,
                                                               e * (size_t)L->nsig + (size_t)k);
}

/* A buffer under test and what it must hold afterwards, both starting as
 * all -1 (the gaps and the end keep that). */
typedef struct {
    int *b, *e;
    size_t n;
} tbuf;

static tbuf tb_new(size_t n)
{
    tbuf t = {xmalloc(n * sizeof(int)), xmalloc(n * sizeof(int)), n};
    memset(t.b, 0xff, n * sizeof(int));
    memset(t.e, 0xff, n * sizeof(int));
    return t;
}

/* The same data in the buffer and in its expected contents: a send buffer. */
static void tb_both(tbuf *t, const layout *L, size_t at, size_t count, int src, int dst)
{
    lay_fill(L, t->b + at, count, src, dst);
    lay_fill(L, t->e + at, count, src, dst);
}

static void tb_check(tbuf *t, const char *desc, const char *which)
{
    size_t bad = 0;
    while (bad < t->n && t->b[bad] == t->e[bad])
        bad++;
    CHECK(bad == t->n, "%s: %s int %zu of %zu is %d, expected %d", desc, which, bad, t->n,
          bad < t->n ? t->b[bad] : 0, bad < t->n ? t->e[bad] : 0);
}

static void tb_free(tbuf *t)
{
    free(t->b);
    free(t->e);
}

/* ---- type combinations: by rank parity, the send and receive layouts ----- */

typedef struct {
    const char *name;
    const layout *send[2], *recv[2]; /* [rank % 2] */
    int max_n;                       /* largest count run */
    int in_sub;                      /* also on the sub-communicators */
} combo;

static const combo combos[] = {
    {"int", {&L_INT, &L_INT}, {&L_INT, &L_INT}, 1 << 30, 1},
    /* the same ints, sent as n*2 MPI_INT and received as n pairs */
    {"int->pair", {&L_INT, &L_INT}, {&L_PAIR, &L_PAIR}, 1 << 30, 0},
    /* even ranks send and receive strided, odd ranks plain ints: one
     * message, two descriptions. (Per rank, send and receive keep the same
     * ratio of ints per element: Open MPI 4.1's allgatherv picks its
     * algorithm from the send type's size times the receive counts, and
     * ranks that disagree hang.) */
    {"mixed-strided", {&L_STRIDED, &L_INT}, {&L_STRIDED, &L_INT}, 1000, 1},
};
#define NCOMBOS (int)(sizeof combos / sizeof *combos)

/* Ints per unit of count: every layout of the combination holds a whole
 * number of elements of it. */
static int unit_of(const combo *c)
{
    int u = 1;
    for (int k = 0; k < 4; k++) {
        int s = k < 2 ? c->send[k]->nsig : c->recv[k - 2]->nsig;
        int a = u, b = s;
        while (b) {
            int t = a % b;
            a = b;
            b = t;
        }
        u = u / a * s;
    }
    return u;
}

/* Elements of L in `units` units of u ints. */
static size_t elems(const layout *L, int units, int u)
{
    return (size_t)units * (size_t)u / (size_t)L->nsig;
}

typedef void (*combo_case)(MPI_Comm comm, const char *where, const combo *c, int n, int u);

/* Runs one collective's case for every combination and count on now. */
static void run_combos(MPI_Comm comm, const char *where, combo_case run)
{
    for (int ci = 0; ci < NCOMBOS; ci++)
        for (int k = 0; k < NCOUNTS; k++)
            if ((!sub || combos[ci].in_sub) && count_on(all_counts[k], combos[ci].max_n))
                run(comm, where, &combos[ci], all_counts[k], unit_of(&combos[ci]));
}

/* ---- gather and scatter ----------------------------------------------------- */

static void gather_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    for (int root = 0; root < p; root++)
        for (int inpl = 0; inpl < 2; inpl++) {
            int me = rank == root;
            const layout *ls = c->send[rank % 2], *lr = c->recv[root % 2];
            size_t sc = elems(ls, n, u), rc = elems(lr, n, u), bl = rc * (size_t)lr->ext;
            tbuf s = tb_new(sc * (size_t)ls->ext + 1), r = tb_new(me ? (size_t)p * bl + 1 : 0);
            tb_both(&s, ls, 0, sc, rank, root);
            if (me) {
                for (int i = 0; i < p; i++)
                    lay_fill(lr, r.e + (size_t)i * bl, rc, i, root);
                if (inpl)
                    lay_fill(lr, r.b + (size_t)root * bl, rc, root, root);
            }
            /* The receive side is insignificant at the other ranks. */
            MPI_Gather(me && inpl ? MPI_IN_PLACE : s.b, (int)sc, ls->type, me ? r.b : NULL,
                       me ? (int)rc : 0, me ? lr->type : MPI_DATATYPE_NULL, root, comm);
            snprintf(desc, sizeof desc, "%s gather %s n=%d root=%d%s", where, c->name, n, root,
                     me && inpl ? " in-place" : "");
            if (me)
                tb_check(&r, desc, "recvbuf");
            tb_check(&s, desc, "sendbuf (must stay untouched)");
            tb_free(&s);
            tb_free(&r);
        }
}

static void scatter_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    for (int root = 0; root < p; root++)
        for (int inpl = 0; inpl < 2; inpl++) {
            int me = rank == root;
            const layout *ls = c->send[root % 2], *lr = c->recv[rank % 2];
            size_t sc = elems(ls, n, u), rc = elems(lr, n, u), bl = sc * (size_t)ls->ext;
            tbuf s = tb_new(me ? (size_t)p * bl + 1 : 0), r = tb_new(rc * (size_t)lr->ext + 1);
            if (me)
                for (int i = 0; i < p; i++)
                    tb_both(&s, ls, (size_t)i * bl, sc, root, i);
            lay_fill(lr, r.e, rc, root, rank);
            /* The send side is insignificant at the other ranks. */
            MPI_Scatter(me ? s.b : NULL, me ? (int)sc : 0, me ? ls->type : MPI_DATATYPE_NULL,
                        me && inpl ? MPI_IN_PLACE : r.b, (int)rc, lr->type, root, comm);
            snprintf(desc, sizeof desc, "%s scatter %s n=%d root=%d%s", where, c->name, n, root,
                     me && inpl ? " in-place" : "");
            if (!(me && inpl))
                tb_check(&r, desc, "recvbuf");
            if (me)
                tb_check(&s, desc, "sendbuf (must stay untouched)");
            tb_free(&s);
            tb_free(&r);
        }
}

/* Per-rank counts and displacements of a v-variant. */
typedef struct {
    int *counts, *displs;
    size_t *len, *off;
} vspec;

static vspec vs_new(int p)
{
    vspec v = {xmalloc(sizeof(int) * (size_t)p), xmalloc(sizeof(int) * (size_t)p),
               xmalloc(sizeof(size_t) * (size_t)p), xmalloc(sizeof(size_t) * (size_t)p)};
    return v;
}

/* len[] set: place the blocks (units of the datatype's extent) and fill
 * counts and displs; returns the extents the buffer needs. */
static size_t vs_place(vspec *v, int p, int salt)
{
    size_t total = place_blocks(p, v->len, salt, v->off);
    for (int i = 0; i < p; i++)
        v->counts[i] = (int)v->len[i], v->displs[i] = (int)v->off[i];
    return total;
}

static void vs_free(vspec *v)
{
    free(v->counts), free(v->displs), free(v->len), free(v->off);
}

static void gatherv_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    vspec v = vs_new(p);
    for (int root = 0; root < p; root++)
        for (int inpl = 0; inpl < 2; inpl++) {
            int me = rank == root;
            const layout *ls = c->send[rank % 2], *lr = c->recv[root % 2];
            size_t sc = elems(ls, vcount(rank, p, n, root), u), total = 0;
            if (me) {
                for (int i = 0; i < p; i++)
                    v.len[i] = elems(lr, vcount(i, p, n, root), u);
                total = vs_place(&v, p, root);
            }
            tbuf s = tb_new(sc * (size_t)ls->ext + 1), r = tb_new(total * (size_t)lr->ext);
            tb_both(&s, ls, 0, sc, rank, root);
            if (me) {
                for (int i = 0; i < p; i++)
                    lay_fill(lr, r.e + v.off[i] * (size_t)lr->ext, v.len[i], i, root);
                if (inpl)
                    lay_fill(lr, r.b + v.off[root] * (size_t)lr->ext, v.len[root], root, root);
            }
            MPI_Gatherv(me && inpl ? MPI_IN_PLACE : s.b, (int)sc, ls->type, me ? r.b : NULL,
                        me ? v.counts : NULL, me ? v.displs : NULL,
                        me ? lr->type : MPI_DATATYPE_NULL, root, comm);
            snprintf(desc, sizeof desc, "%s gatherv %s n=%d root=%d%s", where, c->name, n, root,
                     me && inpl ? " in-place" : "");
            if (me)
                tb_check(&r, desc, "recvbuf");
            tb_check(&s, desc, "sendbuf (must stay untouched)");
            tb_free(&s);
            tb_free(&r);
        }
    vs_free(&v);
}

static void scatterv_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    vspec v = vs_new(p);
    for (int root = 0; root < p; root++)
        for (int inpl = 0; inpl < 2; inpl++) {
            int me = rank == root;
            const layout *ls = c->send[root % 2], *lr = c->recv[rank % 2];
            size_t rc = elems(lr, vcount(rank, p, n, root + 1), u), total = 0;
            if (me) {
                for (int i = 0; i < p; i++)
                    v.len[i] = elems(ls, vcount(i, p, n, root + 1), u);
                total = vs_place(&v, p, root + 1);
            }
            tbuf s = tb_new(total * (size_t)ls->ext), r = tb_new(rc * (size_t)lr->ext + 1);
            if (me)
                for (int i = 0; i < p; i++)
                    tb_both(&s, ls, v.off[i] * (size_t)ls->ext, v.len[i], root, i);
            lay_fill(lr, r.e, rc, root, rank);
            MPI_Scatterv(me ? s.b : NULL, me ? v.counts : NULL, me ? v.displs : NULL,
                         me ? ls->type : MPI_DATATYPE_NULL, me && inpl ? MPI_IN_PLACE : r.b,
                         (int)rc, lr->type, root, comm);
            snprintf(desc, sizeof desc, "%s scatterv %s n=%d root=%d%s", where, c->name, n, root,
                     me && inpl ? " in-place" : "");
            if (!(me && inpl))
                tb_check(&r, desc, "recvbuf");
            if (me)
                tb_check(&s, desc, "sendbuf (must stay untouched)");
            tb_free(&s);
            tb_free(&r);
        }
    vs_free(&v);
}

/* ---- allgather(v) ------------------------------------------------------------ */

#define ALL 99 /* the "destination" of data every rank receives */

static void allgather_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    for (int inpl = 0; inpl < 2; inpl++) {
        const layout *ls = c->send[rank % 2], *lr = c->recv[rank % 2];
        size_t sc = elems(ls, n, u), rc = elems(lr, n, u), bl = rc * (size_t)lr->ext;
        tbuf s = tb_new(sc * (size_t)ls->ext + 1), r = tb_new((size_t)p * bl + 1);
        tb_both(&s, ls, 0, sc, rank, ALL);
        for (int i = 0; i < p; i++)
            lay_fill(lr, r.e + (size_t)i * bl, rc, i, ALL);
        if (inpl)
            lay_fill(lr, r.b + (size_t)rank * bl, rc, rank, ALL);
        MPI_Allgather(inpl ? MPI_IN_PLACE : s.b, inpl ? 0 : (int)sc,
                      inpl ? MPI_DATATYPE_NULL : ls->type, r.b, (int)rc, lr->type, comm);
        snprintf(desc, sizeof desc, "%s allgather %s n=%d%s", where, c->name, n,
                 inpl ? " in-place" : "");
        tb_check(&r, desc, "recvbuf");
        tb_check(&s, desc, "sendbuf (must stay untouched)");
        tb_free(&s);
        tb_free(&r);
    }
}

static void allgatherv_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    vspec v = vs_new(p);
    for (int salt = 0; salt < 2; salt++)
        for (int inpl = 0; inpl < 2; inpl++) {
            const layout *ls = c->send[rank % 2], *lr = c->recv[rank % 2];
            size_t sc = elems(ls, vcount(rank, p, n, salt), u);
            for (int i = 0; i < p; i++)
                v.len[i] = elems(lr, vcount(i, p, n, salt), u);
            size_t total = vs_place(&v, p, rank + salt); /* displacements differ by rank */
            tbuf s = tb_new(sc * (size_t)ls->ext + 1), r = tb_new(total * (size_t)lr->ext);
            tb_both(&s, ls, 0, sc, rank, ALL);
            for (int i = 0; i < p; i++)
                lay_fill(lr, r.e + v.off[i] * (size_t)lr->ext, v.len[i], i, ALL);
            if (inpl)
                lay_fill(lr, r.b + v.off[rank] * (size_t)lr->ext, v.len[rank], rank, ALL);
            MPI_Allgatherv(inpl ? MPI_IN_PLACE : s.b, inpl ? 0 : (int)sc,
                           inpl ? MPI_DATATYPE_NULL : ls->type, r.b, v.counts, v.displs, lr->type,
                           comm);
            snprintf(desc, sizeof desc, "%s allgatherv %s n=%d salt=%d%s", where, c->name, n, salt,
                     inpl ? " in-place" : "");
            tb_check(&r, desc, "recvbuf");
            tb_check(&s, desc, "sendbuf (must stay untouched)");
            tb_free(&s);
            tb_free(&r);
        }
    vs_free(&v);
}

/* ---- alltoall(v,w) ----------------------------------------------------------- */

static void alltoall_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    for (int inpl = 0; inpl < 2; inpl++) {
        const layout *ls = c->send[rank % 2], *lr = c->recv[rank % 2];
        size_t sc = elems(ls, n, u), rc = elems(lr, n, u);
        size_t sbl = sc * (size_t)ls->ext, rbl = rc * (size_t)lr->ext;
        tbuf s = tb_new((size_t)p * sbl + 1), r = tb_new((size_t)p * rbl + 1);
        for (int i = 0; i < p; i++) {
            tb_both(&s, ls, (size_t)i * sbl, sc, rank, i);
            lay_fill(lr, r.e + (size_t)i * rbl, rc, i, rank);
            if (inpl)
                lay_fill(lr, r.b + (size_t)i * rbl, rc, rank, i);
        }
        MPI_Alltoall(inpl ? MPI_IN_PLACE : s.b, inpl ? 0 : (int)sc,
                     inpl ? MPI_DATATYPE_NULL : ls->type, r.b, (int)rc, lr->type, comm);
        snprintf(desc, sizeof desc, "%s alltoall %s n=%d%s", where, c->name, n,
                 inpl ? " in-place" : "");
        tb_check(&r, desc, "recvbuf");
        tb_check(&s, desc, "sendbuf (must stay untouched)");
        tb_free(&s);
        tb_free(&r);
    }
}

/* Units rank s sends rank d: irregular, zero for some pairs and, for 3+
 * ranks, everything to and from rank 1. sym: the same both ways (what
 * MPI_IN_PLACE needs). */
static int pair_units(int s, int d, int p, int n, int salt, int sym)
{
    if (sym && s > d) {
        int t = s;
        s = d;
        d = t;
    }
    if ((p >= 3 && (s == 1 || d == 1)) || n == 0)
        return 0;
    switch ((s * 3 + d * 5 + salt) % 5) {
    case 0: return n;
    case 1: return n / 2 + 1;
    case 2: return 0;
    case 3: return 2 * n - 1;
    default: return n + 1;
    }
}

static void alltoallv_case(MPI_Comm comm, const char *where, const combo *c, int n, int u)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    vspec sv = vs_new(p), rv = vs_new(p);
    for (int inpl = 0; inpl < 2; inpl++) {
        const layout *ls = c->send[rank % 2], *lr = c->recv[rank % 2];
        for (int i = 0; i < p; i++) {
            sv.len[i] = elems(ls, pair_units(rank, i, p, n, 0, inpl), u);
            rv.len[i] = elems(lr, pair_units(i, rank, p, n, 0, inpl), u);
        }
        size_t stotal = vs_place(&sv, p, rank), rtotal = vs_place(&rv, p, rank + 1);
        tbuf s = tb_new(stotal * (size_t)ls->ext), r = tb_new(rtotal * (size_t)lr->ext);
        for (int i = 0; i < p; i++) {
            tb_both(&s, ls, sv.off[i] * (size_t)ls->ext, sv.len[i], rank, i);
            lay_fill(lr, r.e + rv.off[i] * (size_t)lr->ext, rv.len[i], i, rank);
            if (inpl)
                lay_fill(lr, r.b + rv.off[i] * (size_t)lr->ext, rv.len[i], rank, i);
        }
        MPI_Alltoallv(inpl ? MPI_IN_PLACE : s.b, inpl ? NULL : sv.counts, inpl ? NULL : sv.displs,
                      inpl ? MPI_DATATYPE_NULL : ls->type, r.b, rv.counts, rv.displs, lr->type,
                      comm);
        snprintf(desc, sizeof desc, "%s alltoallv %s n=%d%s", where, c->name, n,
                 inpl ? " in-place" : "");
        tb_check(&r, desc, "recvbuf");
        tb_check(&s, desc, "sendbuf (must stay untouched)");
        tb_free(&s);
        tb_free(&r);
    }
    vs_free(&sv);
    vs_free(&rv);
}
/* alltoallw: the layout rank s sends rank d with, and the one d receives
 * from s with: different per peer, and different for the two sides of one
 * message. Counts in units of 6 ints, a whole number of each layout. */
static const layout *w_send(int s, int d)
{
    static const layout *const ls[] = {&L_INT, &L_PAIR, &L_STRIDED};
    return ls[(s + 2 * d) % 3];
}

static const layout *w_recv(int s, int d)
{
    static const layout *const ls[] = {&L_STRIDED, &L_INT, &L_PAIR};
    return ls[(2 * s + d + 1) % 3];
}

static void alltoallw_case(MPI_Comm comm, const char *where, int n)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    char desc[256];
    vspec sv = vs_new(p), rv = vs_new(p); /* len, off, displs: in ints, then bytes */
    int *sc = xmalloc(sizeof(int) * (size_t)p), *rc = xmalloc(sizeof(int) * (size_t)p);
    MPI_Datatype *st = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
    MPI_Datatype *rt = xmalloc(sizeof(MPI_Datatype) * (size_t)p);
    for (int inpl = 0; inpl < 2; inpl++) {
        for (int i = 0; i < p; i++) {
            const layout *ls = w_send(rank, i), *lr = w_recv(i, rank);
            sc[i] = (int)elems(ls, pair_units(rank, i, p, n, 1, inpl), 6);
            rc[i] = (int)elems(lr, pair_units(i, rank, p, n, 1, inpl), 6);
            sv.len[i] = (size_t)sc[i] * (size_t)ls->ext;
            rv.len[i] = (size_t)rc[i] * (size_t)lr->ext;
            st[i] = ls->type;
            rt[i] = lr->type;
        }
        tbuf s = tb_new(vs_place(&sv, p, rank)), r = tb_new(vs_place(&rv, p, rank + 1));
        /* Open MPI 4.1's coll/self (one rank) multiplies alltoallw's byte
         * displacements by the extent: there, displacements 0. */
        if (p == 1)
            sv.off[0] = rv.off[0] = 0;
        for (int i = 0; i < p; i++) {
            sv.displs[i] = (int)(sv.off[i] * sizeof(int));
            rv.displs[i] = (int)(rv.off[i] * sizeof(int));
            tb_both(&s, w_send(rank, i), sv.off[i], (size_t)sc[i], rank, i);
            lay_fill(w_recv(i, rank), r.e + rv.off[i], (size_t)rc[i], i, rank);
            if (inpl)
                lay_fill(w_recv(i, rank), r.b + rv.off[i], (size_t)rc[i], rank, i);
        }
        MPI_Alltoallw(inpl ? MPI_IN_PLACE : s.b, inpl ? NULL : sc, inpl ? NULL : sv.displs,
                      inpl ? NULL : st, r.b, rc, rv.displs, rt, comm);
        snprintf(desc, sizeof desc, "%s alltoallw per-peer types n=%d%s", where, n,
                 inpl ? " in-place" : "");
        tb_check(&r, desc, "recvbuf");
        tb_check(&s, desc, "sendbuf (must stay untouched)");
        tb_free(&s);
        tb_free(&r);
    }
    vs_free(&sv);
    vs_free(&rv);
    free(sc), free(rc), free(st), free(rt);
}

/* ---- driver ------------------------------------------------------------------ */

static const char *const colls[] = {"gather",     "gatherv",  "scatter",   "scatterv", "allgather",
                                    "allgatherv", "alltoall", "alltoallv", "alltoallw"};
/* The case of each, in the same order; alltoallw has its own loop. */
static const combo_case cases[] = {gather_case,   gatherv_case,   scatter_case,
                                   scatterv_case, allgather_case, allgatherv_case,
                                   alltoall_case, alltoallv_case, NULL};
#define NCOLLS (int)(sizeof colls / sizeof *colls)

static void check_all(MPI_Comm comm, const char *where)
{
    for (int c = 0; c < NCOLLS; c++) {
        if (!want(colls[c]))
            continue;
        if (cases[c]) {
            run_combos(comm, where, cases[c]);
        } else { /* alltoallw: its own per-peer datatypes */
            for (int k = 0; k < NCOUNTS; k++)
                if (count_on(all_counts[k], 1000))
                    alltoallw_case(comm, where, all_counts[k]);
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
    make_layouts();
    run_everywhere(check_all);
    free_layouts();
    int rc = summary("coll_check_move");
    MPI_Finalize();
    return rc;
}
