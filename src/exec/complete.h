/* Completing a collective's own requests all at once (MPI_Testall,
 * MPI_Waitall). Where the communicator returns errors, the library answers
 * MPI_ERR_IN_STATUS, which no collective may return: these give the error
 * of the request that failed instead. */
#ifndef TRL_EXEC_COMPLETE_H
#define TRL_EXEC_COMPLETE_H

#include <mpi.h>

/* The error behind MPI_ERR_IN_STATUS over the n statuses st: the first
 * that names one (MPI_ERR_OTHER if none does). Inline: the executor's
 * Testsome and Waitsome use it too, in programs without complete.c. */
static inline int trl_status_error(const MPI_Status *st, int n)
{
    for (int k = 0; k < n; k++)
        if (st[k].MPI_ERROR != MPI_SUCCESS && st[k].MPI_ERROR != MPI_ERR_PENDING)
            return st[k].MPI_ERROR;
    return MPI_ERR_OTHER;
}

/* MPI_Testall over reqs, its MPI_ERR_IN_STATUS mapped as above. */
int trl_testall_own(int n, MPI_Request *reqs, int *flag);

/* MPI_Waitall over reqs, the same. */
int trl_waitall_own(int n, MPI_Request *reqs);

#endif
