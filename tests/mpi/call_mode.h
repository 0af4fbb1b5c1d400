/* Included by the checker programs after <mpi.h>: their collective calls
 * go through call_mode.c, which makes each one blocking, non-blocking
 * (MPI_Ixxx + a completion call) or persistent (MPIX_/MPI_Xxx_init +
 * MPI_Start + a completion call + MPI_Request_free) as TRELLIS_TEST_MODE
 * says: blocking (the default), nonblocking, persistent, or mixed (the
 * three in turn, per communicator, so every rank of a call uses the same
 * form, as MPI requires). The checks stay the programs' own. */
#ifndef CALL_MODE_H
#define CALL_MODE_H

#include <mpi.h>

#define CALL_MODE_DECL(Name, name, params, args) int cm_##Name params;
#include "call_mode_list.h"
CALL_MODE_LIST(CALL_MODE_DECL)

#define MPI_Bcast                cm_Bcast
#define MPI_Reduce               cm_Reduce
#define MPI_Allreduce            cm_Allreduce
#define MPI_Barrier              cm_Barrier
#define MPI_Gather               cm_Gather
#define MPI_Gatherv              cm_Gatherv
#define MPI_Scatter              cm_Scatter
#define MPI_Scatterv             cm_Scatterv
#define MPI_Allgather            cm_Allgather
#define MPI_Allgatherv           cm_Allgatherv
#define MPI_Alltoall             cm_Alltoall
#define MPI_Alltoallv            cm_Alltoallv
#define MPI_Alltoallw            cm_Alltoallw
#define MPI_Reduce_scatter       cm_Reduce_scatter
#define MPI_Reduce_scatter_block cm_Reduce_scatter_block
#define MPI_Scan                 cm_Scan
#define MPI_Exscan               cm_Exscan
#define MPI_Neighbor_allgather   cm_Neighbor_allgather
#define MPI_Neighbor_allgatherv  cm_Neighbor_allgatherv
#define MPI_Neighbor_alltoall    cm_Neighbor_alltoall
#define MPI_Neighbor_alltoallv   cm_Neighbor_alltoallv
#define MPI_Neighbor_alltoallw   cm_Neighbor_alltoallw

#endif
