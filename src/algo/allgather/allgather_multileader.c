/* Multi-leader allgather (and allgatherv), `multileader`: every rank of a
 * host leads one lane. Lane j is the j-th rank (in rank order) of every
 * host; first an allgather runs in every lane at once, among the hosts
 * (`world=`), so the j-th rank of each host gets the j-th blocks of all
 * hosts; then an allgather within each host (`host=`) of what the lanes
 * brought, and every rank has all blocks. The exchange across hosts is
 * split over the q ranks of a host instead of funnelled through one
 * leader, and each lane crosses hosts with h-1 blocks, not p-1.
 *
 * Cost: with h hosts of q ranks and ring at both levels, (h-1)(a + nb)
 * across hosts, q lanes at once, then (q-1)(a + hnb) within each host
 * (n one block; for allgatherv each step as slow as its largest part).
 * From: Kandalla, Subramoni, Vishnu and Panda, "Designing multi-leader-
 * based allgather algorithms for multi-core clusters" (IPDPS 2009), and
 * the lane decomposition of Traeff and Hunold, "Decomposing MPI collectives
 * for exploiting multi-lane communication" (CLUSTER 2020).
 *
 * Irregular hosts: with Q the most ranks on one host, there are Q lanes,
 * and a host of q < Q ranks has its rank j mod q stand in lane j: it takes
 * part with no block of its own and keeps what the lane brings, so a rank
 * may run several lanes (one after the other, in lane order on every rank,
 * which keeps them from waiting on each other in a cycle). A host of one
 * rank runs every lane; all ranks on one host make every lane one rank and
 * the host's allgather the whole call. Any placement: lanes follow each
 * host's ranks in rank order, wherever they are.
 *
 * Buffers: each host keeps one image, in scratch: the lanes of its rank 0
 * first (lanes 0, q, 2q, ...), then its rank 1's, ..., each lane holding
 * the hosts' blocks in host order. So what a rank brings to its host's
 * allgather is one range, and so is each lane's allgather. At the end
 * every block is copied to its place in RECV (one copy per run of blocks
 * adjacent in both); the own block stays where it is in place.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/hier_blocks.h"
#include "core/status.h"

/* This host's image: where each lane starts. */
typedef struct {
    const trl_coll_args *a;
    const trl_hier_hosts *t;
    int k, q, lanes;
    size_t *lane_at; /* lanes + 1 entries, in lane order (not image order) */
    size_t total;
} image;

/* Host m's block in lane j: its rank j, if it has one. */
static size_t lane_block(const image *im, int m, int j)
{
    int qm = trl_hier_host_size(im->t, m);
    return j < qm ? trl__blk_count(im->a, trl_hier_host_rank(im->t, m, j)) : 0;
}

static size_t lane_len(const image *im, int j)
{
    size_t n = 0;
    for (int m = 0; m < im->t->n; m++)
        n += lane_block(im, m, j);
    return n;
}

/* The lanes of local rank i: i, i+q, i+2q, ... */
static int image_init(image *im, const trl_coll_args *a, const trl_hier_hosts *t)
{
    *im = (image){a, t, t->host_of[a->rank], 0, t->most, NULL, 0};
    im->q = trl_hier_host_size(t, im->k);
    im->lane_at = malloc(((size_t)im->lanes + 1) * sizeof *im->lane_at);
    if (!im->lane_at)
        return TRL_ERR_NOMEM;
    for (int i = 0; i < im->q; i++)
        for (int j = i; j < im->lanes; j += im->q) {
            im->lane_at[j] = im->total;
            im->total += lane_len(im, j);
        }
    return TRL_OK;
}

/* Lane j among the hosts: this rank brings its block to its own lane. */
static int run_lane(const image *im, trl_sched *s, int j, trl_ref img, trl_ref own_src,
                    trl_hier_group *g, size_t *counts, size_t *displs)
{
    const trl_coll_args *a = im->a;
    const trl_hier_hosts *t = im->t;
    int u = t->local_of[a->rank];
    size_t at = 0;
    for (int m = 0; m < t->n; m++) {
        g->ranks[m] = trl_hier_host_rank(t, m, j % trl_hier_host_size(t, m));
        counts[m] = lane_block(im, m, j);
        displs[m] = at;
        at += counts[m];
    }
    *g = (trl_hier_group){TRL_LEVEL_WORLD, t->n, g->ranks, 0, im->k};
    trl_ref lane = trl_ref_at(img.buf, img.off + im->lane_at[j]);
    if (t->n == 1) { /* a lane of one: just the own block into it */
        if (j == u && counts[0] > 0)
            trl_sched_copy(s, own_src, lane, counts[0], TRL_NODEPS);
        return trl_sched_fence(s) < 0 ? s->status : TRL_OK;
    }
    trl_coll_args ga = *a;
    ga.counts = counts;
    ga.displs = displs;
    const trl_params *params;
    const trl_algo *algo = trl_param_level(a, "world", &params);
    bool own_lane = j == u;
    trl_ref send = own_lane ? own_src : trl_ref_at(lane.buf, lane.off + displs[im->k]);
    return trl_hier_run(&ga, s, g, TRL_COLL_ALLGATHERV, algo, params, send, lane, !own_lane);
}

/* Every block from the image to its place in RECV, by runs. */
static void unpack(const image *im, trl_sched *s, trl_ref img)
{
    const trl_coll_args *a = im->a;
    const trl_hier_hosts *t = im->t;
    int skip = a->in_place ? a->rank : -1;
    size_t run_img = 0, run_pos = 0, run_len = 0, at = 0;
    for (int i = 0; i < im->q; i++)
        for (int j = i; j < im->lanes; j += im->q)
            for (int m = 0; m < t->n; m++) {
                size_t n = lane_block(im, m, j);
                if (n == 0)
                    continue;
                int r = trl_hier_host_rank(t, m, j);
                size_t pos = trl__blk_displ(a, r);
                if (r != skip && run_len > 0 && pos == run_pos + run_len &&
                    at == run_img + run_len) {
                    run_len += n;
                } else {
                    if (run_len > 0)
                        trl_sched_copy(s, trl_ref_at(img.buf, img.off + run_img),
                                       trl_ref_at(TRL_BUF_RECV, run_pos), run_len, TRL_NODEPS);
                    run_len = 0;
                    if (r != skip) {
                        run_img = at;
                        run_pos = pos;
                        run_len = n;
                    }
                }
                at += n;
            }
    if (run_len > 0)
        trl_sched_copy(s, trl_ref_at(img.buf, img.off + run_img), trl_ref_at(TRL_BUF_RECV, run_pos),
                       run_len, TRL_NODEPS);
}

int trl_allgather_multileader(const trl_coll_args *a, trl_sched *s)
{
    trl_hier_hosts t;
    int rc = trl_hier_hosts_init(&t, a);
    if (rc)
        return rc;
    image im;
    size_t *counts = malloc((size_t)a->size * 2 * sizeof *counts);
    int *ranks = malloc((size_t)a->size * sizeof *ranks);
    rc = image_init(&im, a, &t);
    if (rc == TRL_OK && (!counts || !ranks))
        rc = TRL_ERR_NOMEM;
    if (rc == TRL_OK) {
        int me = a->rank, u = t.local_of[me];
        trl_ref own_src = a->in_place ? trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, me))
                                      : trl_ref_at(TRL_BUF_SEND, 0);
        trl_ref img = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, im.total));
        trl_hier_group g = {TRL_LEVEL_WORLD, 0, ranks, 0, 0};
        for (int j = u; j < im.lanes && rc == TRL_OK; j += im.q)
            rc = run_lane(&im, s, j, img, own_src, &g, counts, counts + a->size);
        if (rc == TRL_OK && im.q > 1) { /* within the host: each rank's lanes */
            for (int i = 0; i < im.q; i++) {
                size_t n = 0;
                for (int j = i; j < im.lanes; j += im.q)
                    n += lane_len(&im, j);
                counts[i] = n;
                counts[a->size + i] = im.lane_at[i];
            }
            g = (trl_hier_group){TRL_LEVEL_HOST, im.q, t.rank + t.first[im.k], 0, u};
            trl_coll_args ga = *a;
            ga.counts = counts;
            ga.displs = counts + a->size;
            const trl_params *params;
            const trl_algo *algo = trl_param_level(a, "host", &params);
            rc = trl_hier_run(&ga, s, &g, TRL_COLL_ALLGATHERV, algo, params,
                              trl_ref_at(img.buf, img.off + im.lane_at[u]), img, true);
        }
        if (rc == TRL_OK)
            unpack(&im, s, img);
    }
    free(im.lane_at);
    free(counts);
    free(ranks);
    trl_hier_hosts_free(&t);
    return rc ? rc : s->status;
}
