/* The two forms of every collective of coll_list.h, which its entry points
 * (entries.c) pass each call to:
 *
 *   int trl_intra_<name>(trl_comm *c, <MPI_Name's parameters>, mode, served)
 *       on an intracommunicator, whose state c is (context/comm.h);
 *   int trl_inter_<name>(trl_intercomm *ic, <the same>, mode, served)
 *       on an intercommunicator, whose state ic is (context/inter.h), for
 *       the collectives MPI defines there (`both` in the list).
 *
 * mode says how the program called (engine/engine.h); *served is false on
 * entry. A form serves the call (blocking, or as an op in flight) and sets
 * *served, or leaves it false, and then the entry point hands the call to
 * the MPI library in the program's own form (PMPI_Bcast, PMPI_Ibcast,
 * PMPIX_Bcast_init, ...). Each form is what differs between collectives:
 * the arguments it refuses (validate.h) and how they fill trl_coll_args;
 * what follows is shared (coll_common.h: trl_serve, trl_move_serve).
 * Intracommunicator forms: coll_bcast.c, coll_reduce.c, coll_gather.c,
 * coll_allgather.c, coll_alltoall.c, coll_neighbor.c; intercommunicator forms:
 * inter_coll.c, inter_move.c. */
#ifndef TRL_COLL_FORMS_H
#define TRL_COLL_FORMS_H

#include <mpi.h>
#include <stdbool.h>

#include "mpi/context/comm.h"
#include "mpi/context/inter.h"
#include "mpi/engine/engine.h"
#include "mpi/entry/coll_list.h"

#define TRL_FORM_INTER_both(name, ...)                                                             \
    int trl_inter_##name(trl_intercomm *ic, __VA_ARGS__, const trl_mode *mode, bool *served);
#define TRL_FORM_INTER_intra(name, ...)
#define TRL_FORMS(ID, Name, name, forms, binding, ...)                                             \
    int trl_intra_##name(trl_comm *c, TRL_C_PARAMS(__VA_ARGS__), const trl_mode *mode,             \
                         bool *served);                                                            \
    TRL_FORM_INTER_##forms(name, TRL_C_PARAMS(__VA_ARGS__))
TRL_MPI_ALL_COLLECTIVES(TRL_FORMS)
#undef TRL_FORMS
#undef TRL_FORM_INTER_both
#undef TRL_FORM_INTER_intra

#endif
