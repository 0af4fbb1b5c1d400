/* Rank blocks through a hierarchy (see hier_blocks.h). */
#include "algo/hier_blocks.h"

#include <stdlib.h>
#include <string.h>

#include "algo/blocks.h"
#include "core/status.h"

/* A rank's chain: chain[i] carries it into level i (chain[0] is itself). */
typedef struct {
    int n;
    int chain[TRL_LEVEL_COUNT];
} chained;

static int by_chain_top_first(const void *x, const void *y)
{
    const chained *a = x, *b = y;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->chain[i] != b->chain[i])
            return a->chain[i] < b->chain[i] ? -1 : 1;
    return 0;
}

int trl_hier_blocks_init(trl_hier_blocks *b, const trl_coll_args *a, const trl_levels *levels,
                         int root)
{
    memset(b, 0, sizeof *b);
    int p = a->size, n = levels->n, rc = trl_hier_map_init(&b->map, a, levels, root);
    if (rc)
        return rc;
    size_t cells = (size_t)n * (size_t)p;
    b->p = p;
    b->order = malloc((size_t)p * sizeof *b->order);
    b->at = malloc(((size_t)p + 1) * sizeof *b->at);
    b->lo = malloc(cells * sizeof *b->lo);
    b->hi = malloc(cells * sizeof *b->hi);
    chained *c = malloc((size_t)p * sizeof *c);
    if (!b->order || !b->at || !b->lo || !b->hi || !c) {
        free(c);
        trl_hier_blocks_free(b);
        return TRL_ERR_NOMEM;
    }
    const int *lead = b->map.lead;
    for (int r = 0; r < p; r++) {
        c[r].n = n;
        c[r].chain[0] = r;
        for (int i = 1; i < n; i++) /* the leader of a group takes part above it */
            c[r].chain[i] = lead[(size_t)(i - 1) * (size_t)p + (size_t)c[r].chain[i - 1]];
    }
    qsort(c, (size_t)p, sizeof *c, by_chain_top_first);
    for (size_t i = 0; i < cells; i++)
        b->lo[i] = b->hi[i] = -1;
    b->at[0] = 0;
    for (int k = 0; k < p; k++) {
        b->order[k] = c[k].chain[0];
        b->at[k + 1] = b->at[k] + trl__blk_count(a, b->order[k]);
        for (int i = 0; i < n; i++) {
            size_t cell = (size_t)i * (size_t)p + (size_t)c[k].chain[i];
            if (b->lo[cell] < 0)
                b->lo[cell] = k;
            b->hi[cell] = k + 1;
        }
    }
    free(c);
    return TRL_OK;
}

int trl_hier_blocks_for_rule(trl_hier_blocks *b, const trl_coll_args *a, int root,
                             trl_levels *levels)
{
    trl_levels_decode(trl_param_int(a, "levels"), levels);
    return trl_hier_blocks_init(b, a, levels, root);
}

void trl_hier_blocks_free(trl_hier_blocks *b)
{
    trl_hier_map_free(&b->map);
    free(b->order);
    free(b->at);
    free(b->lo);
    free(b->hi);
    memset(b, 0, sizeof *b);
}

int trl_hier_blocks_last(const trl_hier_blocks *b, int x)
{
    int last = 0;
    for (int i = 1; i < b->map.levels.n; i++)
        if (b->map.lead[(size_t)i * (size_t)b->p + (size_t)x] >= 0)
            last = i;
    return last;
}

static size_t cell(const trl_hier_blocks *b, int i, int x)
{
    return (size_t)i * (size_t)b->p + (size_t)x;
}

size_t trl_hier_carried_at(const trl_hier_blocks *b, int i, int x)
{
    return b->at[b->lo[cell(b, i, x)]];
}

size_t trl_hier_carried_len(const trl_hier_blocks *b, int i, int x)
{
    return b->at[b->hi[cell(b, i, x)]] - b->at[b->lo[cell(b, i, x)]];
}

int trl_hier_carried_blocks(const trl_hier_blocks *b, int i, int x)
{
    return b->hi[cell(b, i, x)] - b->lo[cell(b, i, x)];
}

int trl_hier_blocks_group(const trl_hier_blocks *b, int i, int x, trl_hier_group *g, size_t *counts,
                          size_t *displs, size_t *start)
{
    int rc = trl_hier_map_group(&b->map, i, x, g);
    if (rc)
        return rc;
    *start = trl_hier_carried_at(b, i, g->ranks[0]);
    for (int j = 0; j < g->n; j++) {
        counts[j] = trl_hier_carried_len(b, i, g->ranks[j]);
        displs[j] = trl_hier_carried_at(b, i, g->ranks[j]) - *start;
    }
    return TRL_OK;
}

bool trl_hier_blocks_in_rank_order(const trl_hier_blocks *b)
{
    for (int k = 0; k < b->p; k++)
        if (b->order[k] != k)
            return false;
    return true;
}

void trl_hier_blocks_copy(const trl_hier_blocks *b, const trl_coll_args *a, trl_sched *s,
                          trl_ref img, bool to_image, int skip, const int *deps, int ndeps)
{
    trl_buf buf = to_image ? TRL_BUF_SEND : TRL_BUF_RECV;
    for (int k = 0; k < b->p;) {
        int r = b->order[k];
        size_t len = trl__blk_count(a, r), pos = trl__blk_displ(a, r);
        int next = k + 1;
        if (r == skip || len == 0) {
            k = next;
            continue;
        }
        /* Extend the run while the next block lies right after on both sides. */
        while (next < b->p) {
            int q = b->order[next];
            size_t n = trl__blk_count(a, q);
            if (q == skip || (n > 0 && trl__blk_displ(a, q) != pos + len))
                break;
            len += n;
            next++;
        }
        trl_ref in_img = trl_ref_at(img.buf, img.off + b->at[k]), out = trl_ref_at(buf, pos);
        if (to_image)
            trl_sched_copy(s, out, in_img, len, deps, ndeps);
        else
            trl_sched_copy(s, in_img, out, len, deps, ndeps);
        k = next;
    }
}

bool trl_hier_rooted_image(const trl_hier_blocks *b, const trl_coll_args *a, trl_sched *s,
                           trl_buf buf, trl_hier_image *im, bool *direct)
{
    int me = a->rank, last = trl_hier_blocks_last(b, me);
    size_t base;
    *direct = false;
    *im = (trl_hier_image){trl_ref_at(TRL_BUF_RECV, 0), 0};
    if (me == a->root) {
        *direct = trl_hier_blocks_in_rank_order(b) && trl__back_to_back(a, 0, b->p, &base);
        im->img = *direct ? trl_ref_at(buf, base)
                          : trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, b->at[b->p]));
        return true;
    }
    if (trl_hier_carried_blocks(b, last, me) == 1)
        return false;
    im->origin = trl_hier_carried_at(b, last, me);
    im->img = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, trl_hier_carried_len(b, last, me)));
    return true;
}

int trl_hier_blocks_level(const trl_coll_args *a, trl_sched *s, const trl_hier_blocks *b, int i,
                          trl_coll coll, const char *param, const trl_hier_image *im, trl_ref mine,
                          bool in_place, size_t count, bool *led)
{
    size_t *counts = malloc((size_t)a->size * 2 * sizeof *counts), start;
    *led = false;
    if (!counts)
        return TRL_ERR_NOMEM;
    trl_hier_group g;
    int rc = trl_hier_blocks_group(b, i, a->rank, &g, counts, counts + a->size, &start);
    if (rc == TRL_OK && g.n > 1) {
        const trl_params *params;
        const trl_algo *algo = trl_param_level(a, param, &params);
        trl_coll_args ga = *a;
        trl_ref range = trl_hier_image_at(im, start), send = mine, recv = range;
        if (coll == TRL_COLL_BCAST) {
            ga.count = count;
            ga.counts = ga.displs = NULL;
            send = recv = trl_hier_image_at(im, 0);
        } else {
            ga.counts = counts;
            ga.displs = counts + a->size;
            if (coll == TRL_COLL_SCATTERV) {
                send = range;
                recv = mine;
            }
        }
        /* In place is the root's affair in a rooted collective. */
        bool rooted = coll == TRL_COLL_GATHERV || coll == TRL_COLL_SCATTERV;
        *led = g.me == g.leader;
        rc = trl_hier_run(&ga, s, &g, coll, algo, params, send, recv,
                          in_place && (*led || !rooted));
    }
    free(g.ranks);
    free(counts);
    return rc;
}
