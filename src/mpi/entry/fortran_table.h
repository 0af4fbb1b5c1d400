/* The MPI functions beside the collectives that Trellis serves to Fortran
 * programs (the collectives themselves, blocking and non-blocking, follow
 * from the list of coll_list.h: fortran.c), one line per function: its
 * class (which of mpi_impl.h's TRL_FORTRAN_NAMES_<class> names its
 * symbols), its name in lower, mixed and upper case (as the symbols spell
 * it), then its arguments in order, each (KIND, name) with the names of the
 * MPI standard (fortran_args.h has the kinds). fortran.c and
 * fortran_requests.c turn every line into the Fortran bindings' symbols
 * (mpi_impl.h says which, for the MPI built against), each converting its
 * arguments and calling Trellis' C entry point. ierror follows the
 * arguments in every function. The request calls' counts must be named
 * count and outcount. */
#ifndef TRL_FORTRAN_TABLE_H
#define TRL_FORTRAN_TABLE_H

/* Freeing a datatype or an operation that a collective in flight may still
 * use (holds.h): the bindings that call PMPI_Type_free and PMPI_Op_free
 * directly would free it under the collective. */
#define TRL_FORTRAN_FREES(X)                                                                       \
    X(handles, type_free, Type_free, TYPE_FREE, (TYPE_INOUT, datatype))                            \
    X(handles, op_free, Op_free, OP_FREE, (OP_INOUT, op))

/* The request calls, for MPI libraries whose bindings would bypass Trellis'
 * own (fortran_requests.c). The status kinds are mpi_f08's. */
#define TRL_FORTRAN_REQUEST_CALLS(X)                                                               \
    X(requests, wait, Wait, WAIT, (REQUEST_INOUT, request), (STATUS_F08, status))                  \
    X(requests, test, Test, TEST, (REQUEST_INOUT, request), (FLAG, flag), (STATUS_F08, status))    \
    X(requests, waitall, Waitall, WAITALL, (INT, count), (REQUESTS, requests),                     \
      (STATUSES_F08, statuses))                                                                    \
    X(requests, testall, Testall, TESTALL, (INT, count), (REQUESTS, requests), (FLAG, flag),       \
      (STATUSES_F08, statuses))                                                                    \
    X(requests, waitany, Waitany, WAITANY, (INT, count), (REQUESTS, requests), (INDEX, index),     \
      (STATUS_F08, status))                                                                        \
    X(requests, testany, Testany, TESTANY, (INT, count), (REQUESTS, requests), (INDEX, index),     \
      (FLAG, flag), (STATUS_F08, status))                                                          \
    X(requests, waitsome, Waitsome, WAITSOME, (INT, count), (REQUESTS, requests),                  \
      (OUTCOUNT, outcount), (INDICES, indices), (SOME_STATUSES_F08, statuses))                     \
    X(requests, testsome, Testsome, TESTSOME, (INT, count), (REQUESTS, requests),                  \
      (OUTCOUNT, outcount), (INDICES, indices), (SOME_STATUSES_F08, statuses))                     \
    X(requests, request_get_status, Request_get_status, REQUEST_GET_STATUS, (REQUEST_IN, request), \
      (FLAG, flag), (STATUS_F08, status))                                                          \
    X(requests, start, Start, START, (REQUEST_INOUT, request))                                     \
    X(requests, startall, Startall, STARTALL, (INT, count), (REQUESTS, requests))                  \
    X(requests, request_free, Request_free, REQUEST_FREE, (REQUEST_INOUT, request))                \
    X(requests, cancel, Cancel, CANCEL, (REQUEST_INOUT, request))

#endif
