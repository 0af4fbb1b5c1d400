#include "mpi/context/nbhd_mpi.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void read_cart(MPI_Comm comm, int size, trl_nbhd *out)
{
    int ndims = 0;
    if (PMPI_Cartdim_get(comm, &ndims) != MPI_SUCCESS || ndims < 0)
        return;
    int *v = malloc(3 * (size_t)(ndims + 1) * sizeof *v);
    if (!v)
        return;
    int *dims = v, *periods = v + ndims + 1, *coords = v + 2 * (ndims + 1);
    if (PMPI_Cart_get(comm, ndims, dims, periods, coords) == MPI_SUCCESS)
        trl_nbhd_cart(size, ndims, dims, periods, out);
    free(v);
}

static void read_graph(MPI_Comm comm, int size, trl_nbhd *out)
{
    int nnodes = 0, nedges = 0;
    if (PMPI_Graphdims_get(comm, &nnodes, &nedges) != MPI_SUCCESS || nnodes != size)
        return;
    int *index = malloc((size_t)(nnodes + 1) * sizeof *index);
    int *edges = malloc((size_t)(nedges + 1) * sizeof *edges);
    int *deg = malloc((size_t)(nnodes + 1) * sizeof *deg);
    if (index && edges && deg &&
        PMPI_Graph_get(comm, nnodes, nedges, index, edges) == MPI_SUCCESS) {
        for (int r = 0; r < nnodes; r++)
            deg[r] = index[r] - (r ? index[r - 1] : 0);
        /* Neighbours are both sources and destinations, in one order. */
        trl_nbhd_graph(size, deg, edges, deg, edges, out);
    }
    free(index);
    free(edges);
    free(deg);
}

/* Whether every rank of comm says ok (collective). */
static bool all_agree(MPI_Comm comm, bool ok)
{
    int mine = ok, all = 0;
    PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, comm);
    return all != 0;
}

/* Collective: every rank takes part in each step, and all go on only
 * where every rank could (so that all leave *out empty together). Each
 * rank's block of the gathered lists is its in-list, then its out-list. */
static void read_dist_graph(MPI_Comm comm, int size, trl_nbhd *out)
{
    int indeg = 0, outdeg = 0, weighted = 0;
    bool ok = PMPI_Dist_graph_neighbors_count(comm, &indeg, &outdeg, &weighted) == MPI_SUCCESS;
    size_t n = ok ? (size_t)indeg + (size_t)outdeg + 1 : 1;
    int *mine = malloc(n * sizeof *mine), *weights = malloc(n * sizeof *weights);
    int *all = malloc(6 * (size_t)size * sizeof *all), *lists = NULL, *split = NULL;
    ok = ok && mine && weights && all &&
         PMPI_Dist_graph_neighbors(comm, indeg, mine, weighted ? weights : MPI_UNWEIGHTED, outdeg,
                                   mine + indeg,
                                   weighted ? weights + indeg : MPI_UNWEIGHTED) == MPI_SUCCESS;
    if (!all_agree(comm, ok))
        goto done;
    int degs[2] = {indeg, outdeg};
    PMPI_Allgather(degs, 2, MPI_INT, all, 2, MPI_INT, comm);
    int *indegs = all + 2 * size, *outdegs = all + 3 * size;
    int *counts = all + 4 * size, *displs = all + 5 * size;
    long long total = 0;
    for (int r = 0; r < size; r++) {
        indegs[r] = all[2 * r];
        outdegs[r] = all[2 * r + 1];
        counts[r] = indegs[r] + outdegs[r];
        displs[r] = (int)(total < (1LL << 30) ? total : 0);
        total += counts[r];
    }
    ok = total < (1LL << 30);
    lists = ok ? malloc((size_t)(2 * total + 1) * sizeof *lists) : NULL;
    if (!all_agree(comm, lists != NULL))
        goto done;
    PMPI_Allgatherv(mine, indeg + outdeg, MPI_INT, lists, counts, displs, MPI_INT, comm);
    split = lists + total;
    long long in_total = 0;
    for (int r = 0; r < size; r++)
        in_total += indegs[r];
    size_t ni = 0, no = (size_t)in_total; /* the out-lists after all in-lists */
    for (int r = 0; r < size; r++) {
        memcpy(split + ni, lists + displs[r], (size_t)indegs[r] * sizeof *split);
        memcpy(split + no, lists + displs[r] + indegs[r], (size_t)outdegs[r] * sizeof *split);
        ni += (size_t)indegs[r];
        no += (size_t)outdegs[r];
    }
    trl_nbhd_graph(size, indegs, split, outdegs, split + in_total, out);
done:
    free(lists);
    free(all);
    free(weights);
    free(mine);
}

int trl_nbhd_degrees(MPI_Comm comm, int *in, int *out)
{
    int kind = MPI_UNDEFINED, n = 0, me = 0, weighted = 0;
    bool ok = comm != MPI_COMM_NULL && PMPI_Topo_test(comm, &kind) == MPI_SUCCESS;
    *in = *out = 0;
    if (ok && kind == MPI_CART) {
        ok = PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS && n >= 0;
        *in = *out = 2 * n;
    } else if (ok && kind == MPI_GRAPH) {
        ok = PMPI_Comm_rank(comm, &me) == MPI_SUCCESS &&
             PMPI_Graph_neighbors_count(comm, me, &n) == MPI_SUCCESS;
        *in = *out = n;
    } else if (ok && kind == MPI_DIST_GRAPH) {
        ok = PMPI_Dist_graph_neighbors_count(comm, in, out, &weighted) == MPI_SUCCESS;
    }
    if (!ok || kind == MPI_UNDEFINED) {
        *in = *out = 0;
        return MPI_UNDEFINED;
    }
    return kind;
}

void trl_nbhd_read(MPI_Comm comm, trl_nbhd *out)
{
    int kind = MPI_UNDEFINED, size = 0;
    if (out)
        memset(out, 0, sizeof *out);
    if (PMPI_Topo_test(comm, &kind) != MPI_SUCCESS || kind == MPI_UNDEFINED)
        return;
    PMPI_Comm_size(comm, &size);
    trl_nbhd none, *g = out ? out : &none;
    memset(g, 0, sizeof *g);
    if (kind == MPI_CART)
        read_cart(comm, size, g);
    else if (kind == MPI_GRAPH)
        read_graph(comm, size, g);
    else if (kind == MPI_DIST_GRAPH)
        read_dist_graph(comm, size, g);
    /* A rank that could not keep its graph (out of memory) takes every
     * rank's back with it: all serve the calls alike. */
    if (!all_agree(comm, out && g->size == size))
        trl_nbhd_free(g);
}
