/* Intercommunicator allgather (and allgatherv) through the leaders: every
 * rank sends its block to the other group's rank 0, which receives them
 * back to back in rank order and broadcasts them within its own group with
 * the intracommunicator algorithm the `bcast` parameter names (binomial by
 * default). The blocks land in the receive buffer where they lie back to
 * back there, else in scratch, copied to their places after.
 *
 * Cost: n_r alpha + N_r beta into each leader, then the group's bcast of
 * N_r (the other group's blocks): with binomial ceil(log2 n_l)(alpha +
 * N_r beta).
 * From: seed 003's allgather (every process sends to the other group's
 * leader, which broadcasts locally); it needs no counts beyond the ones
 * each rank has (a leader knows the other group's blocks, not its own
 * group's), so it serves allgatherv as it is.
 * Any group sizes. Empty blocks are not sent.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allgather_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_coll_args blk = trl__inter_blocks(a, v.nr);
    size_t *pre = trl__blk_prefix(&blk, 0, v.nr);
    if (!pre)
        return TRL_ERR_NOMEM;
    size_t total = pre[v.nr];
    if (a->count > 0)
        trl_sched_send(s, v.remote[0], trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    int rc = TRL_OK;
    if (total > 0) {
        bool direct;
        trl_ref img = trl__blk_image(&blk, s, total, &direct);
        for (int i = 0; v.me == 0 && i < v.nr; i++)
            if (a->counts[i] > 0)
                trl_sched_recv(s, v.remote[i], trl_ref_at(img.buf, img.off + pre[i]), a->counts[i],
                               TRL_NODEPS);
        if (v.nl > 1) {
            trl_inter_part part = {TRL_COLL_BCAST, "bcast", 0,   total, NULL,
                                   NULL,           img,     img, NULL,  0};
            rc = trl_inter_run_part(a, s, &part);
        } else {
            trl_sched_fence(s);
        }
        if (rc == TRL_OK && !direct)
            trl__blk_unpack(&blk, s, img, pre, 0, v.nr, -1, TRL_NODEPS);
    }
    free(pre);
    return rc ? rc : s->status;
}
