/* What one request costs in the MPI library alone, per iteration, for the
 * two kinds of handle Trellis hands out (src/mpi/engine/engine.c): a generalized
 * request (a non-blocking collective's: MPI_Grequest_start, then
 * MPI_Grequest_complete, then MPI_Wait, which calls its query and free
 * functions) and an inactive persistent receive (a persistent collective's:
 * MPI_Recv_init, then MPI_Request_free). Against an empty loop. Run it
 * without Trellis: it measures the library.
 *
 *   mpirun -np 1 build/bench/request_cost [iterations] [repetitions]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    memset(st, 0, sizeof *st);
    return MPI_SUCCESS;
}
static int release(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    int reps = argc > 2 ? atoi(argv[2]) : 3;
    static char none;
    volatile long sink = 0;
    printf("# ns per iteration, %ld iterations, each repetition on its own line\n", n);
    printf("empty grequest_start+complete+wait recv_init+free\n");
    for (int r = 0; r < reps; r++) {
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++)
            sink += i;
        double empty = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Request q;
            MPI_Grequest_start(query, release, cancel, NULL, &q);
            MPI_Grequest_complete(q);
            MPI_Wait(&q, MPI_STATUS_IGNORE);
        }
        double greq = MPI_Wtime() - t0;
        t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            MPI_Request q;
            MPI_Recv_init(&none, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &q);
            MPI_Request_free(&q);
        }
        double pers = MPI_Wtime() - t0;
        printf("%.1f %.1f %.1f\n", empty / n * 1e9, greq / n * 1e9, pers / n * 1e9);
    }
    MPI_Finalize();
    return sink == -1;
}
