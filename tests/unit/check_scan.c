/* scan and exscan in the threads tier.
 *
 * Rank r's input is its own values (unique per rank and index); the
 * expected prefix x_0 op ... op x_r (exscan: up to x_{r-1}) is folded in
 * rank order by a plain loop. Receive buffers start as garbage the result
 * must replace, except that exscan's rank 0 must leave its receive buffer
 * exactly as it was (its garbage, or in place its own data). Send buffers
 * must come back unchanged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

static void scan_args(const check_case *c, int rank, trl_coll_args *a, void *ctx)
{
    (void)rank;
    (void)ctx;
    a->in_place = c->in_place;
}

void check_scan_case(tally *t, const check_case *c)
{
    const elem_type *ty = c->ty;
    int p = c->p;
    size_t n = c->count, es = ty->size;
    bool exclusive = c->algo->coll == TRL_COLL_EXSCAN;
    check_bufs b;
    check_bufs_init(&b, p);
    void *expect = malloc(n * es + 1), *tmp = malloc(n * es + 1), *before = malloc(n * es + 1);

    if (!check_build_all(t, c, &b, scan_args, NULL))
        goto out;

    for (int r = 0; r < p; r++) {
        b.send[r] = malloc(n * es + 1);
        b.send_n[r] = b.recv_n[r] = n;
        ty->fill(b.send[r], r, n, c->seed);
        if (c->in_place) {
            b.recv[r] = b.send[r];
        } else {
            b.recv[r] = malloc(n * es + 1);
            memset(b.recv[r], 0x5A, n * es); /* garbage the result must replace */
        }
    }
    memcpy(before, b.recv[0], n * es); /* exscan's rank 0 keeps this */

    if (!check_run(t, c, &b, es))
        goto out;

    /* expect runs through the prefixes: before rank r's check it holds
     * x_0 op ... op x_r (scan) or x_0 op ... op x_{r-1} (exscan, r >= 1). */
    for (int r = 0; r < p; r++) {
        size_t bad;
        if (r == 0) {
            ty->fill(expect, 0, n, c->seed);
            if (exclusive) {
                if (!check_exact(b.recv[0], before, n, es, &bad)) {
                    check_fail(t, c, "rank 0's receive buffer was changed (element %zu)", bad);
                    break;
                }
                continue;
            }
        } else if (!exclusive) {
            ty->fill(tmp, r, n, c->seed);
            ty->fold_expected(expect, tmp, n);
        } else if (r > 1) {
            ty->fill(tmp, r - 1, n, c->seed);
            ty->fold_expected(expect, tmp, n);
        }
        if (!ty->close(b.recv[r], expect, n, p, &bad)) {
            check_fail(t, c, "rank %d: element %zu is wrong", r, bad);
            break;
        }
    }
    check_sends_unchanged(t, c, &b); /* send buffers are read-only */
out:
    check_bufs_free(&b);
    free(expect);
    free(tmp);
    free(before);
}
