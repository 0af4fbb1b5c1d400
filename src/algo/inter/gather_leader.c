/* Intercommunicator gather (and gatherv) through the remote leader: the
 * other group gathers its blocks to its rank 0 with the intracommunicator
 * algorithm the `gather` parameter names (binomial by default), back to
 * back in rank order, and that rank sends them to the root in one message,
 * which lands in the root's receive buffer (or, where its blocks are not
 * back to back in rank order, in scratch and is copied to their places).
 *
 * Cost: the group's gather, then alpha + N beta; with binomial
 * (1 + ceil(log2 n_r)) alpha + ~2N beta. One message crosses between the
 * groups.
 * From: seed 003's rooted scheme (a local collective in the leaf group and
 * one transfer between its leader and the root); seed 003 itself gathers
 * linearly.
 * Any group sizes. gatherv: the group needs every rank's count
 * (TRL_NEEDS_ALL_COUNTS: the runtime exchanges them, counts[] by group
 * rank); gather's are all count.
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/inter/inter.h"

/* The root: all blocks in one message. */
static int root_side(const trl_coll_args *a, trl_sched *s, const trl_inter_view *v)
{
    trl_coll_args blk = trl__inter_blocks(a, v->nr);
    size_t *pre = trl__blk_prefix(&blk, 0, v->nr);
    if (!pre)
        return TRL_ERR_NOMEM;
    size_t total = pre[v->nr];
    if (total > 0) {
        bool direct;
        trl_ref img = trl__blk_image(&blk, s, total, &direct);
        int got = trl_sched_recv(s, v->remote[0], img, total, TRL_NODEPS);
        if (!direct)
            trl__blk_unpack(&blk, s, img, pre, 0, v->nr, -1, TRL_DEPS(got));
    }
    free(pre);
    return s->status;
}

int trl_inter_gather_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_inter_role role = trl_inter_role_of(a);
    if (role != TRL_INTER_REMOTE)
        return role == TRL_INTER_ROOT ? root_side(a, s, &v) : s->status;
    size_t total, *packed;
    int rc = trl__inter_local_blocks(a, &total, &packed);
    if (rc || total == 0)
        return rc ? rc : s->status;
    trl_ref all = trl_ref_at(TRL_BUF_SEND, 0); /* a group of one sends its own */
    if (v.nl > 1) {
        all = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total));
        trl_inter_part part = {TRL_COLL_GATHER,
                               "gather",
                               0,
                               a->count,
                               a->counts,
                               packed,
                               trl_ref_at(TRL_BUF_SEND, 0),
                               all,
                               NULL,
                               0};
        rc = trl_inter_run_part(a, s, &part);
    }
    free(packed);
    if (rc == 0 && v.me == 0)
        trl_sched_send(s, a->root, all, total, TRL_NODEPS);
    return rc ? rc : s->status;
}
