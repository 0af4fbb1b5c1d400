/* What the neighbourhood algorithms share: each edge as its own message
 * (neighbor_blocks.h, trl_nb_direct). */
#include "algo/neighbor/neighbor_blocks.h"
#include "core/status.h"

int trl_nb_hosts_make(const trl_coll_args *a, int lanes, trl_nb_hosts *out)
{
    out->lanes = lanes > 0 ? lanes : 1;
    return trl_hier_hosts_init(&out->hh, a);
}

bool trl_nb_is_lane(const trl_nb_hosts *h, int r)
{
    int me = h->hh.host_of[r];
    for (int other = 0; other < h->hh.n; other++)
        if (other != me && trl_nb_lane(h, me, other) == r)
            return true;
    return false;
}

/* Whether an edge of n bytes between ranks a and b goes straight, as one
 * of part's. */
static bool direct(const int *host, size_t big, int a, int b, size_t n, trl_nb_part part)
{
    bool straight = !host || host[a] == host[b] || n > big;
    return straight && (part == TRL_NB_EVERY || (part == TRL_NB_ABOVE) == (n > big));
}

/* Whether rank me's edge with peer, of n bytes, is a message of part's:
 * not with MPI_PROC_NULL or itself, not empty. */
static bool message(const int *host, size_t big, int me, int peer, size_t n, trl_nb_part part)
{
    return peer != TRL_NBHD_NULL && peer != me && n > 0 && direct(host, big, me, peer, n, part);
}

int trl_nb_messages(const trl_coll_args *a, trl_sched *s, const int *host, size_t big,
                    trl_nb_part part)
{
    const trl_nbhd *g = a->nbhd;
    int me = a->rank, nin = trl_nbhd_indegree(g, me), nout = trl_nbhd_outdegree(g, me);
    const int *src = trl_nbhd_sources(g, me), *dst = trl_nbhd_dests(g, me);
    for (int i = 0; i < nin; i++) {
        size_t n = trl_nb_recv_len(a, i);
        if (message(host, big, me, src[i], n, part))
            trl_sched_recv(s, src[i], trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, i)), n,
                           TRL_NODEPS);
    }
    for (int k = 0; k < nout; k++) {
        int j = trl_nbhd_send_order(g, k);
        size_t n = trl_nb_send_len(a, j);
        if (message(host, big, me, dst[j], n, part))
            trl_sched_send(s, dst[j], trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)), n,
                           TRL_NODEPS);
    }
    return s->status;
}

bool trl_nb_has_above(const trl_coll_args *a, size_t big)
{
    const trl_nbhd *g = a->nbhd;
    int me = a->rank;
    const int *src = trl_nbhd_sources(g, me), *dst = trl_nbhd_dests(g, me);
    for (int i = 0; i < trl_nbhd_indegree(g, me); i++)
        if (message(NULL, big, me, src[i], trl_nb_recv_len(a, i), TRL_NB_ABOVE))
            return true;
    for (int j = 0; j < trl_nbhd_outdegree(g, me); j++)
        if (message(NULL, big, me, dst[j], trl_nb_send_len(a, j), TRL_NB_ABOVE))
            return true;
    return false;
}

int trl_nb_self(const trl_coll_args *a, trl_sched *s)
{
    const trl_nbhd *g = a->nbhd;
    int me = a->rank, nin = trl_nbhd_indegree(g, me), nout = trl_nbhd_outdegree(g, me);
    const int *src = trl_nbhd_sources(g, me), *dst = trl_nbhd_dests(g, me);
    /* The k-th send to itself (in send order) fills the k-th receive from
     * itself (in block order). */
    int i = 0;
    for (int k = 0; k < nout; k++) {
        int j = trl_nbhd_send_order(g, k);
        if (dst[j] != me)
            continue;
        while (i < nin && src[i] != me)
            i++;
        if (i == nin)
            return TRL_ERR_INVALID; /* the lists disagree */
        size_t n = trl_nb_send_len(a, j);
        if (n != trl_nb_recv_len(a, i))
            return TRL_ERR_INVALID;
        if (n > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)),
                           trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, i)), n, TRL_NODEPS);
        i++;
    }
    return s->status;
}

int trl_nb_direct(const trl_coll_args *a, trl_sched *s, const int *host, size_t big)
{
    int rc = trl_nb_messages(a, s, host, big, TRL_NB_EVERY);
    return rc == TRL_OK ? trl_nb_self(a, s) : rc;
}
