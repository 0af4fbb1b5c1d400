/* The topology of MPI_COMM_WORLD found at start-up, and a communicator's
 * view of it (docs/topology.md). */
#ifndef TRL_TOPO_MPI_H
#define TRL_TOPO_MPI_H

#include <mpi.h>

#include "topo/topo.h"

/* Collective over world: hosts from MPI_Comm_split_type(SHARED), sockets
 * and NUMA domains from hwloc (unknown where a rank is not bound within
 * one). */
int trl_topo_discover(MPI_Comm world, trl_topo *out);

/* comm's ranks placed by world's layout: no communication. */
int trl_topo_for_comm(const trl_topo *world, MPI_Comm comm, trl_topo *out);

#endif
