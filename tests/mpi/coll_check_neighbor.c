/* The neighbourhood collectives under mpirun, against values computed here
 * from MPI's standard alone (not from Trellis' code):
 *
 *   coll_check_neighbor [--quick] [--only <collective>] [--seed S]
 *
 * Graphs: Cartesian 1D, 2D and 3D, periodic and not (extents of 1 and 2
 * included: a rank its own neighbour, or one neighbour twice), MPI_Graph_create,
 * and seeded random distributed graphs (degrees 0 to size-1, repeated and self
 * edges, in-lists in a shuffled order, weighted or not, made with
 * MPI_Dist_graph_create_adjacent and with MPI_Dist_graph_create), and the empty
 * graph. Each of the five collectives on each graph, counts 0, 1, 7, 1000 (and
 * 100003 without --quick), the v forms with counts per edge and gaps between
 * blocks, the w form with a strided derived datatype and byte displacements.
 * Blocks from MPI_PROC_NULL and gaps must stay untouched. Calls go through
 * call_mode.h (TRELLIS_TEST_MODE), the first on a new communicator too (set
 * up in its constructor, so a non-blocking one needs no blocking call
 * before it). On each graph, where the library has
 * persistent collectives, all five persistent at once, each started three
 * times with new data (check_persistent). Then, blocking only: MPI_IN_PLACE must be
 * refused with an error, and (where the library has them) non-blocking and
 * persistent calls must complete right while point-to-point messages and
 * another collective are outstanding on the same communicator.
 *
 * Pairing (the standard): Cartesian receive block 2d comes from the negative
 * neighbour's block 2d+1 (what it sent in the positive direction), block
 * 2d+1 from the positive neighbour's block 2d; a graph's k-th edge s -> r in
 * s's destinations meets the k-th occurrence of s in r's sources.
 *
 * Prints "coll_check_neighbor ranks=P: N checks, F failed". */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The persistent forms' init, where the library declares them. */
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define PINIT(Name) MPI_##Name##_init
#endif

#include "call_mode.h"
#include "check.h"

static int rank, nranks, checks, failures;
static const char *only;
static unsigned seed0 = 1;

#define SENTINEL (-7)

/* A graph as every rank knows it: every rank's destinations (what it was
 * created with) and this rank's sources as MPI reports them. */
typedef struct {
    const char *name;
    MPI_Comm comm;
    bool cart;
    int *outdeg, **dests; /* per rank */
    int indeg, *sources;  /* this rank's, MPI's order */
} graph;

/* The value of element e of rank s's send block j. */
static int value(int s, int j, int e)
{
    return s * 1000003 + j * 10007 + e + 1;
}

/* The send block of s that lands in this rank's receive block i. */
static int sender_block(const graph *g, int i)
{
    int s = g->sources[i];
    if (g->cart)
        return (i % 2 == 0) ? i + 1 : i - 1;
    int k = 0; /* occurrences of s before i in my sources */
    for (int x = 0; x < i; x++)
        k += g->sources[x] == s;
    for (int j = 0; j < g->outdeg[s]; j++)
        if (g->dests[s][j] == rank && k-- == 0)
            return j;
    return -1;
}

/* Elements of edge (s, j) in the v and w forms: varies per edge, and some
 * edges carry nothing while others of the same call do. */
static int vcount(int s, int j, int base)
{
    return base == 0 || (s * 3 + j) % 7 == 6 ? 0 : base + (s * 3 + j) % 5;
}

static bool wanted(const char *coll)
{
    return !only || strcmp(only, coll) == 0;
}

/* The five collectives, as this file names them. */
enum { AG, AGV, A2A, A2AV, A2AW, KINDS };
static const char *const kind_names[KINDS] = {"neighbor_allgather", "neighbor_allgatherv",
                                              "neighbor_alltoall", "neighbor_alltoallv",
                                              "neighbor_alltoallw"};

static bool is_v(int kind)
{
    return kind == AGV || kind == A2AV || kind == A2AW;
}

static bool gathers(int kind)
{
    return kind == AG || kind == AGV;
}

/* One call's buffers and arrays. The v and w forms: counts per edge
 * (vcount) and a gap before each block; the w form: odd send blocks and
 * even receive blocks of a strided type (an int every 8 bytes), byte
 * displacements. allgather(v) send one block (ns 1). Sizes in ints. */
typedef struct {
    int kind, n, ns;
    int *scount, *sdispl, *rcount, *rdispl;
    MPI_Aint *sbyte, *rbyte;
    MPI_Datatype *stypes, *rtypes;
    size_t stotal, rtotal;
    int *send, *recv, *want;
} bufs;

/* The send blocks with round's values (value + round), the receive buffer
 * SENTINEL, and want what the call must leave there: a block's elements
 * where they land, SENTINEL everywhere else (gaps, strides, MPI_PROC_NULL
 * blocks). */
static void bufs_fill(const graph *g, bufs *b, int round)
{
    for (size_t x = 0; x <= b->stotal; x++)
        b->send[x] = SENTINEL;
    for (int j = 0; j < b->ns; j++) {
        int stride = b->kind == A2AW && j % 2 ? 2 : 1;
        int at = is_v(b->kind) ? b->sdispl[j] : j * b->n;
        for (int e = 0; e < b->scount[j]; e++)
            b->send[at + e * stride] = value(rank, j, e) + round;
    }
    for (size_t x = 0; x <= b->rtotal; x++)
        b->recv[x] = b->want[x] = SENTINEL;
    for (int i = 0; i < g->indeg; i++) {
        int s = g->sources[i];
        if (s == MPI_PROC_NULL)
            continue;
        int j = gathers(b->kind) ? 0 : sender_block(g, i);
        int stride = b->kind == A2AW && i % 2 == 0 ? 2 : 1;
        int at = is_v(b->kind) ? b->rdispl[i] : i * b->n;
        for (int e = 0; e < b->rcount[i]; e++)
            b->want[at + e * stride] = value(s, j, e) + round;
    }
}

static void bufs_make(const graph *g, int kind, int n, MPI_Datatype strided, bufs *b)
{
    int in = g->indeg, v = is_v(kind);
    *b = (bufs){.kind = kind, .n = n, .ns = gathers(kind) ? 1 : g->outdeg[rank]};
    size_t ns = (size_t)b->ns + 1, nr = (size_t)in + 1;
    b->scount = malloc(ns * sizeof(int));
    b->sdispl = malloc(ns * sizeof(int));
    b->sbyte = malloc(ns * sizeof(MPI_Aint));
    b->stypes = malloc(ns * sizeof(MPI_Datatype));
    b->rcount = malloc(nr * sizeof(int));
    b->rdispl = malloc(nr * sizeof(int));
    b->rbyte = malloc(nr * sizeof(MPI_Aint));
    b->rtypes = malloc(nr * sizeof(MPI_Datatype));
    for (int j = 0; j < b->ns; j++) {
        b->scount[j] = v ? vcount(rank, j, n) : n;
        int stride = kind == A2AW && j % 2 ? 2 : 1;
        b->stypes[j] = stride == 2 ? strided : MPI_INT;
        b->sdispl[j] = (int)b->stotal + v;
        b->sbyte[j] = (MPI_Aint)b->sdispl[j] * (MPI_Aint)sizeof(int);
        b->stotal += (size_t)b->scount[j] * (size_t)stride + (size_t)v;
    }
    if (!v)
        b->stotal = (size_t)n * (size_t)b->ns;
    for (int i = 0; i < in; i++) {
        int s = g->sources[i];
        b->rcount[i] = s == MPI_PROC_NULL ? (v ? 1 : n)
                       : v                ? vcount(s, gathers(kind) ? 0 : sender_block(g, i), n)
                                          : n;
        int stride = kind == A2AW && i % 2 == 0 ? 2 : 1;
        b->rtypes[i] = stride == 2 ? strided : MPI_INT;
        b->rdispl[i] = (int)b->rtotal + v;
        b->rbyte[i] = (MPI_Aint)b->rdispl[i] * (MPI_Aint)sizeof(int);
        b->rtotal += (size_t)b->rcount[i] * (size_t)stride + (size_t)v;
    }
    if (!v)
        b->rtotal = (size_t)n * (size_t)in;
    b->send = malloc((b->stotal + 1) * sizeof(int));
    b->recv = malloc((b->rtotal + 1) * sizeof(int));
    b->want = malloc((b->rtotal + 1) * sizeof(int));
    bufs_fill(g, b, 0);
}

static void bufs_free(bufs *b)
{
    void *all[] = {b->scount, b->sdispl, b->sbyte, b->stypes, b->rcount, b->rdispl,
                   b->rbyte,  b->rtypes, b->send,  b->recv,   b->want};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        free(all[k]);
}

static int bufs_bad(const bufs *b)
{
    int bad = 0;
    for (size_t x = 0; x <= b->rtotal; x++)
        bad += b->recv[x] != b->want[x];
    return bad;
}

/* Each collective's arguments before info and request. allgatherv sends its
 * one block from past its gap. */
#define ARGS_AG(b, g) (b)->send, (b)->n, MPI_INT, (b)->recv, (b)->n, MPI_INT, (g)->comm
#define ARGS_AGV(b, g)                                                                             \
    (b)->send + (b)->sdispl[0], (b)->scount[0], MPI_INT, (b)->recv, (b)->rcount, (b)->rdispl,      \
        MPI_INT, (g)->comm
#define ARGS_A2AV(b, g)                                                                            \
    (b)->send, (b)->scount, (b)->sdispl, MPI_INT, (b)->recv, (b)->rcount, (b)->rdispl, MPI_INT,    \
        (g)->comm
#define ARGS_A2AW(b, g)                                                                            \
    (b)->send, (b)->scount, (b)->sbyte, (b)->stypes, (b)->recv, (b)->rcount, (b)->rbyte,           \
        (b)->rtypes, (g)->comm

static int bufs_call(const graph *g, const bufs *b)
{
    switch (b->kind) {
    case AG: return MPI_Neighbor_allgather(ARGS_AG(b, g));
    case AGV: return MPI_Neighbor_allgatherv(ARGS_AGV(b, g));
    case A2A: return MPI_Neighbor_alltoall(ARGS_AG(b, g));
    case A2AV: return MPI_Neighbor_alltoallv(ARGS_A2AV(b, g));
    default: return MPI_Neighbor_alltoallw(ARGS_A2AW(b, g));
    }
}

/* One call of kind on g with n elements a block, verified. */
static void check_call(const graph *g, int kind, int n, MPI_Datatype strided)
{
    bufs b;
    bufs_make(g, kind, n, strided, &b);
    int rc = bufs_call(g, &b);
    CHECK(rc == MPI_SUCCESS, "%s %s n=%d: rc %d", g->name, kind_names[kind], n, rc);
    int bad = bufs_bad(&b);
    CHECK(bad == 0, "%s %s n=%d: %d wrong ints", g->name, kind_names[kind], n, bad);
    bufs_free(&b);
}

#ifdef PINIT
static int bufs_init(const graph *g, const bufs *b, MPI_Request *req)
{
    switch (b->kind) {
    case AG: return PINIT(Neighbor_allgather)(ARGS_AG(b, g), MPI_INFO_NULL, req);
    case AGV: return PINIT(Neighbor_allgatherv)(ARGS_AGV(b, g), MPI_INFO_NULL, req);
    case A2A: return PINIT(Neighbor_alltoall)(ARGS_AG(b, g), MPI_INFO_NULL, req);
    case A2AV: return PINIT(Neighbor_alltoallv)(ARGS_A2AV(b, g), MPI_INFO_NULL, req);
    default: return PINIT(Neighbor_alltoallw)(ARGS_A2AW(b, g), MPI_INFO_NULL, req);
    }
}

/* Persistent calls started again and again: Trellis runs an algorithm that
 * needs its host's block sizes from the second start on, planned from what
 * the first sent. Every collective at once, started in an order that
 * differs between ranks (MPI-4 matches persistent calls by their inits) and
 * once by MPI_Startall, new data each start, a point-to-point message
 * outstanding; first a request freed without a start, with other counts,
 * whose size messages must not be taken for the others'. */
static void check_persistent(const graph *g, int n, MPI_Datatype strided)
{
    bufs dead, b[KINDS];
    MPI_Request dreq = MPI_REQUEST_NULL, req[KINDS];
    bufs_make(g, A2AV, n + 3, strided, &dead);
    int rc = bufs_init(g, &dead, &dreq);
    CHECK(rc == MPI_SUCCESS, "%s persistent, freed unstarted: rc %d", g->name, rc);
    if (dreq != MPI_REQUEST_NULL)
        MPI_Request_free(&dreq);
    bufs_free(&dead);
    for (int k = 0; k < KINDS; k++) {
        bufs_make(g, k, n, strided, &b[k]);
        req[k] = MPI_REQUEST_NULL;
        rc = bufs_init(g, &b[k], &req[k]);
        CHECK(rc == MPI_SUCCESS, "%s persistent %s init: rc %d", g->name, kind_names[k], rc);
    }
    int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
    for (int round = 1; round <= 3; round++) {
        for (int k = 0; k < KINDS; k++)
            bufs_fill(g, &b[k], round);
        int token = rank + round, got = -1;
        MPI_Request p2p[2];
        MPI_Irecv(&got, 1, MPI_INT, from, 78, g->comm, &p2p[0]);
        if (round == 2)
            MPI_Startall(KINDS, req);
        for (int x = 0; round != 2 && x < KINDS; x++)
            MPI_Start(&req[rank % 2 ? KINDS - 1 - x : x]);
        MPI_Isend(&token, 1, MPI_INT, to, 78, g->comm, &p2p[1]);
        rc = MPI_Waitall(KINDS, req, MPI_STATUSES_IGNORE);
        MPI_Waitall(2, p2p, MPI_STATUSES_IGNORE);
        CHECK(rc == MPI_SUCCESS && got == from + round, "%s persistent start %d: rc %d, p2p %d",
              g->name, round, rc, got);
        for (int k = 0; k < KINDS; k++) {
            int bad = bufs_bad(&b[k]);
            CHECK(bad == 0, "%s persistent %s n=%d start %d: %d wrong ints", g->name, kind_names[k],
                  n, round, bad);
        }
    }
    for (int k = 0; k < KINDS; k++) {
        if (req[k] != MPI_REQUEST_NULL)
            MPI_Request_free(&req[k]);
        bufs_free(&b[k]);
    }
}
#endif

/* allgather and alltoall called again with the same counts and datatypes
 * (Trellis runs a repeat's schedule at once: trl_move_repeat), counts 0
 * and 7, on two sets of buffers held at once and new values each time: each
 * call must land in its own buffers. */
static void check_uniform_repeats(const graph *g, MPI_Datatype strided)
{
    static const int kinds[] = {AG, A2A};
    for (size_t k = 0; k < 2 * sizeof kinds / sizeof *kinds; k++) {
        int kind = kinds[k / 2], n = k % 2 ? 7 : 0;
        if (!wanted(kind_names[kind]))
            continue;
        bufs b[2];
        bufs_make(g, kind, n, strided, &b[0]);
        bufs_make(g, kind, n, strided, &b[1]);
        for (int round = 1; round <= 4; round++) {
            bufs *x = &b[round % 2];
            bufs_fill(g, x, round);
            int rc = bufs_call(g, x);
            int bad = bufs_bad(x);
            CHECK(rc == MPI_SUCCESS && bad == 0,
                  "%s %s n=%d repeated, call %d: rc %d, %d wrong ints", g->name, kind_names[kind],
                  n, round, rc, bad);
        }
        bufs_free(&b[0]);
        bufs_free(&b[1]);
    }
}

static void run_graph(const graph *g, const int *counts, int ncounts, MPI_Datatype strided)
{
    for (int c = 0; c < ncounts; c++) {
        int n = counts[c];
        for (int kind = 0; kind < KINDS; kind++)
            if (wanted(kind_names[kind]))
                check_call(g, kind, n, strided);
    }
    check_uniform_repeats(g, strided);
#ifdef PINIT
    /* 2: blocks of 8-24 bytes, some combined and some sent straight under
     * combine=16 (mpi.neighbor.lanes); 7: larger ones. */
    for (int n = 2; !only && n <= 7; n += 5)
        check_persistent(g, n, strided);
#endif
}

static void free_graph(graph *g)
{
    for (int r = 0; r < nranks; r++)
        free(g->dests[r]);
    free(g->dests);
    free(g->outdeg);
    free(g->sources);
    MPI_Comm_free(&g->comm);
}

/* A Cartesian communicator: every rank's destinations from MPI_Cart_shift's
 * rule (row-major ranks), computed here; this rank's sources the same. */
static void make_cart(graph *g, const char *name, int ndims, const int *dims, const int *periods)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    g->cart = true;
    MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &g->comm);
    g->outdeg = malloc((size_t)nranks * sizeof(int));
    g->dests = malloc((size_t)nranks * sizeof(int *));
    for (int r = 0; r < nranks; r++) {
        g->outdeg[r] = 2 * ndims;
        g->dests[r] = malloc((2 * (size_t)ndims + 1) * sizeof(int));
        int stride = nranks;
        for (int d = 0; d < ndims; d++) {
            stride /= dims[d];
            int c = r / stride % dims[d];
            for (int dir = 0; dir < 2; dir++) {
                int to = c + (dir ? 1 : -1);
                int peer = MPI_PROC_NULL;
                if (to >= 0 && to < dims[d])
                    peer = r + (to - c) * stride;
                else if (periods[d])
                    peer = r + ((to + dims[d]) % dims[d] - c) * stride;
                g->dests[r][2 * d + dir] = peer;
            }
        }
    }
    g->indeg = 2 * ndims;
    g->sources = malloc((2 * (size_t)ndims + 1) * sizeof(int));
    for (int d = 0; d < ndims; d++) {
        int src, dst;
        MPI_Cart_shift(g->comm, d, 1, &src, &dst);
        g->sources[2 * d] = src;
        g->sources[2 * d + 1] = dst;
        CHECK(src == g->dests[rank][2 * d] && dst == g->dests[rank][2 * d + 1],
              "%s: MPI_Cart_shift disagrees with the row-major rule", name);
    }
}

/* A random distributed graph, the same on every rank (seeded): rank r has
 * between 0 and maxdeg destinations, any rank (itself and repeats
 * included). adjacent: MPI_Dist_graph_create_adjacent with shuffled
 * in-lists; else MPI_Dist_graph_create, each rank giving its own edges. */
/* MPI_UNWEIGHTED is a small constant pointer, which GCC reads as an array of
 * size 0 passed for int[] (as MPICH's MPI_STATUSES_IGNORE: tests/mpi/CMakeLists.txt). */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void make_dist(graph *g, const char *name, unsigned seed, int maxdeg, bool adjacent,
                      bool weighted)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    g->outdeg = malloc((size_t)nranks * sizeof(int));
    g->dests = malloc((size_t)nranks * sizeof(int *));
    unsigned s = seed;
    for (int r = 0; r < nranks; r++) {
        g->outdeg[r] = maxdeg ? (int)(lcg(&s) % (unsigned)(maxdeg + 1)) : 0;
        g->dests[r] = malloc(((size_t)g->outdeg[r] + 1) * sizeof(int));
        for (int j = 0; j < g->outdeg[r]; j++)
            g->dests[r][j] = (int)(lcg(&s) % (unsigned)nranks);
    }
    int in = 0;
    for (int r = 0; r < nranks; r++)
        for (int j = 0; j < g->outdeg[r]; j++)
            in += g->dests[r][j] == rank;
    int *src = malloc(((size_t)in + 1) * sizeof(int)), *w = malloc(((size_t)in + 1) * sizeof(int));
    int k = 0;
    for (int r = 0; r < nranks; r++)
        for (int j = 0; j < g->outdeg[r]; j++)
            if (g->dests[r][j] == rank)
                src[k++] = r;
    /* Shuffle the in-list (the order is the program's to choose). */
    unsigned sh = seed * 31u + (unsigned)rank;
    for (int x = in - 1; x > 0; x--) {
        int y = (int)(lcg(&sh) % (unsigned)(x + 1)), t = src[x];
        src[x] = src[y];
        src[y] = t;
    }
    int out = g->outdeg[rank];
    int *ow = malloc(((size_t)out + 1) * sizeof(int));
    for (int x = 0; x < in; x++)
        w[x] = x + 1;
    for (int x = 0; x < out; x++)
        ow[x] = x + 1;
    if (adjacent)
        MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, in, src, weighted ? w : MPI_UNWEIGHTED, out,
                                       g->dests[rank], weighted ? ow : MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &g->comm);
    else
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &out, g->dests[rank],
                              weighted ? ow : MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g->comm);
    /* The sources in the order MPI reports them. */
    int indeg, outdeg, isw;
    MPI_Dist_graph_neighbors_count(g->comm, &indeg, &outdeg, &isw);
    CHECK(indeg == in && outdeg == out, "%s: degrees %d/%d, want %d/%d", name, indeg, outdeg, in,
          out);
    g->indeg = indeg;
    g->sources = malloc(((size_t)indeg + 1) * sizeof(int));
    int *d = malloc(((size_t)outdeg + 1) * sizeof(int));
    int *wi = malloc(((size_t)indeg + 1) * sizeof(int)),
        *wo = malloc(((size_t)outdeg + 1) * sizeof(int));
    MPI_Dist_graph_neighbors(g->comm, indeg, g->sources, isw ? wi : MPI_UNWEIGHTED, outdeg, d,
                             isw ? wo : MPI_UNWEIGHTED);
    /* The library's order of destinations is this rank's (the program's, for
     * adjacent; MPI_Dist_graph_create may reorder them): take what it says. */
    memcpy(g->dests[rank], d, (size_t)outdeg * sizeof(int));
    /* Every rank's destinations as their library reports them (the same
     * multiset as generated; the order matters for the pairing). */
    for (int r = 0; r < nranks; r++)
        MPI_Bcast(g->dests[r], g->outdeg[r], MPI_INT, r, MPI_COMM_WORLD);
    free(d);
    free(wi);
    free(wo);
    free(src);
    free(w);
    free(ow);
}

/* MPI_Graph_create: a ring with a chord, neighbours in both directions. */
static void make_graph(graph *g)
{
    memset(g, 0, sizeof *g);
    g->name = "graph_ring";
    int *index = malloc((size_t)nranks * sizeof(int)),
        *edges = malloc(4 * (size_t)nranks * sizeof(int));
    g->outdeg = malloc((size_t)nranks * sizeof(int));
    g->dests = malloc((size_t)nranks * sizeof(int *));
    int at = 0;
    for (int r = 0; r < nranks; r++) {
        g->dests[r] = malloc(3 * sizeof(int));
        g->dests[r][0] = (r + 1) % nranks;
        g->dests[r][1] = (r + nranks - 1) % nranks;
        g->outdeg[r] = 2;
        edges[at++] = g->dests[r][0];
        edges[at++] = g->dests[r][1];
        index[r] = at;
    }
    MPI_Graph_create(MPI_COMM_WORLD, nranks, index, edges, 0, &g->comm);
    g->indeg = 2;
    g->sources = malloc(3 * sizeof(int));
    memcpy(g->sources, g->dests[rank], 2 * sizeof(int));
    free(index);
    free(edges);
}

/* MPI_IN_PLACE: MPI does not allow it here; the call must fail and leave
 * the receive buffer as it was, also right after a valid call of the same
 * counts and datatypes (one a repeat could take it for). */
static void check_in_place(const graph *g)
{
    /* Open MPI 4.1 reports this error on MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(g->comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *buf = malloc(((size_t)g->indeg + 1) * 4 * sizeof(int));
    int *out = calloc(((size_t)g->outdeg[rank] + 1) * 4, sizeof(int));
    /* The two have one signature. Each valid call right before its refused
     * one: building another's schedule in between would end the repeat by
     * itself. */
    int (*const calls[])(const void *, int, MPI_Datatype, void *, int, MPI_Datatype,
                         MPI_Comm) = {MPI_Neighbor_alltoall, MPI_Neighbor_allgather};
    static const char *const names[] = {"neighbor_alltoall", "neighbor_allgather"};
    for (int k = 0; k < 2; k++) {
        int rc = calls[k](out, 4, MPI_INT, buf, 4, MPI_INT, g->comm);
        CHECK(rc == MPI_SUCCESS, "%s: %s before MPI_IN_PLACE: rc %d", g->name, names[k], rc);
        for (int x = 0; x < g->indeg * 4; x++)
            buf[x] = SENTINEL;
        rc = calls[k](MPI_IN_PLACE, 4, MPI_INT, buf, 4, MPI_INT, g->comm);
        CHECK(rc != MPI_SUCCESS, "%s: %s accepted MPI_IN_PLACE", g->name, names[k]);
        int bad = 0;
        for (int x = 0; x < g->indeg * 4; x++)
            bad += buf[x] != SENTINEL;
        CHECK(bad == 0, "%s: a refused %s wrote %d ints", g->name, names[k], bad);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    free(buf);
    free(out);
}

/* Elements of rank s's v-form send block j in check_outstanding's call k
 * (1 or 2; check_repeats' kind, 1 to 3): each edge its own count, the
 * calls different ones; at most 1 + 2k. */
static int v_count(int s, int j, int k)
{
    return 1 + (s + j * k) % 3 * k;
}

/* Non-blocking neighbourhood calls among point-to-point messages and an
 * outstanding allreduce on the same communicator, completed together in
 * one MPI_Waitall, twice over: the one-size forms, and two alltoallv calls
 * of different counts with an allgatherv between them (outstanding
 * together, each sending its block sizes before it runs where an
 * algorithm needs them). Before the wait, blocking calls on the same
 * communicator (an allreduce, an alltoallv of other counts), inside which
 * the outstanding ones advance. */
static void check_outstanding(const graph *g)
{
    int n = 5, in = g->indeg, out = g->outdeg[rank];
    int *send = malloc(((size_t)out * n + 1) * sizeof(int)),
        *recv = malloc(((size_t)in * n + 1) * sizeof(int));
    int *gsend = malloc((size_t)n * sizeof(int)),
        *grecv = malloc(((size_t)in * n + 1) * sizeof(int));
    /* The v forms: block j (or i) of call k at j * n, v_count elements. */
    int *vsend[2], *vrecv[2], *scounts[2], *rcounts[2],
        *displs = malloc(((size_t)(in > out ? in : out) + 1) * sizeof(int));
    int *agv = malloc(((size_t)in * n + 1) * sizeof(int)),
        *agv_counts = malloc(((size_t)in + 1) * sizeof(int));
    for (int x = 0; x < (in > out ? in : out); x++)
        displs[x] = x * n;
    for (int k = 0; k < 2; k++) {
        vsend[k] = malloc(((size_t)out * n + 1) * sizeof(int));
        vrecv[k] = malloc(((size_t)in * n + 1) * sizeof(int));
        scounts[k] = malloc(((size_t)out + 1) * sizeof(int));
        rcounts[k] = malloc(((size_t)in + 1) * sizeof(int));
        for (int j = 0; j < out; j++)
            scounts[k][j] = v_count(rank, j, k + 1);
        for (int i = 0; i < in; i++) {
            int s = g->sources[i];
            rcounts[k][i] = s == MPI_PROC_NULL ? 0 : v_count(s, sender_block(g, i), k + 1);
        }
    }
    for (int i = 0; i < in; i++)
        agv_counts[i] = g->sources[i] == MPI_PROC_NULL ? 0 : 1 + g->sources[i] % n;
    for (int round = 0; round < 2; round++) {
        for (int j = 0; j < out; j++)
            for (int e = 0; e < n; e++) {
                send[j * n + e] = value(rank, j, e) + round;
                for (int k = 0; k < 2; k++)
                    vsend[k][j * n + e] = value(rank, j, e) + round + 100 * (k + 1);
            }
        for (int e = 0; e < n; e++)
            gsend[e] = value(rank, 0, e) + round;
        for (int x = 0; x < in * n; x++)
            recv[x] = grecv[x] = vrecv[0][x] = vrecv[1][x] = agv[x] = SENTINEL;
        int token = rank + round, got = -1, sum = 0, one = 1;
        MPI_Request req[8];
        int to = (rank + 1) % nranks, from = (rank + nranks - 1) % nranks;
        MPI_Irecv(&got, 1, MPI_INT, from, 77, g->comm, &req[0]);
        MPI_Ineighbor_alltoall(send, n, MPI_INT, recv, n, MPI_INT, g->comm, &req[1]);
        MPI_Ineighbor_alltoallv(vsend[0], scounts[0], displs, MPI_INT, vrecv[0], rcounts[0], displs,
                                MPI_INT, g->comm, &req[5]);
        MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, g->comm, &req[2]);
        MPI_Ineighbor_allgatherv(gsend, 1 + rank % n, MPI_INT, agv, agv_counts, displs, MPI_INT,
                                 g->comm, &req[6]);
        MPI_Ineighbor_allgather(gsend, n, MPI_INT, grecv, n, MPI_INT, g->comm, &req[3]);
        MPI_Ineighbor_alltoallv(vsend[1], scounts[1], displs, MPI_INT, vrecv[1], rcounts[1], displs,
                                MPI_INT, g->comm, &req[7]);
        MPI_Isend(&token, 1, MPI_INT, to, 77, g->comm, &req[4]);
        int bsum = 0, *bsend = vsend[round], *brecv = malloc(((size_t)in * n + 1) * sizeof(int));
        MPI_Allreduce(&one, &bsum, 1, MPI_INT, MPI_SUM, g->comm);
        MPI_Neighbor_alltoallv(bsend, scounts[1 - round], displs, MPI_INT, brecv,
                               rcounts[1 - round], displs, MPI_INT, g->comm);
        MPI_Waitall(8, req, MPI_STATUSES_IGNORE);
        CHECK(bsum == nranks, "%s outstanding: blocking allreduce %d", g->name, bsum);
        int bbad = 0;
        for (int i = 0; i < in; i++)
            for (int e = 0; e < rcounts[1 - round][i]; e++)
                bbad += brecv[i * n + e] !=
                        value(g->sources[i], sender_block(g, i), e) + round + 100 * (round + 1);
        CHECK(bbad == 0, "%s outstanding: blocking alltoallv %d wrong", g->name, bbad);
        free(brecv);
        CHECK(got == from + round, "%s outstanding: p2p got %d", g->name, got);
        CHECK(sum == nranks, "%s outstanding: allreduce %d", g->name, sum);
        int bad = 0, vbad = 0;
        for (int i = 0; i < in; i++) {
            int s = g->sources[i], b = sender_block(g, i);
            for (int e = 0; e < n; e++) {
                int w1 = s == MPI_PROC_NULL ? SENTINEL : value(s, b, e) + round;
                int w2 = s == MPI_PROC_NULL ? SENTINEL : value(s, 0, e) + round;
                bad += recv[i * n + e] != w1 || grecv[i * n + e] != w2;
                for (int k = 0; k < 2; k++) {
                    bool filled = e < rcounts[k][i];
                    vbad += vrecv[k][i * n + e] !=
                            (filled ? value(s, b, e) + round + 100 * (k + 1) : SENTINEL);
                }
                vbad += agv[i * n + e] != (e < agv_counts[i] ? w2 : SENTINEL);
            }
        }
        CHECK(bad == 0, "%s outstanding round %d: %d wrong", g->name, round, bad);
        CHECK(vbad == 0, "%s outstanding v forms round %d: %d wrong", g->name, round, vbad);
    }
    for (int k = 0; k < 2; k++) {
        free(vsend[k]);
        free(vrecv[k]);
        free(scounts[k]);
        free(rcounts[k]);
    }
    free(displs);
    free(agv);
    free(agv_counts);
    free(send);
    free(recv);
    free(gsend);
    free(grecv);
}

/* Non-blocking alltoallv calls whose arguments repeat on most ranks while
 * one rank's (round r: rank r % ranks, with counts of a third kind in the
 * second pass) send other counts, two calls outstanding at a time, the
 * second with every rank's first counts: a rank that carries its host's
 * traffic plans from its host's sizes, so a schedule kept for a repeat of
 * its own arguments must not serve a call in which another rank's sizes
 * changed. A lane sees a new key whenever a rank of its host or one that
 * sends to it changed: more than the 4 a communicator keeps, so kept
 * schedules are replaced while others are outstanding. */
static void check_repeats(const graph *g)
{
    int n = 7, in = g->indeg, out = g->outdeg[rank];
    int *send = malloc(((size_t)out * n + 1) * sizeof(int)), *scounts[2], *rcounts[2], *recv[2],
        *displs = malloc(((size_t)(in > out ? in : out) + 1) * sizeof(int));
    for (int x = 0; x < (in > out ? in : out); x++)
        displs[x] = x * n;
    for (int j = 0; j < out; j++)
        for (int e = 0; e < n; e++)
            send[j * n + e] = value(rank, j, e);
    for (int k = 0; k < 2; k++) {
        scounts[k] = malloc(((size_t)out + 1) * sizeof(int));
        rcounts[k] = malloc(((size_t)in + 1) * sizeof(int));
        recv[k] = malloc(((size_t)in * n + 1) * sizeof(int));
    }
    for (int round = 0; round < 2 * nranks; round++) {
        /* Call 0: every rank its first counts (v_count's kind 1) but the
         * changed one (kind 2, then 3: at most 7 elements); call 1: all of
         * kind 1, the same every round. */
        int kind = 2 + round / nranks;
        for (int k = 0; k < 2; k++) {
            int changed = k == 0 ? round % nranks : -1;
            for (int j = 0; j < out; j++)
                scounts[k][j] = v_count(rank, j, rank == changed ? kind : 1);
            for (int i = 0; i < in; i++) {
                int s = g->sources[i];
                rcounts[k][i] = s == MPI_PROC_NULL
                                    ? 0
                                    : v_count(s, sender_block(g, i), s == changed ? kind : 1);
            }
            for (int x = 0; x < in * n; x++)
                recv[k][x] = SENTINEL;
        }
        MPI_Request req[2];
        for (int k = 0; k < 2; k++)
            MPI_Ineighbor_alltoallv(send, scounts[k], displs, MPI_INT, recv[k], rcounts[k], displs,
                                    MPI_INT, g->comm, &req[k]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        int bad = 0;
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < in; i++)
                for (int e = 0; e < n; e++)
                    bad += recv[k][i * n + e] != (e < rcounts[k][i]
                                                      ? value(g->sources[i], sender_block(g, i), e)
                                                      : SENTINEL);
        CHECK(bad == 0, "%s repeats round %d: %d wrong", g->name, round, bad);
    }
    for (int k = 0; k < 2; k++) {
        free(scounts[k]);
        free(rcounts[k]);
        free(recv[k]);
    }
    free(send);
    free(displs);
}

int main(int argc, char **argv)
{
    /* --thread-multiple: what TRELLIS_PROGRESS=thread needs to start its
     * thread (without it, progress stays in the program's calls). */
    bool multiple = false;
    for (int i = 1; i < argc; i++)
        multiple |= strcmp(argv[i], "--thread-multiple") == 0;
    int provided = MPI_THREAD_SINGLE;
    if (multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (multiple && provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "coll_check_neighbor: MPI_THREAD_MULTIPLE not provided (%d)\n", provided);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    bool quick = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = true;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed0 = (unsigned)strtoul(argv[++i], NULL, 10);
    }
    static const int full_counts[] = {0, 1, 7, 1000, 100003};
    int ncounts = quick ? 4 : 5;
    MPI_Datatype strided;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);

    /* Cartesian shapes: 1D, 2D (MPI_Dims_create), 3D with an extent of 1,
     * periodic and not; extents of 2 where the size gives them. */
    int d1[1] = {nranks}, d2[2] = {0, 0}, d3[3] = {1, 0, 0}, dx[2] = {nranks, 1};
    MPI_Dims_create(nranks, 2, d2);
    int d3b[2] = {0, 0};
    MPI_Dims_create(nranks, 2, d3b);
    d3[1] = d3b[0];
    d3[2] = d3b[1];
    int p1[1] = {1}, n1[1] = {0}, p2[2] = {1, 1}, n2[2] = {0, 1}, p3[3] = {1, 1, 0},
        n3[3] = {0, 0, 0};
    struct {
        const char *name;
        int ndims, *dims, *periods;
    } carts[] = {{"cart1d_periodic", 1, d1, p1}, {"cart1d", 1, d1, n1},
                 {"cart2d_periodic", 2, d2, p2}, {"cart2d_mixed", 2, d2, n2},
                 {"cart2d_extent1", 2, dx, p2},  {"cart3d_periodic", 3, d3, p3},
                 {"cart3d", 3, d3, n3}};
    for (size_t c = 0; c < sizeof carts / sizeof *carts; c++) {
        graph g;
        make_cart(&g, carts[c].name, carts[c].ndims, carts[c].dims, carts[c].periods);
        run_graph(&g, full_counts, ncounts, strided);
        if (c == 0)
            check_in_place(&g);
        if (c == 2) {
            check_outstanding(&g);
            check_repeats(&g);
        }
        free_graph(&g);
    }
    graph gr;
    make_graph(&gr);
    run_graph(&gr, full_counts, quick ? 3 : 4, strided);
    free_graph(&gr);
    /* Random graphs: sparse and dense, adjacent and not, weighted or not;
     * the empty graph. */
    for (int k = 0; k < 5; k++) {
        graph g;
        char name[64];
        int maxdeg = k == 4 ? 0 : k % 2 ? nranks : 3;
        snprintf(name, sizeof name, "dist%d_seed%u", k, seed0 * 10 + (unsigned)k);
        make_dist(&g, name, seed0 * 10 + (unsigned)k, maxdeg, k != 1, k == 2);
        run_graph(&g, full_counts, k % 2 ? 3 : ncounts, strided);
        if (k == 0) {
            check_outstanding(&g);
            check_repeats(&g);
        }
        free_graph(&g);
    }
    MPI_Type_free(&strided);
    int mine[2] = {checks, failures}, total[2];
    MPI_Reduce(mine, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("coll_check_neighbor ranks=%d: %d checks, %d failed\n", nranks, total[0], total[1]);
    MPI_Finalize();
    return 0;
}
