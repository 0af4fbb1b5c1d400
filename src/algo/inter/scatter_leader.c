/* Intercommunicator scatter (and scatterv) through the remote leader: the
 * root sends all blocks in one message to the other group's rank 0 (from
 * its send buffer where they lie back to back in rank order, else from a
 * packed copy), which scatters them within its group with the
 * intracommunicator algorithm the `scatter` parameter names (binomial by
 * default).
 *
 * Cost: alpha + N beta, then the group's scatter; with binomial
 * (1 + ceil(log2 n_r)) alpha + ~2N beta. One message crosses between the
 * groups.
 * From: seed 003's rooted scheme (one transfer from the root to the leaf
 * group's leader, then a local collective); seed 003 itself scatters
 * linearly.
 * Any group sizes. scatterv: the group needs every rank's count
 * (TRL_NEEDS_ALL_COUNTS: the runtime exchanges them, counts[] by group
 * rank); scatter's are all count.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/inter/inter.h"

/* The root: all blocks in one message. */
static int root_side(const trl_coll_args *a, trl_sched *s, const trl_inter_view *v)
{
    trl_coll_args blk = trl__inter_blocks(a, v->nr);
    size_t *pre = trl__blk_prefix(&blk, 0, v->nr), start;
    if (!pre)
        return TRL_ERR_NOMEM;
    size_t total = pre[v->nr];
    if (total > 0 && trl__back_to_back(&blk, 0, v->nr, &start)) {
        trl_sched_send(s, v->remote[0], trl_ref_at(TRL_BUF_SEND, start), total, TRL_NODEPS);
    } else if (total > 0) {
        size_t img = trl_sched_scratch(s, total);
        for (int i = 0; i < v->nr; i++)
            if (trl__blk_count(&blk, i) > 0)
                trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, trl__blk_displ(&blk, i)),
                               trl_ref_at(TRL_BUF_SCRATCH, img + pre[i]), trl__blk_count(&blk, i),
                               TRL_NODEPS);
        trl_sched_fence(s);
        trl_sched_send(s, v->remote[0], trl_ref_at(TRL_BUF_SCRATCH, img), total, TRL_NODEPS);
    }
    free(pre);
    return s->status;
}

int trl_inter_scatter_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_inter_role role = trl_inter_role_of(a);
    if (role != TRL_INTER_REMOTE)
        return role == TRL_INTER_ROOT ? root_side(a, s, &v) : s->status;
    size_t total, *packed;
    int rc = trl__inter_local_blocks(a, &total, &packed);
    if (rc || total == 0)
        return rc ? rc : s->status;
    if (v.nl == 1) { /* a group of one receives its own */
        trl_sched_recv(s, a->root, trl_ref_at(TRL_BUF_RECV, 0), total, TRL_NODEPS);
    } else {
        trl_ref all = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total));
        if (v.me == 0)
            trl_sched_recv(s, a->root, all, total, TRL_NODEPS);
        trl_inter_part part = {TRL_COLL_SCATTER,
                               "scatter",
                               0,
                               a->count,
                               a->counts,
                               packed,
                               all,
                               trl_ref_at(TRL_BUF_RECV, 0),
                               NULL,
                               0};
        rc = trl_inter_run_part(a, s, &part);
    }
    free(packed);
    return rc ? rc : s->status;
}
