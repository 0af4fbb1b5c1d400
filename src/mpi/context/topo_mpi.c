/* Discovery (docs/topology.md): which ranks share a host (shared memory),
 * and with hwloc the socket (package) and NUMA node each rank is bound
 * within; and a communicator's view of MPI_COMM_WORLD's layout. PMPI only:
 * these run inside the library's own MPI_Init and communicator set-up. */
#include "mpi/context/topo_mpi.h"

#include <stdlib.h>

#include "core/status.h"
#include "exec/comm_ranks.h"

#ifdef TRELLIS_HAVE_HWLOC
#include <hwloc.h>

/* The logical index of the first object of `type` whose cpuset holds every
 * PU of `bound`, or -1. */
static int object_holding(hwloc_topology_t topo, hwloc_obj_type_t type, hwloc_const_bitmap_t bound)
{
    hwloc_obj_t obj = NULL;
    while ((obj = hwloc_get_next_obj_by_type(topo, type, obj)))
        if (obj->cpuset && hwloc_bitmap_isincluded(bound, obj->cpuset))
            return (int)obj->logical_index;
    return -1;
}

/* This process's package and NUMA node (logical indexes on this host), -1
 * where its binding is not within one (an unbound process's spans them
 * all, on a machine with several) or hwloc failed. */
static void bound_within(int *socket, int *numa)
{
    *socket = *numa = -1;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return;
    hwloc_bitmap_t bound = hwloc_bitmap_alloc();
    bool ok = bound && !hwloc_topology_load(topo) &&
              (!hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_PROCESS) ||
               !hwloc_get_cpubind(topo, bound, HWLOC_CPUBIND_THREAD)) &&
              !hwloc_bitmap_iszero(bound);
    if (ok) {
        *socket = object_holding(topo, HWLOC_OBJ_PACKAGE, bound);
        *numa = object_holding(topo, HWLOC_OBJ_NUMANODE, bound);
    }
    hwloc_bitmap_free(bound);
    hwloc_topology_destroy(topo);
}
#else
static void bound_within(int *socket, int *numa)
{
    *socket = *numa = -1;
}
#endif

/* Ids unique across hosts: (host, local index) pairs numbered 0, 1, ... in
 * the order of their first rank; -1 stays unknown. local[r] < nlocal. */
static int number_by_host(const int *host, int nhosts, const int *local, int nlocal, int size,
                          int *out)
{
    int *id = malloc((size_t)nhosts * (size_t)nlocal * sizeof *id);
    if (!id)
        return TRL_ERR_NOMEM;
    for (size_t i = 0; i < (size_t)nhosts * (size_t)nlocal; i++)
        id[i] = -1;
    int next = 0;
    for (int r = 0; r < size; r++) {
        if (local[r] < 0) {
            out[r] = -1;
            continue;
        }
        int *slot = &id[(size_t)host[r] * (size_t)nlocal + (size_t)local[r]];
        if (*slot < 0)
            *slot = next++;
        out[r] = *slot;
    }
    free(id);
    return TRL_OK;
}

/* From every rank's {lowest world rank on its host, package, NUMA node}. */
static int place(const int *mine, int size, trl_topo *out)
{
    int rc = trl_topo_single_host(size, out);
    int *local = rc ? NULL : malloc(2 * (size_t)size * sizeof *local);
    if (!local) {
        trl_topo_free(out);
        return rc ? rc : TRL_ERR_NOMEM;
    }
    /* Hosts numbered by their lowest rank, which comes first. */
    int nsocket = 1, nnuma = 1;
    out->nhosts = 0;
    for (int r = 0; r < size; r++) {
        int lowest = mine[3 * r];
        out->host[r] = lowest == r ? out->nhosts++ : out->host[lowest];
        local[r] = mine[3 * r + 1];
        local[size + r] = mine[3 * r + 2];
        nsocket = local[r] >= nsocket ? local[r] + 1 : nsocket;
        nnuma = local[size + r] >= nnuma ? local[size + r] + 1 : nnuma;
    }
    rc = number_by_host(out->host, out->nhosts, local, nsocket, size, out->socket);
    if (rc == TRL_OK)
        rc = number_by_host(out->host, out->nhosts, local + size, nnuma, size, out->numa);
    free(local);
    if (rc)
        trl_topo_free(out);
    else
        trl_topo_summarize(out);
    return rc;
}

int trl_topo_discover(MPI_Comm world, trl_topo *out)
{
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    MPI_Comm node;
    if (PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) !=
        MPI_SUCCESS)
        return TRL_ERR_MPI;
    int mine[3] = {rank, -1, -1};
    PMPI_Allreduce(MPI_IN_PLACE, &mine[0], 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    bound_within(&mine[1], &mine[2]);

    int *all = malloc(3 * (size_t)size * sizeof *all);
    /* Collective whatever happened here, so no rank is left waiting. */
    int ok = all != NULL, all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
    if (!all_ok) {
        free(all);
        return TRL_ERR_NOMEM;
    }
    PMPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, world);
    int rc = place(all, size, out);
    free(all);
    if (rc == TRL_OK)
        out->described = false;
    return rc;
}

int trl_topo_for_comm(const trl_topo *world, MPI_Comm comm, trl_topo *out)
{
    int n;
    PMPI_Comm_size(comm, &n);
    int *in_world = malloc((size_t)n * sizeof *in_world);
    if (!in_world || !trl_comm_ranks_in(comm, MPI_COMM_WORLD, in_world)) {
        free(in_world);
        return TRL_ERR_NOMEM;
    }
    int rc = TRL_OK;
    for (int i = 0; i < n && rc == TRL_OK; i++)
        if (in_world[i] == MPI_UNDEFINED) /* a process from another world (spawned) */
            rc = TRL_ERR_UNSUPPORTED;
    if (rc == TRL_OK)
        rc = trl_topo_subset(world, in_world, n, out);
    free(in_world);
    return rc;
}
