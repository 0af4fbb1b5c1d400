/* One rank runs out of memory where Trellis serves a call (fail_alloc.c
 * makes its large allocations fail): that rank must not hand the call to
 * the MPI library alone, where the other ranks, running Trellis' schedule,
 * would wait for it for ever. Run by run_no_memory.sh, which wants the job
 * to end by itself, non-zero, with Trellis' message: under the default
 * error handler the error ends it; with "returns" (MPI_ERRORS_RETURN) the
 * failing rank must get an error of class MPI_ERR_NO_MEM, say so and
 * abort. A run where every rank returns ran out of nothing: it fails. The
 * call is a bcast of a non-contiguous type, which Trellis packs into a
 * buffer of its own; its form (blocking, non-blocking, persistent) is
 * TRELLIS_TEST_MODE's (call_mode.h). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <mpi.h>

#include "call_mode.h"

enum { COUNT = 4 << 20 }; /* every other int: 16 MiB packed */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 1 && strcmp(argv[1], "returns") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype every_other;
    MPI_Type_vector(COUNT, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    /* Mapped, not allocated: the failing allocator is for Trellis alone. */
    size_t bytes = 2 * (size_t)COUNT * sizeof(int);
    int *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        perror("mmap");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (int i = 0; i < 2 * COUNT; i++)
        buf[i] = rank == 0 ? i : -1;
    int rc = MPI_Bcast(buf, 1, every_other, 0, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) {
        int cls;
        MPI_Error_class(rc, &cls);
        printf("rank %d: the bcast failed with %s\n", rank,
               cls == MPI_ERR_NO_MEM ? "MPI_ERR_NO_MEM" : "another error class");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    printf("rank %d: the bcast returned\n", rank);
    MPI_Type_free(&every_other);
    munmap(buf, bytes);
    MPI_Finalize();
    return 0;
}
