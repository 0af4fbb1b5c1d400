/* Issue 33's bar for the neighbourhood collectives: one launch times, in
 * alternation within the same run, the MPI library's own call (PMPI_*) and
 * Trellis' in three forms (blocking MPI_*, non-blocking MPI_I* + MPI_Wait,
 * persistent *_init once + MPI_Start + MPI_Wait), and the library's call a
 * second time (mpi_control: how far the library's own time differs from
 * itself in the same run, which says how much of a gap is noise), on these
 * graphs:
 *
 *   cart2d   a periodic 2D grid (4 x 4 on 16 ranks; MPI_Dims_create's shape
 *            otherwise), the 5-point stencil: MPI_Neighbor_alltoall
 *   cart3d   a 3D grid (2 x 2 x 4 on 16 ranks, periodic), the 7-point
 *            stencil: MPI_Neighbor_alltoall
 *   random   a seeded random distributed graph, average out-degree 6 (0 to
 *            12 destinations, repeats allowed): MPI_Neighbor_alltoallv
 *   cart2d_ag, cart3d_ag  the two grids with MPI_Neighbor_allgather (one
 *            block to every neighbour); not in the default list
 *   random_agv, random_w  the random graph with MPI_Neighbor_allgatherv and
 *            MPI_Neighbor_alltoallw (MPI_BYTE blocks at byte displacements);
 *            not in the default list
 *
 * at sizes per neighbour from --min to --max (x2), each for --rounds
 * rounds of --iters calls per variant; a round's time is the slowest
 * rank's mean per call. Prints CSV: graph,bytes,variant,median_us,min_us,
 * max_us (over rounds). Every call's data is checked once per size (the
 * first round); a wrong result exits 1. Needs libtrellis.so preloaded.
 *
 *   neighbor_bar [--graphs cart2d,cart3d,random] [--min 8] [--max 65536]
 *                [--random-max 16384] [--iters 200] [--rounds 9] [--seed 1]
 */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define PINIT(Name) MPI_##Name##_init
#endif

/* PERSISTENT last: left out where the library has no persistent form. */
enum { LIB, LIB_CONTROL, BLOCKING, NONBLOCKING, PERSISTENT, NVARIANTS };
static const char *variant_names[] = {"mpi", "mpi_control", "trellis", "trellis_nonblocking",
                                      "trellis_persistent"};

static int rank, nranks;

/* The collective a graph is timed with. */
enum { A2A, A2AV, A2AW, AG, AGV };

typedef struct {
    const char *name;
    MPI_Comm comm;
    int kind;
    int indeg, outdeg;
} graph;

/* Whether receive block i lies at rd[i] (the v and w forms) rather than at
 * i x n. */
static bool vector_kind(int kind)
{
    return kind == A2AV || kind == A2AW || kind == AGV;
}

static unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

static void make_graph(graph *g, const char *name, unsigned seed)
{
    memset(g, 0, sizeof *g);
    g->name = name;
    if (!strncmp(name, "random", 6)) {
        g->kind = !strcmp(name, "random_agv") ? AGV : !strcmp(name, "random_w") ? A2AW : A2AV;
        int *deg = malloc((size_t)nranks * sizeof *deg),
            *dst = malloc(13 * (size_t)nranks * sizeof *dst);
        unsigned s = seed;
        int total = 0;
        for (int r = 0; r < nranks; r++) {
            deg[r] = (int)(lcg(&s) % 13);
            for (int j = 0; j < deg[r]; j++)
                dst[total + j] = (int)(lcg(&s) % (unsigned)nranks);
            total += deg[r];
        }
        int at = 0;
        for (int r = 0; r < rank; r++)
            at += deg[r];
        MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &deg[rank], dst + at, MPI_UNWEIGHTED,
                              MPI_INFO_NULL, 0, &g->comm);
        free(deg);
        free(dst);
        int w;
        MPI_Dist_graph_neighbors_count(g->comm, &g->indeg, &g->outdeg, &w);
    } else {
        g->kind = strstr(name, "_ag") ? AG : A2A;
        int nd = !strncmp(name, "cart3d", 6) ? 3 : 2, dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
        if (nranks == 16 && nd == 3) {
            dims[0] = dims[1] = 2;
            dims[2] = 4;
        }
        MPI_Dims_create(nranks, nd, dims);
        MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, 0, &g->comm);
        g->indeg = g->outdeg = 2 * nd;
    }
    MPI_Barrier(g->comm); /* Trellis sets the communicator up here */
}

typedef struct {
    char *send, *recv;
    int *sc, *sd, *rc, *rd; /* the v forms: bytes */
    MPI_Aint *sdb, *rdb;    /* alltoallw: the same displacements */
    MPI_Datatype *st, *rt;  /* alltoallw: MPI_BYTE each */
    int n;
} buffers;

/* Each collective's arguments before its request (and info). */
#define ARGS_A2A  b->send, b->n, MPI_BYTE, b->recv, b->n, MPI_BYTE, g->comm
#define ARGS_A2AV b->send, b->sc, b->sd, MPI_BYTE, b->recv, b->rc, b->rd, MPI_BYTE, g->comm
#define ARGS_A2AW b->send, b->sc, b->sdb, b->st, b->recv, b->rc, b->rdb, b->rt, g->comm
#define ARGS_AGV  b->send, b->n, MPI_BYTE, b->recv, b->rc, b->rd, MPI_BYTE, g->comm

/* The call as variant makes it (persistent: start *req). */
static int call(int variant, const graph *g, buffers *b, MPI_Request *req)
{
    MPI_Request r;
    if (variant == PERSISTENT) {
        MPI_Start(req);
        return MPI_Wait(req, MPI_STATUS_IGNORE);
    }
    if (variant == NONBLOCKING) {
        switch (g->kind) {
        case A2A: MPI_Ineighbor_alltoall(ARGS_A2A, &r); break;
        case A2AV: MPI_Ineighbor_alltoallv(ARGS_A2AV, &r); break;
        case A2AW: MPI_Ineighbor_alltoallw(ARGS_A2AW, &r); break;
        case AG: MPI_Ineighbor_allgather(ARGS_A2A, &r); break;
        default: MPI_Ineighbor_allgatherv(ARGS_AGV, &r); break;
        }
        return MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    bool lib = variant == LIB || variant == LIB_CONTROL;
    switch (g->kind) {
    case A2A: return lib ? PMPI_Neighbor_alltoall(ARGS_A2A) : MPI_Neighbor_alltoall(ARGS_A2A);
    case A2AV: return lib ? PMPI_Neighbor_alltoallv(ARGS_A2AV) : MPI_Neighbor_alltoallv(ARGS_A2AV);
    case A2AW: return lib ? PMPI_Neighbor_alltoallw(ARGS_A2AW) : MPI_Neighbor_alltoallw(ARGS_A2AW);
    case AG: return lib ? PMPI_Neighbor_allgather(ARGS_A2A) : MPI_Neighbor_allgather(ARGS_A2A);
    default: return lib ? PMPI_Neighbor_allgatherv(ARGS_AGV) : MPI_Neighbor_allgatherv(ARGS_AGV);
    }
}

#ifdef PINIT
static void init(const graph *g, buffers *b, MPI_Request *req)
{
    switch (g->kind) {
    case A2A: PINIT(Neighbor_alltoall)(ARGS_A2A, MPI_INFO_NULL, req); break;
    case A2AV: PINIT(Neighbor_alltoallv)(ARGS_A2AV, MPI_INFO_NULL, req); break;
    case A2AW: PINIT(Neighbor_alltoallw)(ARGS_A2AW, MPI_INFO_NULL, req); break;
    case AG: PINIT(Neighbor_allgather)(ARGS_A2A, MPI_INFO_NULL, req); break;
    default: PINIT(Neighbor_allgatherv)(ARGS_AGV, MPI_INFO_NULL, req); break;
    }
}
#endif

/* Each rank's send block j holds (rank, j); check what arrived once. */
static bool check(const graph *g, const buffers *b)
{
    /* Only that every received block is one some neighbour sent: its first
     * byte names a source of this rank, and the block is uniform. */
    int *src = malloc(((size_t)g->indeg + 1) * sizeof *src),
        *dst = malloc(((size_t)g->outdeg + 1) * sizeof *dst);
    int topo;
    MPI_Topo_test(g->comm, &topo);
    if (topo == MPI_CART) {
        int nd;
        MPI_Cartdim_get(g->comm, &nd);
        for (int d = 0; d < nd; d++)
            MPI_Cart_shift(g->comm, d, 1, &src[2 * d], &src[2 * d + 1]);
    } else {
        MPI_Dist_graph_neighbors(g->comm, g->indeg, src, MPI_UNWEIGHTED, g->outdeg, dst,
                                 MPI_UNWEIGHTED);
    }
    bool ok = true;
    for (int i = 0; i < g->indeg && ok; i++) {
        bool v = vector_kind(g->kind);
        int len = v ? b->rc[i] : b->n, at = v ? b->rd[i] : i * b->n;
        for (int e = 0; e < len && ok; e++)
            ok = (unsigned char)b->recv[at + e] == (unsigned char)(src[i] * 7 + 1);
    }
    free(src);
    free(dst);
    return ok;
}

/* The variants' order in round r: the first turns round by round and the
 * rest follow shuffled by a generator seeded with the round and the size (the
 * same on every rank), so no variant always runs right after another and
 * takes its warm caches or its wake-ups. */
static void round_order(int *order, int nvar, int r, int n)
{
    order[0] = r % nvar;
    for (int k = 1; k < nvar; k++)
        order[k] = (order[0] + k) % nvar;
    unsigned s = (unsigned)r * 2654435761u ^ (unsigned)n;
    for (int k = nvar - 1; k > 1; k--) {
        int j = 1 + (int)(lcg(&s) % (unsigned)k);
        int keep = order[k];
        order[k] = order[j];
        order[j] = keep;
    }
}

static int run(const graph *g, int n, int iters, int rounds)
{
    buffers b = {.n = n};
    int out = g->outdeg, in = g->indeg;
    b.sc = malloc(((size_t)out + 1) * sizeof(int));
    b.sd = malloc(((size_t)out + 1) * sizeof(int));
    b.rc = malloc(((size_t)in + 1) * sizeof(int));
    b.rd = malloc(((size_t)in + 1) * sizeof(int));
    b.sdb = malloc(((size_t)out + 1) * sizeof(MPI_Aint));
    b.rdb = malloc(((size_t)in + 1) * sizeof(MPI_Aint));
    b.st = malloc(((size_t)out + 1) * sizeof(MPI_Datatype));
    b.rt = malloc(((size_t)in + 1) * sizeof(MPI_Datatype));
    for (int j = 0; j < out; j++) {
        b.sc[j] = n;
        b.sd[j] = j * n;
        b.sdb[j] = (MPI_Aint)j * n;
        b.st[j] = MPI_BYTE;
    }
    for (int i = 0; i < in; i++) {
        b.rc[i] = n;
        b.rd[i] = i * n;
        b.rdb[i] = (MPI_Aint)i * n;
        b.rt[i] = MPI_BYTE;
    }
    b.send = malloc((size_t)out * (size_t)n + 1);
    b.recv = malloc((size_t)in * (size_t)n + 1);
    memset(b.send, rank * 7 + 1, (size_t)out * (size_t)n + 1);
    MPI_Request preq = MPI_REQUEST_NULL;
    int nvar = NVARIANTS;
#ifdef PINIT
    init(g, &b, &preq);
#else
    nvar = PERSISTENT;
#endif
    double *t = malloc((size_t)nvar * (size_t)rounds * sizeof *t);
    int bad = 0;
    for (int r = 0; r < rounds; r++) {
        int order[NVARIANTS];
        round_order(order, nvar, r, n);
        for (int k = 0; k < nvar; k++) {
            int v = order[k];
            memset(b.recv, 0, (size_t)in * (size_t)n + 1);
            call(v, g, &b, &preq); /* warm-up, and the checked call */
            if (r == 0 && !check(g, &b))
                bad++;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++)
                call(v, g, &b, &preq);
            double mine = (MPI_Wtime() - t0) / iters, slowest;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[v * rounds + r] = slowest * 1e6;
        }
    }
    int all_bad;
    MPI_Allreduce(&bad, &all_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        for (int v = 0; v < nvar; v++) {
            qsort(t + v * rounds, (size_t)rounds, sizeof *t, bench_cmp_double);
            printf("%s,%d,%s,%.3f,%.3f,%.3f\n", g->name, n, variant_names[v],
                   t[v * rounds + rounds / 2], t[v * rounds], t[v * rounds + rounds - 1]);
        }
    fflush(stdout);
    if (preq != MPI_REQUEST_NULL)
        MPI_Request_free(&preq);
    free(t);
    free(b.send);
    free(b.recv);
    free(b.sc);
    free(b.sd);
    free(b.rc);
    free(b.rd);
    free(b.sdb);
    free(b.rdb);
    free(b.st);
    free(b.rt);
    return all_bad;
}

/* Whether name is one of the comma-separated list's. */
static bool listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, name, len) && (p[len] == ',' || p[len] == '\0'))
            return true;
    return false;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *graphs = "cart2d,cart3d,random";
    int min = 8, max = 65536, rmax = 16384, iters = 200, rounds = 9, seed = 1;
    for (int i = 1; i < argc; i++) {
        int *to = !strcmp(argv[i], "--min")          ? &min
                  : !strcmp(argv[i], "--max")        ? &max
                  : !strcmp(argv[i], "--random-max") ? &rmax
                  : !strcmp(argv[i], "--iters")      ? &iters
                  : !strcmp(argv[i], "--rounds")     ? &rounds
                  : !strcmp(argv[i], "--seed")       ? &seed
                                                     : NULL;
        if (!strcmp(argv[i], "--graphs") && i + 1 < argc) {
            graphs = argv[++i];
        } else if (!to || i + 1 >= argc || bench_parse_int(argv[++i], 1, to)) {
            if (rank == 0)
                fprintf(stderr, "neighbor_bar: bad argument '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (!bench_trellis_version_fn() && rank == 0)
        fprintf(stderr, "neighbor_bar: libtrellis.so is not loaded: every variant is the "
                        "MPI library's\n");
    if (rank == 0)
        printf("graph,bytes,variant,median_us,min_us,max_us\n");
    int bad = 0;
    static const char *names[] = {"cart2d",    "cart3d",     "random",  "cart2d_ag",
                                  "cart3d_ag", "random_agv", "random_w"};
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++) {
        if (!listed(graphs, names[k]))
            continue;
        graph g;
        make_graph(&g, names[k], (unsigned)seed);
        for (int n = min; n <= (!strncmp(names[k], "random", 6) ? rmax : max); n *= 2)
            bad += run(&g, n, iters, rounds);
        MPI_Comm_free(&g.comm);
    }
    if (bad && rank == 0)
        fprintf(stderr, "neighbor_bar: %d wrong results\n", bad);
    MPI_Finalize();
    return bad ? 1 : 0;
}
