/* An error in a collective's schedule comes back with its own class.
 *
 * The program sets MPI_ERRORS_RETURN on MPI_COMM_WORLD before it makes its
 * communicator, which inherits it, and so does the duplicate Trellis runs
 * the communicator's schedules on. It then makes an erroneous call on
 * purpose: rank 0 broadcasts 64 ints while rank 1 expects 4, so rank 1's
 * receive is truncated. Expected: rank 0 returns MPI_SUCCESS, rank 1 an
 * error of class MPI_ERR_TRUNCATE, as from the MPI library's own bcast.
 * Through the library's transport (TRELLIS_SHM=0) the executor's Testsome,
 * its statuses ignored, once returned MPI_ERR_IN_STATUS, which no
 * collective may return; through Trellis' shared memory (the default) the
 * truncation is Trellis' own finding. On 2 ranks: with more, the library's
 * own bcast hangs on this program (a relay rank stops at its error). */
#include <mpi.h>
#include <stdio.h>

#include "check.h"

static int rank, failures, checks;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm); /* Trellis sets it up here */
    int buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = rank == 0 ? i : -1;
    int rc = MPI_Bcast(buf, rank == 0 ? 64 : 4, MPI_INT, 0, comm);
    int cls;
    MPI_Error_class(rc, &cls);
    if (rank == 0)
        CHECK(rc == MPI_SUCCESS, "root: rc %d", rc);
    else
        CHECK(cls == MPI_ERR_TRUNCATE, "rc %d of class %d, want MPI_ERR_TRUNCATE (%d)", rc, cls,
              MPI_ERR_TRUNCATE);
    int rc_summary = check_summary("error_class", "", failures, checks);
    MPI_Finalize();
    return rc_summary;
}
