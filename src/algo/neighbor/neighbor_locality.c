/* Locality-aware neighbourhood exchange (neighbor_allgather, neighbor_alltoall):
 * the messages a host's ranks send to the ranks of one other host travel as
 * one message between the two hosts' leaders.
 *
 *   1. Edges within a host: one message each, as linear (trl_nb_direct).
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
 * Ghazimirsaeed et al. (SC20), here with one leader per host.
 * Any number of ranks and hosts; one host: linear's messages only.
 *
 * Every rank plans the whole exchange from the graph (a->nbhd holds every
 * rank's lists) and the block size, so every rank must pass the same block
 * size (a->count): a stencil's calls do; a rank whose own blocks differ
 * refuses to build (its call goes to the MPI library). n == 0: nothing.
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
    const int *host; /* per rank */
    int *leader;     /* per host: its lowest rank */
    int nhosts;
    size_t n;
    int *deps; /* room for the steps one message waits for */
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

static bool to_host(const plan *pl, int s, int j, int b)
{
    int q = edge_dest(pl, s, j);
    return q != TRL_NBHD_NULL && pl->host[q] == b && pl->host[s] != b;
}

/* Edges of rank s to host b. */
static size_t edges_to(const plan *pl, int s, int b)
{
    size_t m = 0;
    for (int k = 0; k < trl_nbhd_outdegree(pl->g, s); k++)
        m += to_host(pl, s, edge_block(pl, k), b);
    return m;
}

/* Edges from host A's ranks to host B. */
static size_t host_edges(const plan *pl, int A, int B)
{
    size_t total = 0;
    for (int r = 0; r < pl->a->size; r++)
        total += pl->host[r] == A ? edges_to(pl, r, B) : 0;
    return total;
}

/* This rank's blocks for host b copied side by side from scratch offset at
 * on; each copy's step id appended to pl->deps at *nd. */
static void pack_own(plan *pl, int b, size_t at, int *nd)
{
    const trl_coll_args *a = pl->a;
    size_t x = 0;
    for (int k = 0; k < trl_nbhd_outdegree(pl->g, a->rank); k++) {
        int j = edge_block(pl, k);
        if (to_host(pl, a->rank, j, b))
            pl->deps[(*nd)++] = trl_sched_copy(
                pl->s, trl_ref_at(TRL_BUF_SEND, trl_nb_send_off(a, j)),
                trl_ref_at(TRL_BUF_SCRATCH, at + x++ * pl->n), pl->n, TRL_NODEPS);
    }
}

/* Steps 2 and 3 on host A = this rank's: its blocks to the leader, and the
 * leader's message to every other host. */
static void gather_and_send(plan *pl)
{
    const trl_coll_args *a = pl->a;
    trl_sched *s = pl->s;
    int me = a->rank, A = pl->host[me], lead = pl->leader[A];
    size_t n = pl->n;
    for (int b = 0; b < pl->nhosts; b++) {
        if (b == A)
            continue;
        if (me != lead) {
            size_t m = edges_to(pl, me, b);
            if (m == 0)
                continue;
            size_t at = trl_sched_scratch(s, m * n);
            int nd = 0;
            pack_own(pl, b, at, &nd);
            trl_sched_send(s, lead, trl_ref_at(TRL_BUF_SCRATCH, at), m * n, pl->deps, nd);
            continue;
        }
        size_t total = host_edges(pl, A, b);
        if (total == 0)
            continue;
        size_t at = trl_sched_scratch(s, total * n), x = 0;
        int nd = 0;
        for (int r = 0; r < a->size; r++) {
            size_t m = pl->host[r] == A ? edges_to(pl, r, b) : 0;
            if (m == 0)
                continue;
            if (r != me)
                pl->deps[nd++] = trl_sched_recv(s, r, trl_ref_at(TRL_BUF_SCRATCH, at + x * n),
                                                m * n, TRL_NODEPS);
            else
                pack_own(pl, b, at + x * n, &nd);
            x += m;
        }
        trl_sched_send(s, pl->leader[b], trl_ref_at(TRL_BUF_SCRATCH, at), total * n, pl->deps, nd);
    }
}

/* Step 4 for the blocks from host A to this rank's host B: the leader
 * receives them (at `at`, waited for by `got`) and hands each rank its own;
 * another rank receives its own from the leader. Entries in the leader's
 * order: by source rank, then send order. */
static void scatter_from(plan *pl, int A, size_t at, int got)
{
    const trl_coll_args *a = pl->a;
    trl_sched *s = pl->s;
    int me = a->rank, B = pl->host[me], lead = pl->leader[B];
    size_t n = pl->n;
    for (int q = 0; q < a->size; q++) {
        if (pl->host[q] != B || (me != lead && q != me))
            continue;
        /* q's entries: their place in the leader's message and q's block. */
        size_t m = 0, x = 0;
        for (int r = 0; r < a->size; r++)
            for (int k = 0; pl->host[r] == A && k < trl_nbhd_outdegree(pl->g, r); k++) {
                int j = edge_block(pl, k);
                m += to_host(pl, r, j, B) && edge_dest(pl, r, j) == q;
            }
        if (m == 0)
            continue;
        size_t tmp = q == lead ? at : trl_sched_scratch(s, m * n);
        int nd = 0, recv = -1;
        if (q == me && me != lead)
            recv = trl_sched_recv(s, lead, trl_ref_at(TRL_BUF_SCRATCH, tmp), m * n, TRL_NODEPS);
        for (int r = 0; r < a->size; r++)
            for (int k = 0; pl->host[r] == A && k < trl_nbhd_outdegree(pl->g, r); k++) {
                int j = edge_block(pl, k);
                if (!to_host(pl, r, j, B))
                    continue;
                if (edge_dest(pl, r, j) == q) {
                    int slot = pl->g->out_slot[pl->g->out_off[r] + j];
                    if (q == me && q == lead)
                        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, at + x * n),
                                       trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, slot)), n,
                                       TRL_DEPS(got));
                    else if (q == me)
                        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, tmp + (size_t)nd++ * n),
                                       trl_ref_at(TRL_BUF_RECV, trl_nb_recv_off(a, slot)), n,
                                       TRL_DEPS(recv));
                    else
                        pl->deps[nd] = trl_sched_copy(
                            s, trl_ref_at(TRL_BUF_SCRATCH, at + x * n),
                            trl_ref_at(TRL_BUF_SCRATCH, tmp + (size_t)nd * n), n, TRL_DEPS(got)),
                        nd++;
                }
                x++;
            }
        if (me == lead && q != me)
            trl_sched_send(s, q, trl_ref_at(TRL_BUF_SCRATCH, tmp), m * n, pl->deps, nd);
    }
}

/* Steps 3 (receiving) and 4 on this rank's host B. */
static void receive_and_scatter(plan *pl)
{
    const trl_coll_args *a = pl->a;
    int me = a->rank, B = pl->host[me], lead = pl->leader[B];
    for (int A = 0; A < pl->nhosts; A++) {
        if (A == B)
            continue;
        size_t total = host_edges(pl, A, B);
        if (total == 0)
            continue;
        size_t at = 0;
        int got = -1;
        if (me == lead) {
            at = trl_sched_scratch(pl->s, total * pl->n);
            got = trl_sched_recv(pl->s, pl->leader[A], trl_ref_at(TRL_BUF_SCRATCH, at),
                                 total * pl->n, TRL_NODEPS);
        }
        scatter_from(pl, A, at, got);
    }
}

int trl_neighbor_locality(const trl_coll_args *a, trl_sched *s)
{
    const trl_nbhd *g = a->nbhd;
    if (!g || !trl_nb_uniform(a->coll))
        return TRL_ERR_INVALID;
    int me = a->rank, p = a->size;
    for (int j = 0; j < trl_nbhd_outdegree(g, me); j++)
        if (trl_nb_send_len(a, j) != a->count)
            return TRL_ERR_INVALID;
    const int *src = trl_nbhd_sources(g, me);
    for (int i = 0; i < trl_nbhd_indegree(g, me); i++)
        if (src[i] != TRL_NBHD_NULL && trl_nb_recv_len(a, i) != a->count)
            return TRL_ERR_INVALID;
    if (a->count == 0)
        return s->status;
    int *host = calloc((size_t)p, sizeof *host);
    int nhosts = a->topo ? a->topo->nhosts : 1;
    int *leader = malloc((size_t)nhosts * sizeof *leader);
    size_t maxdeg = 1;
    for (int r = 0; r < p; r++) {
        size_t d = (size_t)trl_nbhd_outdegree(g, r);
        maxdeg += d;
    }
    int *deps = malloc((maxdeg + (size_t)p) * sizeof *deps);
    if (!host || !leader || !deps) {
        free(host);
        free(leader);
        free(deps);
        return TRL_ERR_NOMEM;
    }
    for (int h = 0; h < nhosts; h++)
        leader[h] = -1;
    for (int r = 0; r < p; r++) {
        host[r] = a->topo ? a->topo->host[r] : 0;
        if (leader[host[r]] < 0)
            leader[host[r]] = r;
    }
    plan pl = {a, g, s, host, leader, nhosts, a->count, deps};
    trl_sched_phase(s, "local");
    trl_nb_direct(a, s, host);
    trl_sched_phase(s, "gather");
    gather_and_send(&pl);
    trl_sched_phase(s, "scatter");
    receive_and_scatter(&pl);
    free(host);
    free(leader);
    free(deps);
    return s->status;
}
