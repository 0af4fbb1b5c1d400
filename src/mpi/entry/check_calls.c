/* What must match across ranks, collective by collective (check_calls.h),
 * as the MPI standard puts it: the root, the operation, and the type
 * signature of each block that one rank sends and another receives. On an
 * intracommunicator a collective's blocks are one size all round (X: what
 * a rank sends, Y: what it receives, all equal) unless its counts differ
 * per peer (v and w forms, neighbourhood collectives): those list each
 * block a rank sends and expects (trl_check_pre), which the check sums into
 * a digest or carries to the peer in a pre-exchange. On an
 * intercommunicator X is the data from the first group to the second and
 * Y the other way, the v and w forms' blocks summed alike; a root's group
 * passes MPI_ROOT (the root) and MPI_PROC_NULL, the other group the root's
 * rank. */
#include "mpi/entry/check_calls.h"

#include <stdlib.h>

#include "mpi/engine/check.h"

typedef struct {
    trl_check_desc d;
    trl_check_where w;
} call;

static bool begin(call *k, MPI_Comm comm, trl_coll coll, const trl_mode *mode)
{
    *k = (call){0};
    if (!trl_check_where_of(comm, mode, &k->w))
        return false;
    trl_check_set(&k->d, TRL_CK_COLL, coll);
    return true;
}

static int finish(call *k, trl_check_pre *pre, const trl_check_labels *labels, const trl_mode *mode,
                  const void *site)
{
    return trl_check_call(&k->w, &k->d, pre, labels, mode, site);
}

/* This rank's part in a rooted call: the root, a leaf, or (on an
 * intercommunicator) a rank of the root's group that takes no part
 * (MPI_PROC_NULL). On an intracommunicator every rank passes the root's
 * rank; on an intercommunicator the root MPI_ROOT, the rest of its group
 * MPI_PROC_NULL, the other group the root's rank. */
typedef enum { ROLE_ROOT, ROLE_IDLE, ROLE_LEAF } role;

static role root_role(call *k, int root)
{
    k->d.v[TRL_CK_ROOT_ARG] = root;
    if (!k->w.inter) {
        trl_check_set(&k->d, TRL_CK_ROOT, root);
        return root == k->w.rank ? ROLE_ROOT : ROLE_LEAF;
    }
    int mine = k->w.low ? 0 : 1;
    if (root == MPI_ROOT) {
        trl_check_set(&k->d, TRL_CK_ROOT, k->w.rank);
        trl_check_set(&k->d, TRL_CK_ROOT_GROUP, mine);
        trl_check_set(&k->d, TRL_CK_ISROOT, 1);
        return ROLE_ROOT;
    }
    if (root == MPI_PROC_NULL) {
        trl_check_set(&k->d, TRL_CK_ROOT_GROUP, mine);
        trl_check_set(&k->d, TRL_CK_ISROOT, 0);
        return ROLE_IDLE;
    }
    if (root < 0 || root >= k->w.remote_size)
        return ROLE_LEAF; /* the MPI library refuses it on this rank */
    trl_check_set(&k->d, TRL_CK_ROOT, root);
    trl_check_set(&k->d, TRL_CK_ROOT_GROUP, 1 - mine);
    return ROLE_LEAF;
}

/* Intercommunicator data: sent by this rank's group (first group's: X). */
static void inter_send(call *k, trl_sig s)
{
    k->w.low ? trl_check_x(&k->d, s) : trl_check_y(&k->d, s);
}

static void inter_recv(call *k, trl_sig s)
{
    k->w.low ? trl_check_y(&k->d, s) : trl_check_x(&k->d, s);
}

static void local(call *k, int what, int64_t want, int64_t got)
{
    if (k->d.v[TRL_CK_LOCAL] != TRL_CK_LOCAL_OK)
        return;
    k->d.v[TRL_CK_LOCAL] = what;
    k->d.v[TRL_CK_WANT] = want;
    k->d.v[TRL_CK_GOT] = got;
}

static void in_place(call *k, bool yes)
{
    trl_check_set(&k->d, TRL_CK_INPLACE, yes);
}

static const trl_check_labels L_DATA = {"count and datatype", NULL, "", ""};
static const trl_check_labels L_BLOCK = {"block (sendcount x sendtype; recvcount x recvtype at "
                                         "the root)",
                                         NULL, "", ""};
static const trl_check_labels L_SCATTER = {"block (sendcount x sendtype at the root; recvcount "
                                           "x recvtype)",
                                           NULL, "", ""};
static const trl_check_labels L_TWO = {"send block (sendcount x sendtype)",
                                       "receive block (recvcount x recvtype)", "", ""};
static const trl_check_labels L_INTER_TWO = {"first group's send blocks, second group's receive "
                                             "blocks",
                                             "second group's send blocks, first group's receive "
                                             "blocks",
                                             "", ""};

/* ---- rooted, one block ---- */

int trl_check_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_BCAST, mode))
        return MPI_SUCCESS;
    (void)buffer;
    if (root_role(&k, root) != ROLE_IDLE)
        trl_check_x(&k.d, trl_sig_of(count, datatype));
    return finish(&k, NULL, &L_DATA, mode, site);
}

int trl_check_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_REDUCE, mode))
        return MPI_SUCCESS;
    (void)recvbuf;
    role r = root_role(&k, root);
    if (r == ROLE_LEAF && !k.w.inter && sendbuf == MPI_IN_PLACE)
        local(&k, TRL_CK_LOCAL_INPLACE, 0, 0);
    if (r != ROLE_IDLE) {
        trl_check_set(&k.d, TRL_CK_OP, trl_check_op_code(op));
        trl_check_x(&k.d, trl_sig_of(count, datatype));
    }
    return finish(&k, NULL, &L_DATA, mode, site);
}

static int rooted_block(trl_coll coll, bool gather, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, const trl_mode *mode,
                        const void *site)
{
    call k;
    if (!begin(&k, comm, coll, mode))
        return MPI_SUCCESS;
    trl_sig send = trl_sig_of(sendcount, sendtype), recv = trl_sig_of(recvcount, recvtype);
    /* gather: the root receives; scatter: the root sends. own: the buffer
     * of this rank's own block, which only the root may pass as
     * MPI_IN_PLACE (gather's send buffer, scatter's receive buffer). */
    trl_sig at_root = gather ? recv : send, at_leaf = gather ? send : recv;
    const void *own = gather ? sendbuf : recvbuf;
    role r = root_role(&k, root);
    if (r != ROLE_IDLE)
        trl_check_x(&k.d, r == ROLE_ROOT ? at_root : at_leaf);
    if (!k.w.inter && r == ROLE_ROOT && own != MPI_IN_PLACE && !trl_sig_match(send, recv))
        local(&k, TRL_CK_LOCAL_ROOT_SELF, send.bytes, recv.bytes);
    if (!k.w.inter && r == ROLE_LEAF && own == MPI_IN_PLACE)
        local(&k, TRL_CK_LOCAL_INPLACE, 0, 0);
    return finish(&k, NULL, gather ? &L_BLOCK : &L_SCATTER, mode, site);
}

int trl_check_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                     const trl_mode *mode, const void *site)
{
    return rooted_block(TRL_COLL_GATHER, true, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm, mode, site);
}

int trl_check_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                      const trl_mode *mode, const void *site)
{
    return rooted_block(TRL_COLL_SCATTER, false, sendbuf, sendcount, sendtype, recvbuf, recvcount,
                        recvtype, root, comm, mode, site);
}

/* ---- rooted, a block per peer ---- */

static const trl_check_labels L_GATHERV = {"", NULL, "recvcounts[%1$d] at the root",
                                           "rank %1$d's sendcount"};
static const trl_check_labels L_SCATTERV = {"", NULL, "its recvcount",
                                            "sendcounts[%2$d] at the root"};

/* An intercommunicator's per-peer blocks, n_out to the other group's
 * ranks and n_in from them, each none (bytes -1) until set: summed in the
 * rows (check_pre.h, TRL_PRE_INTER). */
static trl_check_pre *inter_blocks(int n_out, int n_in)
{
    trl_check_pre *pre = trl_check_pre_new(TRL_PRE_INTER, 0, n_out, n_in);
    for (int j = 0; pre && j < n_out; j++)
        pre->out[j] = (trl_sig){0, -1};
    for (int i = 0; pre && i < n_in; i++)
        pre->in[i] = (trl_sig){0, -1};
    return pre;
}

/* A rooted v form on an intercommunicator: the root's blocks to or from
 * each rank of the other group (counts), a leaf's one from or to the root. */
static trl_check_pre *inter_rooted(const call *k, role r, bool to_root, const int counts[],
                                   MPI_Datatype root_type, int count, MPI_Datatype type)
{
    int n = k->w.remote_size, root = (int)k->d.v[TRL_CK_ROOT_ARG];
    bool root_sends = !to_root;
    trl_check_pre *pre = r == ROLE_ROOT   ? inter_blocks(root_sends ? n : 0, root_sends ? 0 : n)
                         : r == ROLE_LEAF ? inter_blocks(root_sends ? 0 : n, root_sends ? n : 0)
                                          : inter_blocks(0, 0);
    if (!pre)
        return NULL;
    for (int i = 0; r == ROLE_ROOT && i < n; i++) {
        trl_sig s = trl_sig_of(counts[i], root_type);
        root_sends ? (pre->out[i] = s) : (pre->in[i] = s);
    }
    if (r == ROLE_LEAF && root >= 0 && root < n) {
        trl_sig s = trl_sig_of(count, type);
        root_sends ? (pre->in[root] = s) : (pre->out[root] = s);
    }
    return pre;
}

int trl_check_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_GATHERV, mode))
        return MPI_SUCCESS;
    (void)recvbuf, (void)displs;
    role r = root_role(&k, root);
    bool at_root = r == ROLE_ROOT;
    if (k.w.inter)
        return finish(&k, inter_rooted(&k, r, true, recvcounts, recvtype, sendcount, sendtype),
                      &L_GATHERV, mode, site);
    if (!at_root && sendbuf == MPI_IN_PLACE)
        local(&k, TRL_CK_LOCAL_INPLACE, 0, 0);
    trl_check_pre *pre = trl_check_pre_new(TRL_PRE_GATHER, root, 1, at_root ? k.w.size : 0);
    if (pre) {
        pre->out[0] = at_root && sendbuf == MPI_IN_PLACE ? trl_sig_of(recvcounts[root], recvtype)
                                                         : trl_sig_of(sendcount, sendtype);
        for (int i = 0; at_root && i < k.w.size; i++)
            pre->in[i] = trl_sig_of(recvcounts[i], recvtype);
    }
    return finish(&k, pre, &L_GATHERV, mode, site);
}

int trl_check_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_SCATTERV, mode))
        return MPI_SUCCESS;
    (void)sendbuf, (void)displs;
    role r = root_role(&k, root);
    bool at_root = r == ROLE_ROOT;
    if (k.w.inter)
        return finish(&k, inter_rooted(&k, r, false, sendcounts, sendtype, recvcount, recvtype),
                      &L_SCATTERV, mode, site);
    if (!at_root && recvbuf == MPI_IN_PLACE)
        local(&k, TRL_CK_LOCAL_INPLACE, 0, 0);
    trl_check_pre *pre = trl_check_pre_new(TRL_PRE_SCATTER, root, at_root ? k.w.size : 0, 1);
    if (pre) {
        for (int i = 0; at_root && i < k.w.size; i++)
            pre->out[i] = trl_sig_of(sendcounts[i], sendtype);
        pre->in[0] = at_root && recvbuf == MPI_IN_PLACE ? (trl_sig){0, -1}
                                                        : trl_sig_of(recvcount, recvtype);
    }
    return finish(&k, pre, &L_SCATTERV, mode, site);
}

/* ---- every rank, one block ---- */

static int all_block(trl_coll coll, const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                     const void *site)
{
    call k;
    if (!begin(&k, comm, coll, mode))
        return MPI_SUCCESS;
    trl_sig recv = trl_sig_of(recvcount, recvtype);
    if (k.w.inter) {
        inter_send(&k, trl_sig_of(sendcount, sendtype));
        inter_recv(&k, recv);
        return finish(&k, NULL, &L_INTER_TWO, mode, site);
    }
    in_place(&k, sendbuf == MPI_IN_PLACE);
    if (sendbuf != MPI_IN_PLACE)
        trl_check_x(&k.d, trl_sig_of(sendcount, sendtype));
    trl_check_y(&k.d, recv);
    return finish(&k, NULL, &L_TWO, mode, site);
}

int trl_check_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                        const void *site)
{
    (void)recvbuf;
    return all_block(TRL_COLL_ALLGATHER, sendbuf, sendcount, sendtype, recvcount, recvtype, comm,
                     mode, site);
}

int trl_check_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const trl_mode *mode,
                       const void *site)
{
    (void)recvbuf;
    return all_block(TRL_COLL_ALLTOALL, sendbuf, sendcount, sendtype, recvcount, recvtype, comm,
                     mode, site);
}

/* ---- every rank, a block per peer ---- */

static const trl_check_labels L_ALLGATHERV = {"", NULL, "recvcounts[%1$d]",
                                              "rank %1$d's sendcount"};
static const trl_check_labels L_ALLTOALLV = {"", NULL, "recvcounts[%1$d]",
                                             "rank %1$d's sendcounts[%2$d]"};

int trl_check_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_ALLGATHERV, mode))
        return MPI_SUCCESS;
    (void)recvbuf, (void)displs;
    if (k.w.inter) {
        int n = k.w.remote_size;
        trl_check_pre *pre = inter_blocks(n, n);
        for (int i = 0; pre && i < n; i++) {
            pre->out[i] = trl_sig_of(sendcount, sendtype);
            pre->in[i] = trl_sig_of(recvcounts[i], recvtype);
        }
        return finish(&k, pre, &L_ALLGATHERV, mode, site);
    }
    in_place(&k, sendbuf == MPI_IN_PLACE);
    trl_check_pre *pre = trl_check_pre_new(TRL_PRE_ALLGATHER, 0, 1, k.w.size);
    if (pre) {
        pre->out[0] = sendbuf == MPI_IN_PLACE ? trl_sig_of(recvcounts[k.w.rank], recvtype)
                                              : trl_sig_of(sendcount, sendtype);
        for (int i = 0; i < k.w.size; i++)
            pre->in[i] = trl_sig_of(recvcounts[i], recvtype);
    }
    return finish(&k, pre, &L_ALLGATHERV, mode, site);
}

static int alltoall_blocks(trl_coll coll, const void *sendbuf, const int sendcounts[],
                           MPI_Datatype sendtype, const MPI_Datatype *sendtypes,
                           const int recvcounts[], MPI_Datatype recvtype,
                           const MPI_Datatype *recvtypes, MPI_Comm comm, const trl_mode *mode,
                           const void *site)
{
    call k;
    if (!begin(&k, comm, coll, mode))
        return MPI_SUCCESS;
    int n = k.w.inter ? k.w.remote_size : k.w.size;
    trl_check_pre *pre = k.w.inter ? inter_blocks(n, n)
                                   : trl_check_pre_new(TRL_PRE_ALLTOALL, 0, n, n);
    if (!k.w.inter)
        in_place(&k, sendbuf == MPI_IN_PLACE);
    for (int i = 0; pre && i < n; i++) {
        MPI_Datatype rt = recvtypes ? recvtypes[i] : recvtype;
        MPI_Datatype st = sendtypes ? sendtypes[i] : sendtype;
        trl_sig recv = trl_sig_of(recvcounts[i], rt);
        pre->in[i] = recv;
        /* the same block both ways (an exchange of equals), or in place */
        bool same = sendbuf == MPI_IN_PLACE || (st == rt && sendcounts[i] == recvcounts[i]);
        pre->out[i] = same ? recv : trl_sig_of(sendcounts[i], st);
    }
    return finish(&k, pre, &L_ALLTOALLV, mode, site);
}

int trl_check_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                        const trl_mode *mode, const void *site)
{
    (void)sdispls, (void)recvbuf, (void)rdispls;
    return alltoall_blocks(TRL_COLL_ALLTOALLV, sendbuf, sendcounts, sendtype, NULL, recvcounts,
                           recvtype, NULL, comm, mode, site);
}

int trl_check_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        const trl_mode *mode, const void *site)
{
    (void)sdispls, (void)recvbuf, (void)rdispls;
    return alltoall_blocks(TRL_COLL_ALLTOALLW, sendbuf, sendcounts, MPI_DATATYPE_NULL, sendtypes,
                           recvcounts, MPI_DATATYPE_NULL, recvtypes, comm, mode, site);
}

/* ---- reductions to every rank ---- */

static int all_reduction(trl_coll coll, const void *sendbuf, trl_sig data, MPI_Op op, MPI_Comm comm,
                         const trl_mode *mode, const void *site, bool uniform_place)
{
    call k;
    if (!begin(&k, comm, coll, mode))
        return MPI_SUCCESS;
    trl_check_set(&k.d, TRL_CK_OP, trl_check_op_code(op));
    trl_check_x(&k.d, data);
    if (!k.w.inter && uniform_place)
        in_place(&k, sendbuf == MPI_IN_PLACE);
    return finish(&k, NULL, &L_DATA, mode, site);
}

int trl_check_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, const trl_mode *mode, const void *site)
{
    (void)recvbuf;
    return all_reduction(TRL_COLL_ALLREDUCE, sendbuf, trl_sig_of(count, datatype), op, comm, mode,
                         site, true);
}

int trl_check_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const trl_mode *mode, const void *site)
{
    (void)recvbuf;
    /* An intercommunicator's group scatters what the other group reduced:
     * the blocks of one group make as much as the other's. */
    trl_check_where w;
    int64_t n = trl_check_where_of(comm, mode, &w) && w.inter ? (int64_t)recvcount * w.size
                                                              : recvcount;
    return all_reduction(TRL_COLL_REDUCE_SCATTER_BLOCK, sendbuf,
                         trl_sig_of(n <= INT32_MAX ? (int)n : 0, datatype), op, comm, mode, site,
                         true);
}

int trl_check_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const trl_mode *mode,
                             const void *site)
{
    (void)recvbuf;
    trl_check_where w;
    if (!trl_check_where_of(comm, mode, &w))
        return MPI_SUCCESS;
    int64_t total = 0;
    uint64_t h = (uint64_t)trl_sig_of(1, datatype).hash;
    for (int i = 0; i < w.size; i++) {
        total += recvcounts[i];
        h = (h ^ (uint64_t)(uint32_t)recvcounts[i]) * 0x100000001b3ULL;
    }
    trl_sig data = trl_sig_of(total > 0 && total <= INT32_MAX ? (int)total : 0, datatype);
    /* On an intercommunicator each group's counts are its own ranks' (the
     * sums agree); on an intracommunicator every rank passes the same
     * array, folded into the signature. */
    if (!w.inter && data.hash != TRL_SIG_PACKED)
        data.hash = (int64_t)(h >> 3);
    return all_reduction(TRL_COLL_REDUCE_SCATTER, sendbuf, data, op, comm, mode, site, true);
}

int trl_check_scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, const trl_mode *mode, const void *site)
{
    (void)recvbuf;
    return all_reduction(TRL_COLL_SCAN, sendbuf, trl_sig_of(count, datatype), op, comm, mode, site,
                         false);
}

int trl_check_exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, const trl_mode *mode, const void *site)
{
    (void)recvbuf;
    return all_reduction(TRL_COLL_EXSCAN, sendbuf, trl_sig_of(count, datatype), op, comm, mode,
                         site, false);
}

int trl_check_barrier(MPI_Comm comm, const trl_mode *mode, const void *site)
{
    call k;
    if (!begin(&k, comm, TRL_COLL_BARRIER, mode))
        return MPI_SUCCESS;
    return finish(&k, NULL, &L_DATA, mode, site);
}
