/* The request calls (MPI_Wait and the other completion calls, MPI_Start(all),
 * MPI_Request_free, MPI_Cancel) for Fortran programs, where the MPI
 * library's bindings would bypass Trellis' own (requests.c), which must see
 * its non-blocking and persistent collectives' requests: MPICH's `use
 * mpi_f08` calls PMPI_Wait etc. directly (TRL_FORTRAN_NAMES_requests in
 * mpi_impl.h; Open MPI's bindings reach only its own requests, since its
 * Fortran non-blocking collectives that Trellis serves complete through
 * its progress hook, and its Fortran persistent ones stay the library's).
 * One function per line of fortran_table.h's TRL_FORTRAN_REQUEST_CALLS,
 * made by DEFINE (fortran_args.h). */
#include <mpi.h>

#include "mpi/entry/fortran_args.h"
#include "mpi/entry/fortran_table.h"

#ifdef TRL_FORTRAN_F08_STATUS
TRL_FORTRAN_REQUEST_CALLS(DEFINE)
#endif
