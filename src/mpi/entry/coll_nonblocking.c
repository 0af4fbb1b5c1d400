/* The non-blocking collectives, MPI_Ibcast ... MPI_Iexscan: each serves
 * the call through its collective's trl_x (coll_entry.h) as an op that
 * runs in the background (engine.h), or hands it to the MPI library's own
 * MPI_Ix. One definition for all, from the list in coll_list.h. */
#include <mpi.h>

#include "mpi/entry/coll_entry.h"
#include "mpi/entry/coll_list.h"

#define TRL_NONBLOCKING(Name, name, params, args)                                             \
    int MPI_I##name(TRL_UNPAREN params, MPI_Request *request)                                 \
    {                                                                                         \
        trl_mode mode = {TRL_MODE_NONBLOCKING, request};                                      \
        bool served;                                                                          \
        int rc = trl_##name(TRL_UNPAREN args, &mode, &served);                                \
        return served ? rc : PMPI_I##name(TRL_UNPAREN args, request);                         \
    }

TRL_MPI_COLLECTIVES(TRL_NONBLOCKING)
