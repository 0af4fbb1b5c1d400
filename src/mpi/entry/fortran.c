/* Trellis' collectives for Fortran programs, where the MPI library's
 * Fortran bindings would bypass the C entry points (mpi_impl.h: Open MPI's
 * call PMPI_* directly; so do MPICH's `use mpi_f08` functions without a
 * buffer): the blocking and non-blocking form of every collective of the
 * list (coll_list.h), the neighbourhood collectives included, and the
 * lines of fortran_table.h's TRL_FORTRAN_FREES, each a function made by
 * DEFINE (fortran_args.h), with the conversions they share; and MPI_Init,
 * MPI_Init_thread and MPI_Finalize, where Trellis starts and stops. The
 * request calls (MPI_Wait, MPI_Start, ...): fortran_requests.c. Preloaded,
 * or linked ahead of the MPI library, these come first. */
#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>

#include "mpi/context/nbhd_mpi.h"
#include "mpi/entry/coll_list.h"
#include "mpi/entry/fortran_args.h"
#include "mpi/entry/fortran_table.h"

void trl_fortran_set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror) /* optional in mpi_f08 */
        *ierror = (MPI_Fint)rc;
}

void *trl_fortran_buffer(void *p)
{
    if (trl_fortran_in_place(p))
        return MPI_IN_PLACE;
    if (trl_fortran_bottom(p))
        return MPI_BOTTOM;
    return p;
}

/* n datatypes as C handles in a malloc'd array (NULL if out of memory). */
static MPI_Datatype *types_c(const MPI_Fint *types, int n)
{
    MPI_Datatype *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    for (int i = 0; out && i < n; i++)
        out[i] = PMPI_Type_f2c(types[i]);
    return out;
}

const int *trl_fortran_weights(const MPI_Fint *w)
{
    if (trl_fortran_unweighted(w))
        return MPI_UNWEIGHTED;
    if (trl_fortran_weights_empty(w))
        return MPI_WEIGHTS_EMPTY;
    return (const int *)w;
}

MPI_Datatype *trl_fortran_types(const MPI_Fint *types, MPI_Fint comm)
{
    MPI_Comm c = PMPI_Comm_f2c(comm);
    int inter, n;
    if (c == MPI_COMM_NULL || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n)) != MPI_SUCCESS)
        return NULL;
    return types_c(types, n);
}

MPI_Datatype *trl_fortran_neighbor_types(const MPI_Fint *types, MPI_Fint comm, bool out)
{
    int in_deg, out_deg;
    if (trl_nbhd_degrees(PMPI_Comm_f2c(comm), &in_deg, &out_deg) == MPI_UNDEFINED)
        return NULL;
    return types_c(types, out ? out_deg : in_deg);
}

MPI_Request *trl_fortran_requests(const MPI_Fint *requests, MPI_Fint count)
{
    MPI_Request *out = malloc((size_t)(count > 0 ? count : 1) * sizeof *out);
    for (int i = 0; out && i < count; i++)
        out[i] = PMPI_Request_f2c(requests[i]);
    return out;
}

void trl_fortran_requests_back(MPI_Request *c, MPI_Fint *requests, MPI_Fint count)
{
    for (int i = 0; c && i < count; i++)
        requests[i] = PMPI_Request_c2f(c[i]);
    free(c);
}

/* The list's lines as fortran_table.h's: MPI_X, then MPI_IX with its
 * request; the neighbourhood collectives' too. */
#define FORTRAN_BLOCKING(ID, Name, name, forms, binding, ...)                                      \
    DEFINE(binding, name, Name, ID, __VA_ARGS__)
#define FORTRAN_NONBLOCKING(ID, Name, name, forms, binding, ...)                                   \
    DEFINE(binding, i##name, I##name, I##ID, __VA_ARGS__, (REQUEST, request))
TRL_MPI_ALL_COLLECTIVES(FORTRAN_BLOCKING)
TRL_MPI_ALL_COLLECTIVES(FORTRAN_NONBLOCKING)
TRL_FORTRAN_FREES(DEFINE)
TRL_FORTRAN_COMM_CONSTRUCTORS(DEFINE)

/* Starting and stopping: Trellis starts in MPI_Init (init.c), which the
 * Fortran bindings would bypass too. Fortran has no argc and argv. */
typedef void fortran_init_fn(MPI_Fint *ierror);
typedef void fortran_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
typedef void fortran_finalize_fn(MPI_Fint *ierror);

KEPT_IF_NAMED static void fortran_init(MPI_Fint *ierror)
{
    int rc = MPI_Init(NULL, NULL);
    trl_fortran_set_ierror(ierror, rc);
}

KEPT_IF_NAMED static void fortran_init_thread(MPI_Fint *required, MPI_Fint *provided,
                                              MPI_Fint *ierror)
{
    int got = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(NULL, NULL, (int)*required, &got);
    *provided = (MPI_Fint)got;
    trl_fortran_set_ierror(ierror, rc);
}

KEPT_IF_NAMED static void fortran_finalize(MPI_Fint *ierror)
{
    int rc = MPI_Finalize();
    trl_fortran_set_ierror(ierror, rc);
}

TRL_FORTRAN_NAMES_handles(ALIAS, init, Init, INIT)
    TRL_FORTRAN_NAMES_handles(ALIAS, init_thread, Init_thread, INIT_THREAD)
        TRL_FORTRAN_NAMES_handles(ALIAS, finalize, Finalize, FINALIZE)
