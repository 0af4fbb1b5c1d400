/* alltoall, alltoallv and alltoallw in the threads tier.
 *
 * Every case is described by a global matrix: rank r sends sc[r][j]
 * elements to rank j from sd[r][j] in its SEND, and receives rc[r][i]
 * elements from rank i at rd[r][i] in its RECV (rc[j][r] = sc[r][j]).
 *  - alltoall: the regular layout, count per block, blocks back to back.
 *  - alltoallv: irregular counts (check_irregular_counts, spread over the
 *    pairs by a hash, and zero for about a fifth of the pairs besides),
 *    send blocks in rank order with gaps of three elements, receive blocks
 *    in reverse rank order with gaps of one (check_scattered_displs).
 *  - alltoallw: the same in bytes with elem_size 1, as the runtime passes
 *    it, so counts and displacements are not multiples of a word.
 * Element e of the block from r to j holds a hash of (seed, r, j, e), so a
 * block delivered to the wrong place, from the wrong rank or shifted shows.
 * Everything else in both buffers (gaps, and for SEND all of it) starts
 * with its own hash pattern, and the whole of every buffer is compared
 * after the run: results in the blocks, the pattern untouched elsewhere.
 * Builders of the v-variants see only their own rank's row of the matrix,
 * and count is poisoned for them.
 *
 * Expected buffers are built one rank at a time, so memory stays at the
 * send and receive buffers of all ranks plus one rank's worth. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

static uint64_t hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDULL;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ULL;
    x ^= x >> 33;
    return x;
}

/* Values: kind 0 is element e of the block from rank r to rank j; kind 1
 * the pattern in rank r's SEND outside its blocks; kind 2 the pattern that
 * rank r's RECV starts with. */
static uint64_t value(unsigned seed, int kind, int r, int j, size_t e)
{
    uint64_t x = ((uint64_t)seed << 40) ^ ((uint64_t)kind << 36) ^ ((uint64_t)r << 26) ^
                 ((uint64_t)j << 16);
    return hash64(x ^ hash64(e + 0x9E3779B97F4A7C15ULL));
}

static void put(void *buf, size_t esz, size_t at, uint64_t v)
{
    unsigned char bytes[16] = {0};
    for (size_t b = 0; b < esz && b < sizeof bytes; b++)
        bytes[b] = (unsigned char)(v >> (8 * (b % 8)));
    memcpy((char *)buf + at * esz, bytes, esz);
}

typedef struct {
    int p;
    size_t *sc, *sd, *rc, *rd; /* p x p, row = rank */
    bool vector;
    size_t esz;
} matrix;

#define AT(m, arr, r, j) (m)->arr[(size_t)(r) * (size_t)(m)->p + (size_t)(j)]

static void args_of(const check_case *c, int rank, trl_coll_args *a, void *ctx)
{
    (void)c;
    const matrix *m = ctx;
    a->elem_size = m->esz;
    if (!m->vector)
        return;
    a->count = SIZE_MAX / 3; /* the v-variants must not read it */
    a->send_counts = &AT(m, sc, rank, 0);
    a->send_displs = &AT(m, sd, rank, 0);
    a->recv_counts = &AT(m, rc, rank, 0);
    a->recv_displs = &AT(m, rd, rank, 0);
    /* All counts: the whole matrix, as the runtime gathers it. */
    if (c->algo->needs & TRL_NEEDS_ALL_COUNTS)
        a->counts = m->sc;
}

/* Fill the global matrix; returns false on allocation failure. */
static bool make_matrix(const check_case *c, matrix *m, size_t *slen, size_t *rlen)
{
    int p = c->p;
    size_t pp = (size_t)p * (size_t)p;
    trl_coll coll = c->algo->coll;
    m->p = p;
    m->vector = coll != TRL_COLL_ALLTOALL;
    m->esz = coll == TRL_COLL_ALLTOALLW ? 1 : c->ty->size;
    m->sc = calloc(pp, sizeof(size_t));
    m->sd = calloc(pp, sizeof(size_t));
    m->rc = calloc(pp, sizeof(size_t));
    m->rd = calloc(pp, sizeof(size_t));
    size_t *irr = calloc((size_t)p, sizeof *irr);
    if (!m->sc || !m->sd || !m->rc || !m->rd || !irr) {
        free(irr);
        return false;
    }
    check_irregular_counts(p, c->count, irr);
    for (int r = 0; r < p; r++)
        for (int j = 0; j < p; j++) {
            size_t n = c->count;
            if (m->vector) {
                uint64_t h = hash64(((uint64_t)c->seed << 32) ^ ((uint64_t)r << 16) ^ (uint64_t)j);
                n = h % 5 == 0 ? 0 : irr[(size_t)(r + 2 * j + (int)(c->seed % 7)) % (size_t)p];
            }
            AT(m, sc, r, j) = n;
            AT(m, rc, j, r) = n;
        }
    for (int r = 0; r < p; r++) {
        if (!m->vector) {
            for (int j = 0; j < p; j++)
                AT(m, sd, r, j) = AT(m, rd, r, j) = (size_t)j * c->count;
            slen[r] = rlen[r] = (size_t)p * c->count;
            continue;
        }
        size_t at = 2;
        for (int j = 0; j < p; j++) {
            AT(m, sd, r, j) = at;
            at += AT(m, sc, r, j) + 3;
        }
        slen[r] = at;
        rlen[r] = check_scattered_displs(p, &AT(m, rc, r, 0), &AT(m, rd, r, 0));
    }
    free(irr);
    return true;
}

/* What rank r's SEND holds (before and, unchanged, after the run). */
static void want_send(const check_case *c, const matrix *m, int r, size_t len, void *buf)
{
    for (size_t e = 0; e < len; e++)
        put(buf, m->esz, e, value(c->seed, 1, r, 0, e));
    for (int j = 0; j < m->p; j++)
        for (size_t e = 0; e < AT(m, sc, r, j); e++)
            put(buf, m->esz, AT(m, sd, r, j) + e, value(c->seed, 0, r, j, e));
}

/* What rank r's RECV holds before the run, and with fill_blocks after it:
 * block i from rank i at rd[r][i], the pattern everywhere else. */
static void want_recv(const check_case *c, const matrix *m, int r, size_t len, void *buf,
                      bool fill_blocks)
{
    for (size_t e = 0; e < len; e++)
        put(buf, m->esz, e, value(c->seed, 2, r, 0, e));
    if (!fill_blocks)
        return;
    for (int i = 0; i < m->p; i++)
        for (size_t e = 0; e < AT(m, rc, r, i); e++)
            put(buf, m->esz, AT(m, rd, r, i) + e, value(c->seed, 0, i, r, e));
}

void check_alltoall_case(tally *t, const check_case *c)
{
    int p = c->p;
    matrix m = {0};
    check_bufs b;
    void *want = NULL;

    if (!check_bufs_init(&b, p) || !make_matrix(c, &m, b.send_n, b.recv_n)) {
        check_fail(t, c, "out of memory");
        goto out;
    }
    size_t most = 1;
    for (int r = 0; r < p; r++) {
        most = b.send_n[r] > most ? b.send_n[r] : most;
        most = b.recv_n[r] > most ? b.recv_n[r] : most;
        b.send[r] = malloc(b.send_n[r] * m.esz + 1);
        b.recv[r] = malloc(b.recv_n[r] * m.esz + 1);
        if (!b.send[r] || !b.recv[r]) {
            check_fail(t, c, "out of memory");
            goto out;
        }
        want_send(c, &m, r, b.send_n[r], b.send[r]);
        want_recv(c, &m, r, b.recv_n[r], b.recv[r], false);
    }
    want = malloc(most * m.esz);
    if (!want) {
        check_fail(t, c, "out of memory");
        goto out;
    }

    if (!check_build_all(t, c, &b, args_of, &m))
        goto out;
    if (!check_run(t, c, &b, m.esz))
        goto out;

    for (int r = 0; r < p; r++) {
        size_t bad;
        want_recv(c, &m, r, b.recv_n[r], want, true);
        if (!check_exact(b.recv[r], want, b.recv_n[r], m.esz, &bad)) {
            /* Say which block (or gap) the first wrong element is in. */
            int from = -1;
            for (int i = 0; i < p; i++)
                if (bad >= AT(&m, rd, r, i) && bad < AT(&m, rd, r, i) + AT(&m, rc, r, i))
                    from = i;
            if (from >= 0)
                check_fail(t, c, "rank %d: element %zu of the block from rank %d is wrong", r,
                           bad - AT(&m, rd, r, from), from);
            else
                check_fail(t, c, "rank %d: element %zu of RECV, outside every block, was written",
                           r, bad);
            break;
        }
    }
    for (int r = 0; r < p; r++) {
        size_t bad;
        want_send(c, &m, r, b.send_n[r], want);
        if (!check_exact(b.send[r], want, b.send_n[r], m.esz, &bad)) {
            check_fail(t, c, "rank %d's send buffer was modified (element %zu)", r, bad);
            break;
        }
    }

out:
    check_bufs_free(&b);
    free(m.sc);
    free(m.sd);
    free(m.rc);
    free(m.rd);
    free(want);
}
