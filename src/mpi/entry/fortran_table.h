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

/* The communicator constructors (comm_setup.c), where bindings call
 * PMPI_* directly: Open MPI's every binding, MPICH's `use mpi_f08` (all
 * without a buffer: the `handles` class, `logicals` for those with a
 * LOGICAL argument). Without these a communicator a
 * Fortran program makes would be set up only at its first blocking
 * collective, and its non-blocking collectives before that would go to the
 * MPI library. */
#define TRL_FORTRAN_COMM_CONSTRUCTORS(X)                                                           \
    X(handles, comm_dup, Comm_dup, COMM_DUP, (COMM, comm), (COMM_OUT, newcomm))                    \
    X(handles, comm_dup_with_info, Comm_dup_with_info, COMM_DUP_WITH_INFO, (COMM, comm),           \
      (INFO, info), (COMM_OUT, newcomm))                                                           \
    X(handles, comm_split, Comm_split, COMM_SPLIT, (COMM, comm), (INT, color), (INT, key),         \
      (COMM_OUT, newcomm))                                                                         \
    X(handles, comm_split_type, Comm_split_type, COMM_SPLIT_TYPE, (COMM, comm), (INT, split_type), \
      (INT, key), (INFO, info), (COMM_OUT, newcomm))                                               \
    X(handles, comm_create, Comm_create, COMM_CREATE, (COMM, comm), (GROUP, group),                \
      (COMM_OUT, newcomm))                                                                         \
    X(handles, comm_create_group, Comm_create_group, COMM_CREATE_GROUP, (COMM, comm),              \
      (GROUP, group), (INT, tag), (COMM_OUT, newcomm))                                             \
    X(logicals, cart_create, Cart_create, CART_CREATE, (COMM, comm_old), (INT, ndims),             \
      (INTS, dims), (LOGICALS, periods), (LOGICAL, reorder), (COMM_OUT, comm_cart))                \
    X(logicals, cart_sub, Cart_sub, CART_SUB, (COMM, comm), (LOGICALS, remain_dims),               \
      (COMM_OUT, newcomm))                                                                         \
    X(logicals, graph_create, Graph_create, GRAPH_CREATE, (COMM, comm_old), (INT, nnodes),         \
      (INTS, index), (INTS, edges), (LOGICAL, reorder), (COMM_OUT, comm_graph))                    \
    X(logicals, dist_graph_create, Dist_graph_create, DIST_GRAPH_CREATE, (COMM, comm_old),         \
      (INT, n), (INTS, sources), (INTS, degrees), (INTS, destinations), (WEIGHTS, weights),        \
      (INFO, info), (LOGICAL, reorder), (COMM_OUT, comm_dist_graph))                               \
    X(logicals, dist_graph_create_adjacent, Dist_graph_create_adjacent,                            \
      DIST_GRAPH_CREATE_ADJACENT, (COMM, comm_old), (INT, indegree), (INTS, sources),              \
      (WEIGHTS, sourceweights), (INT, outdegree), (INTS, destinations), (WEIGHTS, destweights),    \
      (INFO, info), (LOGICAL, reorder), (COMM_OUT, comm_dist_graph))                               \
    X(logicals, intercomm_merge, Intercomm_merge, INTERCOMM_MERGE, (COMM, intercomm),              \
      (LOGICAL, high), (COMM_OUT, newintracomm))                                                   \
    X(handles, intercomm_create, Intercomm_create, INTERCOMM_CREATE, (COMM, local_comm),           \
      (INT, local_leader), (COMM, peer_comm), (INT, remote_leader), (INT, tag),                    \
      (COMM_OUT, newintercomm))

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
