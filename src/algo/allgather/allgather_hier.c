/* Hierarchical allgather (and allgatherv), `hier` (src/algo/hier.h): a
 * gather up every level below world to the groups' leaders, an allgather
 * of what they carry among the top leaders, then a broadcast of all blocks
 * down the levels again. `gather=` names the gatherv of the levels below
 * world, each lower level's own parameter (host=, socket=, ...) the bcast
 * down it, `world=` the allgatherv among the top leaders. Leaders are the
 * groups' lowest ranks.
 *
 * Cost: with h hosts of q ranks, linear gathers, binomial bcasts and Bruck
 * at the top, (q-1)a + (q-1)nb into each host's leader, ceil(log2 h)a +
 * (h-1)qnb across hosts (the only messages that cross them: h ceil(log2 h)
 * instead of p ceil(log2 p) for a flat Bruck), then log2(q)(a + pnb) down
 * (n one block; N all blocks for allgatherv).
 * From: the two-level allgathers of MPICH's SMP-aware collectives and Open
 * MPI's han (intra-node gather, inter-node allgather, intra-node bcast);
 * seed 004's per-level primitives.
 *
 * Blocks travel in the image order of src/algo/hier_blocks.h, where what a
 * rank carries into any level is one range: a level's gather is a gatherv
 * of ranges, the top's an allgatherv of ranges, the bcast sends the whole
 * image. Any placement and any group sizes work: irregular hosts give
 * irregular ranges, round-robin placement an image order that is not rank
 * order, and the image is then scratch, copied out to RECV at the end (one
 * copy per run of blocks adjacent in both). With block placement (image
 * order = rank order) and a RECV holding the blocks back to back (always
 * for allgather) the image is RECV itself and nothing is copied. A group
 * of one rank is skipped; the data it would move is already in place.
 * Whether a rank's image is RECV is its own affair: the messages depend
 * only on the counts.
 */
#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/hier_blocks.h"
#include "core/status.h"

int trl_allgather_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_levels levels;
    trl_hier_blocks b;
    int rc = trl_hier_blocks_for_rule(&b, a, 0, &levels);
    if (rc)
        return rc;
    int p = a->size, me = a->rank, top = levels.n - 1, last = trl_hier_blocks_last(&b, me);
    int below = last < top ? last : top - 1; /* the lower levels this rank is at */
    size_t total = b.at[p], base;
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, me));
    trl_ref own_src = a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);
    bool direct = trl_hier_blocks_in_rank_order(&b) && trl__back_to_back(a, 0, p, &base);
    trl_hier_image im = {direct ? trl_ref_at(TRL_BUF_RECV, base)
                                : trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total)),
                         0};

    trl_ref carried = own_src;                         /* where the blocks this rank carries lie */
    for (int i = 0; i <= below && rc == TRL_OK; i++) { /* up */
        trl_ref place = trl_hier_image_at(&im, trl_hier_carried_at(&b, i, me));
        bool led;
        rc = trl_hier_blocks_level(a, s, &b, i, TRL_COLL_GATHERV, "gather", &im, carried,
                                   trl_ref_same(carried, place), 0, &led);
        if (led)
            carried = trl_hier_image_at(&im, trl_hier_carried_at(&b, i + 1, me));
    }
    if (rc == TRL_OK && last == top) {
        trl_ref place = trl_hier_image_at(&im, trl_hier_carried_at(&b, top, me));
        size_t len = trl_hier_carried_len(&b, top, me);
        bool led;
        if (trl_hier_carried_blocks(&b, top, me) < p) {
            rc = trl_hier_blocks_level(a, s, &b, top, TRL_COLL_ALLGATHERV, "world", &im, carried,
                                       trl_ref_same(carried, place), 0, &led);
        } else { /* the only top leader: all blocks came up to it */
            if (!trl_ref_same(carried, place) && len > 0)
                trl_sched_copy(s, carried, place, len, TRL_NODEPS);
            trl_sched_fence(s);
        }
    }
    for (int i = below; i >= 0 && rc == TRL_OK; i--) { /* down */
        bool led;
        rc = trl_hier_blocks_level(a, s, &b, i, TRL_COLL_BCAST, trl_level_name(levels.kind[i]), &im,
                                   im.img, false, total, &led);
    }
    if (rc == TRL_OK && !direct)
        trl_hier_blocks_copy(&b, a, s, im.img, false, a->in_place ? me : -1, TRL_NODEPS);
    trl_hier_blocks_free(&b);
    return rc ? rc : s->status;
}
