/* The collectives Trellis serves to Fortran programs, one line per MPI
 * function: whether it has choice buffers (`buffers`) or only handles and
 * integers (`handles`: the MPI libraries' bindings differ in how they call
 * these, so mpi_impl.h names their symbols apart), its name in lower,
 * mixed and upper case (as the symbols spell it), then its arguments in
 * order, each (KIND, name) with the names of the MPI standard. fortran.c
 * turns every line into the Fortran bindings' symbols (mpi_impl.h says
 * which, for the MPI built against), each converting its arguments and
 * calling Trellis' C entry point.
 *
 * Argument kinds (Fortran passes every argument by reference):
 *   BUF         a choice buffer; the MPI_IN_PLACE and MPI_BOTTOM sentinels
 *               become C's
 *   INT         an INTEGER (a count, a root)
 *   INTS        an INTEGER array (counts, displacements)
 *   TYPE OP COMM  a handle
 *   SEND_TYPES  alltoallw's datatype per rank of comm, send side (not read
 *               when sendbuf is MPI_IN_PLACE)
 *   RECV_TYPES  the same, receive side
 *   REQUEST     an output request handle (the non-blocking collectives)
 * and those of the request calls (fortran_args.h has them all). ierror
 * follows the arguments in every function. The buffer arguments of
 * SEND_TYPES' function must be named sendbuf, every function's communicator
 * comm, and the request calls' counts count and outcount. */
#ifndef TRL_FORTRAN_TABLE_H
#define TRL_FORTRAN_TABLE_H

#define TRL_FORTRAN_COLLECTIVES(X)                                                               \
    X(buffers, bcast, Bcast, BCAST, (BUF, buffer), (INT, count), (TYPE, datatype), (INT, root),  \
      (COMM, comm))                                                                              \
    X(buffers, reduce, Reduce, REDUCE, (BUF, sendbuf), (BUF, recvbuf), (INT, count),             \
      (TYPE, datatype), (OP, op), (INT, root), (COMM, comm))                                     \
    X(buffers, allreduce, Allreduce, ALLREDUCE, (BUF, sendbuf), (BUF, recvbuf), (INT, count),    \
      (TYPE, datatype), (OP, op), (COMM, comm))                                                  \
    X(handles, barrier, Barrier, BARRIER, (COMM, comm))                                          \
    X(buffers, gather, Gather, GATHER, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype),       \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root), (COMM, comm))             \
    X(buffers, gatherv, Gatherv, GATHERV, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype),    \
      (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype), (INT, root),         \
      (COMM, comm))                                                                              \
    X(buffers, scatter, Scatter, SCATTER, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype),    \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root), (COMM, comm))             \
    X(buffers, scatterv, Scatterv, SCATTERV, (BUF, sendbuf), (INTS, sendcounts), (INTS, displs), \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root),         \
      (COMM, comm))                                                                              \
    X(buffers, allgather, Allgather, ALLGATHER, (BUF, sendbuf), (INT, sendcount),                \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm))        \
    X(buffers, allgatherv, Allgatherv, ALLGATHERV, (BUF, sendbuf), (INT, sendcount),             \
      (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype),    \
      (COMM, comm))                                                                              \
    X(buffers, alltoall, Alltoall, ALLTOALL, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype), \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm))                          \
    X(buffers, alltoallv, Alltoallv, ALLTOALLV, (BUF, sendbuf), (INTS, sendcounts),              \
      (INTS, sdispls), (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, rdispls),    \
      (TYPE, recvtype), (COMM, comm))                                                            \
    X(buffers, alltoallw, Alltoallw, ALLTOALLW, (BUF, sendbuf), (INTS, sendcounts),              \
      (INTS, sdispls), (SEND_TYPES, sendtypes), (BUF, recvbuf), (INTS, recvcounts),              \
      (INTS, rdispls), (RECV_TYPES, recvtypes), (COMM, comm))                                    \
    X(buffers, reduce_scatter, Reduce_scatter, REDUCE_SCATTER, (BUF, sendbuf), (BUF, recvbuf),   \
      (INTS, recvcounts), (TYPE, datatype), (OP, op), (COMM, comm))                              \
    X(buffers, reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK, (BUF, sendbuf), \
      (BUF, recvbuf), (INT, recvcount), (TYPE, datatype), (OP, op), (COMM, comm))                \
    X(buffers, scan, Scan, SCAN, (BUF, sendbuf), (BUF, recvbuf), (INT, count), (TYPE, datatype), \
      (OP, op), (COMM, comm))                                                                    \
    X(buffers, exscan, Exscan, EXSCAN, (BUF, sendbuf), (BUF, recvbuf), (INT, count),             \
      (TYPE, datatype), (OP, op), (COMM, comm))                                                  \
    X(buffers, ibcast, Ibcast, IBCAST, (BUF, buffer), (INT, count), (TYPE, datatype),            \
      (INT, root), (COMM, comm), (REQUEST, request))                                             \
    X(buffers, ireduce, Ireduce, IREDUCE, (BUF, sendbuf), (BUF, recvbuf), (INT, count),          \
      (TYPE, datatype), (OP, op), (INT, root), (COMM, comm), (REQUEST, request))                 \
    X(buffers, iallreduce, Iallreduce, IALLREDUCE, (BUF, sendbuf), (BUF, recvbuf), (INT, count), \
      (TYPE, datatype), (OP, op), (COMM, comm), (REQUEST, request))                              \
    X(handles, ibarrier, Ibarrier, IBARRIER, (COMM, comm), (REQUEST, request))                   \
    X(buffers, igather, Igather, IGATHER, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype),    \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root), (COMM, comm),             \
      (REQUEST, request))                                                                        \
    X(buffers, igatherv, Igatherv, IGATHERV, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype), \
      (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype), (INT, root),         \
      (COMM, comm), (REQUEST, request))                                                          \
    X(buffers, iscatter, Iscatter, ISCATTER, (BUF, sendbuf), (INT, sendcount), (TYPE, sendtype), \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root), (COMM, comm),             \
      (REQUEST, request))                                                                        \
    X(buffers, iscatterv, Iscatterv, ISCATTERV, (BUF, sendbuf), (INTS, sendcounts),              \
      (INTS, displs), (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype),      \
      (INT, root), (COMM, comm), (REQUEST, request))                                             \
    X(buffers, iallgather, Iallgather, IALLGATHER, (BUF, sendbuf), (INT, sendcount),             \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm),        \
      (REQUEST, request))                                                                        \
    X(buffers, iallgatherv, Iallgatherv, IALLGATHERV, (BUF, sendbuf), (INT, sendcount),          \
      (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype),    \
      (COMM, comm), (REQUEST, request))                                                          \
    X(buffers, ialltoall, Ialltoall, IALLTOALL, (BUF, sendbuf), (INT, sendcount),                \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm),        \
      (REQUEST, request))                                                                        \
    X(buffers, ialltoallv, Ialltoallv, IALLTOALLV, (BUF, sendbuf), (INTS, sendcounts),           \
      (INTS, sdispls), (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, rdispls),    \
      (TYPE, recvtype), (COMM, comm), (REQUEST, request))                                        \
    X(buffers, ialltoallw, Ialltoallw, IALLTOALLW, (BUF, sendbuf), (INTS, sendcounts),           \
      (INTS, sdispls), (SEND_TYPES, sendtypes), (BUF, recvbuf), (INTS, recvcounts),              \
      (INTS, rdispls), (RECV_TYPES, recvtypes), (COMM, comm), (REQUEST, request))                \
    X(buffers, ireduce_scatter, Ireduce_scatter, IREDUCE_SCATTER, (BUF, sendbuf),                \
      (BUF, recvbuf), (INTS, recvcounts), (TYPE, datatype), (OP, op), (COMM, comm),              \
      (REQUEST, request))                                                                        \
    X(buffers, ireduce_scatter_block, Ireduce_scatter_block, IREDUCE_SCATTER_BLOCK,              \
      (BUF, sendbuf), (BUF, recvbuf), (INT, recvcount), (TYPE, datatype), (OP, op),              \
      (COMM, comm), (REQUEST, request))                                                          \
    X(buffers, iscan, Iscan, ISCAN, (BUF, sendbuf), (BUF, recvbuf), (INT, count),                \
      (TYPE, datatype), (OP, op), (COMM, comm), (REQUEST, request))                              \
    X(buffers, iexscan, Iexscan, IEXSCAN, (BUF, sendbuf), (BUF, recvbuf), (INT, count),          \
      (TYPE, datatype), (OP, op), (COMM, comm), (REQUEST, request))

/* Freeing a datatype or an operation that a collective in flight may still
 * use (holds.h): the bindings that call PMPI_Type_free and PMPI_Op_free
 * directly would free it under the collective. */
#define TRL_FORTRAN_FREES(X)                                                                     \
    X(handles, type_free, Type_free, TYPE_FREE, (TYPE_INOUT, datatype))                          \
    X(handles, op_free, Op_free, OP_FREE, (OP_INOUT, op))

/* The request calls, for MPI libraries whose bindings would bypass Trellis'
 * own (fortran_requests.c). The status kinds are mpi_f08's. */
#define TRL_FORTRAN_REQUEST_CALLS(X)                                                             \
    X(requests, wait, Wait, WAIT, (REQUEST_INOUT, request), (STATUS_F08, status))                \
    X(requests, test, Test, TEST, (REQUEST_INOUT, request), (FLAG, flag), (STATUS_F08, status))  \
    X(requests, waitall, Waitall, WAITALL, (INT, count), (REQUESTS, requests),                   \
      (STATUSES_F08, statuses))                                                                  \
    X(requests, testall, Testall, TESTALL, (INT, count), (REQUESTS, requests), (FLAG, flag),     \
      (STATUSES_F08, statuses))                                                                  \
    X(requests, waitany, Waitany, WAITANY, (INT, count), (REQUESTS, requests), (INDEX, index),   \
      (STATUS_F08, status))                                                                      \
    X(requests, testany, Testany, TESTANY, (INT, count), (REQUESTS, requests), (INDEX, index),   \
      (FLAG, flag), (STATUS_F08, status))                                                        \
    X(requests, waitsome, Waitsome, WAITSOME, (INT, count), (REQUESTS, requests),                \
      (OUTCOUNT, outcount), (INDICES, indices), (SOME_STATUSES_F08, statuses))                   \
    X(requests, testsome, Testsome, TESTSOME, (INT, count), (REQUESTS, requests),                \
      (OUTCOUNT, outcount), (INDICES, indices), (SOME_STATUSES_F08, statuses))                   \
    X(requests, request_get_status, Request_get_status, REQUEST_GET_STATUS,                      \
      (REQUEST_IN, request), (FLAG, flag), (STATUS_F08, status))                                 \
    X(requests, start, Start, START, (REQUEST_INOUT, request))                                   \
    X(requests, startall, Startall, STARTALL, (INT, count), (REQUESTS, requests))                \
    X(requests, request_free, Request_free, REQUEST_FREE, (REQUEST_INOUT, request))              \
    X(requests, cancel, Cancel, CANCEL, (REQUEST_INOUT, request))

#endif
