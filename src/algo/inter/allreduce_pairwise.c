/* Intercommunicator allreduce in pairs: an allreduce within each group
 * (the `allreduce` parameter's intracommunicator algorithm) leaves the
 * group's reduction on every rank, and every rank sends it to its
 * partners in the other group and receives the other group's from its own
 * partner (trl__inter_pairs: rank i pairs with the other group's rank
 * i mod n). Each group thus gets the reduction of the other group's data.
 *
 * Cost: allreduce + alpha + n beta (+ more sends at the smaller group's
 * ranks, ceil(n_big / n_small) each). Against inter_leader, one step
 * across after the group's allreduce instead of a reduce, the leaders'
 * exchange and a bcast: on several hosts, one crossing between hosts
 * fewer on the way; every rank sends across, so n_big messages of n
 * bytes cross instead of two.
 * From: seed 003 (the intercommunicator as two groups with a last
 * exchange between them), with the group's part as an allreduce.
 * Any group sizes; non-commutative operations keep rank order where the
 * group's allreduce does (group ranks are the intercommunicator's).
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allreduce_pairwise(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t n = a->count;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0)
        return s->status;
    trl_ref mine = own; /* this group's reduction, on every rank */
    if (v.nl > 1) {
        mine = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        trl_inter_part allreduce = {
            TRL_COLL_ALLREDUCE, "allreduce", 0, n, NULL, NULL, own, mine, NULL, 0};
        int rc = trl_inter_run_part(a, s, &allreduce);
        if (rc)
            return rc;
    }
    trl__inter_pairs(a, s, mine, result, n);
    return s->status;
}
