/* Verbose mode's reports (TRELLIS_VERBOSE, core/log.h) of what the context
 * decides: each communicator's layout and shared memory when it is set up,
 * and each distinct choice of the rules, once. */
#ifndef TRL_MPI_VERBOSE_H
#define TRL_MPI_VERBOSE_H

#include <stddef.h>

#include "algo/algo.h"
#include "exec/shm.h"
#include "select/rules.h"
#include "topo/topo.h"

/* A communicator of size ranks was set up, laid out as topo, with shm. */
void trl_say_comm(int size, const trl_topo *topo, const trl_shm *shm);

/* The rules chose ch for a call (its a->size, a->topo, a->inter filled in)
 * whose size the rules saw as bytes: said once per distinct choice. */
void trl_say_choice(const trl_coll_args *a, size_t bytes, const trl_choice *ch);

/* Forget what was said (MPI_Finalize). */
void trl_verbose_finalize(void);

#endif
