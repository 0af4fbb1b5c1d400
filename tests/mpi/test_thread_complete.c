/* A progress thread completes a non-blocking collective's request while
 * the program's thread tests it: the program may see the request complete,
 * free it and go on to its next call before the thread's completion has
 * returned, and the MPI library then calls Trellis' free callback from
 * inside that completion, on the progress thread. The callback must not
 * wait for the engine's lock, which that thread holds: it did once, and
 * both threads hung (the neighbourhood lanes' thread test, seed 1018).
 *
 * Many short calls, each tested in a spin or waited for, each followed at
 * once by the next call (which takes the engine's lock), every result
 * checked. Run under TRELLIS_PROGRESS=thread; argv[1]: calls (default
 * 20000). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

static int rank, failures, checks;

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long calls = argc > 1 ? atol(argv[1]) : 20000;
    for (long i = 0; i < calls; i++) {
        int mine = rank + (int)i, sum = -1, flag = 0;
        MPI_Request req;
        MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
        if (i % 2) {
            while (!flag)
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
        int want = size * (size - 1) / 2 + size * (int)i;
        CHECK(sum == want, "call %ld: sum %d, want %d", i, sum, want);
    }
    char extra[64];
    snprintf(extra, sizeof extra, " calls=%ld thread=%d", calls, provided == MPI_THREAD_MULTIPLE);
    int rc = check_summary("thread_complete", extra, failures, checks);
    MPI_Finalize();
    return rc;
}
