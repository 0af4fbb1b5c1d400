/* TRELLIS_CHECK for the neighbourhood collectives (check_calls.h): the
 * block a rank sends along each edge must match the block its neighbour
 * expects from it; one neighbour exchange on the check's duplicate (which
 * keeps the topology) carries each block's signature along its edge. */
#include <stdlib.h>

#include "mpi/context/nbhd_mpi.h"
#include "mpi/engine/check.h"
#include "mpi/entry/check_calls.h"

static const trl_check_labels L_NBHD = {"", NULL, "its block from in-neighbour rank %1$d",
                                        "rank %1$d's block to it"};

/* This rank's in- and out-neighbours, in the order MPI gives them. */
typedef struct {
    int n_in, n_out;
    int *in, *out;
    bool cart;
} edges;

static bool edges_of(MPI_Comm comm, edges *e)
{
    *e = (edges){0};
    int kind = trl_nbhd_degrees(comm, &e->n_in, &e->n_out);
    e->cart = kind == MPI_CART;
    if (kind == MPI_UNDEFINED || (e->cart && e->n_in > 32))
        return false;
    e->in = malloc(sizeof(int) * (size_t)(e->n_in + 1));
    e->out = malloc(sizeof(int) * (size_t)(e->n_out + 1));
    if (!e->in || !e->out)
        return false;
    if (e->cart) {
        for (int d = 0; d < e->n_in / 2; d++) {
            int src, dst;
            PMPI_Cart_shift(comm, d, 1, &src, &dst);
            e->in[2 * d] = e->out[2 * d] = src;
            e->in[2 * d + 1] = e->out[2 * d + 1] = dst;
        }
        return true;
    }
    if (kind == MPI_GRAPH) {
        int me = 0;
        PMPI_Comm_rank(comm, &me);
        PMPI_Graph_neighbors(comm, me, e->n_in, e->in);
        for (int i = 0; i < e->n_in; i++)
            e->out[i] = e->in[i];
        return true;
    }
    /* weights asked for whether or not the graph has them */
    int *w = malloc(sizeof(int) * (size_t)(e->n_in + e->n_out + 1));
    bool ok = w && PMPI_Dist_graph_neighbors(comm, e->n_in, e->in, w, e->n_out, e->out,
                                             w + e->n_in) == MPI_SUCCESS;
    free(w);
    return ok;
}

/* A neighbourhood call's side: send_of(i) and recv_of(i) are edge i's blocks. */
typedef struct {
    int kind; /* 0 one block, 1 per edge (v), 2 per edge with types (w) */
    int sendcount, recvcount;
    const int *sendcounts, *recvcounts;
    MPI_Datatype sendtype, recvtype;
    const MPI_Datatype *sendtypes, *recvtypes;
} nbhd_call;

static trl_sig send_of(const nbhd_call *c, int i)
{
    return c->kind == 0   ? trl_sig_of(c->sendcount, c->sendtype)
           : c->kind == 1 ? trl_sig_of(c->sendcounts[i], c->sendtype)
                          : trl_sig_of(c->sendcounts[i], c->sendtypes[i]);
}

static trl_sig recv_of(const nbhd_call *c, int i)
{
    return c->kind == 0   ? trl_sig_of(c->recvcount, c->recvtype)
           : c->kind == 1 ? trl_sig_of(c->recvcounts[i], c->recvtype)
                          : trl_sig_of(c->recvcounts[i], c->recvtypes[i]);
}

static int check_nbhd(trl_coll coll, const nbhd_call *s, const nbhd_call *r, MPI_Comm comm,
                      const trl_mode *mode, const void *site)
{
    trl_check_where w;
    if (!trl_check_where_of(comm, mode, &w))
        return MPI_SUCCESS;
    trl_check_desc d = {0};
    trl_check_set(&d, TRL_CK_COLL, coll);
    edges e;
    trl_check_pre *pre = NULL;
    if (edges_of(comm, &e) && (pre = trl_check_pre_new(TRL_PRE_NEIGHBOR, 0, e.n_out, e.n_in))) {
        for (int i = 0; i < e.n_out; i++)
            pre->out[i] = send_of(s, i);
        for (int i = 0; i < e.n_in; i++)
            pre->in[i] = e.in[i] == MPI_PROC_NULL ? (trl_sig){0, -1} : recv_of(r, i);
        pre->in_rank = e.in; /* the check frees them with pre */
        pre->out_rank = e.out;
        pre->cart = e.cart;
        e.in = e.out = NULL;
    }
    free(e.in);
    free(e.out);
    return trl_check_call(&w, &d, pre, &L_NBHD, mode, site);
}

/* neighbor_allgather and neighbor_alltoall: one block size each way. */
static int check_uniform(trl_coll coll, int sendcount, MPI_Datatype sendtype, int recvcount,
                         MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                         const void *site)
{
    nbhd_call c = {
        .sendcount = sendcount, .recvcount = recvcount, .sendtype = sendtype, .recvtype = recvtype};
    return check_nbhd(coll, &c, &c, comm, mode, site);
}

int trl_check_neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 const trl_mode *mode, const void *site)
{
    (void)sendbuf, (void)recvbuf;
    return check_uniform(TRL_COLL_NEIGHBOR_ALLGATHER, sendcount, sendtype, recvcount, recvtype,
                         comm, mode, site);
}

int trl_check_neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                const trl_mode *mode, const void *site)
{
    (void)sendbuf, (void)recvbuf;
    return check_uniform(TRL_COLL_NEIGHBOR_ALLTOALL, sendcount, sendtype, recvcount, recvtype, comm,
                         mode, site);
}

int trl_check_neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                                  const void *site)
{
    (void)sendbuf, (void)recvbuf, (void)displs;
    /* one block sent to every out-neighbour, one count per in-neighbour */
    nbhd_call s = {.sendcount = sendcount, .sendtype = sendtype};
    nbhd_call r = {.kind = 1, .recvcounts = recvcounts, .recvtype = recvtype};
    return check_nbhd(TRL_COLL_NEIGHBOR_ALLGATHERV, &s, &r, comm, mode, site);
}

int trl_check_neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 const trl_mode *mode, const void *site)
{
    (void)sendbuf, (void)recvbuf, (void)sdispls, (void)rdispls;
    nbhd_call c = {.kind = 1,
                   .sendcounts = sendcounts,
                   .recvcounts = recvcounts,
                   .sendtype = sendtype,
                   .recvtype = recvtype};
    return check_nbhd(TRL_COLL_NEIGHBOR_ALLTOALLV, &c, &c, comm, mode, site);
}

int trl_check_neighbor_alltoallw(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 const trl_mode *mode, const void *site)
{
    (void)sendbuf, (void)recvbuf, (void)sdispls, (void)rdispls;
    nbhd_call c = {.kind = 2,
                   .sendcounts = sendcounts,
                   .recvcounts = recvcounts,
                   .sendtypes = sendtypes,
                   .recvtypes = recvtypes};
    return check_nbhd(TRL_COLL_NEIGHBOR_ALLTOALLW, &c, &c, comm, mode, site);
}
