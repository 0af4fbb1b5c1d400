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
    trl_sched *s = calloc((size_t)p, sizeof *s);
    void **send = calloc((size_t)p, sizeof *send), **recv = calloc((size_t)p, sizeof *recv);
    size_t *send_n = calloc((size_t)p, sizeof *send_n), *recv_n = calloc((size_t)p, sizeof *recv_n);
    void *expect = malloc(n * es + 1), *tmp = malloc(n * es + 1), *before = malloc(n * es + 1);
    bool built = false;

    if (!check_build_all(t, c, s, scan_args, NULL))
        goto out;
    built = true;

    for (int r = 0; r < p; r++) {
        send[r] = malloc(n * es + 1);
        send_n[r] = recv_n[r] = n;
        ty->fill(send[r], r, n, c->seed);
        if (c->in_place) {
            recv[r] = send[r];
        } else {
            recv[r] = malloc(n * es + 1);
            memset(recv[r], 0x5A, n * es); /* garbage the result must replace */
        }
    }
    memcpy(before, recv[0], n * es); /* exscan's rank 0 keeps this */

    if (!check_run(t, c, s, es, send, recv, send_n, recv_n))
        goto out;

    /* expect runs through the prefixes: before rank r's check it holds
     * x_0 op ... op x_r (scan) or x_0 op ... op x_{r-1} (exscan, r >= 1). */
    for (int r = 0; r < p; r++) {
        size_t bad;
        if (r == 0) {
            ty->fill(expect, 0, n, c->seed);
            if (exclusive) {
                if (!check_exact(recv[0], before, n, es, &bad)) {
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
        if (!ty->close(recv[r], expect, n, p, &bad)) {
            check_fail(t, c, "rank %d: element %zu is wrong", r, bad);
            break;
        }
    }
    /* Send buffers are read-only. */
    for (int r = 0; r < p && !c->in_place; r++) {
        ty->fill(tmp, r, n, c->seed);
        size_t bad;
        if (!check_exact(send[r], tmp, n, es, &bad)) {
            check_fail(t, c, "rank %d's send buffer was modified (element %zu)", r, bad);
            break;
        }
    }
out:
    if (built)
        check_free_scheds(s, p);
    for (int r = 0; r < p; r++) {
        if (recv[r] != send[r])
            free(recv[r]);
        free(send[r]);
    }
    free(s);
    free(send);
    free(recv);
    free(send_n);
    free(recv_n);
    free(expect);
    free(tmp);
    free(before);
}
