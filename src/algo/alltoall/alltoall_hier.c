/* Node-aware alltoall (and alltoallv, alltoallw), `hier`: the ranks of a
 * host combine their blocks, so each pair of hosts exchanges one message
 * each way instead of q x q small ones. Host k's rank (m-k-1 mod h) mod q
 * handles host m (m != k): it sends host m everything host k has for it
 * and receives what host m has for host k, from the rank of host m that
 * handles host k. Three phases, each rank's separated by a fence:
 *
 *   1. within each host, rank i sends rank j one message: its block for j
 *      itself and its blocks for every rank of the hosts j handles;
 *   2. across hosts, each handler sends host m's combined blocks (from
 *      every rank of its host to every rank of m) in one message and
 *      receives host m's for its own host;
 *   3. within each host, each handler sends every other rank of its host
 *      the blocks that came for it, in one message.
 *
 * Cost: with h hosts of q ranks and blocks of n: 2(q-1) messages within a
 * host per rank, about (h-1)/q pairs of messages across hosts per rank,
 * each of q^2 n; against p-1 messages of n for the linear alltoall, of which
 * p-q cross hosts. Every byte bound for another host moves three times
 * (twice within hosts), so it pays where per-message cost dominates: small
 * blocks, many ranks per host.
 * From: the node-aware communication of Bienz, Gropp and Olson, "Node aware
 * sparse matrix-vector multiplication" (JPDC 2019: the three-step exchange
 * through one message per pair of nodes) and the locality-aware alltoall
 * of MPI Advance (Kinkead, Wesley, Schonbein, DeBonis, Dosanjh and Bienz,
 * "Scaling all-to-all operations across emerging many-core supercomputers",
 * SC workshops 2025).
 *
 * Any placement and any host sizes: hosts are the ranks that share one,
 * in rank order; a host of q ranks spreads its h-1 partner hosts over its
 * ranks (a host of one rank handles them all, and phases 1 and 3 vanish:
 * one rank per host is the linear alltoall); all ranks on one host is
 * phase 1 alone, again the linear alltoall.
 *
 * Buffers: a message goes straight from where its pieces lie, and lands
 * straight where they belong, when they are back to back there; otherwise
 * it is packed into or unpacked from scratch. A handler keeps, per partner
 * host, the combined blocks to send and those received, in the order of
 * their destination, then their source, both hosts' ranks in rank order.
 *
 * alltoallv and alltoallw: a rank must know the counts between every pair
 * of ranks of the hosts it handles, which MPI gives no rank: the table
 * marks them TRL_NEEDS_ALL_COUNTS, and the runtime gathers the matrix of
 * all send counts (counts[i * p + j]: rank i to rank j) before building.
 * Empty messages and pieces are left out by both ends alike.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/hier_blocks.h"
#include "core/status.h"

typedef struct {
    trl_ref at;
    size_t n;
} piece;

typedef struct {
    const trl_coll_args *a;
    trl_sched *s;
    trl_hier_hosts t;
    int me, k, u, q;
    piece *pc; /* one message's pieces */
    int npc;
    int *deps;
} ctx;

static size_t cnt(const ctx *c, int from, int to)
{
    const trl_coll_args *a = c->a;
    return a->send_counts ? a->counts[(size_t)from * (size_t)a->size + (size_t)to] : a->count;
}

static trl_ref send_at(const ctx *c, int to)
{
    const trl_coll_args *a = c->a;
    return trl_ref_at(TRL_BUF_SEND, a->send_counts ? a->send_displs[to] : (size_t)to * a->count);
}

static trl_ref recv_at(const ctx *c, int from)
{
    const trl_coll_args *a = c->a;
    return trl_ref_at(TRL_BUF_RECV,
                      a->send_counts ? a->recv_displs[from] : (size_t)from * a->count);
}

/* The local index of the rank of host k that handles host m. */
static int handler(const trl_hier_hosts *t, int k, int m)
{
    return ((m - k - 1 + t->n) % t->n) % trl_hier_host_size(t, k);
}

static void add(ctx *c, trl_ref at, size_t n)
{
    if (n > 0)
        c->pc[c->npc++] = (piece){at, n};
}

/* Whether the pieces lie back to back; their total in *n. */
static bool back_to_back(const ctx *c, size_t *n)
{
    bool joined = true;
    *n = 0;
    for (int i = 0; i < c->npc; i++) {
        if (c->pc[i].at.buf != c->pc[0].at.buf || c->pc[i].at.off != c->pc[0].at.off + *n)
            joined = false;
        *n += c->pc[i].n;
    }
    return joined;
}

/* Send the pieces gathered so far to peer as one message, and start over. */
static void send_pieces(ctx *c, int peer)
{
    size_t n;
    if (c->npc > 0 && back_to_back(c, &n)) {
        trl_sched_send(c->s, peer, c->pc[0].at, n, TRL_NODEPS);
    } else if (c->npc > 0) {
        size_t base = trl_sched_scratch(c->s, n), at = base;
        for (int i = 0; i < c->npc; i++) {
            c->deps[i] = trl_sched_copy(c->s, c->pc[i].at, trl_ref_at(TRL_BUF_SCRATCH, at),
                                        c->pc[i].n, TRL_NODEPS);
            at += c->pc[i].n;
        }
        trl_sched_send(c->s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), n, c->deps, c->npc);
    }
    c->npc = 0;
}

/* Receive one message from peer into the pieces gathered so far. */
static void recv_pieces(ctx *c, int peer)
{
    size_t n;
    if (c->npc > 0 && back_to_back(c, &n)) {
        trl_sched_recv(c->s, peer, c->pc[0].at, n, TRL_NODEPS);
    } else if (c->npc > 0) {
        size_t base = trl_sched_scratch(c->s, n), at = base;
        int got = trl_sched_recv(c->s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), n, TRL_NODEPS);
        for (int i = 0; i < c->npc; i++) {
            trl_sched_copy(c->s, trl_ref_at(TRL_BUF_SCRATCH, at), c->pc[i].at, c->pc[i].n,
                           TRL_DEPS(got));
            at += c->pc[i].n;
        }
    }
    c->npc = 0;
}

/* Where the blocks from the ranks of host `src` to the ranks of host
 * `dst` lie, combined at a handler (base: the start of that buffer): the
 * block from rank i to rank j at base + offset, in destination-major order. */
static size_t combined_at(const ctx *c, int src, int dst, int i, int j)
{
    const trl_hier_hosts *t = &c->t;
    size_t at = 0;
    for (int y = t->first[dst]; y < t->first[dst + 1]; y++)
        for (int x = t->first[src]; x < t->first[src + 1]; x++) {
            if (t->rank[y] == j && t->rank[x] == i)
                return at;
            at += cnt(c, t->rank[x], t->rank[y]);
        }
    return at;
}

static size_t combined_len(const ctx *c, int src, int dst)
{
    return combined_at(c, src, dst, -1, -1);
}

/* Per partner host m this rank handles: the combined blocks it sends
 * (out[m]) and receives (in[m]), offsets into scratch; -1 if none. */
typedef struct {
    size_t *out, *in;
} partners;

static bool handles(const ctx *c, int m)
{
    return m != c->k && handler(&c->t, c->k, m) == c->u;
}

/* Phase 1 pieces of the message from rank i to rank j of this host: j's
 * own block, then i's blocks for the hosts j handles. As the sender reads
 * them (from SEND) or the receiver places them (RECV, combined buffers). */
static void phase1_pieces(ctx *c, const partners *pt, int i, int j, bool sender)
{
    const trl_hier_hosts *t = &c->t;
    add(c, sender ? send_at(c, j) : recv_at(c, i), cnt(c, i, j));
    int lj = t->local_of[j];
    for (int m = 0; m < t->n; m++) {
        if (m == c->k || handler(t, c->k, m) != lj)
            continue;
        for (int y = t->first[m]; y < t->first[m + 1]; y++) {
            int dst = t->rank[y];
            trl_ref at = sender ? send_at(c, dst)
                                : trl_ref_at(TRL_BUF_SCRATCH,
                                             pt->out[m] + combined_at(c, c->k, m, i, dst));
            add(c, at, cnt(c, i, dst));
        }
    }
}

/* Phase 3 pieces of the message from handler i to rank j of this host:
 * the blocks for j from every rank of the hosts i handles. */
static void phase3_pieces(ctx *c, const partners *pt, int i, int j, bool sender)
{
    const trl_hier_hosts *t = &c->t;
    int li = t->local_of[i];
    for (int m = 0; m < t->n; m++) {
        if (m == c->k || handler(t, c->k, m) != li)
            continue;
        for (int x = t->first[m]; x < t->first[m + 1]; x++) {
            int src = t->rank[x];
            trl_ref at = sender ? trl_ref_at(TRL_BUF_SCRATCH,
                                             pt->in[m] + combined_at(c, m, c->k, src, j))
                                : recv_at(c, src);
            add(c, at, cnt(c, src, j));
        }
    }
}

/* One message to and one from every other rank of the host, starting
 * with the neighbours (as the linear alltoall), each made of the pieces
 * `pieces` lists. */
typedef void (*pieces_fn)(ctx *c, const partners *pt, int i, int j, bool sender);

static void within_host(ctx *c, const partners *pt, pieces_fn pieces)
{
    const trl_hier_hosts *t = &c->t;
    for (int step = 1; step < c->q; step++) {
        int to = trl_hier_host_rank(t, c->k, (c->u + step) % c->q);
        int from = trl_hier_host_rank(t, c->k, (c->u - step + c->q) % c->q);
        pieces(c, pt, c->me, to, true);
        send_pieces(c, to);
        pieces(c, pt, from, c->me, false);
        recv_pieces(c, from);
    }
}

static void phase1(ctx *c, const partners *pt)
{
    const trl_hier_hosts *t = &c->t;
    within_host(c, pt, phase1_pieces);
    /* The own share: the block for itself, and a handler's own blocks for
     * its partner hosts (a host of one rank sends those from SEND). */
    size_t own = cnt(c, c->me, c->me);
    if (own > 0)
        trl_sched_copy(c->s, send_at(c, c->me), recv_at(c, c->me), own, TRL_NODEPS);
    for (int m = 0; m < t->n && c->q > 1; m++) {
        if (!handles(c, m))
            continue;
        for (int y = t->first[m]; y < t->first[m + 1]; y++) {
            int dst = t->rank[y];
            size_t n = cnt(c, c->me, dst);
            if (n > 0)
                trl_sched_copy(
                    c->s, send_at(c, dst),
                    trl_ref_at(TRL_BUF_SCRATCH, pt->out[m] + combined_at(c, c->k, m, c->me, dst)),
                    n, TRL_NODEPS);
        }
    }
}

static void phase2(ctx *c, const partners *pt)
{
    const trl_hier_hosts *t = &c->t;
    for (int m = 0; m < t->n; m++) {
        if (!handles(c, m))
            continue;
        int peer = trl_hier_host_rank(t, m, handler(t, m, c->k));
        if (c->q > 1) {
            add(c, trl_ref_at(TRL_BUF_SCRATCH, pt->out[m]), combined_len(c, c->k, m));
            send_pieces(c, peer);
            add(c, trl_ref_at(TRL_BUF_SCRATCH, pt->in[m]), combined_len(c, m, c->k));
            recv_pieces(c, peer);
            continue;
        }
        /* Alone on its host: straight from SEND, straight into RECV. */
        for (int y = t->first[m]; y < t->first[m + 1]; y++)
            add(c, send_at(c, t->rank[y]), cnt(c, c->me, t->rank[y]));
        send_pieces(c, peer);
        for (int x = t->first[m]; x < t->first[m + 1]; x++)
            add(c, recv_at(c, t->rank[x]), cnt(c, t->rank[x], c->me));
        recv_pieces(c, peer);
    }
}

static void phase3(ctx *c, const partners *pt)
{
    const trl_hier_hosts *t = &c->t;
    within_host(c, pt, phase3_pieces);
    /* What came for itself. */
    for (int m = 0; m < t->n; m++) {
        if (!handles(c, m))
            continue;
        for (int x = t->first[m]; x < t->first[m + 1]; x++) {
            int src = t->rank[x];
            size_t n = cnt(c, src, c->me);
            if (n > 0)
                trl_sched_copy(
                    c->s,
                    trl_ref_at(TRL_BUF_SCRATCH, pt->in[m] + combined_at(c, m, c->k, src, c->me)),
                    recv_at(c, src), n, TRL_NODEPS);
        }
    }
}

int trl_alltoall_hier(const trl_coll_args *a, trl_sched *s)
{
    if (a->send_counts && !a->counts)
        return TRL_ERR_UNSUPPORTED; /* alltoallv without the matrix of counts */
    ctx c = {.a = a, .s = s, .me = a->rank};
    int rc = trl_hier_hosts_init(&c.t, a);
    if (rc)
        return rc;
    int p = a->size;
    c.k = c.t.host_of[c.me];
    c.u = c.t.local_of[c.me];
    c.q = trl_hier_host_size(&c.t, c.k);
    c.pc = malloc(((size_t)p + 1) * sizeof *c.pc);
    c.deps = malloc(((size_t)p + 1) * sizeof *c.deps);
    partners pt = {malloc((size_t)c.t.n * sizeof *pt.out), malloc((size_t)c.t.n * sizeof *pt.in)};
    if (!c.pc || !c.deps || !pt.out || !pt.in) {
        rc = TRL_ERR_NOMEM;
        goto out;
    }
    for (int m = 0; m < c.t.n; m++) {
        bool mine = handles(&c, m) && c.q > 1;
        pt.out[m] = mine ? trl_sched_scratch(s, combined_len(&c, c.k, m)) : 0;
        pt.in[m] = mine ? trl_sched_scratch(s, combined_len(&c, m, c.k)) : 0;
    }
    phase1(&c, &pt);
    trl_sched_fence(s);
    phase2(&c, &pt);
    trl_sched_fence(s);
    if (c.q > 1)
        phase3(&c, &pt);
out:
    free(c.pc);
    free(c.deps);
    free(pt.out);
    free(pt.in);
    trl_hier_hosts_free(&c.t);
    return rc ? rc : s->status;
}
