/* bcast, reduce, allreduce and barrier in the threads tier. Reductions
 * are checked against a plain loop in rank order; barriers carry no data,
 * so for them the check is that every rank, before it finishes, has heard
 * (through a chain of messages) from every other rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"

/* Which ranks each step has heard from (bitsets over <= 64 ranks), to a
 * fixed point across message edges. Used for barriers. */
bool check_barrier_informs(trl_sched *s, int p, const uint64_t *want, char *why, size_t whylen)
{
    uint64_t **know = calloc((size_t)p, sizeof *know);
    for (int r = 0; r < p; r++)
        know[r] = calloc(s[r].nsteps + 1, sizeof **know);
    bool changed = true;
    while (changed) {
        changed = false;
        for (int r = 0; r < p; r++) {
            for (size_t i = 0; i < s[r].nsteps; i++) {
                const trl_step *st = &s[r].steps[i];
                uint64_t k = 1ULL << r;
                for (uint32_t d = 0; d < st->ndeps; d++)
                    k |= know[r][s[r].deps[st->dep_first + d]];
                if (st->kind == TRL_STEP_RECV) {
                    const trl_sched *src = &s[st->peer];
                    for (size_t j = 0; j < src->nsteps; j++)
                        if (src->steps[j].kind == TRL_STEP_SEND && src->steps[j].peer == r &&
                            src->steps[j].tag == st->tag)
                            k |= know[st->peer][j];
                }
                if (k != know[r][i]) {
                    know[r][i] = k;
                    changed = true;
                }
            }
        }
    }
    bool ok = true;
    uint64_t all = p == 64 ? ~0ULL : (1ULL << p) - 1;
    for (int r = 0; r < p && ok; r++) {
        uint64_t k = 1ULL << r, need = want ? want[r] : all;
        for (size_t i = 0; i < s[r].nsteps; i++)
            k |= know[r][i];
        if ((k & need) != need) {
            snprintf(why, whylen,
                     "rank %d can finish without hearing from every rank it must "
                     "(knows %#llx, must %#llx)",
                     r, (unsigned long long)k, (unsigned long long)need);
            ok = false;
        }
    }
    for (int r = 0; r < p; r++)
        free(know[r]);
    free(know);
    return ok;
}

static void classic_args(const check_case *c, int rank, trl_coll_args *a, void *ctx)
{
    (void)ctx;
    trl_coll coll = c->algo->coll;
    bool has_both = coll == TRL_COLL_ALLREDUCE || coll == TRL_COLL_REDUCE;
    a->in_place = c->in_place && has_both && (coll == TRL_COLL_ALLREDUCE || rank == c->root);
}

void check_classic_case(tally *t, const check_case *c)
{
    const trl_algo *algo = c->algo;
    const elem_type *ty = c->ty;
    int p = c->p, root = c->root;
    size_t count = c->count;
    bool in_place = c->in_place;
    unsigned seed = c->seed;
    trl_coll coll = algo->coll;
    check_bufs b;
    check_bufs_init(&b, p);
    void *expect = calloc(count + 1, ty->size), *tmp = calloc(count + 1, ty->size);
    char why[256];

    if (!check_build_all(t, c, &b, classic_args, NULL))
        goto out;

    if (coll == TRL_COLL_BARRIER) {
        if (!check_barrier_informs(b.s, p, NULL, why, sizeof why))
            check_fail(t, c, "%s", why);
    }

    /* Inputs, and the expected result computed by a plain loop. */
    for (int r = 0; r < p; r++) {
        bool has_send = coll == TRL_COLL_REDUCE || coll == TRL_COLL_ALLREDUCE;
        bool has_recv = coll == TRL_COLL_BCAST || coll == TRL_COLL_ALLREDUCE ||
                        (coll == TRL_COLL_REDUCE && r == root);
        if (has_send) {
            b.send[r] = malloc(count * ty->size + 1);
            b.send_n[r] = count;
            ty->fill(b.send[r], r, count, seed);
        }
        if (has_recv) {
            b.recv[r] = malloc(count * ty->size + 1);
            b.recv_n[r] = count;
            if (coll == TRL_COLL_BCAST)
                ty->fill(b.recv[r], r == root ? 1000 : r, count, seed + (r == root ? 0 : 7));
            else
                memset(b.recv[r], 0x5A, count * ty->size); /* garbage the result must replace */
        }
        if (in_place && has_send && has_recv) {
            memcpy(b.recv[r], b.send[r], count * ty->size);
            free(b.send[r]);
            b.send[r] = b.recv[r];
        }
    }
    if (coll == TRL_COLL_BCAST) {
        ty->fill(expect, 1000, count, seed);
    } else if (coll != TRL_COLL_BARRIER) {
        check_fold_ranks(c, expect, tmp, count);
    }

    if (!check_run(t, c, &b, ty->size))
        goto out;
    for (int r = 0; r < p; r++) {
        if (!b.recv[r] || coll == TRL_COLL_BARRIER)
            continue;
        size_t bad;
        if (!ty->close(b.recv[r], expect, count, p, &bad)) {
            check_fail(t, c, "rank %d: element %zu is wrong", r, bad);
            break;
        }
    }
    check_sends_unchanged(t, c, &b); /* send buffers are read-only */
out:
    check_bufs_free(&b);
    free(expect);
    free(tmp);
}
