/* Trellis' reduction kernels (trl_reduce_local, src/reduce) against the MPI
 * library's (PMPI_Reduce_local): bytes per second for every (datatype,
 * operation) pair Trellis covers, 1 KiB to 16 MiB by powers of 4. Unlike
 * the other benchmark programs it links the kernels themselves (not
 * libtrellis.so): it times one local call, not a collective.
 *
 * Method: per pair and size, `--reps` samples of each, the two alternated
 * (which goes first alternates too); a sample repeats the call until it
 * has reduced at least 1 MiB, on the same buffers; each side has its own
 * inout buffer, restored (untimed) before every sample from the same
 * start, so from 1 MiB up (one call a sample) every call reduces fresh
 * data: repeated calls into one buffer soon leave MIN, MINLOC or LOR with
 * nothing to change, and a kernel that stores or reads only where needed
 * would be timed on that artefact. Values stay ordinary under repetition
 * (no denormals, no overflow to inf). Bytes per second from the
 * medians of the samples; ratio = the median over repetitions of the MPI
 * library's time / Trellis' time in that repetition (above 1: Trellis
 * faster), so load that comes and goes between repetitions cancels. One
 * process: run it under mpirun -np 1.
 *
 *   reduce_kernels [--reps N] [--min-bytes B] [--max-bytes B] [--only NAME] [--csv FILE] [--control]
 *
 * --control times the MPI library against itself (both sides call
 * PMPI_Reduce_local): the spread of its ratios around 1 is the noise floor
 * of the machine at the time.
 *
 * Writes the CSV (type,op,bytes,count,trl_MBps,mpi_MBps,ratio,reps) to
 * FILE (default: standard output) and a summary to standard output: per
 * pair the worst ratio over the sizes, and the worst pair of all.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "reduce/reduce.h"

typedef struct {
    MPI_Datatype t;
    const char *name;
    char kind; /* i integer, f floating, c complex, b bool, y byte; pairs: F float_int,
                  D double_int, L long_int, 2 2int, S short_int, Q long_double_int */
} bench_type;

#define T(handle, kind)                                                                            \
    {                                                                                              \
        handle, #handle, kind                                                                      \
    }
static const bench_type types[] = {
    T(MPI_SIGNED_CHAR, 'i'),
    T(MPI_UNSIGNED_CHAR, 'i'),
    T(MPI_SHORT, 'i'),
    T(MPI_UNSIGNED_SHORT, 'i'),
    T(MPI_INT, 'i'),
    T(MPI_UNSIGNED, 'i'),
    T(MPI_LONG, 'i'),
    T(MPI_UNSIGNED_LONG, 'i'),
    T(MPI_LONG_LONG, 'i'),
    T(MPI_UNSIGNED_LONG_LONG, 'i'),
    T(MPI_INT8_T, 'i'),
    T(MPI_INT16_T, 'i'),
    T(MPI_INT32_T, 'i'),
    T(MPI_INT64_T, 'i'),
    T(MPI_UINT8_T, 'i'),
    T(MPI_UINT16_T, 'i'),
    T(MPI_UINT32_T, 'i'),
    T(MPI_UINT64_T, 'i'),
    T(MPI_AINT, 'i'),
    T(MPI_OFFSET, 'i'),
    T(MPI_COUNT, 'i'),
    T(MPI_INTEGER, 'i'),
    T(MPI_REAL, 'f'),
    T(MPI_DOUBLE_PRECISION, 'f'),
    T(MPI_COMPLEX, 'c'),
    T(MPI_DOUBLE_COMPLEX, 'c'),
    T(MPI_FLOAT, 'f'),
    T(MPI_DOUBLE, 'f'),
    T(MPI_LONG_DOUBLE, 'f'),
    T(MPI_C_FLOAT_COMPLEX, 'c'),
    T(MPI_C_DOUBLE_COMPLEX, 'c'),
    T(MPI_C_LONG_DOUBLE_COMPLEX, 'c'),
    T(MPI_C_BOOL, 'b'),
    T(MPI_BYTE, 'y'),
    T(MPI_FLOAT_INT, 'F'),
    T(MPI_DOUBLE_INT, 'D'),
    T(MPI_LONG_INT, 'L'),
    T(MPI_2INT, '2'),
    T(MPI_SHORT_INT, 'S'),
    T(MPI_LONG_DOUBLE_INT, 'Q'),
};
#undef T
#define NTYPES (int)(sizeof types / sizeof *types)

static const struct {
    const char *name;
    int prod; /* values must be 1 to stay ordinary under repetition */
} op_info[] = {{"MAX", 0},  {"MIN", 0},  {"SUM", 0}, {"PROD", 1}, {"LAND", 0},   {"LOR", 0},
               {"LXOR", 0}, {"BAND", 0}, {"BOR", 0}, {"BXOR", 0}, {"MINLOC", 0}, {"MAXLOC", 0}};
#define NOPS 12
static MPI_Op op_handle(int o)
{
    const MPI_Op h[NOPS] = {MPI_MAX,  MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_LOR,
                            MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};
    return h[o];
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Start values: element i of n, `extent` bytes each, for the kind; under
 * PROD every value is 1 (ints, floats; complex 1+0i), so repetition keeps
 * them as they are. Small values elsewhere: sums grow by at most a few per
 * call and stay far from overflow for floats. */
static void fill(unsigned char *buf, size_t n, size_t extent, char kind, int prod, unsigned salt)
{
    memset(buf, 0, n * extent);
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = buf + i * extent;
        int v = prod ? 1 : (int)((i * 7 + salt) % 5) - 2;
        switch (kind) {
        case 'i':
        case 'y': {
            int64_t x = v;
            memcpy(p, &x, extent < 8 ? extent : 8);
            break;
        }
        case 'b': *p = (unsigned char)(v > 0); break;
        case 'f':
            if (extent == sizeof(float)) {
                float x = (float)v;
                memcpy(p, &x, sizeof x);
            } else if (extent == sizeof(double)) {
                double x = v;
                memcpy(p, &x, sizeof x);
            } else {
                long double x = v;
                memcpy(p, &x, sizeof x);
            }
            break;
        case 'c':
            if (extent == 2 * sizeof(float)) {
                float x[2] = {(float)v, 0};
                memcpy(p, x, sizeof x);
            } else if (extent == 2 * sizeof(double)) {
                double x[2] = {v, 0};
                memcpy(p, x, sizeof x);
            } else {
                long double x[2] = {v, 0};
                memcpy(p, x, sizeof x);
            }
            break;
        default: { /* the pairs: a value and an index, ties among both */
            int k = (int)(i % 3);
/* clang-format off */
#define PAIR(T) { struct { T v; int k; } e; memset(&e, 0, sizeof e); e.v = (T)v; e.k = k; memcpy(p, &e, sizeof e); }
            if (kind == 'F') PAIR(float) else if (kind == 'D') PAIR(double) else if (kind == 'L') PAIR(long)
            else if (kind == '2') PAIR(int) else if (kind == 'S') PAIR(short) else PAIR(long double)
#undef PAIR
                    /* clang-format on */
                    break;
        }
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int reps = 15, min_bytes = 1024, max_bytes = 16 << 20;
    const char *only = NULL, *csv_path = NULL;
    int control = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc &&
            bench_parse_int(argv[i + 1], 1, &reps) == 0)
            i++;
        else if (!strcmp(argv[i], "--min-bytes") && i + 1 < argc &&
                 bench_parse_int(argv[i + 1], 1, &min_bytes) == 0)
            i++;
        else if (!strcmp(argv[i], "--max-bytes") && i + 1 < argc &&
                 bench_parse_int(argv[i + 1], 1, &max_bytes) == 0)
            i++;
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
            csv_path = argv[++i];
        else if (!strcmp(argv[i], "--control"))
            control = 1;
        else {
            fprintf(stderr, "usage: reduce_kernels [--reps N] [--min-bytes B] [--max-bytes B] "
                            "[--only NAME] [--csv FILE] [--control]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    FILE *csv = csv_path ? fopen(csv_path, "w") : stdout;
    if (!csv) {
        perror(csv_path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(csv, "type,op,bytes,count,trl_MBps,mpi_MBps,ratio,reps\n");

    size_t cap = (size_t)max_bytes + 64;
    unsigned char *in = malloc(cap), *io_trl = malloc(cap), *io_mpi = malloc(cap),
                  *io_start = malloc(cap);
    double *t_trl = malloc(sizeof(double) * (size_t)reps),
           *t_mpi = malloc(sizeof(double) * (size_t)reps),
           *ratios = malloc(sizeof(double) * (size_t)reps);
    double worst_ratio[NTYPES][NOPS];
    double worst = INFINITY;
    int worst_t = -1, worst_o = -1, worst_b = 0;

    for (int t = 0; t < NTYPES; t++) {
        if (only && !strstr(types[t].name, only))
            continue;
        MPI_Aint lb, extent;
        MPI_Type_get_extent(types[t].t, &lb, &extent);
        for (int o = 0; o < NOPS; o++) {
            worst_ratio[t][o] = NAN;
            if (!trl_reduce_covers(types[t].t, op_handle(o)))
                continue;
            worst_ratio[t][o] = INFINITY;
            for (int bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
                size_t n = (size_t)bytes / (size_t)extent;
                if (n == 0)
                    continue;
                int calls = bytes >= (1 << 20) ? 1 : (1 << 20) / bytes;
                fill(in, n, (size_t)extent, types[t].kind, op_info[o].prod, 1);
                fill(io_start, n, (size_t)extent, types[t].kind, op_info[o].prod, 2);
                for (int r = 0; r < reps; r++) {
                    for (int side = 0; side < 2; side++) {
                        int trl = (side + r) % 2 == 0;
                        memcpy(trl ? io_trl : io_mpi, io_start, n * (size_t)extent);
                        double t0 = now();
                        for (int c = 0; c < calls; c++) {
                            if (trl && !control)
                                trl_reduce_local(in, io_trl, n, types[t].t, op_handle(o));
                            else
                                PMPI_Reduce_local(in, trl ? io_trl : io_mpi, (int)n, types[t].t,
                                                  op_handle(o));
                        }
                        (trl ? t_trl : t_mpi)[r] = (now() - t0) / calls;
                    }
                }
                /* The ratio of each repetition's adjacent pair of samples,
                 * then the median: load that comes and goes cancels. */
                for (int r = 0; r < reps; r++)
                    ratios[r] = t_mpi[r] / t_trl[r];
                double ratio = median(ratios, reps);
                double bytes_done = (double)n * (double)extent;
                double trl_mbps = bytes_done / median(t_trl, reps) / 1e6;
                double mpi_mbps = bytes_done / median(t_mpi, reps) / 1e6;
                fprintf(csv, "%s,%s,%d,%zu,%.1f,%.1f,%.3f,%d\n", types[t].name, op_info[o].name,
                        bytes, n, trl_mbps, mpi_mbps, ratio, reps);
                fflush(csv);
                if (ratio < worst_ratio[t][o])
                    worst_ratio[t][o] = ratio;
                if (ratio < worst) {
                    worst = ratio;
                    worst_t = t, worst_o = o, worst_b = bytes;
                }
            }
        }
    }

    /* Summary: the worst ratio over the sizes, per pair. */
    if (control)
        printf("\ncontrol run: the \"Trellis\" side is the MPI library too");
    printf("\nworst ratio (Trellis / MPI library bytes per second) over %d..%d bytes, per pair; "
           "- where MPI defines no such pair\n%-26s",
           min_bytes, max_bytes, "type");
    for (int o = 0; o < NOPS; o++)
        printf(" %6s", op_info[o].name);
    printf("\n");
    for (int t = 0; t < NTYPES; t++) {
        if (only && !strstr(types[t].name, only))
            continue;
        printf("%-26s", types[t].name);
        for (int o = 0; o < NOPS; o++) {
            if (isnan(worst_ratio[t][o]))
                printf(" %6s", "-");
            else
                printf(" %6.2f", worst_ratio[t][o]);
        }
        printf("\n");
    }
    if (worst_t >= 0)
        printf("worst pair: %s %s at %d bytes: %.2f\n", types[worst_t].name, op_info[worst_o].name,
               worst_b, worst);
    if (csv != stdout)
        fclose(csv);
    free(in);
    free(io_trl);
    free(io_mpi);
    free(io_start);
    free(t_trl);
    free(t_mpi);
    free(ratios);
    MPI_Finalize();
    return 0;
}
