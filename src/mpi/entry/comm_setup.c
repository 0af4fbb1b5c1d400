/* Communicator constructors: each new intracommunicator gets Trellis' state
 * (its private duplicate, shared memory, topology: trl_comm_get) right
 * away, while its ranks are together in the constructor anyway (the
 * topology constructors too: a program calls its first collective on a
 * graph communicator as on any other); so does each new intercommunicator (its merged communicator: inter.h), from
 * MPI_Intercomm_create and from MPI_Comm_dup, split and create of one.
 * Fortran programs' constructors reach these through fortran.c, where the
 * bindings would call PMPI_* directly.
 * MPI_Comm_spawn, accept, connect and join are left alone: their other
 * side may be a program without Trellis, which would never join the
 * merge (inter.h).
 *
 * Why not on first use, as before: setting up takes collective calls, and
 * a non-blocking or persistent collective must not wait for other ranks
 * (MPI makes MPI_Ixxx and MPI_Xxx_init local: a rank may, say, post an
 * MPI_Ibcast and then wait for a message that another rank sends only
 * after its own MPI_Ibcast). A communicator made some other way still gets
 * its state at its first blocking collective; non-blocking ones before
 * that go to the MPI library (verbose says so). */
#include <mpi.h>

#include "mpi/context/comm.h"
#include "mpi/context/inter.h"
#include "mpi/context/schedule.h"
#include "mpi/engine/check.h"

static int setup(MPI_Comm parent, int rc, MPI_Comm *newcomm)
{
    if (rc != MPI_SUCCESS || !newcomm || *newcomm == MPI_COMM_NULL)
        return rc;
    if (!trl_comm_get(*newcomm))
        trl_inter_setup(*newcomm); /* an intercommunicator: trl_comm_get has none */
    trl_check_comm_new(parent, *newcomm);
    return rc;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_dup(comm, newcomm), newcomm);
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_dup_with_info(comm, info, newcomm), newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_split(comm, color, key, newcomm), newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_split_type(comm, type, key, info, newcomm), newcomm);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_create(comm, group, newcomm), newcomm);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Comm_create_group(comm, group, tag, newcomm), newcomm);
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm), newcomm);
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Cart_sub(comm, remain_dims, newcomm), newcomm);
}

int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm *newcomm)
{
    return setup(comm, PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm), newcomm);
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info, int reorder,
                          MPI_Comm *newcomm)
{
    return setup(comm,
                 PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info,
                                        reorder, newcomm),
                 newcomm);
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm *newcomm)
{
    return setup(comm,
                 PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree,
                                                 destinations, destweights, info, reorder, newcomm),
                 newcomm);
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newcomm)
{
    return setup(intercomm, PMPI_Intercomm_merge(intercomm, high, newcomm), newcomm);
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    return setup(local_comm,
                 PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag,
                                       newintercomm),
                 newintercomm);
}
