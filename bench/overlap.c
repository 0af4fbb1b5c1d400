/* Overlap of non-blocking collectives with computation, measured the way
 * the OSU non-blocking benchmarks (osu_iallreduce, ...) measure it, for the
 * MPI library's own call and for Trellis, interleaved in one run.
 *
 * For each collective (the non-blocking forms of the 17 Trellis serves),
 * each size and each implementation
 *
 *   mpi      PMPI_Ix, PMPI_Test in the compute loop, PMPI_Wait: always the
 *            MPI library's own, even when libtrellis.so is preloaded;
 *   trellis  MPI_Ix, MPI_Test, MPI_Wait: Trellis when preloaded;
 *
 * it times three things, each iteration started by PMPI_Barrier and timed
 * with MPI_Wtime on every rank:
 *
 *   pure        start + wait, nothing between: the collective alone;
 *   compute     the compute loop alone, sized to take as long as `pure`;
 *   overlapped  start, the same compute loop, wait;
 *
 * and reports, from the medians over iterations of the slowest rank,
 *
 *   overlap % = 100 x (1 - (overlapped - compute) / pure), clamped to
 *   [0, 100] (the unclamped value is in the CSV): 100 when the collective
 *   hid entirely behind the computation, 0 when it added its whole time.
 *
 * The compute loop is `units` iterations of a dependent chain of
 * floating-point multiply-adds on registers (no memory traffic to compete
 * with the collective's), one iteration calibrated at start-up to take
 * about 1 us on an idle core; units = the 10th percentile of pure / 1 us,
 * each implementation its own (OSU sizes its dummy compute to the measured
 * latency; a low percentile keeps a busy machine's stalls out of it);
 * with --same-compute both loops take the library's length, so the two
 * overlapped times are one program's run under each implementation (the
 * overlap % favours a slower collective: it has more to hide). With
 * --test-every K the loop calls MPI_Test (PMPI_Test) on the request every K
 * iterations until it completes, as OSU can (its -t
 * option): the only way a library without asynchronous progress advances
 * during the computation. The `compute` time never includes those tests:
 * what they cost counts against the overlap.
 *
 * Order, for each (collective, size): checked warm-up iterations; `pure` of
 * both implementations alternated in blocks, to size the compute loops; then
 * every variant (pure, compute, overlapped for each --test-every value, of
 * both implementations) alternated in blocks, the order reversed every
 * block, so the machine's drift hits all alike. The pure time of the
 * formula is from this second phase. Results of pure and overlapped
 * iterations are checked as bench/latency checks them (latency_colls.c).
 *
 * Progress: a library advances a non-blocking collective only inside its
 * calls unless it has its own progress thread; Trellis does in a thread of
 * its own with TRELLIS_PROGRESS=thread, which needs MPI_THREAD_MULTIPLE:
 * this program asks for it (MPI_Init_thread) when TRELLIS_PROGRESS=thread
 * is set or with --thread-multiple, and for nothing (MPI_Init) otherwise.
 * The header prints the level the MPI library gave.
 *
 * Everything the harness itself needs calls PMPI_* directly. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "latency_colls.h"

enum { MAX_TESTS = 8 };

typedef struct {
    int colls[NCOLL];
    size_t min_bytes, max_bytes, step;
    int iters, min_iters;
    size_t scale_bytes;
    int block, warmup, check_every;
    int tests[MAX_TESTS]; /* --test-every values; 0: no MPI_Test */
    int ntests;
    int same_compute; /* both implementations' loops sized by the library's pure time */
    const char *csv;
} options;

/* What an iteration times. */
enum kind { PURE, COMPUTE, OVERLAPPED };

/* One timed variant of a row. */
typedef struct {
    enum kind kind;
    enum variant impl; /* VAR_MPI or VAR_TRELLIS */
    int test_every;    /* OVERLAPPED: MPI_Test every this many units (0: never) */
} variant;

/* The compute loop ------------------------------------------------------- */

static volatile double sink;
static long ops_per_unit = 1000;

/* A dependent chain of multiply-adds: n of them, on registers only. */
static void work(long n)
{
    double x = sink;
    for (long i = 0; i < n; i++)
        x = x * 0.999999 + 1e-7;
    sink = x;
}

/* Sizes one unit of work to about 1 us on this core (the best of several
 * timed runs, so a busy machine does not shorten it) and agrees on the
 * fastest rank's, so every rank does the same work. */
static void calibrate(MPI_Comm comm)
{
    enum { OPS = 200000, RUNS = 20 };
    double best = INFINITY;
    work(OPS);
    for (int r = 0; r < RUNS; r++) {
        double t0 = MPI_Wtime();
        work(OPS);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    double ns_per_op = best / OPS * 1e9;
    PMPI_Allreduce(MPI_IN_PLACE, &ns_per_op, 1, MPI_DOUBLE, MPI_MIN, comm);
    ops_per_unit = (long)(1000.0 / ns_per_op + 0.5);
    if (ops_per_unit < 1)
        ops_per_unit = 1;
}

/* Computes `units` units; with test_every > 0, tests *req every that many
 * until it completes. Returns an MPI error code of the tests. */
static int compute(long units, int test_every, enum variant impl, MPI_Request *req)
{
    int rc = MPI_SUCCESS;
    for (long u = 1; u <= units; u++) {
        work(ops_per_unit);
        if (test_every > 0 && u % test_every == 0 && *req != MPI_REQUEST_NULL) {
            int flag;
            int trc = impl == VAR_MPI ? PMPI_Test(req, &flag, MPI_STATUS_IGNORE)
                                      : MPI_Test(req, &flag, MPI_STATUS_IGNORE);
            rc = rc == MPI_SUCCESS ? trc : rc;
        }
    }
    return rc;
}

/* Options ------------------------------------------------------------------ */

static void usage(FILE *f, const char *prog)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  --colls LIST      non-blocking collectives (iallreduce, ibcast, ... or their\n"
            "                    blocking names; iall: all 17), comma-separated (default\n"
            "                    iallreduce)\n"
            "  --min BYTES       smallest size, as bench/latency means it (default 8; K, M)\n"
            "  --max BYTES       largest size (default 16M)\n"
            "  --step F          size factor between rows (default 2)\n"
            "  --iters N         iterations per variant for small sizes (default 200)\n"
            "  --min-iters N     iterations per variant for the largest sizes (default 20)\n"
            "  --scale BYTES     iterations = clamp(iters * scale / bytes, min-iters, iters)\n"
            "                    (default 64K)\n"
            "  --block N         iterations of one variant before switching (default 5)\n"
            "  --warmup N        checked warm-up iterations per implementation (default 5)\n"
            "  --check-every N   check every N-th timed iteration; 0: warm-up only (default 10)\n"
            "  --test-every LIST MPI_Test every K compute iterations (about K us); 0: none;\n"
            "                    several interleaved, e.g. 0,10 (default 0)\n"
            "  --same-compute    size both compute loops by the MPI library's pure time, so\n"
            "                    the overlapped columns time one program's work under each\n"
            "  --thread-multiple MPI_Init_thread(MPI_THREAD_MULTIPLE) even without\n"
            "                    TRELLIS_PROGRESS=thread (which asks for it anyway)\n"
            "  --csv FILE        also write the results as CSV\n"
            "  --help\n",
            prog);
}

static int parse_colls(const char *s, int colls[NCOLL])
{
    memset(colls, 0, sizeof(int) * NCOLL);
    char *copy = strdup(s);
    if (!copy)
        return -1;
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int all = strcmp(tok, "iall") == 0 || strcmp(tok, "all") == 0;
        int found = all;
        for (int c = 0; c < NCOLL; c++) {
            if (all || strcmp(tok, coll_names[c]) == 0 || strcmp(tok, coll_inames[c]) == 0) {
                colls[c] = 1;
                found = 1;
            }
        }
        rc |= found ? 0 : -1;
    }
    free(copy);
    return rc;
}

static int parse_tests(const char *s, options *o)
{
    char *copy = strdup(s);
    if (!copy)
        return -1;
    int rc = 0;
    o->ntests = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->ntests == MAX_TESTS || bench_parse_int(tok, 0, &o->tests[o->ntests++]) != 0)
            rc = -1;
    }
    free(copy);
    return o->ntests > 0 ? rc : -1;
}

/* 0: run; 1: --help; 2: a bad option. */
static int parse_options(int argc, char **argv, int rank, options *o)
{
    *o = (options){.min_bytes = 8,
                   .max_bytes = 16u << 20,
                   .step = 2,
                   .iters = 200,
                   .min_iters = 20,
                   .scale_bytes = 64u << 10,
                   .block = 5,
                   .warmup = 5,
                   .check_every = 10,
                   .tests = {0},
                   .ntests = 1};
    o->colls[COLL_ALLREDUCE] = 1;
    enum {
        O_COLLS = 256,
        O_MIN,
        O_MAX,
        O_STEP,
        O_ITERS,
        O_MIN_ITERS,
        O_SCALE,
        O_BLOCK,
        O_WARMUP,
        O_CHECK,
        O_TESTS,
        O_SAME,
        O_THREAD,
        O_CSV,
        O_HELP
    };
    static const struct option longopts[] = {
        {"colls", required_argument, NULL, O_COLLS},
        {"min", required_argument, NULL, O_MIN},
        {"max", required_argument, NULL, O_MAX},
        {"step", required_argument, NULL, O_STEP},
        {"iters", required_argument, NULL, O_ITERS},
        {"min-iters", required_argument, NULL, O_MIN_ITERS},
        {"scale", required_argument, NULL, O_SCALE},
        {"block", required_argument, NULL, O_BLOCK},
        {"warmup", required_argument, NULL, O_WARMUP},
        {"check-every", required_argument, NULL, O_CHECK},
        {"test-every", required_argument, NULL, O_TESTS},
        {"same-compute", no_argument, NULL, O_SAME},
        {"thread-multiple", no_argument, NULL, O_THREAD},
        {"csv", required_argument, NULL, O_CSV},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    int ch, step = 0;
    while ((ch = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        int bad = 0;
        switch (ch) {
        case O_COLLS: bad = parse_colls(optarg, o->colls); break;
        case O_MIN: bad = bench_parse_bytes(optarg, &o->min_bytes); break;
        case O_MAX: bad = bench_parse_bytes(optarg, &o->max_bytes); break;
        case O_STEP:
            bad = bench_parse_int(optarg, 2, &step);
            o->step = (size_t)step;
            break;
        case O_ITERS: bad = bench_parse_int(optarg, 1, &o->iters); break;
        case O_MIN_ITERS: bad = bench_parse_int(optarg, 1, &o->min_iters); break;
        case O_SCALE: bad = bench_parse_bytes(optarg, &o->scale_bytes); break;
        case O_BLOCK: bad = bench_parse_int(optarg, 1, &o->block); break;
        case O_WARMUP: bad = bench_parse_int(optarg, 1, &o->warmup); break;
        case O_CHECK: bad = bench_parse_int(optarg, 0, &o->check_every); break;
        case O_TESTS: bad = parse_tests(optarg, o); break;
        case O_SAME: o->same_compute = 1; break;
        case O_THREAD: break; /* read before MPI_Init_thread */
        case O_CSV: o->csv = optarg; break;
        case O_HELP:
        case 'h':
            if (rank == 0)
                usage(stdout, argv[0]);
            return 1;
        default: bad = 1; break;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "overlap: bad option or value: %s\n", argv[optind - 1]);
                usage(stderr, argv[0]);
            }
            return 2;
        }
    }
    if (optind < argc || o->min_bytes == 0 || o->max_bytes < o->min_bytes ||
        o->min_iters > o->iters || o->max_bytes / 4 > INT_MAX) {
        if (rank == 0) {
            fprintf(stderr, "overlap: inconsistent options (sizes, iteration counts or extra "
                            "arguments)\n");
            usage(stderr, argv[0]);
        }
        return 2;
    }
    return 0;
}

/* Timing ------------------------------------------------------------------- */

typedef struct {
    bench *b;
    const options *o;
    enum coll c;
    int count;
    long units[NVAR]; /* compute units of each implementation */
    long long errors[NVAR];
} row;

static void error(row *w, enum variant impl, const char *what, int rc)
{
    w->errors[impl]++;
    if (w->b->printed_errors++ < MAX_PRINTED_ERRORS)
        fprintf(stderr, "overlap: rank %d %s %s count=%d: %s returned error %d\n", w->b->rank,
                var_names[impl], coll_inames[w->c], w->count, what, rc);
}

/* CPU time in seconds of this process (all threads) or of this thread. */
static double cpu_seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One iteration of variant v; returns this rank's time in seconds, and in
 * *others the CPU time its other threads (a progress thread) used meanwhile,
 * read outside the timed region. */
static double iterate(row *w, const variant *v, int check, double *others)
{
    bench *b = w->b;
    enum variant impl = v->impl;
    int comm_part = v->kind != COMPUTE;
    check = check && comm_part;
    long call = 0;
    if (check) {
        call = b->call_id++;
        coll_prepare(b, w->c, w->count, call);
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = MPI_SUCCESS, trc = MPI_SUCCESS, wrc = MPI_SUCCESS;
    PMPI_Barrier(b->comm);
    double p0 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID), s0 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    double t0 = MPI_Wtime();
    if (comm_part)
        rc = coll_start(b, w->c, impl, w->count, &req);
    if (v->kind != PURE)
        trc = compute(w->units[impl], v->test_every, impl, &req);
    if (comm_part && rc == MPI_SUCCESS)
        wrc = impl == VAR_MPI ? PMPI_Wait(&req, MPI_STATUS_IGNORE)
                              : MPI_Wait(&req, MPI_STATUS_IGNORE);
    double t1 = MPI_Wtime();
    double s1 = cpu_seconds(CLOCK_THREAD_CPUTIME_ID), p1 = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
    *others = (p1 - p0) - (s1 - s0);
    if (rc != MPI_SUCCESS)
        error(w, impl, "start", rc);
    else if (trc != MPI_SUCCESS)
        error(w, impl, "MPI_Test", trc);
    else if (wrc != MPI_SUCCESS)
        error(w, impl, "MPI_Wait", wrc);
    else if (check)
        w->errors[impl] += coll_verify(b, w->c, impl, w->count, call);
    return t1 - t0;
}

/* Times n iterations of each of the nv variants, alternating in blocks
 * (the order reversed every block), and leaves in times[k * n + i] the
 * maximum over ranks of iteration i of variant k, and in others[k * n + i]
 * the most CPU time a rank's other threads used meanwhile. */
static void measure(row *w, const variant *vs, int nv, int n, double *times, double *others)
{
    int done = 0;
    for (int blk = 0; done < n; blk++) {
        int len = n - done < w->o->block ? n - done : w->o->block;
        for (int j = 0; j < nv; j++) {
            int k = blk % 2 == 0 ? j : nv - 1 - j;
            for (int i = done; i < done + len; i++) {
                int check = w->o->check_every > 0 && i % w->o->check_every == 0;
                times[k * n + i] = iterate(w, &vs[k], check, &others[k * n + i]);
            }
        }
        done += len;
    }
    PMPI_Allreduce(MPI_IN_PLACE, times, nv * n, MPI_DOUBLE, MPI_MAX, w->b->comm);
    PMPI_Allreduce(MPI_IN_PLACE, others, nv * n, MPI_DOUBLE, MPI_MAX, w->b->comm);
}

/* Output ------------------------------------------------------------------- */

static double overlap_pct(double pure, double comp, double ovl)
{
    return pure > 0 ? 100.0 * (1.0 - (ovl - comp) / pure) : NAN;
}

static double clamp_pct(double p)
{
    return p < 0 ? 0 : p > 100 ? 100 : p;
}

static int host_count(MPI_Comm comm)
{
    MPI_Comm node;
    int node_rank = 0, leaders = 0;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return -1;
    PMPI_Comm_rank(node, &node_rank);
    int leader = node_rank == 0;
    PMPI_Allreduce(&leader, &leaders, 1, MPI_INT, MPI_SUM, comm);
    PMPI_Comm_free(&node);
    return leaders;
}

static const char *thread_level(int provided)
{
    if (provided == MPI_THREAD_MULTIPLE)
        return "multiple";
    if (provided == MPI_THREAD_SERIALIZED)
        return "serialized";
    return provided == MPI_THREAD_FUNNELED ? "funneled" : "single";
}

typedef struct {
    const char *progress; /* TRELLIS_PROGRESS, or "unset" */
    const char *version;  /* Trellis', or NULL */
    const char *thread;
    int hosts;
    FILE *csv;
} run_info;

static void print_header(const bench *b, const options *o, const run_info *ri)
{
    char lo[32], hi[32];
    bench_human_bytes(o->min_bytes, lo, sizeof lo);
    bench_human_bytes(o->max_bytes, hi, sizeof hi);
    printf("# Trellis overlap (OSU method): ranks=%d hosts=%d dtype=int op=MPI_SUM root=0\n",
           b->size, ri->hosts);
    printf("# sizes %s .. %s B, step x%zu; iterations per variant clamp(%d * %zu / bytes, %d, "
           "%d); blocks of %d alternating; check every %d%s\n",
           lo, hi, o->step, o->iters, o->scale_bytes, o->min_iters, o->iters, o->block,
           o->check_every, o->check_every == 0 ? " (warm-up only)" : "th");
    printf("# TRELLIS_PROGRESS=%s, MPI thread level provided: %s; trellis: %s\n", ri->progress,
           ri->thread, ri->version ? ri->version : "NOT loaded (both columns are the MPI library)");
    printf("# mpi = PMPI_Ix/PMPI_Test/PMPI_Wait, trellis = MPI_Ix/MPI_Test/MPI_Wait; compute: "
           "units of %ld dependent multiply-adds (about 1 us each), units = pure p10 / 1 us\n",
           ops_per_unit);
    printf("# times in us: per iteration the slowest rank, median over iterations; overlap %% = "
           "100 x (1 - (ovl - comp) / pure), clamped to [0,100]; test: MPI_Test every that many "
           "units (0: none); ovl%%/mpi = trellis overlap / mpi overlap\n");
    printf("%-12s %7s %4s %5s %9s %9s %9s %6s %9s %9s %9s %6s %8s\n", "coll", "bytes", "test",
           "iters", "mpi_pure", "mpi_comp", "mpi_ovl", "mpi_%", "trl_pure", "trl_comp", "trl_ovl",
           "trl_%", "ovl%/mpi");
    if (ri->csv)
        fprintf(ri->csv, "collective,bytes,count,ranks,hosts,impl,test_every,iters,units,"
                         "pure_median_us,pure_p10_us,pure_p90_us,compute_median_us,"
                         "compute_p10_us,compute_p90_us,overlapped_median_us,overlapped_p10_us,"
                         "overlapped_p90_us,overlap_pct,overlap_raw_pct,errors,progress,"
                         "thread_level,trellis_loaded,pure_others_cpu_us,"
                         "overlapped_others_cpu_us\n");
}

/* Sweep -------------------------------------------------------------------- */

/* Runs one (collective, size) and prints its rows (rank 0). */
static void run_row(bench *b, const options *o, enum coll c, size_t bytes, int count,
                    const run_info *ri, long long *total_errors)
{
    row w = {.b = b, .o = o, .c = c, .count = count};
    const enum variant impls[2] = {VAR_MPI, VAR_TRELLIS};
    int n = bench_iterations(o->iters, o->scale_bytes, o->min_iters, bytes);

    /* Warm-up: every result checked; Trellis builds and caches its
     * schedule here. */
    variant pure[2] = {{PURE, VAR_MPI, 0}, {PURE, VAR_TRELLIS, 0}};
    for (int i = 0; i < o->warmup; i++)
        for (int k = 0; k < 2; k++)
            (void)iterate(&w, &pure[k], 1, &(double){0});

    /* Phase 1: the pure times that size the compute loops. */
    size_t cells = (size_t)n * (2 + 2 + 2 * MAX_TESTS);
    double *times = malloc(sizeof(double) * cells);
    double *others = malloc(sizeof(double) * cells);
    if (!times || !others) {
        fprintf(stderr, "overlap: out of memory\n");
        MPI_Abort(b->comm, 2);
    }
    measure(&w, pure, 2, n, times, others);
    for (int k = 0; k < 2; k++) {
        bench_stats s = bench_summarize(times + k * n, n);
        /* One unit is about 1 us. The 10th percentile, not the median:
         * on a busy machine a descheduled rank stretches many iterations,
         * and a compute loop sized to those would hide anything. */
        w.units[impls[k]] = (long)(s.p10 + 0.5);
    }
    if (o->same_compute) /* one program's computation: the library's length for both */
        w.units[VAR_TRELLIS] = w.units[VAR_MPI];

    /* Phase 2: everything, interleaved. */
    variant vs[2 + 2 + 2 * MAX_TESTS];
    int nv = 0;
    for (int k = 0; k < 2; k++) {
        vs[nv++] = (variant){PURE, impls[k], 0};
        vs[nv++] = (variant){COMPUTE, impls[k], 0};
        for (int t = 0; t < o->ntests; t++)
            vs[nv++] = (variant){OVERLAPPED, impls[k], o->tests[t]};
    }
    measure(&w, vs, nv, n, times, others);
    long long errs[NVAR] = {0};
    PMPI_Allreduce(w.errors, errs, NVAR, MPI_LONG_LONG, MPI_SUM, b->comm);
    *total_errors += errs[VAR_MPI] + errs[VAR_TRELLIS];
    if (b->rank != 0) {
        free(times);
        free(others);
        return;
    }
    bench_stats st[2 + 2 + 2 * MAX_TESTS], so[2 + 2 + 2 * MAX_TESTS];
    for (int k = 0; k < nv; k++) {
        st[k] = bench_summarize(times + k * n, n);
        so[k] = bench_summarize(others + k * n, n);
    }
    const int per_impl = 2 + o->ntests; /* pure, compute, overlapped per test value */
    char hb[32];
    bench_human_bytes(bytes, hb, sizeof hb);
    for (int t = 0; t < o->ntests; t++) {
        double pct[2];
        printf("%-12s %7s %4d %5d", coll_inames[c], hb, o->tests[t], n);
        for (int k = 0; k < 2; k++) {
            const bench_stats *p = &st[k * per_impl], *cp = &st[k * per_impl + 1],
                              *ov = &st[k * per_impl + 2 + t];
            double raw = overlap_pct(p->median, cp->median, ov->median);
            pct[k] = clamp_pct(raw);
            printf(" %9.2f %9.2f %9.2f %6.1f", p->median, cp->median, ov->median, pct[k]);
            if (ri->csv)
                fprintf(ri->csv,
                        "%s,%zu,%d,%d,%d,%s,%d,%d,%ld,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,"
                        "%.4f,%.2f,%.2f,%lld,%s,%s,%d,%.2f,%.2f\n",
                        coll_inames[c], bytes, count, b->size, ri->hosts, var_names[impls[k]],
                        o->tests[t], n, w.units[impls[k]], p->median, p->p10, p->p90, cp->median,
                        cp->p10, cp->p90, ov->median, ov->p10, ov->p90, pct[k], raw, errs[impls[k]],
                        ri->progress, ri->thread, ri->version != NULL, so[k * per_impl].median,
                        so[k * per_impl + 2 + t].median);
        }
        if (pct[0] > 0)
            printf(" %8.2f", pct[1] / pct[0]);
        else
            printf(" %8s", pct[1] > 0 ? "inf" : "-");
        if (errs[VAR_MPI] || errs[VAR_TRELLIS])
            printf(" FAIL(wrong results or errors: mpi %lld, trellis %lld)", errs[VAR_MPI],
                   errs[VAR_TRELLIS]);
        printf("\n");
    }
    fflush(stdout);
    if (ri->csv)
        fflush(ri->csv);
    free(times);
    free(others);
}

int main(int argc, char **argv)
{
    const char *progress = getenv("TRELLIS_PROGRESS");
    int want_multiple = progress && strcmp(progress, "thread") == 0;
    for (int i = 1; i < argc; i++)
        want_multiple |= strcmp(argv[i], "--thread-multiple") == 0;
    int provided = MPI_THREAD_SINGLE;
    if (want_multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    bench b = {.comm = MPI_COMM_WORLD, .dtype = MPI_INT};
    PMPI_Comm_rank(b.comm, &b.rank);
    PMPI_Comm_size(b.comm, &b.size);
    options o;
    int prc = parse_options(argc, argv, b.rank, &o);
    if (prc != 0) {
        MPI_Finalize();
        return prc == 1 ? 0 : 2;
    }

    size_t cap = 64;
    for (int c = 0; c < NCOLL; c++) {
        size_t need = o.colls[c] ? coll_buffer_bytes((enum coll)c, o.max_bytes, b.size) : 0;
        cap = need > cap ? need : cap;
    }
    if (coll_alloc_counts(&b) != 0 || posix_memalign(&b.sbuf, 64, cap) != 0 ||
        posix_memalign(&b.rbuf, 64, cap) != 0) {
        fprintf(stderr, "overlap: rank %d: out of memory\n", b.rank);
        MPI_Abort(b.comm, 2);
    }
    memset(b.sbuf, 0, cap);
    memset(b.rbuf, 0, cap);

    const char *(*version)(void) = bench_trellis_version_fn();
    int loaded = version != NULL, loaded_all = 0;
    PMPI_Allreduce(&loaded, &loaded_all, 1, MPI_INT, MPI_MIN, b.comm);
    run_info ri = {.progress = progress ? progress : "unset",
                   .version = loaded_all ? version() : NULL,
                   .thread = thread_level(provided),
                   .hosts = host_count(b.comm)};
    int csv_ok = 1;
    if (b.rank == 0 && o.csv) {
        ri.csv = fopen(o.csv, "w");
        csv_ok = ri.csv != NULL;
        if (!csv_ok)
            fprintf(stderr, "overlap: cannot open %s\n", o.csv);
    }
    PMPI_Bcast(&csv_ok, 1, MPI_INT, 0, b.comm);
    if (!csv_ok) {
        MPI_Finalize();
        return 2;
    }
    calibrate(b.comm);
    if (b.rank == 0) {
        print_header(&b, &o, &ri);
        fflush(stdout);
    }

    size_t sizes[128];
    int nsizes = bench_sizes(o.min_bytes, o.max_bytes, o.step, sizes, 128);
    long long total_errors = 0;
    for (int c = 0; c < NCOLL; c++) {
        if (!o.colls[c])
            continue;
        size_t prev = 0;
        for (int r = 0; r < nsizes; r++) {
            size_t bytes = 0;
            int count = coll_row((enum coll)c, sizes[r], b.size, &bytes);
            if (r > 0 && bytes == prev)
                continue; /* reduce_scatter's rounding: the same row again */
            prev = bytes;
            if (coll_set_counts(&b, count) != 0) {
                if (b.rank == 0)
                    fprintf(stderr, "overlap: %zu B is too large for %d ranks\n", sizes[r], b.size);
                break;
            }
            run_row(&b, &o, (enum coll)c, bytes, count, &ri, &total_errors);
            if (c == COLL_BARRIER)
                break;
        }
    }
    if (b.rank == 0) {
        if (total_errors)
            printf("# FAILED: %lld wrong results or errors (see stderr)\n", total_errors);
        else
            printf("# all checked results correct\n");
        if (ri.csv)
            fclose(ri.csv);
    }
    coll_free(&b);
    MPI_Finalize();
    return total_errors ? 1 : 0;
}
