/* Where a neighbourhood collective's blocks lie: send block j (to
 * out-neighbour j) and receive block i (from in-neighbour i) of rank
 * a->rank, in bytes, for every neighbourhood algorithm. Every form fills
 * send_counts/send_displs (one entry for allgather(v), else one per
 * out-edge) and recv_counts/recv_displs (one per in-edge); count is the
 * send block's bytes for allgather and alltoall (what the rules' bytes=
 * sees).
 *
 * Other ranks' blocks (the v and w forms under an algorithm with
 * TRL_NEEDS_ALL_COUNTS): a->counts holds the bytes of every edge of the
 * graph, rank r's out-edge j at trl_nb_out_at(g, r, j) and its in-edge i at
 * trl_nb_in_at(g, r, i); filled for this rank, and on a rank that carries
 * its host's traffic (trl_nb_is_lane) for every rank of its host; 0
 * elsewhere. */
#ifndef TRL_ALGO_NEIGHBOR_BLOCKS_H
#define TRL_ALGO_NEIGHBOR_BLOCKS_H

#include "algo/algo.h"
#include "algo/hier.h"
#include "algo/nbhd.h"
#include "sched/sched.h"

/* allgather(v) send one block to every neighbour: their send arrays have
 * one entry. */
static inline int trl_nb_send_block(const trl_coll_args *a, int j)
{
    return a->coll == TRL_COLL_NEIGHBOR_ALLGATHER || a->coll == TRL_COLL_NEIGHBOR_ALLGATHERV ? 0
                                                                                             : j;
}
static inline size_t trl_nb_send_off(const trl_coll_args *a, int j)
{
    return a->send_displs[trl_nb_send_block(a, j)];
}
static inline size_t trl_nb_send_len(const trl_coll_args *a, int j)
{
    return a->send_counts[trl_nb_send_block(a, j)];
}
static inline size_t trl_nb_recv_off(const trl_coll_args *a, int i)
{
    return a->recv_displs[i];
}
static inline size_t trl_nb_recv_len(const trl_coll_args *a, int i)
{
    return a->recv_counts[i];
}

/* Whether every block has the same size on every rank (allgather,
 * alltoall): then any rank knows what any other sends. */
static inline bool trl_nb_uniform(trl_coll c)
{
    return c == TRL_COLL_NEIGHBOR_ALLGATHER || c == TRL_COLL_NEIGHBOR_ALLTOALL;
}

static inline size_t trl_nb_out_at(const trl_nbhd *g, int r, int j)
{
    return (size_t)g->out_off[r] + (size_t)j;
}
static inline size_t trl_nb_in_at(const trl_nbhd *g, int r, int i)
{
    return (size_t)g->out_off[g->size] + (size_t)g->in_off[r] + (size_t)i;
}
/* Entries of a->counts above. */
static inline size_t trl_nb_edges(const trl_nbhd *g)
{
    return (size_t)g->out_off[g->size] + (size_t)g->in_off[g->size];
}

/* Which ranks carry a host's traffic with the other hosts (locality's
 * lanes): host pair (A, B) goes through A's rank B mod k and B's rank A mod
 * k (hosts and their ranks as trl_hier_hosts orders them), k = min(lanes,
 * the host's ranks); lanes 1: each host's lowest rank, its leader, for
 * every other host. */
typedef struct {
    trl_hier_hosts hh;
    int lanes;
} trl_nb_hosts;

/* The hosts of a's ranks (a->topo, a->size). TRL_OK or TRL_ERR_NOMEM; free
 * with trl_hier_hosts_free(&h->hh). */
int trl_nb_hosts_make(const trl_coll_args *a, int lanes, trl_nb_hosts *out);

/* The rank of host `host` that carries its traffic with host `other`. */
static inline int trl_nb_lane(const trl_nb_hosts *h, int host, int other)
{
    int n = trl_hier_host_size(&h->hh, host), k = h->lanes < n ? h->lanes : n;
    return trl_hier_host_rank(&h->hh, host, other % k);
}

/* Whether rank r carries its host's traffic with some other host. */
bool trl_nb_is_lane(const trl_nb_hosts *h, int r);

/* Each edge of rank a->rank as its own message (receives in block order,
 * sends in trl_nbhd_send_order: the k-th message of a pair of ranks is the
 * edge the standard pairs), and its edges to itself as copies, the k-th
 * send to itself filling the k-th receive from itself; where host (a host
 * index per rank) is given, only the edges within its host and those
 * between hosts of more than `big` bytes (both ends see the same size). A
 * zero-byte block is left out on both ends. Returns s->status, or
 * TRL_ERR_INVALID where the lists disagree (neighbor_direct.c). */
int trl_nb_direct(const trl_coll_args *a, trl_sched *s, const int *host, size_t big);

/* trl_nb_direct in two: the messages to and from other ranks, and the
 * copies of the edges to itself (the one that can refuse). The messages:
 * all of them, those of more than big bytes, or the others (within the
 * host). Both ends of an edge see its size alike, so both put it in the
 * same part. */
typedef enum { TRL_NB_EVERY, TRL_NB_ABOVE, TRL_NB_UPTO } trl_nb_part;
int trl_nb_messages(const trl_coll_args *a, trl_sched *s, const int *host, size_t big,
                    trl_nb_part part);
/* Whether trl_nb_messages has any message of part TRL_NB_ABOVE for a. */
bool trl_nb_has_above(const trl_coll_args *a, size_t big);
int trl_nb_self(const trl_coll_args *a, trl_sched *s);

#endif
