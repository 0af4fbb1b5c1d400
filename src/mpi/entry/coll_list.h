/* The collectives Trellis serves, once, in the order of TRL_COLL_MAP
 * (algo/algo.h). Every entry point follows from this list:
 *   - entries.c: MPI_X (blocking), MPI_IX (non-blocking) and MPI_X_init
 *     (persistent, as the MPI library names it: mpi_impl.h), each passing
 *     the call to the collective's intracommunicator or intercommunicator
 *     form (coll_forms.h) and handing it to the MPI library's own when
 *     that form does not serve it;
 *   - fortran.c: the Fortran bindings' symbols of MPI_X and MPI_IX, where
 *     the MPI library's bindings would bypass the C entry points (the
 *     neighbourhood collectives' too).
 *
 * One line per collective:
 *   X(ID, Name, name, forms, binding, (KIND, arg), ...)
 * ID as in TRL_COLL_ID (and the Fortran symbols' upper case), Name as in
 * MPI_Name, name as in trl_intra_name; forms: `both` where MPI defines the
 * collective on intercommunicators too (trl_inter_name), `intra` where
 * only on intracommunicators; binding: `buffers`, or `handles` for a
 * collective without a buffer (the MPI libraries' Fortran bindings call
 * those differently: mpi_impl.h); then the arguments in MPI's order, each
 * (KIND, name) with the standard's names, the kinds being
 *   BUF         a buffer written (or read and written)
 *   CBUF        a buffer only read
 *   INT         an int (a count, a root)
 *   INTS        an array of ints (counts, displacements)
 *   AINTS       an array of MPI_Aints (neighbor_alltoallw's displacements)
 *   TYPE OP COMM  a handle
 *   SEND_TYPES  alltoallw's datatype per rank, send side (not read when
 *               sendbuf is MPI_IN_PLACE); RECV_TYPES, receive side
 *   OUT_TYPES   neighbor_alltoallw's datatype per out-neighbour (send
 *               side); IN_TYPES, per in-neighbour (receive side)
 * Every collective's communicator is named comm. */
#ifndef TRL_COLL_LIST_H
#define TRL_COLL_LIST_H

#include "algo/algo.h"

#define TRL_MPI_COLLECTIVES(X)                                                                     \
    X(BCAST, Bcast, bcast, both, buffers, (BUF, buffer), (INT, count), (TYPE, datatype),           \
      (INT, root), (COMM, comm))                                                                   \
    X(REDUCE, Reduce, reduce, both, buffers, (CBUF, sendbuf), (BUF, recvbuf), (INT, count),        \
      (TYPE, datatype), (OP, op), (INT, root), (COMM, comm))                                       \
    X(ALLREDUCE, Allreduce, allreduce, both, buffers, (CBUF, sendbuf), (BUF, recvbuf),             \
      (INT, count), (TYPE, datatype), (OP, op), (COMM, comm))                                      \
    X(BARRIER, Barrier, barrier, both, handles, (COMM, comm))                                      \
    X(GATHER, Gather, gather, both, buffers, (CBUF, sendbuf), (INT, sendcount), (TYPE, sendtype),  \
      (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root), (COMM, comm))               \
    X(GATHERV, Gatherv, gatherv, both, buffers, (CBUF, sendbuf), (INT, sendcount),                 \
      (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype),      \
      (INT, root), (COMM, comm))                                                                   \
    X(SCATTER, Scatter, scatter, both, buffers, (CBUF, sendbuf), (INT, sendcount),                 \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (INT, root),           \
      (COMM, comm))                                                                                \
    X(SCATTERV, Scatterv, scatterv, both, buffers, (CBUF, sendbuf), (INTS, sendcounts),            \
      (INTS, displs), (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype),        \
      (INT, root), (COMM, comm))                                                                   \
    X(ALLGATHER, Allgather, allgather, both, buffers, (CBUF, sendbuf), (INT, sendcount),           \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm))          \
    X(ALLGATHERV, Allgatherv, allgatherv, both, buffers, (CBUF, sendbuf), (INT, sendcount),        \
      (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, displs), (TYPE, recvtype),      \
      (COMM, comm))                                                                                \
    X(ALLTOALL, Alltoall, alltoall, both, buffers, (CBUF, sendbuf), (INT, sendcount),              \
      (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype), (COMM, comm))          \
    X(ALLTOALLV, Alltoallv, alltoallv, both, buffers, (CBUF, sendbuf), (INTS, sendcounts),         \
      (INTS, sdispls), (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts), (INTS, rdispls),      \
      (TYPE, recvtype), (COMM, comm))                                                              \
    X(ALLTOALLW, Alltoallw, alltoallw, both, buffers, (CBUF, sendbuf), (INTS, sendcounts),         \
      (INTS, sdispls), (SEND_TYPES, sendtypes), (BUF, recvbuf), (INTS, recvcounts),                \
      (INTS, rdispls), (RECV_TYPES, recvtypes), (COMM, comm))                                      \
    X(REDUCE_SCATTER, Reduce_scatter, reduce_scatter, both, buffers, (CBUF, sendbuf),              \
      (BUF, recvbuf), (INTS, recvcounts), (TYPE, datatype), (OP, op), (COMM, comm))                \
    X(REDUCE_SCATTER_BLOCK, Reduce_scatter_block, reduce_scatter_block, both, buffers,             \
      (CBUF, sendbuf), (BUF, recvbuf), (INT, recvcount), (TYPE, datatype), (OP, op), (COMM, comm)) \
    X(SCAN, Scan, scan, intra, buffers, (CBUF, sendbuf), (BUF, recvbuf), (INT, count),             \
      (TYPE, datatype), (OP, op), (COMM, comm))                                                    \
    X(EXSCAN, Exscan, exscan, intra, buffers, (CBUF, sendbuf), (BUF, recvbuf), (INT, count),       \
      (TYPE, datatype), (OP, op), (COMM, comm))

/* The neighbourhood collectives (MPI-3), on Cartesian and graph
 * communicators. alltoallw's displacements are MPI_Aints (AINTS), its
 * arrays sized by the degrees, not the communicator's size. */
#define TRL_MPI_NEIGHBOR_COLLECTIVES(X)                                                            \
    X(NEIGHBOR_ALLGATHER, Neighbor_allgather, neighbor_allgather, intra, buffers, (CBUF, sendbuf), \
      (INT, sendcount), (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype),      \
      (COMM, comm))                                                                                \
    X(NEIGHBOR_ALLGATHERV, Neighbor_allgatherv, neighbor_allgatherv, intra, buffers,               \
      (CBUF, sendbuf), (INT, sendcount), (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts),     \
      (INTS, displs), (TYPE, recvtype), (COMM, comm))                                              \
    X(NEIGHBOR_ALLTOALL, Neighbor_alltoall, neighbor_alltoall, intra, buffers, (CBUF, sendbuf),    \
      (INT, sendcount), (TYPE, sendtype), (BUF, recvbuf), (INT, recvcount), (TYPE, recvtype),      \
      (COMM, comm))                                                                                \
    X(NEIGHBOR_ALLTOALLV, Neighbor_alltoallv, neighbor_alltoallv, intra, buffers, (CBUF, sendbuf), \
      (INTS, sendcounts), (INTS, sdispls), (TYPE, sendtype), (BUF, recvbuf), (INTS, recvcounts),   \
      (INTS, rdispls), (TYPE, recvtype), (COMM, comm))                                             \
    X(NEIGHBOR_ALLTOALLW, Neighbor_alltoallw, neighbor_alltoallw, intra, buffers, (CBUF, sendbuf), \
      (INTS, sendcounts), (AINTS, sdispls), (OUT_TYPES, sendtypes), (BUF, recvbuf),                \
      (INTS, recvcounts), (AINTS, rdispls), (IN_TYPES, recvtypes), (COMM, comm))

/* Every collective with C entry points. */
#define TRL_MPI_ALL_COLLECTIVES(X) TRL_MPI_COLLECTIVES(X) TRL_MPI_NEIGHBOR_COLLECTIVES(X)

/* The list follows TRL_COLL_MAP, one for one: a collective added there
 * and not here (or out of order) stops the build. */
enum {
#define TRL_MPI_ORDER(ID, ...) TRL_MPI_ORDER_##ID,
    TRL_MPI_ALL_COLLECTIVES(TRL_MPI_ORDER)
#undef TRL_MPI_ORDER
        TRL_MPI_COLLECTIVE_COUNT
};
_Static_assert((int)TRL_MPI_COLLECTIVE_COUNT == (int)TRL_COLL_COUNT,
               "coll_list.h follows TRL_COLL_MAP");
#define TRL_MPI_SAME_ORDER(ID, ...)                                                                \
    _Static_assert((int)TRL_MPI_ORDER_##ID == (int)TRL_COLL_##ID, #ID " as in TRL_COLL_MAP");
TRL_MPI_ALL_COLLECTIVES(TRL_MPI_SAME_ORDER)
#undef TRL_MPI_SAME_ORDER

/* TRL_EACH(m, sep, a1, a2, ...): m a1 sep() m a2 ..., for up to 12
 * arguments (each argument a parenthesised (KIND, name)). */
#define TRL_COMMA() ,
#define TRL_NOTHING()
#define TRL_EACH(m, sep, ...)                                                 TRL_EACH_(TRL_COUNT(__VA_ARGS__), m, sep, __VA_ARGS__)
#define TRL_EACH_(n, m, sep, ...)                                             TRL_EACH__(n, m, sep, __VA_ARGS__)
#define TRL_EACH__(n, m, sep, ...)                                            TRL_EACH_##n(m, sep, __VA_ARGS__)
#define TRL_COUNT(...)                                                        TRL_COUNT_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define TRL_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, n, ...) n
#define TRL_EACH_1(m, sep, a)                                                 m a
#define TRL_EACH_2(m, sep, a, ...)                                            m a sep() TRL_EACH_1(m, sep, __VA_ARGS__)
#define TRL_EACH_3(m, sep, a, ...)                                            m a sep() TRL_EACH_2(m, sep, __VA_ARGS__)
#define TRL_EACH_4(m, sep, a, ...)                                            m a sep() TRL_EACH_3(m, sep, __VA_ARGS__)
#define TRL_EACH_5(m, sep, a, ...)                                            m a sep() TRL_EACH_4(m, sep, __VA_ARGS__)
#define TRL_EACH_6(m, sep, a, ...)                                            m a sep() TRL_EACH_5(m, sep, __VA_ARGS__)
#define TRL_EACH_7(m, sep, a, ...)                                            m a sep() TRL_EACH_6(m, sep, __VA_ARGS__)
#define TRL_EACH_8(m, sep, a, ...)                                            m a sep() TRL_EACH_7(m, sep, __VA_ARGS__)
#define TRL_EACH_9(m, sep, a, ...)                                            m a sep() TRL_EACH_8(m, sep, __VA_ARGS__)
#define TRL_EACH_10(m, sep, a, ...)                                           m a sep() TRL_EACH_9(m, sep, __VA_ARGS__)
#define TRL_EACH_11(m, sep, a, ...)                                           m a sep() TRL_EACH_10(m, sep, __VA_ARGS__)
#define TRL_EACH_12(m, sep, a, ...)                                           m a sep() TRL_EACH_11(m, sep, __VA_ARGS__)

/* A line's arguments as C parameters (TRL_C_PARAMS) and as the arguments
 * of a call passing them on (TRL_C_ARGS). */
#define TRL_C_PARAM_BUF(n)        void *n
#define TRL_C_PARAM_CBUF(n)       const void *n
#define TRL_C_PARAM_INT(n)        int n
#define TRL_C_PARAM_INTS(n)       const int n[]
#define TRL_C_PARAM_AINTS(n)      const MPI_Aint n[]
#define TRL_C_PARAM_TYPE(n)       MPI_Datatype n
#define TRL_C_PARAM_SEND_TYPES(n) const MPI_Datatype n[]
#define TRL_C_PARAM_RECV_TYPES(n) const MPI_Datatype n[]
#define TRL_C_PARAM_OUT_TYPES(n)  const MPI_Datatype n[]
#define TRL_C_PARAM_IN_TYPES(n)   const MPI_Datatype n[]
#define TRL_C_PARAM_OP(n)         MPI_Op n
#define TRL_C_PARAM_COMM(n)       MPI_Comm n
#define TRL_C_PARAM(kind, n)      TRL_C_PARAM_##kind(n)
#define TRL_C_ARG(kind, n)        n
#define TRL_C_PARAMS(...)         TRL_EACH(TRL_C_PARAM, TRL_COMMA, __VA_ARGS__)
#define TRL_C_ARGS(...)           TRL_EACH(TRL_C_ARG, TRL_COMMA, __VA_ARGS__)

#endif
