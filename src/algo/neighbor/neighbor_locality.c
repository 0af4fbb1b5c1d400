/* Locality-aware neighbourhood exchange (every neighbourhood collective):
 * the messages a host's ranks send to the ranks of one other host travel as
 * one message between the two hosts' leaders.
 *
 *   1. Edges within a host: one message each, as linear (trl_nb_direct;
 *      in a blocking v or w call those above combine= go earlier: below).
 *   2. Each rank packs its blocks for each other host (in its send order)
 *      and sends them to its host's leader (its lowest rank) in one message;
 *      the leader lays every rank's blocks for host B side by side, by rank
 *      and then send order.
 *   3. The leader sends that to B's leader: one message per pair of hosts
 *      with edges between them.
 *   4. B's leader hands each of its ranks the blocks for it (one message
 *      per source host), which lands them in their receive blocks: the
 *      block of edge s -> q is q's block out_slot (algo/nbhd.h), the
 *      standard's pairing.
 *
 * Cost, per host pair with m edges of n bytes: 3 alpha + 3 m n beta along
 * its path (gather, exchange, scatter within hosts), against m alpha + m n
 * beta across hosts for linear: fewer, larger messages where hosts
 * exchange many small ones. Leaders carry their host's whole remote
 * traffic.
 * From: the node-aware neighbourhood collectives of Collom, Li and Bienz
 * ("Optimizing Irregular Communication with Neighborhood Collectives and
 * Locality-Aware Parallelism", 2023; MPI Advance's locality_aware) and
 * Ghazimirsaeed et al. (SC20).
 * lanes=k spreads a host's traffic over k of its ranks: the traffic of host
 * pair (A, B) goes through A's rank B mod k and B's rank A mod k (below,
 * "leader" is that rank: trl_nb_lane), so that up to k ranks of a host pack,
 * send and hand out at once instead of one carrying it all; lanes=1 (the
 * default): one leader per host, the fewest messages within hosts.
 * combine=N: only edges of at most N bytes between hosts are combined;
 * larger ones go straight, as linear sends them (both ends and the lanes
 * see an edge's size alike), so one call can combine its small blocks and
 * send its large ones directly (a v form's sizes vary by edge).
 * Any number of ranks and hosts; one host: linear's messages only.
 *
 * The size of each edge's block: a rank knows its own blocks; a leader must
 * also know its host's ranks' (what it gathers and what it hands out).
 * allgather and alltoall: every block is a->count bytes on every rank (a
 * rank whose own blocks differ refuses to build, and its call goes to the
 * MPI library). The v and w forms: the runtime gives the leader its host's
 * ranks' block sizes first (TRL_NEEDS_ALL_COUNTS, blocking calls: a->counts
 * as neighbor_blocks.h lays it out). An edge's size is read on the side of
 * it this rank's host holds: the sender's where it is on this host, the
 * receiver's otherwise (the two agree in a correct program). n == 0:
 * nothing. A blocking call sends its messages of more than combine= bytes
 * with that exchange (a->direct_apart: they need no sizes but their own),
 * so they are not held back behind it; the small ones within its host and
 * its copies to itself stay here (with the exchange, a rank would wait
 * for its host's before it gathers).
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/neighbor/neighbor_blocks.h"
#include "core/status.h"
#include "topo/topo.h"

typedef struct {
    const trl_coll_args *a;
    const trl_nbhd *g;
    trl_sched *s;
    const trl_nb_hosts *h;
    const int *host; /* per rank: its host (h->hh.host_of) */
    size_t big;      /* combine=: larger edges go straight */
    int *deps;       /* room for the steps one message waits for */
} plan;

/* Rank s's k-th edge in send order: its block (the same order for every
 * rank), destination, and whether it goes to host b. */
static int edge_block(const plan *pl, int k)
{
    return trl_nbhd_send_order(pl->g, k);
}

static int edge_dest(const plan *pl, int s, int j)
{
    return pl->g->out_dst[pl->g->out_off[s] + j];
}

/* Bytes of rank s's edge j (send block j), from the side this rank's host
 * holds (above). */
static size_t edge_len(const plan *pl, int s, int j)
{
    const trl_coll_args *a = pl->a;
    if (trl_nb_uniform(a->coll))
        return a->count;
    if (pl->host[s] == pl->host[a->rank])
        return s == a->rank ? trl_nb_send_len(a, j) : a->counts[trl_nb_out_at(pl->g, s, j)];
    int q = edge_dest(pl, s, j), slot = pl->g->out_slot[pl->g->out_off[s] + j];
    return q == a->rank ? trl_nb_recv_len(a, slot) : a->counts[trl_nb_in_at(pl->g, q, slot)];
}

/* Whether rank s's edge j goes to host b combined with others: it crosses
 * hosts and is no larger than combine= (larger ones go straight). */
static bool to_host(const plan *pl, int s, int j, int b)
{
    int q = edge_dest(pl, s, j);
    return q != TRL_NBHD_NULL && pl->host[q] == b && pl->host[s] != b &&
           edge_len(pl, s, j) <= pl->big;
}

/* Bytes from rank s to host b (s's packed message to its leader). */
static size_t bytes_to(const plan *pl, int s, int b)
{
    size_t m = 0;
    for (int k = 0; k < trl_nbhd_outdegree(pl->g, s); k++) {
        int j = edge_block(pl, k);
        m += to_host(pl, s, j, b) ? edge_len(pl, s, j) : 0;
    }
    return m;
}

/* Bytes from host A's ranks to host B (the leaders' message). */
static size_t host_bytes(const plan *pl, int A, int B)
{
    size_t total = 0;
    for (int r = 0; r < pl->a->size; r++)
        total += pl->host[r] == A ? bytes_to(pl, r, B) : 0;
    return total;
}

/* This rank's blocks for host b copied side by side from scratch offset at
 * on; each copy's step id appended to pl->deps at *nd. */
static void pack_own(plan *pl, int b, size_t at, int *nd)
{
    const trl_coll_args *a = pl->a;
    for (int k = 0; k < trl_nbhd_outdegree(pl->g, a->rank); k++) {
        int j = edge_block(pl, k);
        size_t n = to_host(pl, a->rank, j, b) ? edge_len(pl, a->rank, j) : 0;
        if (n == 0)
            continue;
        pl->deps[(*nd)++] = trl_sched_copy(pl->s, trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)),
                                           trl_ref_at(TRL_BUF_SCRATCH, at), n, TRL_NODEPS);
        at += n;
    }
}

/* Steps 2 and 3 on host A = this rank's: its blocks to the leader, and the
 * leader's message to every other host. */
static void gather_and_send(plan *pl)
{
    const trl_coll_args *a = pl->a;
    trl_sched *s = pl->s;
    int me = a->rank, A = pl->host[me];
    for (int b = 0; b < pl->h->hh.n; b++) {
        if (b == A)
            continue;
        int lead = trl_nb_lane(pl->h, A, b);
        if (me != lead) {
            size_t m = bytes_to(pl, me, b);
            if (m == 0)
                continue;
            size_t at = trl_sched_scratch(s, m);
            int nd = 0;
            pack_own(pl, b, at, &nd);
            trl_sched_send(s, lead, trl_ref_at(TRL_BUF_SCRATCH, at), m, pl->deps, nd);
            continue;
        }
        size_t total = host_bytes(pl, A, b);
        if (total == 0)
            continue;
        size_t at = trl_sched_scratch(s, total), x = 0;
        int nd = 0;
        for (int r = 0; r < a->size; r++) {
            size_t m = pl->host[r] == A ? bytes_to(pl, r, b) : 0;
            if (m == 0)
                continue;
            if (r != me)
                pl->deps[nd++] = trl_sched_recv(s, r, trl_ref_at(TRL_BUF_SCRATCH, at + x), m,
                                                TRL_NODEPS);
            else
                pack_own(pl, b, at + x, &nd);
            x += m;
        }
        trl_sched_send(s, trl_nb_lane(pl->h, b, A), trl_ref_at(TRL_BUF_SCRATCH, at), total,
                       pl->deps, nd);
    }
}

/* Bytes host A's ranks send to rank q (of this rank's host B). */
static size_t bytes_for(const plan *pl, int A, int q)
{
    size_t m = 0;
    for (int r = 0; r < pl->a->size; r++)
        for (int k = 0; pl->host[r] == A && k < trl_nbhd_outdegree(pl->g, r); k++) {
            int j = edge_block(pl, k);
            if (to_host(pl, r, j, pl->host[q]) && edge_dest(pl, r, j) == q)
                m += edge_len(pl, r, j);
        }
    return m;
}

/* Step 4 for the blocks from host A to this rank's host B: the leader
 * receives them (at `at`, waited for by `got`) and hands each rank its own;
 * another rank receives its own from the leader. Entries in the leader's
 * order: by source rank, then send order. */
static void scatter_from(plan *pl, int A, size_t at, int got)
{
    const trl_coll_args *a = pl->a;
    trl_sched *s = pl->s;
    int me = a->rank, B = pl->host[me], lead = trl_nb_lane(pl->h, B, A);
    for (int q = 0; q < a->size; q++) {
        if (pl->host[q] != B || (me != lead && q != me))
            continue;
        size_t m = bytes_for(pl, A, q);
        if (m == 0)
            continue;
        size_t tmp = q == lead ? at : trl_sched_scratch(s, m), x = 0, y = 0;
        int nd = 0, recv = -1;
        if (q == me && me != lead)
            recv = trl_sched_recv(s, lead, trl_ref_at(TRL_BUF_SCRATCH, tmp), m, TRL_NODEPS);
        for (int r = 0; r < a->size; r++)
            for (int k = 0; pl->host[r] == A && k < trl_nbhd_outdegree(pl->g, r); k++) {
                int j = edge_block(pl, k);
                if (!to_host(pl, r, j, B))
                    continue;
                size_t n = edge_len(pl, r, j); /* x: its place in the leader's message */
                if (edge_dest(pl, r, j) == q && n > 0) {
                    /* q's receive block: its place is known only on q (a
                     * leader has no other rank's displacements). */
                    int slot = pl->g->out_slot[pl->g->out_off[r] + j];
                    trl_ref to_block = {0};
                    if (q == me)
                        to_block = trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, slot));
                    if (q == me && q == lead)
                        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, at + x), to_block, n,
                                       TRL_DEPS(got));
                    else if (q == me)
                        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, tmp + y), to_block, n,
                                       TRL_DEPS(recv));
                    else
                        pl->deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, at + x),
                                                        trl_ref_at(TRL_BUF_SCRATCH, tmp + y), n,
                                                        TRL_DEPS(got));
                    y += n;
                }
                x += n;
            }
        if (me == lead && q != me)
            trl_sched_send(s, q, trl_ref_at(TRL_BUF_SCRATCH, tmp), m, pl->deps, nd);
    }
}

/* Steps 3 (receiving) and 4 on this rank's host B. */
static void receive_and_scatter(plan *pl)
{
    const trl_coll_args *a = pl->a;
    int me = a->rank, B = pl->host[me];
    for (int A = 0; A < pl->h->hh.n; A++) {
        if (A == B)
            continue;
        size_t at = 0;
        int got = -1;
        if (me == trl_nb_lane(pl->h, B, A)) {
            size_t total = host_bytes(pl, A, B);
            if (total == 0)
                continue;
            at = trl_sched_scratch(pl->s, total);
            got = trl_sched_recv(pl->s, trl_nb_lane(pl->h, A, B), trl_ref_at(TRL_BUF_SCRATCH, at),
                                 total, TRL_NODEPS);
        }
        scatter_from(pl, A, at, got);
    }
}

/* allgather, alltoall: whether this rank's blocks are all a->count bytes. */
static bool blocks_uniform(const trl_coll_args *a)
{
    const trl_nbhd *g = a->nbhd;
    int me = a->rank;
    for (int j = 0; j < trl_nbhd_outdegree(g, me); j++)
        if (trl_nb_send_len(a, j) != a->count)
            return false;
    const int *src = trl_nbhd_sources(g, me);
    for (int i = 0; i < trl_nbhd_indegree(g, me); i++)
        if (src[i] != TRL_NBHD_NULL && trl_nb_recv_len(a, i) != a->count)
            return false;
    return true;
}

int trl_neighbor_locality(const trl_coll_args *a, trl_sched *s)
{
    const trl_nbhd *g = a->nbhd;
    bool uniform = g && trl_nb_uniform(a->coll);
    if (!g || (uniform && !blocks_uniform(a)) || (!uniform && !a->counts))
        return TRL_ERR_INVALID;
    if (uniform && a->count == 0)
        return s->status;
    int p = a->size;
    trl_nb_hosts h = {0};
    int *deps = malloc(((size_t)g->out_off[p] + (size_t)p + 1) * sizeof *deps);
    if (!deps || trl_nb_hosts_make(a, (int)trl_param_int(a, "lanes"), &h) != TRL_OK) {
        free(deps);
        trl_hier_hosts_free(&h.hh);
        return TRL_ERR_NOMEM;
    }
    plan pl = {a, g, s, &h, h.hh.host_of, (size_t)trl_param_int(a, "combine"), deps};
    trl_sched_phase(s, "local");
    int rc = trl_nb_messages(a, s, h.hh.host_of, pl.big,
                             a->direct_apart ? TRL_NB_UPTO : TRL_NB_EVERY);
    if (rc == TRL_OK)
        rc = trl_nb_self(a, s);
    if (rc != TRL_OK) { /* the lists disagree: refused, as linear refuses */
        trl_hier_hosts_free(&h.hh);
        free(deps);
        return rc;
    }
    trl_sched_phase(s, "gather");
    gather_and_send(&pl);
    trl_sched_phase(s, "scatter");
    receive_and_scatter(&pl);
    trl_hier_hosts_free(&h.hh);
    free(deps);
    return s->status;
}
