/* Every collective Trellis serves, as one function per collective that
 * serves a call in any mode (engine.h: blocking, non-blocking, persistent)
 * or sets *served false, and then its caller hands the call to the MPI
 * library in the caller's own form (PMPI_Bcast, PMPI_Ibcast,
 * PMPIX_Bcast_init, ...). MPI_X lives beside its trl_x; MPI_IX in
 * coll_nonblocking.c, MPI_X_init in coll_persistent.c. */
#ifndef TRL_COLL_ENTRY_H
#define TRL_COLL_ENTRY_H

#include <mpi.h>
#include <stdbool.h>

#include "mpi/context/inter.h"
#include "mpi/engine/engine.h"

/* The communicator's state for a call in this mode: created on first use
 * by a blocking call; a call that may not wait for other ranks only finds
 * it (comm_setup.c), and goes to the MPI library without it. */
trl_comm *trl_comm_for(MPI_Comm comm, const trl_mode *mode);

#define TRL_ENTRY_TAIL const trl_mode *mode, bool *served

int trl_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
              TRL_ENTRY_TAIL);
int trl_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_barrier(MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                  TRL_ENTRY_TAIL);
int trl_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm, TRL_ENTRY_TAIL);
int trl_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm, TRL_ENTRY_TAIL);

/* The intercommunicator forms of the collectives (coll_entry.h's
 * arguments); each sets *served. */
#define TRL_INTER_TAIL const trl_mode *mode, bool *served
int trl_inter_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    TRL_INTER_TAIL);
int trl_inter_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_barrier(MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   TRL_INTER_TAIL);
int trl_inter_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     TRL_INTER_TAIL);
int trl_inter_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      TRL_INTER_TAIL);
int trl_inter_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, TRL_INTER_TAIL);
int trl_inter_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        TRL_INTER_TAIL);
int trl_inter_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        TRL_INTER_TAIL);

#endif
