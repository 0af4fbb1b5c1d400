/* MPI_Init, MPI_Init_thread and MPI_Finalize: start and stop Trellis around
 * the MPI library. */
#include <mpi.h>

#include "mpi/engine.h"
#include "mpi/holds.h"
#include "mpi/inter.h"
#include "mpi/runtime.h"

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        trl_runtime_init();
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        trl_engine_init(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        trl_runtime_init();
        trl_engine_init(*provided);
    }
    return rc;
}

int MPI_Finalize(void)
{
    trl_engine_finalize();
    trl_holds_finalize();
    trl_inter_finalize();
    trl_runtime_finalize();
    return PMPI_Finalize();
}
