/* gather, gatherv, scatter and scatterv in the threads tier.
 *
 * Block i is rank i's: values ty->fill(i), unique per rank and index. The
 * root's buffer (gather's RECV, scatter's SEND) has block i at i*count, or
 * for the v-variants at displacements that reverse the rank order and
 * leave a one-element gap between blocks (check_scattered_displs), with
 * irregular counts, zero among them (check_irregular_counts). Everything
 * outside the blocks holds garbage that must survive.
 *
 * What a rank is not supposed to touch it does not get: non-root ranks
 * have no gather RECV and no scatter SEND, an in-place gather root has no
 * SEND and an in-place scatter root no RECV (the executor fails any access
 * to a missing buffer). For the v-variants a non-root rank gets no
 * displacements at all (NULL, as the runtime passes them: a builder that
 * reads them crashes), and the other ranks' counts are poisoned
 * (SIZE_MAX/3) there unless the algorithm has TRL_NEEDS_ALL_COUNTS; a
 * builder that read them would address far outside every buffer or ask
 * for absurd scratch, which is checked before running (scratch may not
 * exceed the data gathered or scattered; for a hierarchy, once per level
 * and once more).
 *
 * Also checked: no message carries zero elements; send buffers are not
 * modified. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

#define POISON (SIZE_MAX / 3)

typedef struct {
    bool vec;
    const size_t *counts, *displs; /* the truth (vec only) */
    size_t *own_only;              /* p x p: row r poisoned but for counts[r] */
} gather_ctx;

static void args_of(const check_case *c, int rank, trl_coll_args *a, void *vctx)
{
    gather_ctx *x = vctx;
    a->in_place = c->in_place && rank == c->root;
    if (!x->vec)
        return;
    if (rank == c->root) {
        a->counts = x->counts;
        a->displs = x->displs;
        return;
    }
    a->counts = c->algo->needs & TRL_NEEDS_ALL_COUNTS ? x->counts
                                                      : &x->own_only[(size_t)rank * (size_t)c->p];
    a->displs = NULL;
}

/* Schedules that could not have come from the true counts, that send
 * empty messages, or whose root moves some data twice (it receives, for a
 * gather, or sends, for a scatter, more than all the blocks). */
static bool check_shape(tally *t, const check_case *c, const trl_sched *s, size_t total)
{
    /* A hierarchy's root keeps all blocks, and each level's algorithm may
     * want scratch of its own beside them (a binomial tree rotated to a
     * leader that is not its group's first rank): up to one image per
     * level and the root's own. */
    size_t most = trl_algo_param(c->algo, "levels", 6) ? (TRL_LEVEL_COUNT + 1) * total : total;
    for (int r = 0; r < c->p; r++) {
        if (s[r].scratch > most) {
            check_fail(t, c, "rank %d asks for %zu elements of scratch, more than %s (%zu)", r,
                       s[r].scratch, most > total ? "the bound" : "all the data", most);
            return false;
        }
        trl_step_kind at_root = c->algo->coll == TRL_COLL_GATHER ||
                                        c->algo->coll == TRL_COLL_GATHERV
                                    ? TRL_STEP_RECV
                                    : TRL_STEP_SEND;
        size_t moved = 0;
        for (size_t i = 0; i < s[r].nsteps; i++) {
            const trl_step *st = &s[r].steps[i];
            if ((st->kind == TRL_STEP_SEND || st->kind == TRL_STEP_RECV) && st->count == 0) {
                check_fail(t, c, "rank %d step l%zu: an empty message", r, i + 1);
                return false;
            }
            moved += st->kind == at_root ? st->count : 0;
        }
        if (r == c->root && moved > total) {
            check_fail(t, c,
                       "the root moves %zu elements in messages, more than all the data (%zu)",
                       moved, total);
            return false;
        }
    }
    return true;
}

void check_gather_case(tally *t, const check_case *c)
{
    trl_coll coll = c->algo->coll;
    bool gather = coll == TRL_COLL_GATHER || coll == TRL_COLL_GATHERV;
    bool vec = coll == TRL_COLL_GATHERV || coll == TRL_COLL_SCATTERV;
    const elem_type *ty = c->ty;
    size_t es = ty->size;
    int p = c->p, root = c->root;
    unsigned seed = c->seed;

    size_t *counts = calloc((size_t)p, sizeof *counts), *displs = calloc((size_t)p, sizeof *displs);
    size_t *own_only = malloc((size_t)p * (size_t)p * sizeof *own_only);
    check_bufs b;
    check_bufs_init(&b, p);
    void *root_buf = NULL, *block = NULL;

    /* Layout of the root's buffer: len elements, block r at displs[r]. */
    size_t len, total = 0;
    if (vec) {
        check_irregular_counts(p, c->count, counts);
        len = check_scattered_displs(p, counts, displs);
    } else {
        for (int r = 0; r < p; r++) {
            counts[r] = c->count;
            displs[r] = (size_t)r * c->count;
        }
        len = (size_t)p * c->count;
    }
    size_t maxn = 0;
    for (int r = 0; r < p; r++) {
        total += counts[r];
        maxn = counts[r] > maxn ? counts[r] : maxn;
        for (int q = 0; q < p; q++)
            own_only[(size_t)r * (size_t)p + (size_t)q] = q == r ? counts[r] : POISON;
    }
    gather_ctx x = {vec, counts, displs, own_only};

    if (!check_build_all(t, c, &b, args_of, &x))
        goto out;
    if (!check_shape(t, c, b.s, total))
        goto out;

    /* The root's buffer as it must be after the call: garbage around
     * block r at displs[r]. */
    root_buf = malloc(len * es + 1);
    block = malloc(maxn * es + 1);
    ty->fill(root_buf, 9999, len, seed ^ 0x5EEDu);
    for (int r = 0; r < p; r++) {
        ty->fill(block, r, counts[r], seed);
        memcpy((char *)root_buf + displs[r] * es, block, counts[r] * es);
    }

    for (int r = 0; r < p; r++) {
        bool ip = c->in_place && r == root;
        if (gather) {
            if (!ip) {
                b.send[r] = malloc(counts[r] * es + 1);
                b.send_n[r] = counts[r];
                ty->fill(b.send[r], r, counts[r], seed);
            }
            if (r == root) {
                b.recv[r] = malloc(len * es + 1);
                b.recv_n[r] = len;
                ty->fill(b.recv[r], 9999, len, seed ^ 0x5EEDu);
                if (ip) /* the root's block is already in place */
                    memcpy((char *)b.recv[r] + displs[r] * es, (char *)root_buf + displs[r] * es,
                           counts[r] * es);
            }
        } else {
            if (r == root) {
                b.send[r] = malloc(len * es + 1);
                b.send_n[r] = len;
                memcpy(b.send[r], root_buf, len * es);
            }
            if (!ip) {
                b.recv[r] = malloc(counts[r] * es + 1);
                b.recv_n[r] = counts[r];
                ty->fill(b.recv[r], 7777 + r, counts[r], seed); /* garbage to replace */
            }
        }
    }

    if (!check_run(t, c, &b, es))
        goto out;

    size_t bad;
    if (gather) {
        if (!check_exact(b.recv[root], root_buf, len, es, &bad)) {
            check_fail(t, c, "root's receive buffer: element %zu is wrong", bad);
            goto out;
        }
        check_sends_unchanged(t, c, &b);
    } else {
        for (int r = 0; r < p; r++) {
            if (!b.recv[r])
                continue;
            ty->fill(block, r, counts[r], seed);
            if (!check_exact(b.recv[r], block, counts[r], es, &bad)) {
                check_fail(t, c, "rank %d: element %zu is wrong", r, bad);
                goto out;
            }
        }
        if (!check_exact(b.send[root], root_buf, len, es, &bad)) {
            check_fail(t, c, "the root's send buffer was modified (element %zu)", bad);
            goto out;
        }
    }

out:
    check_bufs_free(&b);
    free(counts);
    free(displs);
    free(own_only);
    free(root_buf);
    free(block);
}
