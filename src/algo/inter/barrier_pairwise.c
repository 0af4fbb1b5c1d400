/* Intercommunicator barrier in pairs: a barrier within each group (the
 * `barrier` parameter's intracommunicator algorithm), then every rank
 * signals its partners in the other group (trl__inter_pairs): rank i of
 * one group pairs with rank i mod n of the other, n the other's size. A
 * rank's signal goes out after its group's barrier, so once it has its
 * partner's, every rank of the other group has entered.
 *
 * Cost: barrier + alpha (+ (ceil(n_big / n_small) - 1) alpha at the
 * smaller group's ranks); with dissemination, ceil(log2 n) alpha + alpha.
 * Against inter_leader, no release within the groups: one step across
 * instead of a leader's exchange and then a bcast, which on several hosts
 * crosses between hosts again. Every rank sends across, in parallel.
 * From: the pairwise exchange that ends an intracommunicator's
 * dissemination barrier, between the groups; seed 003's merged hypercube
 * does the same with its last dimension.
 * Any group sizes.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_barrier_pairwise(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    if (v.nl > 1) {
        trl_inter_part barrier = {
            TRL_COLL_BARRIER, "barrier", 0, 0, NULL, NULL, none, none, NULL, 0};
        int rc = trl_inter_run_part(a, s, &barrier);
        if (rc)
            return rc;
    }
    trl__inter_pairs(a, s, none, none, 0);
    return s->status;
}
