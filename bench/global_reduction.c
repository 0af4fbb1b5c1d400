/* Global reduction benchmark: Figure 4 of seed 000 (Bjørndalen et al.,
 * "Configurable collective communication in LAM-MPI", section 5).
 *
 * Every rank calls MPI_Allreduce on one int (MPI_SUM) ITERS times, with the
 * loop counter as its contribution, and checks every result against
 * i * size inside the timed loop, exactly as the figure does. The average
 * time per call is the loop's elapsed time divided by ITERS. The program
 * repeats this for several runs (the paper plots the average of 5 runs) and
 * prints one machine-readable line:
 *
 *   global_reduction ranks=N iters=1000 runs=5 avg_us=... min_us=...
 *     max_us=... errors=0 trellis=<version|none>
 *
 * (on one line). avg_us is the mean over runs of the per-call time of the
 * slowest rank in that run; min_us and max_us are the fastest and slowest
 * runs. Any wrong result is printed ("oops at ...") and counted; the
 * program exits with status 1 if any rank saw one.
 *
 * The collective under test is called as MPI_Allreduce, so it goes through
 * Trellis when libtrellis.so is preloaded. Everything the harness itself
 * needs (aligning ranks, gathering times and error counts) calls PMPI_*
 * directly, so it never goes through Trellis and never disturbs its
 * counters or caches. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

/* How many wrong results each rank prints before it only counts them. */
#define MAX_PRINTED_ERRORS 20

typedef const char *(*version_fn)(void);

/* Returns Trellis's version string when libtrellis.so is loaded in this
 * process, or NULL when it is not. */
static const char *trellis_loaded_version(void)
{
    version_fn fn = bench_trellis_version_fn();
    if (fn == NULL) {
        return NULL;
    }
    /* The version goes into a machine-readable key=value line, so any
     * blank in it becomes an underscore. */
    static char buf[128];
    const char *v = fn();
    snprintf(buf, sizeof buf, "%s", v != NULL && v[0] != '\0' ? v : "unknown");
    for (char *c = buf; *c != '\0'; c++) {
        if (*c == ' ' || *c == '\t' || *c == '\n') {
            *c = '_';
        }
    }
    return buf;
}

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s [--iters N] [--runs R] [--warmup W]\n"
            "  --iters N   MPI_Allreduce calls per timed run (default 1000)\n"
            "  --runs R    timed runs; the line reports their mean (default 5)\n"
            "  --warmup W  untimed, checked calls before the first run (default 10)\n",
            prog);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int iters = 1000;
    int runs = 5;
    int warmup = 10;
    for (int a = 1; a < argc; a++) {
        int *target = NULL;
        int min = 1;
        if (strcmp(argv[a], "--iters") == 0) {
            target = &iters;
        } else if (strcmp(argv[a], "--runs") == 0) {
            target = &runs;
        } else if (strcmp(argv[a], "--warmup") == 0) {
            target = &warmup;
            min = 0;
        } else if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            if (rank == 0) {
                usage(argv[0]);
            }
            MPI_Finalize();
            return 0;
        }
        if (target == NULL || a + 1 >= argc || bench_parse_int(argv[a + 1], min, target) != 0) {
            if (rank == 0) {
                fprintf(stderr, "global_reduction: bad argument '%s'\n", argv[a]);
                usage(argv[0]);
            }
            MPI_Finalize();
            return 2;
        }
        a++;
    }
    /* The expected sum i * size must fit in an int. */
    if ((long long)(iters - 1) * size > INT_MAX) {
        if (rank == 0) {
            fprintf(stderr, "global_reduction: --iters too large for %d ranks\n", size);
        }
        MPI_Finalize();
        return 2;
    }

    const char *version = trellis_loaded_version();
    long long errors = 0;
    int printed = 0;
    int hit = 1;
    int ghit = 0;

    /* Warm-up: lets Trellis build and cache its schedule and MPI open its
     * connections before anything is timed. Results are checked too. */
    for (int i = 0; i < warmup; i++) {
        MPI_Allreduce(&hit, &ghit, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (ghit != size) {
            errors++;
            if (printed++ < MAX_PRINTED_ERRORS) {
                fprintf(stderr, "rank %d: oops in warm-up %d. %d != %d\n", rank, i, ghit, size);
            }
        }
    }

    double *per_call = malloc(sizeof(double) * (size_t)runs);
    if (per_call == NULL) {
        fprintf(stderr, "global_reduction: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }

    for (int r = 0; r < runs; r++) {
        /* Align the ranks so each run starts together; the figure's first
         * MPI_Allreduce also does this, and it is kept below as written. */
        PMPI_Barrier(MPI_COMM_WORLD);
        MPI_Allreduce(&hit, &ghit, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            MPI_Allreduce(&i, &ghit, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (ghit != i * size) {
                errors++;
                if (printed++ < MAX_PRINTED_ERRORS) {
                    printf("rank %d: oops at %d. %d != %d\n", rank, i, ghit, i * size);
                }
            }
        }
        double t2 = MPI_Wtime();
        MPI_Allreduce(&hit, &ghit, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (ghit != size) {
            errors++;
            if (printed++ < MAX_PRINTED_ERRORS) {
                printf("rank %d: oops after run %d. %d != %d\n", rank, r, ghit, size);
            }
        }
        /* The run's time is that of the slowest rank. */
        double mine = (t2 - t1) / iters;
        PMPI_Allreduce(&mine, &per_call[r], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    }

    long long total_errors = 0;
    PMPI_Allreduce(&errors, &total_errors, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

    if (rank == 0) {
        double sum = 0.0;
        double lo = per_call[0];
        double hi = per_call[0];
        for (int r = 0; r < runs; r++) {
            sum += per_call[r];
            lo = per_call[r] < lo ? per_call[r] : lo;
            hi = per_call[r] > hi ? per_call[r] : hi;
        }
        printf("# global_reduction: %d x MPI_Allreduce(1 int, MPI_SUM) per run, %d runs, "
               "timer MPI_Wtime (tick %.3g us)\n",
               iters, runs, MPI_Wtick() * 1e6);
        printf("# per-run avg_us (slowest rank):");
        for (int r = 0; r < runs; r++) {
            printf(" %.3f", per_call[r] * 1e6);
        }
        printf("\n");
        if (version == NULL) {
            printf("# WARNING: Trellis is not loaded; MPI_Allreduce is the MPI library's own.\n");
        }
        printf("global_reduction ranks=%d iters=%d runs=%d avg_us=%.3f min_us=%.3f max_us=%.3f "
               "errors=%lld trellis=%s\n",
               size, iters, runs, sum / runs * 1e6, lo * 1e6, hi * 1e6, total_errors,
               version != NULL ? version : "none");
        if (total_errors != 0) {
            fprintf(stderr, "global_reduction: FAILED: %lld wrong MPI_Allreduce results\n",
                    total_errors);
        }
        fflush(stdout);
    }

    free(per_call);
    MPI_Finalize();
    return total_errors != 0 ? 1 : 0;
}
