/* An error handler the program sets after Trellis set its communicator up
 * is the one an error in a collective's schedule reaches, as with the MPI
 * library's own collectives, and the error keeps its class.
 *
 * Trellis runs schedules on a duplicate of each communicator, made when the
 * communicator is; errors found by the MPI library's transport there once
 * went to the handler the communicator had then (MPI_ERRORS_ARE_FATAL: the
 * job aborted though the program had asked for its own handler), and a
 * Testsome over the schedule's requests returned MPI_ERR_IN_STATUS, which no
 * collective may return.
 *
 * The program makes an erroneous call on purpose: rank 0 broadcasts 64 ints
 * while the others expect 4, so every other rank's receive is truncated.
 * Expected: rank 0 returns MPI_SUCCESS; every other rank MPI_ERR_TRUNCATE,
 * through the program's handler, called once, with the program's
 * communicator. Run with TRELLIS_SHM=0 (the library's transport) and
 * without (Trellis' own shared memory finds the truncation itself). */
#include <mpi.h>
#include <stdio.h>

#include "check.h"

static int rank, failures, checks;
static MPI_Comm user;
static int handled, handled_on_user, handled_class;

static void handler(MPI_Comm *comm, int *code, ...)
{
    int same;
    MPI_Comm_compare(*comm, user, &same);
    handled++;
    handled_on_user += same == MPI_IDENT;
    MPI_Error_class(*code, &handled_class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &user); /* Trellis sets it up here */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(user, eh);
    int buf[64];
    for (int i = 0; i < 64; i++)
        buf[i] = rank == 0 ? i : -1;
    int rc = MPI_Bcast(buf, rank == 0 ? 64 : 4, MPI_INT, 0, user);
    int cls;
    MPI_Error_class(rc, &cls);
    if (rank == 0) {
        CHECK(rc == MPI_SUCCESS, "root: rc %d", rc);
        CHECK(handled == 0, "root: handler called %d times", handled);
    } else {
        CHECK(cls == MPI_ERR_TRUNCATE, "rc %d of class %d, want MPI_ERR_TRUNCATE (%d)", rc, cls,
              MPI_ERR_TRUNCATE);
        CHECK(handled == 1, "handler called %d times, want once", handled);
        CHECK(handled_on_user == handled, "handler called %d times on another communicator",
              handled - handled_on_user);
        CHECK(handled_class == MPI_ERR_TRUNCATE, "handler saw class %d", handled_class);
    }
    MPI_Errhandler_free(&eh);
    int rc_summary = check_summary("errhandler_late", "", failures, checks);
    MPI_Finalize();
    return rc_summary;
}
