/* The collectives Trellis serves, once: name as in MPI_<Name>, the name of
 * its trl_<name> (coll_entry.h), its parameters, and its arguments. The
 * non-blocking (coll_nonblocking.c) and persistent (coll_persistent.c)
 * entry points are made from this list; so can another binding's. */
#ifndef TRL_COLL_LIST_H
#define TRL_COLL_LIST_H

#define TRL_UNPAREN(...) __VA_ARGS__

#define TRL_MPI_COLLECTIVES(X)                                                                     \
    X(Bcast, bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm),     \
      (buffer, count, datatype, root, comm))                                                       \
    X(Reduce, reduce,                                                                              \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,  \
       MPI_Comm comm),                                                                             \
      (sendbuf, recvbuf, count, datatype, op, root, comm))                                         \
    X(Allreduce, allreduce,                                                                        \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,            \
       MPI_Comm comm),                                                                             \
      (sendbuf, recvbuf, count, datatype, op, comm))                                               \
    X(Barrier, barrier, (MPI_Comm comm), (comm))                                                   \
    X(Gather, gather,                                                                              \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,    \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                    \
    X(Gatherv, gatherv,                                                                            \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                   \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm), \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm))           \
    X(Scatter, scatter,                                                                            \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,    \
       MPI_Datatype recvtype, int root, MPI_Comm comm),                                            \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm))                    \
    X(Scatterv, scatterv,                                                                          \
      (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,     \
       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm),              \
      (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm))           \
    X(Allgather, allgather,                                                                        \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,    \
       MPI_Datatype recvtype, MPI_Comm comm),                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                          \
    X(Allgatherv, allgatherv,                                                                      \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,                   \
       const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm),          \
      (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm))                 \
    X(Alltoall, alltoall,                                                                          \
      (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,    \
       MPI_Datatype recvtype, MPI_Comm comm),                                                      \
      (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm))                          \
    X(Alltoallv, alltoallv,                                                                        \
      (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,    \
       void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,          \
       MPI_Comm comm),                                                                             \
      (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm))      \
    X(Alltoallw, alltoallw,                                                                        \
      (const void *sendbuf, const int sendcounts[], const int sdispls[],                            \
       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], \
       const MPI_Datatype recvtypes[], MPI_Comm comm),                                             \
      (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm))    \
    X(Reduce_scatter, reduce_scatter,                                                              \
      (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,          \
       MPI_Op op, MPI_Comm comm),                                                                  \
      (sendbuf, recvbuf, recvcounts, datatype, op, comm))                                          \
    X(Reduce_scatter_block, reduce_scatter_block,                                                  \
      (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op,        \
       MPI_Comm comm),                                                                             \
      (sendbuf, recvbuf, recvcount, datatype, op, comm))                                           \
    X(Scan, scan,                                                                                  \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,            \
       MPI_Comm comm),                                                                             \
      (sendbuf, recvbuf, count, datatype, op, comm))                                               \
    X(Exscan, exscan,                                                                              \
      (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,            \
       MPI_Comm comm),                                                                             \
      (sendbuf, recvbuf, count, datatype, op, comm))

#endif
