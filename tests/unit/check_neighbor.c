/* The neighbourhood collectives in the threads tier.
 *
 * Each case picks a graph from its key: a Cartesian shape of 1 to 3
 * dimensions over the case's ranks (periodic or not per dimension, with
 * extents of 1 and 2 where the size has them), a random graph (out-degrees 0
 * to p-1, any destination, itself and repeats included, in-lists shuffled),
 * or the empty graph. Expected values come from the standard's pairing,
 * worked out here from the lists themselves (not from nbhd.c's out_slot):
 * Cartesian receive block 2d holds the negative neighbour's send block 2d+1
 * and 2d+1 the positive neighbour's block 2d; a graph's k-th edge s -> r of
 * s's list meets the k-th occurrence of s in r's in-list. Bytes (elem_size
 * 1), as the runtime passes them; the v and w forms get counts per edge
 * (zero for some) and gaps between blocks. Every byte of every receive
 * buffer is compared: blocks where they land, the start pattern elsewhere
 * (gaps, blocks from MPI_PROC_NULL). An algorithm that needs its host's
 * sizes runs the v and w forms a second time split as a blocking call
 * runs them (build_split). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/nbhd.h"
#include "algo/neighbor/neighbor_blocks.h"
#include "algo/params.h"
#include "core/status.h"
#include "algo_check.h"

static unsigned char byte_of(unsigned seed, int kind, int r, int j, size_t e)
{
    uint64_t x = ((uint64_t)seed * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)kind << 56) ^
                 ((uint64_t)r << 36) ^ ((uint64_t)j << 20) ^ e;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (unsigned char)x;
}

static unsigned rnd(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

typedef struct {
    trl_nbhd g;
    size_t **sc, **sd, **rc, **rd; /* per rank, per edge (bytes) */
    size_t *slen, *rlen;           /* buffer lengths */
    /* Every edge's bytes, out-edges then in-edges (neighbor_blocks.h): what
     * the runtime gives an algorithm that needs other ranks' sizes. */
    size_t *table;
} plan;

/* Which send block of which rank lands in rank r's receive block i. */
static int sender_block(const trl_nbhd *g, int r, int i)
{
    const int *src = trl_nbhd_sources(g, r);
    int s = src[i];
    if (g->cart)
        return i % 2 == 0 ? i + 1 : i - 1;
    int k = 0;
    for (int x = 0; x < i; x++)
        k += src[x] == s;
    const int *dst = trl_nbhd_dests(g, s);
    for (int j = 0; j < trl_nbhd_outdegree(g, s); j++)
        if (dst[j] == r && k-- == 0)
            return j;
    return -1;
}

static bool make_graph(const check_case *c, trl_nbhd *g)
{
    int p = c->p;
    unsigned s = c->seed * 2654435761u + 7;
    int kind = (int)(c->seed % 4);
    if (kind == 3) { /* empty */
        int *zero = calloc((size_t)p, sizeof *zero);
        bool ok = zero && trl_nbhd_graph(p, zero, zero, zero, zero, g) == 0;
        free(zero);
        return ok;
    }
    if (kind <= 1) { /* Cartesian: p split into up to 3 factors, extents 1 allowed */
        int ndims = 1 + (int)(rnd(&s) % 3), dims[3] = {1, 1, 1}, periods[3];
        int left = p;
        for (int d = 0; d < ndims - 1; d++) {
            int f = 1;
            for (int t = 2; t <= left; t++)
                if (left % t == 0 && rnd(&s) % 2) {
                    f = t;
                    break;
                }
            dims[d] = f;
            left /= f;
        }
        dims[ndims - 1] = left;
        for (int d = 0; d < ndims; d++)
            periods[d] = (int)(rnd(&s) % 2);
        return trl_nbhd_cart(p, ndims, dims, periods, g) == 0;
    }
    int *outdeg = malloc((size_t)p * sizeof(int)), *indeg = calloc((size_t)p, sizeof(int));
    int *dests = malloc((size_t)p * (size_t)p * sizeof(int));
    int *srcs = malloc((size_t)p * (size_t)p * sizeof(int));
    int total = 0;
    for (int r = 0; r < p; r++) {
        outdeg[r] = (int)(rnd(&s) % (unsigned)p);
        for (int j = 0; j < outdeg[r]; j++) {
            dests[total] = (int)(rnd(&s) % (unsigned)p);
            indeg[dests[total]]++;
            total++;
        }
    }
    /* In-lists: each rank's sources, then shuffled. */
    int *at = calloc((size_t)p + 1, sizeof(int));
    for (int r = 0; r < p; r++)
        at[r + 1] = at[r] + indeg[r];
    int *fill = calloc((size_t)p, sizeof(int));
    for (int r = 0, e = 0; r < p; r++)
        for (int j = 0; j < outdeg[r]; j++, e++)
            srcs[at[dests[e]] + fill[dests[e]]++] = r;
    for (int r = 0; r < p; r++)
        for (int x = indeg[r] - 1; x > 0; x--) {
            int y = (int)(rnd(&s) % (unsigned)(x + 1)), t = srcs[at[r] + x];
            srcs[at[r] + x] = srcs[at[r] + y];
            srcs[at[r] + y] = t;
        }
    bool ok = trl_nbhd_graph(p, indeg, srcs, outdeg, dests, g) == 0;
    free(outdeg);
    free(indeg);
    free(dests);
    free(srcs);
    free(at);
    free(fill);
    return ok;
}

static bool uniform(trl_coll c)
{
    return c == TRL_COLL_NEIGHBOR_ALLGATHER || c == TRL_COLL_NEIGHBOR_ALLTOALL;
}

static bool one_block(trl_coll c)
{
    return c == TRL_COLL_NEIGHBOR_ALLGATHER || c == TRL_COLL_NEIGHBOR_ALLGATHERV;
}

/* Bytes of rank s's send block j. */
static size_t edge_bytes(const check_case *c, int s, int j)
{
    trl_coll coll = c->algo->coll;
    if (uniform(coll) || c->count == 0)
        return c->count;
    int b = one_block(coll) ? 0 : j;
    return (size_t)((s * 7 + b * 3 + (int)c->seed) % 5 == 0 ? 0 : c->count + (size_t)(s + b) % 4);
}

static void args_of(const check_case *c, int rank, trl_coll_args *a, void *ctx)
{
    const plan *pl = ctx;
    a->nbhd = &pl->g;
    a->elem_size = 1;
    a->count = uniform(c->algo->coll) ? c->count : SIZE_MAX / 3;
    a->send_counts = pl->sc[rank];
    a->send_displs = pl->sd[rank];
    a->recv_counts = pl->rc[rank];
    a->recv_displs = pl->rd[rank];
    a->counts = c->algo->needs & TRL_NEEDS_ALL_COUNTS ? pl->table : NULL;
}

/* As the runtime runs a blocking v or w call under an algorithm that needs
 * its host's sizes (mpi/entry/neighbor_sizes.c): the messages of more than
 * combine= bytes go first, with the exchange of sizes, and the algorithm's
 * schedule (direct_apart) leaves them out. Here both parts make one
 * schedule, in that order on every rank, so a pair's k-th messages meet as
 * they do in the runtime's two tag ranges: a message in both parts or in
 * neither shows as wrong bytes or a message left over. */
static bool build_split(tally *t, const check_case *c, check_bufs *b, plan *pl)
{
    for (b->built = 0; b->built < c->p; b->built++) {
        int r = b->built;
        trl_coll_args a = check_args(c);
        a.rank = r;
        args_of(c, r, &a, pl);
        a.algo = c->algo;
        a.direct_apart = true;
        trl_nb_hosts h = {0};
        trl_sched *s = &b->s[r];
        if (trl_sched_init(s, r, c->p) != TRL_OK) {
            check_fail(t, c, "out of memory");
            return false;
        }
        int rc = trl_nb_hosts_make(&a, (int)trl_param_int(&a, "lanes"), &h);
        if (rc == TRL_OK)
            rc = trl_nb_messages(&a, s, h.hh.host_of, (size_t)trl_param_int(&a, "combine"),
                                 TRL_NB_ABOVE);
        trl_hier_hosts_free(&h.hh);
        if (rc == TRL_OK)
            rc = c->algo->build(&a, s);
        if (rc == TRL_OK)
            rc = trl_sched_finish(s);
        if (rc != TRL_OK) {
            trl_sched_free(s);
            check_fail(t, c, "split build failed on rank %d: %d", r, rc);
            return false;
        }
    }
    return true;
}

/* Every byte of every receive buffer against the standard's pairing. */
static void verify(tally *t, const check_case *c, const check_bufs *b, const plan *pl,
                   const char *how)
{
    trl_coll coll = c->algo->coll;
    for (int r = 0; r < c->p; r++) {
        const int *src = trl_nbhd_sources(&pl->g, r);
        unsigned char *want = malloc(b->recv_n[r] + 1);
        for (size_t e = 0; e < b->recv_n[r]; e++)
            want[e] = byte_of(c->seed, 2, r, 0, e);
        for (int i = 0; i < trl_nbhd_indegree(&pl->g, r); i++) {
            if (src[i] == TRL_NBHD_NULL)
                continue;
            int j = sender_block(&pl->g, r, i), jb = one_block(coll) ? 0 : j;
            for (size_t e = 0; e < pl->rc[r][i]; e++)
                want[pl->rd[r][i] + e] = byte_of(c->seed, 0, src[i], jb, e);
        }
        size_t bad;
        if (!check_exact(b->recv[r], want, b->recv_n[r], 1, &bad)) {
            check_fail(t, c, "rank %d: byte %zu of RECV wrong (graph %s%s)", r, bad,
                       pl->g.cart ? "cart" : "graph", how);
            free(want);
            return;
        }
        free(want);
    }
}

/* The receive buffers back to their start pattern, the schedules gone. */
static void reset(const check_case *c, check_bufs *b)
{
    for (int r = 0; r < b->built; r++)
        trl_sched_free(&b->s[r]);
    b->built = 0;
    for (int r = 0; r < c->p; r++)
        for (size_t e = 0; e < b->recv_n[r]; e++)
            ((unsigned char *)b->recv[r])[e] = byte_of(c->seed, 2, r, 0, e);
}

void check_neighbor_case(tally *t, const check_case *c)
{
    int p = c->p;
    trl_coll coll = c->algo->coll;
    plan pl = {0};
    if (!make_graph(c, &pl.g)) {
        check_fail(t, c, "could not make the graph");
        return;
    }
    check_bufs b;
    bool ok = check_bufs_init(&b, p);
    pl.sc = calloc((size_t)p, sizeof *pl.sc);
    pl.sd = calloc((size_t)p, sizeof *pl.sd);
    pl.rc = calloc((size_t)p, sizeof *pl.rc);
    pl.rd = calloc((size_t)p, sizeof *pl.rd);
    bool gaps = !uniform(coll);
    for (int r = 0; ok && r < p; r++) {
        int nout = one_block(coll) ? 1 : trl_nbhd_outdegree(&pl.g, r),
            nin = trl_nbhd_indegree(&pl.g, r);
        pl.sc[r] = malloc(((size_t)nout + 1) * sizeof(size_t));
        pl.sd[r] = malloc(((size_t)nout + 1) * sizeof(size_t));
        pl.rc[r] = malloc(((size_t)nin + 1) * sizeof(size_t));
        pl.rd[r] = malloc(((size_t)nin + 1) * sizeof(size_t));
        size_t len = 0;
        for (int j = 0; j < nout; j++) {
            pl.sc[r][j] = edge_bytes(c, r, j);
            pl.sd[r][j] = len + (gaps ? 3 : 0);
            len = pl.sd[r][j] + pl.sc[r][j];
        }
        b.send_n[r] = len;
        b.send[r] = malloc(len + 1);
        for (size_t e = 0; e < len; e++)
            ((unsigned char *)b.send[r])[e] = byte_of(c->seed, 1, r, 0, e);
        for (int j = 0; j < nout; j++)
            for (size_t e = 0; e < pl.sc[r][j]; e++)
                ((unsigned char *)b.send[r])[pl.sd[r][j] + e] = byte_of(c->seed, 0, r, j, e);
        const int *src = trl_nbhd_sources(&pl.g, r);
        len = 0;
        /* Receive blocks in reverse order, with gaps: misplaced writes show. */
        for (int i = nin - 1; i >= 0; i--) {
            int s = src[i];
            /* No bytes from MPI_PROC_NULL, as the runtime passes them
             * (coll_neighbor.c); the block's place stays reserved. */
            pl.rc[r][i] = s == TRL_NBHD_NULL ? 0 : edge_bytes(c, s, sender_block(&pl.g, r, i));
            pl.rd[r][i] = gaps ? len + 1 : (size_t)i * c->count;
            len = gaps ? pl.rd[r][i] + (s == TRL_NBHD_NULL ? 2 : pl.rc[r][i])
                       : (size_t)nin * c->count;
        }
        b.recv_n[r] = len;
        b.recv[r] = malloc(len + 1);
        for (size_t e = 0; e < len; e++)
            ((unsigned char *)b.recv[r])[e] = byte_of(c->seed, 2, r, 0, e);
        ok = b.send[r] && b.recv[r];
    }
    pl.table = calloc(trl_nb_edges(&pl.g) + 1, sizeof *pl.table);
    ok = ok && pl.table;
    for (int r = 0; ok && r < p; r++) {
        for (int j = 0; j < trl_nbhd_outdegree(&pl.g, r); j++)
            pl.table[trl_nb_out_at(&pl.g, r, j)] = pl.sc[r][one_block(coll) ? 0 : j];
        for (int i = 0; i < trl_nbhd_indegree(&pl.g, r); i++)
            pl.table[trl_nb_in_at(&pl.g, r, i)] = pl.rc[r][i];
    }
    if (ok && check_build_all(t, c, &b, args_of, &pl) && check_run(t, c, &b, 1))
        verify(t, c, &b, &pl, "");
    if (ok && (c->algo->needs & TRL_NEEDS_ALL_COUNTS) && !uniform(coll)) {
        reset(c, &b);
        if (build_split(t, c, &b, &pl) && check_run(t, c, &b, 1))
            verify(t, c, &b, &pl, ", split as a blocking call");
    }
    for (int r = 0; r < p; r++) {
        if (pl.sc)
            free(pl.sc[r]);
        if (pl.sd)
            free(pl.sd[r]);
        if (pl.rc)
            free(pl.rc[r]);
        if (pl.rd)
            free(pl.rd[r]);
    }
    free(pl.sc);
    free(pl.sd);
    free(pl.rc);
    free(pl.rd);
    free(pl.table);
    check_bufs_free(&b);
    trl_nbhd_free(&pl.g);
}
