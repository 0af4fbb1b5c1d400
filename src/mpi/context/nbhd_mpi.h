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

/* This rank's in- and out-degree in comm's topology, as MPI reads them for
 * the neighbourhood collectives (a Cartesian rank: two neighbours a
 * dimension, MPI_PROC_NULL ones included; an MPI_Graph_create one: its
 * neighbours, both ways). Local: no other rank takes part. Returns the
 * topology (MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH), or MPI_UNDEFINED where
 * comm has none or the library refuses (*in, *out then 0). */
int trl_nbhd_degrees(MPI_Comm comm, int *in, int *out);

#endif
