/* The topology of MPI_COMM_WORLD found at start-up, and a communicator's
 * view of it (docs/topology.md). PMPI calls only. */
#ifndef TRL_TOPO_MPI_H
#define TRL_TOPO_MPI_H

#include <mpi.h>

#include "topo/topo.h"

/* Collective over world. Hosts from MPI_Comm_split_type(SHARED), numbered
 * in the order of their lowest rank; sockets and NUMA domains from hwloc:
 * the package and NUMA node holding every PU the process is bound to,
 * unknown (-1) where it is not bound within one, and numbered 0, 1, ...
 * across all hosts in the order of their first rank. */
int trl_topo_discover(MPI_Comm world, trl_topo *out);

/* comm's ranks placed by MPI_COMM_WORLD's layout `world`, with no
 * communication. TRL_ERR_UNSUPPORTED if comm holds a process outside
 * MPI_COMM_WORLD (spawned). */
int trl_topo_for_comm(const trl_topo *world, MPI_Comm comm, trl_topo *out);

#endif
