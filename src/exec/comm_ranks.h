/* Where each rank of one communicator is in another, from their groups:
 * local, no communication. */
#ifndef TRL_COMM_RANKS_H
#define TRL_COMM_RANKS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>

/* out[i]: rank i of `from` as a rank of `to`, MPI_UNDEFINED where it is
 * not in `to` (out holds one entry per rank of `from`). False when out of
 * memory. */
static inline bool trl_comm_ranks_in(MPI_Comm from, MPI_Comm to, int *out)
{
    int n;
    PMPI_Comm_size(from, &n);
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks)
        return false;
    for (int i = 0; i < n; i++)
        ranks[i] = i;
    MPI_Group a, b;
    PMPI_Comm_group(from, &a);
    PMPI_Comm_group(to, &b);
    PMPI_Group_translate_ranks(a, n, ranks, b, out);
    PMPI_Group_free(&a);
    PMPI_Group_free(&b);
    free(ranks);
    return true;
}

#endif
