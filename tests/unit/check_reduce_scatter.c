/* reduce_scatter and reduce_scatter_block in the threads tier.
 *
 * Every rank's send buffer holds the whole vector (its own values, unique
 * per rank and index); block i has counts[i] elements (irregular counts
 * with zeros for reduce_scatter, the sweep's count each for
 * reduce_scatter_block). The expected vector is folded in rank order by a
 * plain loop, and each rank must end with its block of it. Receive buffers
 * are given exactly the block's capacity (the executor bounds-checks every
 * access) and start as garbage the result must replace; send buffers must
 * come back unchanged. In place the whole vector is in the receive
 * buffer; only its start is checked: MPI leaves the rest undefined. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

typedef struct {
    const size_t *counts; /* NULL for reduce_scatter_block */
    bool in_place;
} rs_ctx;

static void rs_args(const check_case *c, int rank, trl_coll_args *a, void *vctx)
{
    (void)c;
    (void)rank;
    const rs_ctx *x = vctx;
    a->counts = x->counts;
    a->in_place = x->in_place;
}

void check_reduce_scatter_case(tally *t, const check_case *c)
{
    const elem_type *ty = c->ty;
    int p = c->p;
    size_t es = ty->size;
    bool block = c->algo->coll == TRL_COLL_REDUCE_SCATTER_BLOCK;
    size_t *counts = calloc((size_t)p, sizeof *counts);
    size_t *off = calloc((size_t)p + 1, sizeof *off);
    check_bufs b;
    check_bufs_init(&b, p);
    void *expect = NULL, *tmp = NULL;

    if (block)
        for (int r = 0; r < p; r++)
            counts[r] = c->count;
    else
        check_irregular_counts(p, c->count, counts);
    for (int r = 0; r < p; r++)
        off[r + 1] = off[r] + counts[r];
    size_t n = off[p];

    rs_ctx x = {block ? NULL : counts, c->in_place};
    if (!check_build_all(t, c, &b, rs_args, &x))
        goto out;

    /* Inputs, and the expected vector by a plain loop in rank order. */
    expect = malloc(n * es + 1);
    tmp = malloc(n * es + 1);
    for (int r = 0; r < p; r++) {
        b.send[r] = malloc(n * es + 1);
        b.send_n[r] = n;
        ty->fill(b.send[r], r, n, c->seed);
        if (c->in_place) {
            b.recv[r] = b.send[r];
            b.recv_n[r] = n;
        } else {
            b.recv[r] = malloc(counts[r] * es + 1);
            b.recv_n[r] = counts[r];
            memset(b.recv[r], 0x5A, counts[r] * es); /* garbage the result must replace */
        }
    }
    check_fold_ranks(c, expect, tmp, n);

    if (!check_run(t, c, &b, es))
        goto out;
    for (int r = 0; r < p; r++) {
        size_t bad;
        if (!ty->close(b.recv[r], (char *)expect + off[r] * es, counts[r], p, &bad)) {
            check_fail(t, c, "rank %d: element %zu of its block (%zu elements) is wrong", r, bad,
                       counts[r]);
            break;
        }
    }
    check_sends_unchanged(t, c, &b); /* send buffers are read-only */
out:
    check_bufs_free(&b);
    free(counts);
    free(off);
    free(expect);
    free(tmp);
}
