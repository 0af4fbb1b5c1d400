/* The persistent collectives: Open MPI 4.1's MPIX_Xxx_init (its pcollreq
 * extension, mpi-ext.h) and, where the MPI library is MPI-4, the standard
 * MPI_Xxx_init. Each makes an op that runs at every MPI_Start (engine.h:
 * the schedule is chosen and built here, once), or hands the call to the
 * MPI library's own. One definition for all, from the list in
 * coll_list.h. The info argument carries no hint Trellis uses. */
#include <mpi.h>

#include "exec/mpi_impl.h"
#include "mpi/entry/coll_entry.h"
#include "mpi/entry/coll_list.h"

#ifdef TRL_PCOLL /* each MPI's names: mpi_impl.h */
#define TRL_INIT(Name) TRL_PCOLL(Name##_init)
#define TRL_INIT_MPI(Name) TRL_PCOLL_PMPI(Name##_init)
#define TRL_PERSISTENT(Name, name, params, args)                                              \
    int TRL_INIT(Name)(TRL_UNPAREN params, MPI_Info info, MPI_Request *request)               \
    {                                                                                         \
        trl_mode mode = {TRL_MODE_PERSISTENT, request};                                       \
        bool served;                                                                          \
        int rc = trl_##name(TRL_UNPAREN args, &mode, &served);                                \
        return served ? rc : TRL_INIT_MPI(Name)(TRL_UNPAREN args, info, request);             \
    }

TRL_MPI_COLLECTIVES(TRL_PERSISTENT)
#endif
