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
 * ierror follows the arguments in every function. The buffer arguments of
 * SEND_TYPES' function must be named sendbuf, and every function's
 * communicator comm. */
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
      (TYPE, datatype), (OP, op), (COMM, comm))

#endif
