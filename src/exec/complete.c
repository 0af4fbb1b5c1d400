#include "exec/complete.h"

#include <stdlib.h>

#include "exec/mpi_impl.h"

/* Statuses on the stack for a few requests (the usual case: a rank's
 * lanes or neighbours), on the heap beyond. */
enum { ON_STACK = 16 };

/* flag NULL: wait. */
static int complete_all(int n, MPI_Request *reqs, int *flag)
{
    MPI_Status stack[ON_STACK];
    MPI_Status *st = n <= ON_STACK ? stack : malloc((size_t)n * sizeof *st);
    if (!st) /* no room for statuses: the error stays unnamed */
        st = TRL_STATUSES_IGNORE;
    else /* what the library leaves unset names no error (Testall: flag 0) */
        for (int k = 0; k < n; k++)
            st[k].MPI_ERROR = MPI_ERR_PENDING;
    int rc = flag ? trl_testall(n, reqs, flag, st) : PMPI_Waitall(n, reqs, st);
    if (rc == MPI_ERR_IN_STATUS)
        rc = st == TRL_STATUSES_IGNORE ? MPI_ERR_OTHER : trl_status_error(st, n);
    if (st != stack && st != TRL_STATUSES_IGNORE)
        free(st);
    return rc;
}

int trl_testall_own(int n, MPI_Request *reqs, int *flag)
{
    return complete_all(n, reqs, flag);
}

int trl_waitall_own(int n, MPI_Request *reqs)
{
    return complete_all(n, reqs, NULL);
}
