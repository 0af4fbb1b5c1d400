/* A communicator's neighbourhood (algo/nbhd.h), read from the MPI library
 * once, when Trellis sets the communicator up. */
#ifndef TRL_MPI_NBHD_MPI_H
#define TRL_MPI_NBHD_MPI_H

#include <mpi.h>

#include "algo/nbhd.h"

/* Fill *out (NULL: this rank has no state to fill, but takes part) with
 * every rank's neighbours of comm: a Cartesian communicator's from its
 * shape (no communication), an MPI_Graph_create one's from its lists, a
 * distributed graph's gathered from every rank (collective over comm: an
 * allgather of the degrees, then of the lists). Left empty (size 0) for a
 * communicator without a topology, or where a rank could not read or keep
 * its lists (every rank then leaves it empty alike). */
void trl_nbhd_read(MPI_Comm comm, trl_nbhd *out);

#endif
