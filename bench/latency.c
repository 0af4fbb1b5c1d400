/* Latency sweep: the MPI library's own collectives against Trellis, timed
 * alternately in one run, with the method of seed 001 (section 5).
 *
 * For each collective (the 17 Trellis serves: bcast, reduce, allreduce,
 * barrier, gather, gatherv, scatter, scatterv, allgather, allgatherv,
 * alltoall, alltoallv, alltoallw, reduce_scatter, reduce_scatter_block,
 * scan, exscan) and each message size (8 B .. 16 MiB by default, step x2 or
 * any factor), the program times two variants of the same call:
 *
 *   mpi      PMPI_Bcast, PMPI_Reduce, ..., PMPI_Exscan, called directly:
 *            always the MPI library's own collective, even when
 *            libtrellis.so is preloaded;
 *   trellis  MPI_Bcast, MPI_Reduce, ..., MPI_Exscan: Trellis when
 *            libtrellis.so is preloaded (LD_PRELOAD), the MPI library
 *            otherwise.
 *
 * Every collective comes in its non-blocking form too, named with an `i`
 * (iallreduce, ibcast, ...): a row then times the start and the wait,
 *
 *   mpi       PMPI_Iallreduce + PMPI_Wait: the MPI library's own;
 *   trellis   MPI_Iallreduce + MPI_Wait: Trellis when preloaded;
 *
 * and a third variant, the blocking call as the program makes it,
 *
 *   blocking  MPI_Allreduce: Trellis' blocking collective when preloaded,
 *
 * so start + wait compares with both in one run.
 *
 * The size of a row is what Trellis's rules call `bytes`: the message
 * (bcast, reduce, allreduce, scan, exscan), one rank's block (gather,
 * scatter, allgather, alltoall, and their v/w variants, called with uniform
 * counts equal to that block), or the whole vector reduced (reduce_scatter,
 * reduce_scatter_block: each rank's block is bytes / ranks, rounded down to
 * whole elements, at least 1). latency_colls.h has the details, and
 * latency_colls.c the calls, data and checks of every collective; this
 * file is the harness.
 *
 * Method, for each (collective, size):
 *   - warm-up iterations of both variants, untimed and all checked;
 *   - the timed iterations alternate in blocks (by default 10 of one
 *     variant, then 10 of the other, the order swapped every block), so
 *     drift in the machine's state hits both variants alike;
 *   - every timed iteration starts with PMPI_Barrier to align the ranks (or,
 *     with --sync p2p, the harness's own barrier over point-to-point, so
 *     runs of different MPI components align alike) and is timed with
 *     MPI_Wtime on every rank around the one call;
 *   - after the timed loop, one PMPI_Allreduce(MPI_MAX) over all the
 *     per-iteration times gives, for each iteration, the time of the slowest
 *     rank (never inside the loop, so it cannot disturb the timing);
 *   - rank 0 reports the median over iterations of these maxima, with the
 *     10th and 90th percentiles as the spread, and the ratio of the Trellis
 *     median to the MPI median (below 1: Trellis is faster).
 *   - iterations = clamp(iters * scale / bytes, min-iters, iters), by
 *     default clamp(1000 * 64 KiB / bytes, 20, 1000).
 *
 * Results are checked: on every check-every-th iteration of each variant
 * (and on every warm-up iteration) the data depend on the rank and on the
 * iteration, and the receive buffers are poisoned first; every element a
 * rank receives is verified against its exact expected value (see
 * latency_colls.c). A wrong result is printed at once on stderr, marked in
 * the table, counted, and makes the program exit with status 1 (or abort at
 * once with --abort-on-error).
 *
 * Everything the harness itself needs (alignment barriers, gathering times
 * and error counts) calls PMPI_* directly and never goes through Trellis. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "latency_colls.h"

typedef struct {
    size_t min_bytes;
    size_t max_bytes;
    size_t step;
    int iters;
    int min_iters;
    size_t scale_bytes;
    int block;
    int warmup;
    int check_every;
    double row_seconds;
    int colls[NCOLL]; /* FORM_ bits: which forms of each collective run */
    int use_float;
    int root;
    int abort_on_error;
    int sync_p2p;
    size_t cold_bytes;
    const char *csv;
} options;

/* The forms of a collective a run may select (bits of options.colls). */
enum { FORM_BLOCKING = 1, FORM_NONBLOCKING = 2 };

/* Trellis detection ----------------------------------------------------- */

typedef const char *(*version_fn)(void);

typedef struct {
    const char *version; /* NULL when trellis_version is not found */
    char version_buf[128];
    char from[512];           /* the object that exports trellis_version */
    int interposed[NCOLL];    /* MPI_X resolves outside the object of PMPI_X */
    int interposed_nb[NCOLL]; /* the same for MPI_IX */
    char mpi_lib[512];        /* the object that holds PMPI_Allreduce */
    char interposer[512];     /* the object an interposed MPI_ name resolves to */
} probe;

/* Returns the file name of the loaded object that holds sym, or "?". */
static const char *object_of(void *sym)
{
    Dl_info info;
    if (sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname != NULL) {
        return info.dli_fname;
    }
    return "?";
}

/* Whether the MPI function `name` resolves to another object than its
 * PMPI_ name; the first such object is remembered in p->interposer. */
static int interposed(const char *name, probe *p)
{
    char pname[64];
    snprintf(pname, sizeof pname, "P%s", name);
    void *m = dlsym(RTLD_DEFAULT, name);
    void *pm = dlsym(RTLD_DEFAULT, pname);
    int yes = m != NULL && pm != NULL && strcmp(object_of(m), object_of(pm)) != 0;
    if (yes && p->interposer[0] == '\0') {
        snprintf(p->interposer, sizeof p->interposer, "%s", object_of(m));
    }
    return yes;
}

/* Finds out whether Trellis is loaded in this process (it exports
 * trellis_version) and, for each collective, whether the MPI_ name resolves
 * to a different object than the PMPI_ name, that is, whether something
 * interposes it. */
static void probe_trellis(probe *p)
{
    memset(p, 0, sizeof *p);
    version_fn fn = bench_trellis_version_fn();
    if (fn != NULL) {
        const char *v = fn();
        snprintf(p->version_buf, sizeof p->version_buf, "%s", v != NULL ? v : "unknown");
        for (char *c = p->version_buf; *c != '\0'; c++) {
            if (*c == ',' || *c == '\n' || *c == '\r') {
                *c = ' ';
            }
        }
        p->version = p->version_buf;
        snprintf(p->from, sizeof p->from, "%s", object_of(dlsym(RTLD_DEFAULT, "trellis_version")));
    }
    for (int c = 0; c < NCOLL; c++) {
        p->interposed[c] = interposed(coll_mpi_names[c], p);
        p->interposed_nb[c] = interposed(coll_impi_names[c], p);
    }
    snprintf(p->mpi_lib, sizeof p->mpi_lib, "%s", object_of(dlsym(RTLD_DEFAULT, "PMPI_Allreduce")));
}

/* Options ----------------------------------------------------------------- */

static void usage(FILE *f, const char *prog)
{
    fprintf(
        f,
        "usage: %s [options]\n"
        "  --colls LIST      comma-separated collectives, or all (default all): bcast,\n"
        "                    reduce, allreduce, barrier, gather, gatherv, scatter,\n"
        "                    scatterv, allgather, allgatherv, alltoall, alltoallv,\n"
        "                    alltoallw, reduce_scatter, reduce_scatter_block, scan, exscan;\n"
        "                    their non-blocking forms with an i in front (iallreduce,\n"
        "                    ibcast, ...: start + wait, also against the blocking call),\n"
        "                    or iall (all 17 non-blocking)\n"
        "  --min BYTES       smallest size (default 8; suffixes K, M = KiB, MiB): the\n"
        "                    message, one rank's block (gather, scatter, allgather,\n"
        "                    alltoall and their v/w variants) or the whole vector\n"
        "                    (reduce_scatter, reduce_scatter_block), as Trellis's rules\n"
        "                    mean `bytes`\n"
        "  --max BYTES       largest size (default 16M)\n"
        "  --step F          size factor between rows, e.g. 2 or 4 (default 2)\n"
        "  --iters N         iterations per variant for small sizes (default 1000)\n"
        "  --min-iters N     iterations per variant for the largest sizes (default 20)\n"
        "  --scale BYTES     iterations = clamp(iters * scale / bytes, min-iters, iters)\n"
        "                    (default 64K)\n"
        "  --block N         iterations of one variant before switching (default 10)\n"
        "  --warmup N        warm-up iterations per variant, fewer for large sizes (default 10)\n"
        "  --check-every N   check the result of every N-th timed iteration; 0: warm-up only\n"
        "                    (default 10)\n"
        "  --row-seconds S   stop a row early, after a pair of blocks, once it has run S\n"
        "                    seconds (default 0: no limit)\n"
        "  --dtype int|float element type, summed with MPI_SUM (default int)\n"
        "  --root R          root of bcast, reduce, gather(v) and scatter(v) (default 0)\n"
        "  --csv FILE        also write the results as CSV\n"
        "  --abort-on-error  MPI_Abort at the first wrong result\n"
        "  --sync mpi|p2p    what aligns the ranks before each timed call: PMPI_Barrier\n"
        "                    (default), or the harness's own dissemination barrier over\n"
        "                    PMPI point-to-point, the same code whatever collectives the\n"
        "                    MPI library chose (compare runs of different libraries or\n"
        "                    components with p2p)\n"
        "  --cold BYTES      before each timed call write over a buffer of BYTES (larger\n"
        "                    than the caches of one core, e.g. 8M), as a program's compute\n"
        "                    phase would: the call starts with cold caches (default 0: warm)\n"
        "  --help\n",
        prog);
}

static int parse_colls(const char *s, int colls[NCOLL])
{
    for (int c = 0; c < NCOLL; c++) {
        colls[c] = 0;
    }
    char *copy = strdup(s);
    if (copy == NULL) {
        return -1;
    }
    int rc = 0;
    int any = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        int all = strcmp(tok, "all") == 0    ? FORM_BLOCKING
                  : strcmp(tok, "iall") == 0 ? FORM_NONBLOCKING
                                             : 0;
        for (int c = 0; c < NCOLL; c++) {
            int form = strcmp(tok, coll_names[c]) == 0    ? FORM_BLOCKING
                       : strcmp(tok, coll_inames[c]) == 0 ? FORM_NONBLOCKING
                                                          : all;
            colls[c] |= form;
            found |= form != 0;
        }
        if (!found) {
            rc = -1;
        }
        any |= found;
    }
    free(copy);
    return rc == 0 && any ? 0 : -1;
}

/* Returns 0 to run, 1 to exit successfully (--help), 2 on a bad option. */
static int parse_options(int argc, char **argv, int rank, options *o)
{
    *o = (options){
        .min_bytes = 8,
        .max_bytes = 16u << 20,
        .step = 2,
        .iters = 1000,
        .min_iters = 20,
        .scale_bytes = 64u << 10,
        .block = 10,
        .warmup = 10,
        .check_every = 10,
        .row_seconds = 0.0,
        .use_float = 0,
        .root = 0,
        .abort_on_error = 0,
        .csv = NULL,
    };
    for (int c = 0; c < NCOLL; c++) {
        o->colls[c] = FORM_BLOCKING;
    }
    enum {
        OPT_COLLS = 256,
        OPT_MIN,
        OPT_MAX,
        OPT_STEP,
        OPT_ITERS,
        OPT_MIN_ITERS,
        OPT_SCALE,
        OPT_BLOCK,
        OPT_WARMUP,
        OPT_CHECK,
        OPT_ROW_SECONDS,
        OPT_DTYPE,
        OPT_ROOT,
        OPT_CSV,
        OPT_ABORT,
        OPT_SYNC,
        OPT_COLD,
        OPT_HELP
    };
    static const struct option longopts[] = {
        {"colls", required_argument, NULL, OPT_COLLS},
        {"min", required_argument, NULL, OPT_MIN},
        {"max", required_argument, NULL, OPT_MAX},
        {"step", required_argument, NULL, OPT_STEP},
        {"iters", required_argument, NULL, OPT_ITERS},
        {"min-iters", required_argument, NULL, OPT_MIN_ITERS},
        {"scale", required_argument, NULL, OPT_SCALE},
        {"block", required_argument, NULL, OPT_BLOCK},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"check-every", required_argument, NULL, OPT_CHECK},
        {"row-seconds", required_argument, NULL, OPT_ROW_SECONDS},
        {"dtype", required_argument, NULL, OPT_DTYPE},
        {"root", required_argument, NULL, OPT_ROOT},
        {"csv", required_argument, NULL, OPT_CSV},
        {"abort-on-error", no_argument, NULL, OPT_ABORT},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"cold", required_argument, NULL, OPT_COLD},
        {"help", no_argument, NULL, OPT_HELP},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int ch;
    int step = 0;
    int li = -1;
    while ((ch = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
        int bad = 0;
        switch (ch) {
        case OPT_COLLS: bad = parse_colls(optarg, o->colls); break;
        case OPT_MIN: bad = bench_parse_bytes(optarg, &o->min_bytes); break;
        case OPT_MAX: bad = bench_parse_bytes(optarg, &o->max_bytes); break;
        case OPT_STEP:
            bad = bench_parse_int(optarg, 2, &step);
            o->step = (size_t)step;
            break;
        case OPT_ITERS: bad = bench_parse_int(optarg, 1, &o->iters); break;
        case OPT_MIN_ITERS: bad = bench_parse_int(optarg, 1, &o->min_iters); break;
        case OPT_SCALE: bad = bench_parse_bytes(optarg, &o->scale_bytes); break;
        case OPT_BLOCK: bad = bench_parse_int(optarg, 1, &o->block); break;
        case OPT_WARMUP: bad = bench_parse_int(optarg, 0, &o->warmup); break;
        case OPT_CHECK: bad = bench_parse_int(optarg, 0, &o->check_every); break;
        case OPT_ROW_SECONDS: {
            char *end = NULL;
            errno = 0;
            o->row_seconds = strtod(optarg, &end);
            bad = errno != 0 || end == optarg || *end != '\0' || !(o->row_seconds >= 0.0);
            break;
        }
        case OPT_DTYPE:
            if (strcmp(optarg, "int") == 0) {
                o->use_float = 0;
            } else if (strcmp(optarg, "float") == 0) {
                o->use_float = 1;
            } else {
                bad = 1;
            }
            break;
        case OPT_ROOT: bad = bench_parse_int(optarg, 0, &o->root); break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_ABORT: o->abort_on_error = 1; break;
        case OPT_SYNC:
            o->sync_p2p = strcmp(optarg, "p2p") == 0;
            bad = !o->sync_p2p && strcmp(optarg, "mpi") != 0;
            break;
        case OPT_COLD: bad = bench_parse_bytes(optarg, &o->cold_bytes); break;
        case OPT_HELP:
        case 'h':
            if (rank == 0) {
                usage(stdout, argv[0]);
            }
            return 1;
        default: bad = 1; break;
        }
        if (bad) {
            if (rank == 0) {
                if (ch >= OPT_COLLS && li >= 0 && optarg != NULL) {
                    fprintf(stderr, "latency: bad value for --%s: '%s'\n", longopts[li].name,
                            optarg);
                } else {
                    fprintf(stderr, "latency: unknown option or missing value: %s\n",
                            argv[optind - 1]);
                }
                usage(stderr, argv[0]);
            }
            return 2;
        }
        li = -1;
    }
    if (optind < argc || o->min_bytes == 0 || o->max_bytes < o->min_bytes ||
        o->min_iters > o->iters || o->max_bytes / 4 > INT_MAX) {
        if (rank == 0) {
            fprintf(stderr, "latency: inconsistent options (sizes, iteration counts or extra "
                            "arguments)\n");
            usage(stderr, argv[0]);
        }
        return 2;
    }
    return 0;
}

/* Timing ------------------------------------------------------------------ */

/* With --sync p2p: the harness's own barrier, on private communicators:
 * the ranks of this rank's node, and (node leaders only) one rank per node. */
static MPI_Comm sync_node = MPI_COMM_NULL, sync_leaders = MPI_COMM_NULL;

static void sync_setup(MPI_Comm comm)
{
    int rank, local;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &sync_node);
    PMPI_Comm_rank(sync_node, &local);
    PMPI_Comm_split(comm, local == 0 ? 0 : MPI_UNDEFINED, rank, &sync_leaders);
}

static void sync_free(void)
{
    if (sync_node != MPI_COMM_NULL)
        PMPI_Comm_free(&sync_node);
    if (sync_leaders != MPI_COMM_NULL)
        PMPI_Comm_free(&sync_leaders);
}

static bench_cold cold; /* --cold */

/* Align the ranks before a timed call. A rank that leaves the barrier early
 * starts its clock early, so how a barrier releases the ranks shows in the
 * time of the call after it; runs that compare different MPI libraries or
 * components therefore need the same barrier code (--sync p2p): a fan-in to
 * each node's first rank, a dissemination barrier among those, a fan-out. */
static void align(bench *b)
{
    if (sync_node == MPI_COMM_NULL) {
        PMPI_Barrier(b->comm);
        return;
    }
    char token = 0;
    int local, n;
    PMPI_Comm_rank(sync_node, &local);
    PMPI_Comm_size(sync_node, &n);
    if (local > 0) {
        PMPI_Send(&token, 1, MPI_CHAR, 0, 0, sync_node);
        PMPI_Recv(&token, 1, MPI_CHAR, 0, 1, sync_node, MPI_STATUS_IGNORE);
        return;
    }
    for (int i = 1; i < n; i++)
        PMPI_Recv(&token, 1, MPI_CHAR, MPI_ANY_SOURCE, 0, sync_node, MPI_STATUS_IGNORE);
    int me, p;
    PMPI_Comm_rank(sync_leaders, &me);
    PMPI_Comm_size(sync_leaders, &p);
    for (int d = 1; d < p; d <<= 1) {
        char got;
        PMPI_Sendrecv(&token, 1, MPI_CHAR, (me + d) % p, 0, &got, 1, MPI_CHAR, (me - d + p) % p, 0,
                      sync_leaders, MPI_STATUS_IGNORE);
    }
    for (int i = 1; i < n; i++)
        PMPI_Send(&token, 1, MPI_CHAR, i, 1, sync_node);
}

/* One iteration: align the ranks, time the one call on this rank, and check
 * the result when asked to. Returns this rank's time in seconds. */
static double one_iteration(bench *b, enum coll c, int nb, enum variant v, int count, int check,
                            long long errors[NVAR])
{
    long call = 0;
    if (check) {
        call = b->call_id++;
        coll_prepare(b, c, count, call);
    }
    static unsigned sweeps;
    bench_cold_sweep(&cold, sweeps++);
    align(b);
    double t0 = MPI_Wtime();
    int rc = coll_call(b, c, v, count, nb);
    double t1 = MPI_Wtime();
    if (rc != MPI_SUCCESS) {
        errors[v]++;
        if (b->printed_errors++ < MAX_PRINTED_ERRORS) {
            fprintf(stderr, "latency: rank %d %s %s count=%d returned error %d\n", b->rank,
                    var_names[v], nb ? coll_inames[c] : coll_names[c], count, rc);
        }
        if (b->abort_on_error) {
            MPI_Abort(b->comm, 3);
        }
    } else if (check) {
        errors[v] += coll_verify(b, c, v, count, call);
    }
    return t1 - t0;
}

/* Times up to n iterations of each of the first nv variants of one
 * (collective, form, size), alternating in blocks, and leaves in
 * times[v * n + i] the maximum over ranks of iteration i of variant v.
 * Returns the number of iterations done per variant: n, or fewer when
 * --row-seconds stopped the row early. */
static int measure(bench *b, const options *o, enum coll c, int nb, int nv, int count, int n,
                   int warm, double *times, long long errors[NVAR])
{
    double row_start = MPI_Wtime();
    for (int i = 0; i < nv * n; i++) {
        times[i] = 0.0;
    }
    for (int w = 0; w < warm; w++) {
        for (int v = 0; v < nv; v++) {
            (void)one_iteration(b, c, nb, (enum variant)v, count, 1, errors);
        }
    }
    int done[NVAR] = {0};
    for (int blk = 0; done[VAR_MPI] < n; blk++) {
        for (int k = 0; k < nv; k++) {
            /* Reverse the order of the variants every block, so none
             * always follows the same other one. */
            int v = blk % 2 == 0 ? k : nv - 1 - k;
            for (int i = 0; i < o->block && done[v] < n; i++) {
                int idx = done[v]++;
                int check = o->check_every > 0 && idx % o->check_every == 0;
                times[v * n + idx] = one_iteration(b, c, nb, (enum variant)v, count, check, errors);
            }
        }
        /* After each pair of blocks both variants have done the same number
         * of iterations; only there may the row stop early. Rank 0's clock
         * decides, so that all ranks stop together; this is outside any
         * timed region. */
        if (o->row_seconds > 0.0 && blk % 2 == 1 && done[VAR_MPI] < n) {
            int stop = b->rank == 0 && MPI_Wtime() - row_start > o->row_seconds;
            PMPI_Bcast(&stop, 1, MPI_INT, 0, b->comm);
            if (stop) {
                break;
            }
        }
    }
    /* One batch for all iterations of every variant: the slowest rank. */
    PMPI_Allreduce(MPI_IN_PLACE, times, nv * n, MPI_DOUBLE, MPI_MAX, b->comm);
    return done[VAR_MPI];
}

/* The harness's own cost, measured before the sweep. */
typedef struct {
    double tick_us;    /* MPI_Wtick */
    double call_ns;    /* one MPI_Wtime call */
    double step_ns;    /* smallest nonzero difference of consecutive calls */
    bench_stats empty; /* a timed iteration with nothing in it */
} harness_cost;

static harness_cost measure_harness(bench *b, int n)
{
    harness_cost h;
    h.tick_us = MPI_Wtick() * 1e6;
    /* The cost of one call is the best of several batches, so that being
     * descheduled during one batch does not inflate it. */
    enum { BATCHES = 20, CALLS = 10000 };
    double step = INFINITY;
    double best = INFINITY;
    for (int k = 0; k < BATCHES; k++) {
        double prev = MPI_Wtime();
        double start = prev;
        for (int i = 0; i < CALLS; i++) {
            double now = MPI_Wtime();
            if (now > prev && now - prev < step) {
                step = now - prev;
            }
            prev = now;
        }
        if (prev - start < best) {
            best = prev - start;
        }
    }
    h.call_ns = best / CALLS * 1e9;
    h.step_ns = step * 1e9;
    double *t = malloc(sizeof(double) * (size_t)n);
    if (t == NULL) {
        fprintf(stderr, "latency: out of memory\n");
        MPI_Abort(b->comm, 2);
    }
    for (int i = 0; i < n; i++) {
        align(b);
        double t0 = MPI_Wtime();
        double t1 = MPI_Wtime();
        t[i] = t1 - t0;
    }
    PMPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX, b->comm);
    h.empty = bench_summarize(t, n);
    free(t);
    return h;
}

/* Output -------------------------------------------------------------------- */

static int host_count(MPI_Comm comm)
{
    MPI_Comm node;
    int node_rank = 0;
    int leaders = 0;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS) {
        return -1;
    }
    MPI_Comm_rank(node, &node_rank);
    int leader = node_rank == 0;
    PMPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, comm);
    MPI_Comm_free(&node);
    return leaders;
}

static int warmup_for(const options *o, int n)
{
    if (o->warmup == 0) {
        return 0;
    }
    int w = n / 10 < 2 ? 2 : n / 10;
    return w < o->warmup ? w : o->warmup;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    bench b = {.comm = MPI_COMM_WORLD};
    MPI_Comm_rank(b.comm, &b.rank);
    MPI_Comm_size(b.comm, &b.size);

    options o;
    int prc = parse_options(argc, argv, b.rank, &o);
    if (prc == 0 && o.root >= b.size) {
        if (b.rank == 0) {
            fprintf(stderr, "latency: --root %d but only %d ranks\n", o.root, b.size);
        }
        prc = 2;
    }
    if (prc != 0) {
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }
    b.root = o.root;
    b.use_float = o.use_float;
    b.dtype = o.use_float ? MPI_FLOAT : MPI_INT;
    b.abort_on_error = o.abort_on_error;
    if (o.sync_p2p) {
        sync_setup(b.comm);
    }
    if (bench_cold_init(&cold, o.cold_bytes) != 0) {
        fprintf(stderr, "latency: out of memory for --cold\n");
        MPI_Abort(b.comm, 2);
    }

    /* The sizes of the sweep: min, min*step, ... up to max, and max itself
     * when the steps do not land on it. */
    size_t sizes[128];
    int nsizes = bench_sizes(o.min_bytes, o.max_bytes, o.step, sizes, 128);

    /* The uniform counts of the v-variants, which must fit an int at the
     * largest row of the collectives with one block per rank. */
    if (coll_alloc_counts(&b) != 0) {
        fprintf(stderr, "latency: out of memory\n");
        MPI_Abort(b.comm, 2);
    }
    int per_rank_selected = 0;
    for (int c = COLL_GATHER; c <= COLL_REDUCE_SCATTER_BLOCK; c++) {
        per_rank_selected |= o.colls[c] != 0;
    }
    size_t largest_bytes = 0;
    if (per_rank_selected &&
        coll_set_counts(&b, coll_row(COLL_GATHER, o.max_bytes, b.size, &largest_bytes)) != 0) {
        if (b.rank == 0) {
            fprintf(stderr,
                    "latency: --max %zu is too large for %d ranks (the v-variants' "
                    "displacements would not fit an int)\n",
                    o.max_bytes, b.size);
        }
        MPI_Finalize();
        return 2;
    }
    /* Buffers for the largest row of any collective selected, touched once
     * so page faults do not land in the first timed call. */
    size_t cap = 64;
    for (int c = 0; c < NCOLL; c++) {
        size_t need = o.colls[c] ? coll_buffer_bytes((enum coll)c, o.max_bytes, b.size) : 0;
        cap = need > cap ? need : cap;
    }
    if (posix_memalign(&b.sbuf, 64, cap) != 0 || posix_memalign(&b.rbuf, 64, cap) != 0) {
        fprintf(stderr, "latency: rank %d: cannot allocate 2 x %zu bytes\n", b.rank, cap);
        MPI_Abort(b.comm, 2);
    }
    memset(b.sbuf, 0, cap);
    memset(b.rbuf, 0, cap);
    /* The name column is as wide as the longest name selected. */
    int name_width = 9;
    int nb_selected = 0;
    for (int c = 0; c < NCOLL; c++) {
        int len = (int)strlen(coll_names[c]) + ((o.colls[c] & FORM_NONBLOCKING) != 0);
        name_width = o.colls[c] && len > name_width ? len : name_width;
        nb_selected |= (o.colls[c] & FORM_NONBLOCKING) != 0;
    }

    /* Trellis on every rank, or on none. */
    probe p;
    probe_trellis(&p);
    int loaded = p.version != NULL;
    int loaded_min = 0;
    int loaded_max = 0;
    PMPI_Allreduce(&loaded, &loaded_min, 1, MPI_INT, MPI_MIN, b.comm);
    PMPI_Allreduce(&loaded, &loaded_max, 1, MPI_INT, MPI_MAX, b.comm);
    int hosts = host_count(b.comm);

    FILE *csv = NULL;
    int csv_ok = 1;
    if (b.rank == 0 && o.csv != NULL) {
        csv = fopen(o.csv, "w");
        if (csv == NULL) {
            fprintf(stderr, "latency: cannot open %s: %s\n", o.csv, strerror(errno));
            csv_ok = 0;
        }
    }
    PMPI_Bcast(&csv_ok, 1, MPI_INT, 0, b.comm);
    if (!csv_ok) {
        MPI_Finalize();
        return 2;
    }

    harness_cost h = measure_harness(&b, 1000);

    if (b.rank == 0) {
        char lo[32];
        char hi[32];
        char sc[32];
        bench_human_bytes(o.min_bytes, lo, sizeof lo);
        bench_human_bytes(o.max_bytes, hi, sizeof hi);
        bench_human_bytes(o.scale_bytes, sc, sizeof sc);
        printf("# Trellis latency sweep: ranks=%d hosts=%d dtype=%s op=MPI_SUM root=%d\n", b.size,
               hosts, o.use_float ? "float" : "int", o.root);
        printf("# sizes %s .. %s B, step x%zu; iterations per variant clamp(%d * %s / bytes, %d, "
               "%d); warm-up up to %d; blocks of %d alternating; check every %d%s\n",
               lo, hi, o.step, o.iters, sc, o.min_iters, o.iters, o.warmup, o.block, o.check_every,
               o.check_every == 0 ? " (warm-up only)" : "th");
        printf("# mpi     = PMPI_* called directly: always the MPI library's own (%s)\n",
               p.mpi_lib);
        printf("# trellis = MPI_*: Trellis when libtrellis.so is preloaded\n");
        if (nb_selected) {
            printf("# non-blocking rows (i...): mpi = PMPI_Ix + PMPI_Wait, trellis = MPI_Ix + "
                   "MPI_Wait, blocking = MPI_X (the blocking call, Trellis when preloaded); "
                   "nb/blk = trellis/blocking median\n");
        }
        if (loaded_min) {
            printf("# trellis: loaded, version %s, from %s; MPI_* interposed:", p.version, p.from);
            for (int c = 0; c < NCOLL; c++) {
                if (o.colls[c] & FORM_BLOCKING) {
                    printf(" %s=%s", coll_names[c], p.interposed[c] ? "yes" : "NO");
                }
                if (o.colls[c] & FORM_NONBLOCKING) {
                    printf(" %s=%s", coll_inames[c], p.interposed_nb[c] ? "yes" : "NO");
                }
            }
            printf("\n");
        } else {
            const char *what = loaded_max ? "NOT loaded on every rank"
                                          : "NOT loaded (no trellis_version symbol)";
            for (int pass = 0; pass < 2; pass++) {
                FILE *f = pass == 0 ? stdout : stderr;
                fprintf(f, "# ************************************************************\n");
                fprintf(f, "# WARNING: Trellis is %s.\n", what);
                fprintf(f, "# Both columns are the MPI library's own collectives: this run\n");
                fprintf(f, "# compares MPI with MPI. Preload it: mpirun -x "
                           "LD_PRELOAD=/path/to/libtrellis.so ...\n");
                if (p.interposer[0] != '\0') {
                    fprintf(f,
                            "# (MPI_* collectives are interposed by %s, which is not "
                            "Trellis: the trellis column measures that)\n",
                            p.interposer);
                }
                fprintf(f, "# ************************************************************\n");
            }
        }
        printf("# timer: MPI_Wtime, MPI_Wtick %.3g us, one call %.1f ns, smallest step seen "
               "%.1f ns\n",
               h.tick_us, h.call_ns, h.step_ns);
        printf("# harness floor (barrier, then two MPI_Wtime with nothing between; max over "
               "ranks): median %.3f us, p10 %.3f, p90 %.3f\n",
               h.empty.median, h.empty.p10, h.empty.p90);
        printf("# times in us: per iteration the maximum over ranks, then median and p10/p90 "
               "over iterations; ratio = trellis/mpi median (< 1: Trellis faster)\n");
        printf("# mark: '<<' trellis p90 below mpi p10, '>>' trellis p10 above mpi p90");
        if (o.row_seconds > 0.0) {
            printf("; '(time cap)': the row stopped after %g s with fewer iterations",
                   o.row_seconds);
        }
        printf("\n");
        if (per_rank_selected) {
            printf("# bytes: the message (bcast reduce allreduce scan exscan); one rank's block "
                   "(gather scatter allgather alltoall, and the v/w variants with uniform "
                   "counts); the whole vector (reduce_scatter reduce_scatter_block: block = "
                   "bytes/4/ranks elements, rounded down, at least 1)\n");
        }
        printf("%-*s %8s %5s %10s %9s %9s %10s %9s %9s %7s %4s", name_width, "coll", "bytes",
               "iters", "mpi_med", "mpi_p10", "mpi_p90", "trl_med", "trl_p10", "trl_p90", "ratio",
               "mark");
        if (nb_selected) {
            printf(" %10s %9s %9s %7s", "blk_med", "blk_p10", "blk_p90", "nb/blk");
        }
        printf("\n");
        fflush(stdout);
        if (csv != NULL) {
            fprintf(csv, "collective,bytes,count,dtype,ranks,hosts,iters,warmup,"
                         "mpi_median_us,mpi_p10_us,mpi_p90_us,mpi_min_us,"
                         "trellis_median_us,trellis_p10_us,trellis_p90_us,trellis_min_us,"
                         "ratio,mpi_errors,trellis_errors,trellis_loaded,trellis_version,"
                         "blocking_median_us,blocking_p10_us,blocking_p90_us,blocking_min_us,"
                         "ratio_to_blocking,blocking_errors\n");
        }
    }

    long long total_errors = 0;
    /* Per collective and form (index c + NCOLL for the non-blocking one). */
    double log_ratio_sum[2 * NCOLL] = {0};
    int ratio_n[2 * NCOLL] = {0};
    for (int c = 0; c < NCOLL; c++) {
        for (int nb = 0; nb < 2; nb++) {
            if (!(o.colls[c] & (nb ? FORM_NONBLOCKING : FORM_BLOCKING))) {
                continue;
            }
            const int nv = nb ? NVAR : 2; /* blocking rows: mpi and trellis */
            const char *name = nb ? coll_inames[c] : coll_names[c];
            int rows = c == COLL_BARRIER ? 1 : nsizes;
            size_t prev_bytes = 0;
            for (int r = 0; r < rows; r++) {
                size_t bytes = 0;
                int count = coll_row((enum coll)c, sizes[r], b.size, &bytes);
                if (r > 0 && bytes == prev_bytes) {
                    continue; /* reduce_scatter's rounding, or --min below 8: the same row */
                }
                prev_bytes = bytes;
                if (per_rank_selected) {
                    (void)coll_set_counts(&b, count); /* fits: checked at the largest row */
                }
                int n = bench_iterations(o.iters, o.scale_bytes, o.min_iters, bytes);
                int warm = warmup_for(&o, n);
                double *times = malloc(sizeof(double) * NVAR * (size_t)n);
                if (times == NULL) {
                    fprintf(stderr, "latency: out of memory\n");
                    MPI_Abort(b.comm, 2);
                }
                long long errors[NVAR] = {0};
                int planned = n;
                n = measure(&b, &o, (enum coll)c, nb, nv, count, planned, warm, times, errors);
                long long err[NVAR] = {0};
                PMPI_Allreduce(errors, err, NVAR, MPI_LONG_LONG, MPI_SUM, b.comm);
                total_errors += err[VAR_MPI] + err[VAR_TRELLIS] + err[VAR_BLOCKING];
                if (b.rank != 0) {
                    free(times);
                    continue;
                }
                bench_stats sm = bench_summarize(times, n);
                bench_stats st = bench_summarize(times + planned, n);
                bench_stats sb = nb ? bench_summarize(times + 2 * planned, n) : (bench_stats){0};
                double ratio = sm.median > 0 ? st.median / sm.median : NAN;
                double ratio_blk = sb.median > 0 ? st.median / sb.median : NAN;
                if (ratio > 0 && isfinite(ratio)) {
                    log_ratio_sum[c + nb * NCOLL] += log(ratio);
                    ratio_n[c + nb * NCOLL]++;
                }
                const char *mark = st.p90 < sm.p10 ? "<<" : st.p10 > sm.p90 ? ">>" : "";
                char hb[32];
                bench_human_bytes(bytes, hb, sizeof hb);
                printf("%-*s %8s %5d %10.3f %9.3f %9.3f %10.3f %9.3f %9.3f %7.3f %-4s", name_width,
                       name, hb, n, sm.median, sm.p10, sm.p90, st.median, st.p10, st.p90, ratio,
                       mark);
                if (nb) {
                    printf(" %10.3f %9.3f %9.3f %7.3f", sb.median, sb.p10, sb.p90, ratio_blk);
                } else if (nb_selected) {
                    printf(" %10s %9s %9s %7s", "", "", "", "");
                }
                printf("%s", n < planned ? " (time cap)" : "");
                if (err[VAR_MPI] != 0 || err[VAR_TRELLIS] != 0 || err[VAR_BLOCKING] != 0) {
                    printf(" FAIL(wrong results: mpi %lld, trellis %lld", err[VAR_MPI],
                           err[VAR_TRELLIS]);
                    if (nb) {
                        printf(", blocking %lld", err[VAR_BLOCKING]);
                    }
                    printf(")");
                }
                printf("\n");
                fflush(stdout);
                if (csv != NULL) {
                    fprintf(csv,
                            "%s,%zu,%d,%s,%d,%d,%d,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
                            "%.4f,%lld,%lld,%d,%s",
                            name, bytes, count, o.use_float ? "float" : "int", b.size, hosts, n,
                            warm, sm.median, sm.p10, sm.p90, sm.min, st.median, st.p10, st.p90,
                            st.min, ratio, err[VAR_MPI], err[VAR_TRELLIS], loaded_min,
                            loaded_min ? p.version : "none");
                    if (nb) {
                        fprintf(csv, ",%.4f,%.4f,%.4f,%.4f,%.4f,%lld\n", sb.median, sb.p10, sb.p90,
                                sb.min, ratio_blk, err[VAR_BLOCKING]);
                    } else {
                        fprintf(csv, ",,,,,,\n");
                    }
                    fflush(csv);
                }
                free(times);
            }
        }
    }

    if (b.rank == 0) {
        printf("# geometric mean of ratio trellis/mpi:");
        for (int k = 0; k < 2 * NCOLL; k++) {
            if (ratio_n[k] > 0) {
                printf(" %s=%.3f", k < NCOLL ? coll_names[k] : coll_inames[k - NCOLL],
                       exp(log_ratio_sum[k] / ratio_n[k]));
            }
        }
        printf("%s\n", loaded_min ? "" : "  (Trellis NOT loaded: MPI vs MPI)");
        if (total_errors != 0) {
            printf("# FAILED: %lld wrong results (see stderr)\n", total_errors);
            fprintf(stderr, "latency: FAILED: %lld wrong results\n", total_errors);
        } else {
            printf("# all checked results correct\n");
        }
        fflush(stdout);
        if (csv != NULL) {
            fclose(csv);
        }
    }

    coll_free(&b);
    sync_free();
    MPI_Finalize();
    return total_errors != 0 ? 1 : 0;
}
