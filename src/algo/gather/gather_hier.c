/* Hierarchical gather (and gatherv), `hier` (src/algo/hier.h): a gather
 * within each group of the lowest level to its leader, then among the
 * leaders within each group of the next level, and so on up to world,
 * where the top leaders' gather ends at the root. Each level runs the
 * gatherv its parameter names (host=linear world=binomial ...). The root
 * leads every group it is in: its host's ranks send straight to it, and
 * every other host's leader sends it one message holding its host's
 * blocks.
 *
 * Cost: with h hosts of q ranks and linear levels, (q-1)a + (q-1)nb into
 * each host's leader, then (h-1)a + (p-q)nb into the root: h-1 messages
 * cross hosts instead of p-q (n one block; N all blocks for gatherv).
 * From: seed 000's hierarchical scheme (a gather per host, the hosts' parts
 * to the root), Open MPI han's gather (intra-node gather, inter-node gather
 * of the nodes' parts), seed 004's per-level primitives.
 *
 * Blocks travel in the image order of src/algo/hier_blocks.h, where what a
 * rank carries into a level is one range, so each level is a gatherv of
 * ranges and every message one range. A leader keeps only the range it
 * carries on (scratch); the root keeps all blocks: in RECV itself when
 * they lie back to back there in image order (block placement, gather),
 * else in scratch, copied out to RECV at the end, one copy per run of
 * blocks adjacent in both. Any placement and any group sizes work: a rank
 * alone in its group skips that level, a host of one rank sends its block
 * straight from SEND.
 *
 * gatherv: a leader must know its members' counts to receive their blocks,
 * and every rank the counts of its level's ranges: the table marks it
 * TRL_NEEDS_ALL_COUNTS (the runtime exchanges the counts first). displs are
 * read at the root only. Empty ranges send nothing.
 */
#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/hier_blocks.h"
#include "core/status.h"

int trl_gather_hier(const trl_coll_args *a, trl_sched *s)
{
    trl_levels levels;
    trl_hier_blocks b;
    int rc = trl_hier_blocks_for_rule(&b, a, a->root, &levels);
    if (rc)
        return rc;
    int me = a->rank, top = levels.n - 1, last = trl_hier_blocks_last(&b, me);
    bool root = me == a->root, direct;
    /* displs are the root's alone. */
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, root ? trl__blk_displ(a, me) : 0);
    trl_ref own_src = root && a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);
    trl_hier_image im;
    bool has_image = trl_hier_rooted_image(&b, a, s, TRL_BUF_RECV, &im, &direct);

    trl_ref carried = own_src; /* where the blocks this rank carries lie */
    for (int i = 0; i <= last && rc == TRL_OK; i++) {
        trl_ref place = trl_hier_image_at(&im, trl_hier_carried_at(&b, i, me));
        bool in_place = has_image && trl_ref_same(carried, place), led;
        rc = trl_hier_blocks_level(a, s, &b, i, TRL_COLL_GATHERV, trl_level_name(levels.kind[i]),
                                   &im, carried, in_place, 0, &led);
        if (led)
            carried = trl_hier_image_at(&im, i < top ? trl_hier_carried_at(&b, i + 1, me) : 0);
    }
    if (rc == TRL_OK && root) {
        size_t own = trl__blk_count(a, me);
        if (trl_ref_same(carried, own_src)) { /* alone: nothing was gathered */
            if (!a->in_place && own > 0)
                trl_sched_copy(s, own_src, own_at, own, TRL_NODEPS);
        } else if (!direct) {
            trl_hier_blocks_copy(&b, a, s, im.img, false, a->in_place ? me : -1, TRL_NODEPS);
        }
    }
    trl_hier_blocks_free(&b);
    return rc ? rc : s->status;
}
