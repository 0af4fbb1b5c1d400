/* allgather and allgatherv in the threads tier.
 *
 * Every rank's block i is filled from (i, seed) by the element type's fill,
 * so the expected RECV is a plain loop over blocks. Checked on every rank:
 * each block at its place, every element of RECV outside the blocks (the
 * gaps) untouched, SEND unchanged. In place, SEND is given no buffer at all
 * (capacity 0), so any read of it fails the bounds check.
 *
 * allgatherv: irregular counts (zero counts included), and a layout of
 * RECV chosen per rank, since in MPI each rank describes only its own
 * buffer and the ranks' displacements may differ. A rank's layout is one
 * of three, by (rank + seed) % 3:
 *   0 scattered: reverse rank order with a gap of one element between
 *     blocks (check_scattered_displs);
 *   1 packed: rank order, back to back, after one leading element, with
 *     one trailing element (builders may receive straight into it);
 *   2 spaced: rank order with a gap of two elements after every block.
 * A schedule whose messages depended on the displacements would make the
 * ranks disagree on message sizes, which the executor reports. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

enum { GAP_BYTE = 0x5A };

typedef struct {
    bool vector;
    const size_t *counts;
    size_t *displs; /* p arrays of p: rank r's at displs + r*p */
} ag_ctx;

static void ag_args(const check_case *c, int rank, trl_coll_args *a, void *ctx)
{
    const ag_ctx *x = ctx;
    a->in_place = c->in_place; /* MPI: all ranks or none */
    if (x->vector) {
        a->counts = x->counts;
        a->displs = x->displs + (size_t)rank * (size_t)c->p;
    }
}

/* Rank r's displacements (layouts above); returns RECV's length. */
static size_t layout(int p, const size_t *counts, int kind, size_t *displs)
{
    size_t at;
    switch (kind) {
    case 0: return check_scattered_displs(p, counts, displs);
    case 1:
        at = 1;
        for (int i = 0; i < p; i++) {
            displs[i] = at;
            at += counts[i];
        }
        return at + 1;
    default:
        at = 0;
        for (int i = 0; i < p; i++) {
            displs[i] = at;
            at += counts[i] + 2;
        }
        return at;
    }
}

void check_allgather_case(tally *t, const check_case *c)
{
    int p = c->p;
    size_t es = c->ty->size, np = (size_t)p;
    ag_ctx x = {c->algo->coll == TRL_COLL_ALLGATHERV, NULL, NULL};
    size_t *counts = calloc(np, sizeof *counts), *pre = calloc(np + 1, sizeof *pre);
    size_t *displs = calloc(np * np, sizeof *displs), *len = calloc(np, sizeof *len);
    check_bufs b;
    check_bufs_init(&b, p);
    unsigned char *want = NULL, *mask = NULL;

    if (x.vector)
        check_irregular_counts(p, c->count, counts);
    else
        for (int i = 0; i < p; i++)
            counts[i] = c->count;
    for (int i = 0; i < p; i++)
        pre[i + 1] = pre[i] + counts[i];
    x.counts = counts;
    x.displs = displs;

    /* The expected blocks, back to back in rank order. */
    want = malloc(pre[p] * es + 1);
    for (int i = 0; i < p; i++)
        c->ty->fill(want + pre[i] * es, i, counts[i], c->seed);

    for (int r = 0; r < p; r++) {
        size_t *d = displs + (size_t)r * np;
        if (x.vector) {
            len[r] = layout(p, counts, (int)(((unsigned)r + c->seed) % 3), d);
        } else {
            for (int i = 0; i < p; i++)
                d[i] = (size_t)i * c->count;
            len[r] = np * c->count;
        }
        b.recv[r] = malloc(len[r] * es + 1);
        b.recv_n[r] = len[r];
        memset(b.recv[r], GAP_BYTE, len[r] * es);
        if (c->in_place) {
            memcpy((char *)b.recv[r] + d[r] * es, want + pre[r] * es, counts[r] * es);
        } else {
            b.send[r] = malloc(counts[r] * es + 1);
            b.send_n[r] = counts[r];
            memcpy(b.send[r], want + pre[r] * es, counts[r] * es);
        }
    }

    if (!check_build_all(t, c, &b, ag_args, &x))
        goto out;
    if (!check_run(t, c, &b, es))
        goto out;

    bool ok = true;
    for (int r = 0; r < p && ok; r++) {
        const size_t *d = displs + (size_t)r * np;
        const unsigned char *got = b.recv[r];
        size_t bad;
        for (int i = 0; i < p && ok; i++) {
            if (!check_exact(got + d[i] * es, want + pre[i] * es, counts[i], es, &bad)) {
                check_fail(t, c, "rank %d: block %d, element %zu is wrong", r, i, bad);
                ok = false;
            }
        }
        /* Everything outside the blocks keeps its filler. */
        free(mask);
        mask = calloc(len[r] + 1, 1);
        for (int i = 0; i < p; i++)
            memset(mask + d[i], 1, counts[i]);
        for (size_t e = 0; e < len[r] && ok; e++) {
            if (mask[e])
                continue;
            for (size_t k = 0; k < es; k++)
                if (got[e * es + k] != GAP_BYTE) {
                    check_fail(t, c, "rank %d: RECV element %zu, outside every block, was written",
                               r, e);
                    ok = false;
                    break;
                }
        }
    }
    if (ok)
        check_sends_unchanged(t, c, &b);

out:
    check_bufs_free(&b);
    free(counts);
    free(pre);
    free(displs);
    free(len);
    free(want);
    free(mask);
}
