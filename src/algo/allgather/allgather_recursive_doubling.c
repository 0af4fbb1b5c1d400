/* Recursive-doubling allgather (and allgatherv): in the round of distance
 * w = 1, 2, 4, ... every rank exchanges all the blocks it holds with the
 * rank whose (new) rank differs in bit w, so the blocks held double each
 * round and after log2(p) rounds every rank holds all of them.
 *
 * Cost: log2(p) alpha + (p-1) n beta for a power of two (n one block; N
 * all blocks for allgatherv: log2(p) alpha + N beta); two more rounds when
 * p is not (alpha + n beta to fold in, alpha + N beta to hand back).
 * From: Thakur, Rabenseifner and Gropp, "Optimization of collective
 * communication operations in MPICH" (2005), MPICH's allgather for short
 * and medium messages.
 *
 * Non-power-of-two ranks: folded as in src/pattern/rdouble.h (not MPICH's
 * scheme, which sends the missing blocks around inside the rounds). Each
 * even rank among the first 2(p - pof2) sends its block to the odd rank
 * above it, which stands for both; the pof2 ranks left run the exchange;
 * at the end each odd rank sends everything back to its even partner in
 * one message. Each new rank stands for a contiguous range of old ranks,
 * so the blocks exchanged in a round, an aligned window of new ranks, are
 * a contiguous range of old ranks too: one message per round.
 *
 * Buffers: the rank lays the blocks out back to back in rank order (block
 * i at the sum of the counts before it) and every message is one range of
 * that image. When its RECV already holds the blocks that way (always for
 * allgather; for allgatherv when the displacements say so) the image is
 * RECV itself: every message is received straight into place and sent
 * from there, with no copy but the own block's. Otherwise the image is
 * scratch and each received block is copied to its place in RECV as soon
 * as it is in. Which of the two a rank uses is its own affair: the
 * messages depend only on the counts, which every rank shares, never on
 * the displacements, which each rank chooses for its own buffer.
 *
 * All receives of a rank are posted at once (they fill disjoint parts of
 * the image); a send waits for the receives that filled what it sends.
 * Messages of zero elements (all blocks of a range empty) are left out by
 * both ends, which compute the same sizes.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "core/status.h"
#include "pattern/rdouble.h"

/* The rank's image of all blocks in rank order, and the steps that have
 * filled it so far (what a send of it waits for). */
typedef struct {
    const trl_coll_args *a;
    trl_sched *s;
    const size_t *pre; /* pre[i]: where block i starts in the image */
    trl_ref img;       /* RECV (direct) or scratch */
    bool direct;
    int *have;
    int nhave;
} image;

static trl_ref img_at(const image *m, size_t at)
{
    return trl_ref_at(m->img.buf, m->img.off + at);
}

/* Receive blocks [lo, hi) from peer into the image; out of scratch, each
 * goes on to its place in RECV as soon as it is in. */
static void recv_range(image *m, int peer, int lo, int hi)
{
    size_t n = m->pre[hi] - m->pre[lo];
    if (n == 0)
        return;
    int got = trl_sched_recv(m->s, peer, img_at(m, m->pre[lo]), n, TRL_NODEPS);
    m->have[m->nhave++] = got;
    if (!m->direct)
        trl__blk_unpack(m->a, m->s, img_at(m, 0), m->pre, lo, hi, -1, TRL_DEPS(got));
}

int trl_allgather_recursive_doubling(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t *pre = trl__blk_prefix(a, 0, p);
    int *have = malloc(((size_t)trl_rd_ceil_log2(p) + 3) * sizeof *have);
    if (!pre || !have) {
        free(pre);
        free(have);
        return TRL_ERR_NOMEM;
    }
    size_t total = pre[p], own = trl__blk_count(a, rank);
    trl_ref own_at = trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, rank));
    trl_ref own_src = a->in_place ? own_at : trl_ref_at(TRL_BUF_SEND, 0);

    image m = {a, s, pre, {0}, false, have, 0};
    m.img = trl__blk_image(a, s, total, &m.direct);

    int partner = trl_rd_fold_partner(rank, p);
    if (trl_rd_fold_sits_out(rank, p)) {
        /* Hand the block over; everything comes back in one message, own
         * block included, so it is not copied into RECV. */
        int sent = own > 0 ? trl_sched_send(s, partner, own_src, own, TRL_NODEPS) : -1;
        /* In place the message overwrites the block being sent (with the
         * same bytes): not before that send is done. */
        int got = total > 0 ? trl_sched_recv(s, partner, img_at(&m, 0), total, TRL_DEPS(sent)) : -1;
        if (!m.direct)
            trl__blk_unpack(a, s, img_at(&m, 0), pre, 0, p, a->in_place ? rank : -1, TRL_DEPS(got));
        goto out;
    }

    if (!a->in_place && own > 0)
        have[m.nhave++] = trl_sched_copy(s, own_src, own_at, own, TRL_NODEPS);
    if (!m.direct && own > 0)
        have[m.nhave++] = trl_sched_copy(s, own_src, img_at(&m, pre[rank]), own, TRL_NODEPS);

    if (partner >= 0)
        recv_range(&m, partner, partner, partner + 1);

    int pof2 = trl_rd_pof2(p), newrank = trl_rd_fold_newrank(rank, p);
    for (int w = 1; w < pof2; w <<= 1) {
        int mine = trl_rd_window(newrank, w), theirs = trl_rd_window(newrank ^ w, w);
        int peer = trl_rd_fold_rank(newrank ^ w, p);
        int lo = trl__fold_first_old(mine, p), hi = trl__fold_first_old(mine + w, p);
        if (pre[hi] > pre[lo]) {
            if (hi - lo == 1) /* just the own block: no need to wait for its copy */
                trl_sched_send(s, peer, own_src, own, TRL_NODEPS);
            else
                trl_sched_send(s, peer, img_at(&m, pre[lo]), pre[hi] - pre[lo], have, m.nhave);
        }
        recv_range(&m, peer, trl__fold_first_old(theirs, p), trl__fold_first_old(theirs + w, p));
    }

    if (partner >= 0 && total > 0)
        trl_sched_send(s, partner, img_at(&m, 0), total, have, m.nhave);
out:
    free(pre);
    free(have);
    return s->status;
}
