/* The collectives call_mode.c forwards: name as in MPI_Name and as in
 * MPI_Iname, parameters, arguments (the communicator is always c). */
#ifndef CALL_MODE_LIST_H
#define CALL_MODE_LIST_H

#define CM_UNPAREN(...) __VA_ARGS__

#define CALL_MODE_LIST(X)                                                                          \
    X(Bcast, bcast, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c))    \
    X(Reduce, reduce,                                                                              \
      (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),            \
      (s, r, n, t, op, root, c))                                                                   \
    X(Allreduce, allreduce,                                                                        \
      (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), (s, r, n, t, op, c)) \
    X(Barrier, barrier, (MPI_Comm c), (c))                                                         \
    X(Gather, gather,                                                                              \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,         \
       MPI_Comm c),                                                                                \
      (s, sn, st, r, rn, rt, root, c))                                                             \
    X(Gatherv, gatherv,                                                                            \
      (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],            \
       MPI_Datatype rt, int root, MPI_Comm c),                                                     \
      (s, sn, st, r, rn, rd, rt, root, c))                                                         \
    X(Scatter, scatter,                                                                            \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, int root,         \
       MPI_Comm c),                                                                                \
      (s, sn, st, r, rn, rt, root, c))                                                             \
    X(Scatterv, scatterv,                                                                          \
      (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, int rn,            \
       MPI_Datatype rt, int root, MPI_Comm c),                                                     \
      (s, sn, sd, st, r, rn, rt, root, c))                                                         \
    X(Allgather, allgather,                                                                        \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),      \
      (s, sn, st, r, rn, rt, c))                                                                   \
    X(Allgatherv, allgatherv,                                                                      \
      (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],            \
       MPI_Datatype rt, MPI_Comm c),                                                               \
      (s, sn, st, r, rn, rd, rt, c))                                                               \
    X(Alltoall, alltoall,                                                                          \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),      \
      (s, sn, st, r, rn, rt, c))                                                                   \
    X(Alltoallv, alltoallv,                                                                        \
      (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],    \
       const int rd[], MPI_Datatype rt, MPI_Comm c),                                               \
      (s, sn, sd, st, r, rn, rd, rt, c))                                                           \
    X(Alltoallw, alltoallw,                                                                        \
      (const void *s, const int sn[], const int sd[], const MPI_Datatype st[], void *r,            \
       const int rn[], const int rd[], const MPI_Datatype rt[], MPI_Comm c),                       \
      (s, sn, sd, st, r, rn, rd, rt, c))                                                           \
    X(Reduce_scatter, reduce_scatter,                                                              \
      (const void *s, void *r, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c),             \
      (s, r, rn, t, op, c))                                                                        \
    X(Reduce_scatter_block, reduce_scatter_block,                                                  \
      (const void *s, void *r, int rn, MPI_Datatype t, MPI_Op op, MPI_Comm c),                     \
      (s, r, rn, t, op, c))                                                                        \
    X(Scan, scan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),          \
      (s, r, n, t, op, c))                                                                         \
    X(Exscan, exscan, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),      \
      (s, r, n, t, op, c))                                                                         \
    X(Neighbor_allgather, neighbor_allgather,                                                      \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),      \
      (s, sn, st, r, rn, rt, c))                                                                   \
    X(Neighbor_allgatherv, neighbor_allgatherv,                                                    \
      (const void *s, int sn, MPI_Datatype st, void *r, const int rn[], const int rd[],            \
       MPI_Datatype rt, MPI_Comm c),                                                               \
      (s, sn, st, r, rn, rd, rt, c))                                                               \
    X(Neighbor_alltoall, neighbor_alltoall,                                                        \
      (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c),      \
      (s, sn, st, r, rn, rt, c))                                                                   \
    X(Neighbor_alltoallv, neighbor_alltoallv,                                                      \
      (const void *s, const int sn[], const int sd[], MPI_Datatype st, void *r, const int rn[],    \
       const int rd[], MPI_Datatype rt, MPI_Comm c),                                               \
      (s, sn, sd, st, r, rn, rd, rt, c))                                                           \
    X(Neighbor_alltoallw, neighbor_alltoallw,                                                      \
      (const void *s, const int sn[], const MPI_Aint sd[], const MPI_Datatype st[], void *r,       \
       const int rn[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm c),                  \
      (s, sn, sd, st, r, rn, rd, rt, c))

#endif
