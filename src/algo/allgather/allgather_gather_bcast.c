/* Gather-broadcast allgather (and allgatherv): a binomial gather of every
 * block to rank 0, then a binomial broadcast of all of them from rank 0.
 *
 * Cost: 2 log2(p) alpha + (p-1) n beta + log2(p) p n beta (n one block):
 * the gather's rounds and data, then all p blocks sent down log2(p) levels
 * (N, all blocks, in place of p n for allgatherv). Simple and seldom the
 * fastest; a baseline.
 * From: LAM-MPI's allgather (a gather, then a bcast of the result).
 * Any number of ranks: the binomial tree over ranks (src/pattern/tree.h,
 * root 0) needs no power of two, and the subtree of rank v is the range of
 * ranks v, v+1, ..., so what a rank sends its parent in the gather is one
 * contiguous range of blocks.
 *
 * Buffers: the rank lays the blocks out back to back in rank order (block
 * i at the sum of the counts before it) and every message is one range of
 * that image. When its RECV already holds the blocks that way (always for
 * allgather; for allgatherv when the displacements say so) the image is
 * RECV itself and everything is received straight into place. Otherwise
 * the image is scratch and the blocks are copied to their places in RECV
 * once all are in. Which of the two a rank uses is its own affair: the
 * messages depend only on the counts, never on the displacements.
 *
 * The broadcast sends the whole image, own blocks included (one message
 * per child); children largest subtree first, as in bcast_tree.c. A rank
 * receives it only after its gather send is done, since it overwrites
 * what that send reads. Messages of zero elements are left out by both
 * ends, which compute the same sizes.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "core/status.h"
#include "pattern/tree.h"

int trl_allgather_gather_bcast(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, p, 0);
    if (rc)
        return rc;
    int parent = trl_tree_parent(&t, rank), nkids = trl_tree_nchildren(&t, rank);
    size_t *pre = trl__blk_prefix(a, 0, p);
    int *kids = trl__tree_serving_order(&t, rank, nkids); /* largest subtree first */
    int *have = malloc(((size_t)nkids + 3) * sizeof *have);
    if (!pre || !kids || !have) {
        free(pre);
        free(kids);
        free(have);
        return TRL_ERR_NOMEM;
    }
    size_t total = pre[p], own = trl__blk_count(a, rank);
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, rank));
    trl_ref own_src = a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);

    bool direct;
    trl_ref img = trl__blk_image(a, s, total, &direct);
#define IMG(at) trl_ref_at(img.buf, img.off + (at))

    /* have[0..nhave): the steps that filled the image so far. */
    int nhave = 0;
    /* A leaf sends its block to the parent from SEND and, in the direct
     * case, gets it back with the broadcast: it needs no copy there. */
    bool leaf = nkids == 0 && parent >= 0;
    trl_sched_phase(s, "gather");
    if (!a->in_place && own > 0 && !(direct && leaf)) {
        int cp = trl_sched_copy(s, own_src, own_at, own, TRL_NODEPS);
        if (direct)
            have[nhave++] = cp;
    }
    if (!direct && own > 0 && !leaf)
        have[nhave++] = trl_sched_copy(s, own_src, IMG(pre[rank]), own, TRL_NODEPS);

    /* Gather: each child's subtree is the ranks c .. c+size-1. */
    for (int i = 0; i < nkids; i++) {
        int c = trl_tree_child(&t, rank, i), hi = c + trl_tree_subtree_size(&t, c);
        if (pre[hi] > pre[c])
            have[nhave++] = trl_sched_recv(s, c, IMG(pre[c]), pre[hi] - pre[c], TRL_NODEPS);
    }
    int sent = -1;
    if (parent >= 0) {
        int hi = rank + trl_tree_subtree_size(&t, rank);
        if (leaf && own > 0)
            sent = trl_sched_send(s, parent, own_src, own, TRL_NODEPS);
        else if (!leaf && pre[hi] > pre[rank])
            sent = trl_sched_send(s, parent, IMG(pre[rank]), pre[hi] - pre[rank], have, nhave);
    }

    /* Broadcast: the whole image replaces what the gather left in it. */
    trl_sched_phase(s, "bcast");
    if (parent >= 0 && total > 0) {
        have[nhave++] = sent;
        int got = trl_sched_recv(s, parent, IMG(0), total, have, nhave);
        have[0] = got;
        nhave = 1;
    }
    for (int i = 0; i < nkids && total > 0; i++)
        trl_sched_send(s, kids[i], IMG(0), total, have, nhave);

    /* Out of scratch: every block but the own one (already placed) to RECV. */
    if (!direct)
        trl__blk_unpack(a, s, IMG(0), pre, 0, p, rank, have, nhave);
#undef IMG
    free(pre);
    free(kids);
    free(have);
    return s->status;
}
