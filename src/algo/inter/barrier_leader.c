/* Intercommunicator barrier through the leaders: a barrier within each
 * group (the `barrier` parameter's intracommunicator algorithm), then the
 * two rank 0s exchange a signal, then each releases its group with a
 * one-byte bcast (the `release` parameter's). A leader's signal goes out
 * after its group's barrier, so once it has the other's, every rank of the
 * other group has entered.
 *
 * Cost: barrier + alpha + bcast; with dissemination and binomial,
 * 2 ceil(log2 n) alpha + alpha, n the larger group. One message each way
 * between the groups.
 * From: seed 003 builds its barrier on the merged hypercube; this is the
 * leader scheme of its other collectives (local part, leaders, local part).
 * Any group sizes.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_barrier_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    size_t token = trl_sched_scratch(s, 1);
    if (v.nl > 1) {
        trl_inter_part barrier = {
            TRL_COLL_BARRIER, "barrier", 0, 0, NULL, NULL, none, none, NULL, 0};
        int rc = trl_inter_run_part(a, s, &barrier);
        if (rc)
            return rc;
    }
    if (v.me == 0) {
        trl_sched_send(s, v.remote[0], none, 0, TRL_NODEPS);
        trl_sched_recv(s, v.remote[0], none, 0, TRL_NODEPS);
    }
    if (v.nl == 1)
        return s->status;
    trl_ref at = trl_ref_at(TRL_BUF_SCRATCH, token);
    trl_inter_part release = {TRL_COLL_BCAST, "release", 0, 1, NULL, NULL, at, at, NULL, 0};
    return trl_inter_run_part(a, s, &release);
}
