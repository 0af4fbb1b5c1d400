/* A program for the tracer's tests (tests/python/test_trace.py): a known
 * sequence of collectives on MPI_COMM_WORLD, each result checked, and one
 * rank entering the last call late.
 *
 *   trace_prog [LATE_RANK LATE_MS]
 *
 * Calls, in order: 3 x MPI_Allreduce of 1024 ints (sum), 2 x MPI_Bcast of
 * 4096 bytes from root 1, then LATE_RANK sleeps LATE_MS ms and all call
 * MPI_Allreduce once more. Exit status 0 when every result was right.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { COUNT = 1024, BYTES = 4096 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int late = argc > 2 ? atoi(argv[1]) : -1;
    long late_ms = argc > 2 ? atol(argv[2]) : 0;

    static int in[COUNT], out[COUNT];
    static unsigned char buf[BYTES];
    for (int k = 0; k < 4; k++) {
        if (k == 3) {
            for (int b = 0; b < 2; b++) {
                for (int i = 0; i < BYTES; i++)
                    buf[i] = rank == 1 % size ? (unsigned char)(i * 7 + b) : 0;
                MPI_Bcast(buf, BYTES, MPI_BYTE, 1 % size, MPI_COMM_WORLD);
                for (int i = 0; i < BYTES; i++)
                    bad += buf[i] != (unsigned char)(i * 7 + b);
            }
            if (rank == late) {
                struct timespec ts = {late_ms / 1000, (late_ms % 1000) * 1000000};
                nanosleep(&ts, NULL);
            }
        }
        for (int i = 0; i < COUNT; i++)
            in[i] = rank * 1000 + i + k;
        MPI_Allreduce(in, out, COUNT, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < COUNT; i++)
            bad += out[i] != 1000 * size * (size - 1) / 2 + size * (i + k);
    }
    int all;
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("trace_prog ranks=%d: %s\n", size, all ? "WRONG RESULTS" : "ok");
    MPI_Finalize();
    return all != 0;
}
