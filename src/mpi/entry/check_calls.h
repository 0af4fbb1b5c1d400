/* TRELLIS_CHECK's description of each collective call (engine/check.h):
 * trl_check_<name>(MPI_Name's arguments, mode, site) fills the fields that
 * must match across ranks for that collective, the pre-exchange for the
 * forms whose blocks differ per peer, and compares them. Returns an MPI
 * error code (the job stops on a mismatch). */
#ifndef TRL_CHECK_CALLS_H
#define TRL_CHECK_CALLS_H

#include <mpi.h>

#include "mpi/engine/engine.h"
#include "mpi/entry/coll_list.h"

#define TRL_CHECK_DECL(ID, Name, name, forms, binding, ...)                                        \
    int trl_check_##name(TRL_C_PARAMS(__VA_ARGS__), const trl_mode *mode, const void *site);
TRL_MPI_ALL_COLLECTIVES(TRL_CHECK_DECL)
#undef TRL_CHECK_DECL

/* Hand the check Trellis' own allreduce for its blocking checks (entries.c;
 * after trl_check_init). */
void trl_entries_check_start(void);

#endif
