/* A plain MPI program: MPI_Allreduce where the MPI library's own kernels
 * go wrong on this machine's Open MPI 4.1.4, checked against values
 * computed here. 8- and 16-bit MPI_SUM must wrap modulo 2^bits (Open MPI's
 * AVX kernel saturates them at counts it vectorises), MPI_UNSIGNED_LONG
 * MAX must compare unsigned and MPI_OFFSET MIN signed (its generic kernel
 * swaps the two). The suite runs it with libtrellis.so preloaded and an
 * allreduce algorithm forced, so every combination happens in Trellis'
 * kernels; without Trellis it fails here, which is the point.
 *
 *   allreduce_wrap       exit status 0 when every check passed
 */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

/* Rank r's element i: spread over the whole range, so sums wrap. */
static uint64_t value(int r, int i)
{
    return (uint64_t)(i * 37 + r * 101 + 200) * 0x0101010101010101ull;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    enum { N = 1000 };
    static const struct {
        MPI_Datatype t;
        const char *name;
        int bytes;
    } sums[] = {
        {MPI_UINT8_T, "MPI_UINT8_T", 1},
        {MPI_INT8_T, "MPI_INT8_T", 1},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1},
        {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1},
        {MPI_UINT16_T, "MPI_UINT16_T", 2},
        {MPI_SHORT, "MPI_SHORT", 2},
    };
    unsigned char in[N * 2], out[N * 2];
    for (size_t k = 0; k < sizeof sums / sizeof *sums; k++) {
        int b = sums[k].bytes;
        for (int i = 0; i < N; i++) {
            uint64_t v = value(rank, i);
            memcpy(in + i * b, &v, (size_t)b); /* the low bytes (little-endian) */
        }
        MPI_Allreduce(in, out, N, sums[k].t, MPI_SUM, MPI_COMM_WORLD);
        int bad = -1;
        for (int i = 0; i < N && bad < 0; i++) {
            uint64_t want = 0, got = 0;
            for (int r = 0; r < p; r++)
                want += value(r, i);
            memcpy(&got, out + i * b, (size_t)b);
            if (got != (want & ((1ull << (8 * b)) - 1)))
                bad = i;
        }
        checks++;
        if (bad >= 0) {
            failures++;
            fprintf(stderr, "rank %d FAIL: allreduce %s SUM n=%d: element %d does not wrap\n", rank,
                    sums[k].name, N, bad);
        }
    }

    /* Unsigned and signed 64-bit comparisons at the extremes. */
    unsigned long ul[N], ul_out[N];
    MPI_Offset off[N], off_out[N];
    for (int i = 0; i < N; i++) {
        ul[i] = (i + rank) % 3 == 0 ? ULONG_MAX - (unsigned long)rank : (unsigned long)(i + rank);
        off[i] = (i + rank) % 3 == 0 ? -1 - (MPI_Offset)rank : (MPI_Offset)(i * 1000003 + rank);
    }
    MPI_Allreduce(ul, ul_out, N, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(off, off_out, N, MPI_OFFSET, MPI_MIN, MPI_COMM_WORLD);
    int bad_ul = -1, bad_off = -1;
    for (int i = 0; i < N; i++) {
        unsigned long want_ul = 0;
        MPI_Offset want_off = LLONG_MAX;
        for (int r = 0; r < p; r++) {
            unsigned long u = (i + r) % 3 == 0 ? ULONG_MAX - (unsigned long)r
                                               : (unsigned long)(i + r);
            MPI_Offset o = (i + r) % 3 == 0 ? -1 - (MPI_Offset)r : (MPI_Offset)(i * 1000003 + r);
            want_ul = u > want_ul ? u : want_ul;
            want_off = o < want_off ? o : want_off;
        }
        if (bad_ul < 0 && ul_out[i] != want_ul)
            bad_ul = i;
        if (bad_off < 0 && off_out[i] != want_off)
            bad_off = i;
    }
    checks += 2;
    if (bad_ul >= 0) {
        failures++;
        fprintf(stderr, "rank %d FAIL: allreduce MPI_UNSIGNED_LONG MAX: element %d wrong\n", rank,
                bad_ul);
    }
    if (bad_off >= 0) {
        failures++;
        fprintf(stderr, "rank %d FAIL: allreduce MPI_OFFSET MIN: element %d wrong\n", rank,
                bad_off);
    }

    int total = 0;
    MPI_Reduce(&failures, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("allreduce_wrap ranks=%d: %d checks, %d failed\n", p, checks * p, total);
    MPI_Finalize();
    return total != 0;
}
