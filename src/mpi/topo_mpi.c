/* Discovery: which ranks share a host (shared memory), and with hwloc the
 * socket (package) and NUMA node the rank is bound within. */
#include "mpi/topo_mpi.h"

#include <stdlib.h>

#include "core/status.h"

#ifdef TRELLIS_HAVE_HWLOC
#include <hwloc.h>

/* The logical index of the object of `type` holding every PU this process
 * is bound to, or -1 (not bound within one, or hwloc failed). */
static void bound_within(int *socket, int *numa)
{
    *socket = *numa = -1;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && !hwloc_topology_load(topo) && !hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) &&
        !hwloc_bitmap_iszero(set)) {
        /* Bound to the whole machine means not bound. */
        hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(topo);
        if (!hwloc_bitmap_isequal(set, all)) {
            hwloc_obj_t pkg = hwloc_get_obj_covering_cpuset(topo, set);
            while (pkg && pkg->type != HWLOC_OBJ_PACKAGE)
                pkg = pkg->parent;
            if (pkg)
                *socket = (int)pkg->logical_index;
            hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);
            for (; obj; obj = obj->parent)
                if (obj->memory_arity > 0) { /* its NUMA node children hold its memory */
                    hwloc_obj_t node = obj->memory_first_child;
                    while (node && node->type != HWLOC_OBJ_NUMANODE)
                        node = node->memory_first_child;
                    if (node && obj->memory_arity == 1)
                        *numa = (int)node->logical_index;
                    break;
                }
        }
    }
    hwloc_bitmap_free(set);
    hwloc_topology_destroy(topo);
}
#else
static void bound_within(int *socket, int *numa)
{
    *socket = *numa = -1;
}
#endif

int trl_topo_discover(MPI_Comm world, trl_topo *out)
{
    int rank, size;
    PMPI_Comm_rank(world, &rank);
    PMPI_Comm_size(world, &size);
    /* A host is named by its lowest world rank. */
    MPI_Comm node;
    if (PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return TRL_ERR_MPI;
    int lowest = rank;
    PMPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, node);
    PMPI_Comm_free(&node);
    int mine[3] = {lowest, -1, -1};
    bound_within(&mine[1], &mine[2]);
    int *all = malloc(3 * (size_t)size * sizeof *all);
    int rc = trl_topo_single_host(size, out);
    /* Collective whatever happened locally, so no rank is left waiting. */
    int ok = all && rc == TRL_OK, all_ok;
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, world);
    if (!all_ok) {
        free(all);
        trl_topo_free(out);
        return TRL_ERR_NOMEM;
    }
    PMPI_Allgather(mine, 3, MPI_INT, all, 3, MPI_INT, world);
    /* Hosts numbered by first appearance; socket and NUMA ids made unique
     * across hosts (host * 4096 + local index). */
    out->nhosts = 0;
    for (int r = 0; r < size; r++) {
        int first = all[3 * r];
        out->host[r] = first == r ? out->nhosts++ : out->host[first];
        out->socket[r] = all[3 * r + 1] >= 0 ? out->host[r] * 4096 + all[3 * r + 1] : -1;
        out->numa[r] = all[3 * r + 2] >= 0 ? out->host[r] * 4096 + all[3 * r + 2] : -1;
    }
    free(all);
    out->described = false;
    out->world_order = true;
    return TRL_OK;
}

int trl_topo_for_comm(const trl_topo *world, MPI_Comm comm, trl_topo *out)
{
    MPI_Group g, wg;
    int n;
    PMPI_Comm_size(comm, &n);
    int *mine = malloc((size_t)n * sizeof *mine), *theirs = malloc((size_t)n * sizeof *theirs);
    if (!mine || !theirs) {
        free(mine);
        free(theirs);
        return TRL_ERR_NOMEM;
    }
    for (int i = 0; i < n; i++)
        mine[i] = i;
    PMPI_Comm_group(comm, &g);
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, mine, wg, theirs);
    PMPI_Group_free(&g);
    PMPI_Group_free(&wg);
    int rc = TRL_OK;
    for (int i = 0; i < n && rc == TRL_OK; i++)
        if (theirs[i] == MPI_UNDEFINED) /* a rank from another world (spawned) */
            rc = TRL_ERR_UNSUPPORTED;
    if (rc == TRL_OK)
        rc = trl_topo_subset(world, theirs, n, out);
    free(mine);
    free(theirs);
    return rc;
}
