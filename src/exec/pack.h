/* PMPI_Pack and PMPI_Unpack of count elements of type at a user's buffer,
 * which may be MPI_BOTTOM (a type holding absolute addresses): MPICH
 * refuses a NULL buffer there, so such a call packs a copy of the type
 * shifted to start at its own first byte. The collectives' staging and the
 * shared-memory transport both pack through these. */
#ifndef TRL_PACK_H
#define TRL_PACK_H

#include <mpi.h>

int trl_pack(const void *buf, int count, MPI_Datatype type, void *out, int outsize, int *pos,
             MPI_Comm comm);
int trl_unpack(const void *in, int insize, int *pos, void *buf, int count, MPI_Datatype type,
               MPI_Comm comm);

#endif
