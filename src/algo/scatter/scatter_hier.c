/* Hierarchical scatter (and scatterv), `hier` (src/algo/hier.h): the
 * reverse of the hierarchical gather. From the root among the top leaders
 * at world, each getting the blocks of every rank below it in one message,
 * then within each group of the level below from its leader, down to the
 * lowest level. Each level runs the scatterv its parameter names
 * (host=linear world=binomial ...). The root leads every group it is in:
 * its host's ranks get their blocks straight from it, every other host's
 * leader gets one message with its host's blocks and passes them on.
 *
 * Cost: with h hosts of q ranks and linear levels, (h-1)a + (p-q)nb out of
 * the root, then (q-1)a + (q-1)nb out of each host's leader: h-1 messages
 * cross hosts instead of p-q (n one block; N all blocks for scatterv).
 * From: the reverse of seed 000's hierarchical scheme, Open MPI han's
 * scatter (inter-node scatter of the nodes' parts, intra-node scatter),
 * seed 004's per-level primitives.
 *
 * Blocks travel in the image order of src/algo/hier_blocks.h, where what a
 * rank carries down from a level is one range, so each level is a scatterv
 * of ranges and every message one range. The root sends out of SEND itself
 * when its blocks lie back to back there in image order (block placement,
 * scatter), else it first copies them into scratch in image order (one
 * copy per run of blocks adjacent in both). A leader receives the range it
 * carries into scratch and passes it on; a rank that carries only its own
 * block receives it straight into RECV. Any placement and any group sizes
 * work: a rank alone in its group skips that level.
 *
 * scatterv: a leader must know its members' counts, and every rank the
 * counts of its level's ranges: the table marks it TRL_NEEDS_ALL_COUNTS
 * (the runtime broadcasts the root's counts first). displs are read at the
 * root only. With MPI_IN_PLACE the root's block stays in SEND and its RECV
 * is not touched. Empty ranges are not sent.
 */
#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/hier_blocks.h"
#include "core/status.h"

int trl_scatter_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_levels levels;
    trl_hier_blocks b;
    int rc = trl_hier_blocks_for_rule(&b, a, a->root, &levels);
    if (rc)
        return rc;
    int me = a->rank, last = trl_hier_blocks_last(&b, me);
    bool root = me == a->root, direct;
    trl_ref own_dst = trl_ref_at(TRL_BUF_RECV, 0);
    trl_hier_image im;
    bool has_image = trl_hier_rooted_image(&b, a, s, TRL_BUF_SEND, &im, &direct);
    if (root && !direct) { /* the blocks into scratch, in image order */
        trl_hier_blocks_copy(&b, a, s, im.img, true, a->in_place ? me : -1, TRL_NODEPS);
        trl_sched_fence(s);
    }

    bool led = false;
    for (int i = last; i >= 0 && rc == TRL_OK; i--) {
        /* Where this rank's range goes: its place in the image, or RECV
         * for its own block. A leader's own range stays where it is but at
         * the lowest level, unless the root works in place. */
        trl_ref mine = has_image && i > 0 ? trl_hier_image_at(&im, trl_hier_carried_at(&b, i, me))
                                          : own_dst;
        bool keep = i > 0 || (root && a->in_place);
        rc = trl_hier_blocks_level(a, s, &b, i, TRL_COLL_SCATTERV, trl_level_name(levels.kind[i]),
                                   &im, mine, keep, 0, &led);
    }
    /* A rank that carried more than its own block but led no group at the
     * lowest level (alone there) still has its block in the image. */
    size_t own = trl__blk_count(a, me);
    if (rc == TRL_OK && has_image && !led && !(root && a->in_place) && own > 0)
        trl_sched_copy(s, trl_hier_image_at(&im, trl_hier_carried_at(&b, 0, me)), own_dst, own,
                       TRL_NODEPS);
    trl_hier_blocks_free(&b);
    return rc ? rc : s->status;
}
