/* Intercommunicator allreduce through the leaders: each group reduces its
 * vectors to its rank 0 (the `reduce` parameter's intracommunicator
 * algorithm), the two leaders exchange their results, and each broadcasts
 * the other group's result within its own group (the `bcast` parameter's).
 * Each group thus gets the reduction of the other group's data.
 *
 * Cost: reduce + alpha + n beta + bcast; with binomial trees
 * 2 ceil(log2 n)(alpha + n beta) + log2(n) n gamma + alpha + n beta, n the
 * larger group. One message each way between the groups.
 * From: seed 003 (reduce in each group, then the leaders broadcast across);
 * the leaders exchange directly instead of in two rounds.
 * Any group sizes; non-commutative operations keep rank order in the
 * reduce (group ranks are the intercommunicator's).
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allreduce_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t n = a->count;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0)
        return s->status;
    trl_ref mine = own; /* this group's reduction at the leader */
    if (v.nl > 1) {
        mine = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        trl_inter_part reduce = {TRL_COLL_REDUCE, "reduce", 0, n, NULL, NULL, own, mine, NULL, 0};
        int rc = trl_inter_run_part(a, s, &reduce);
        if (rc)
            return rc;
    }
    if (v.me == 0) {
        trl_sched_send(s, v.remote[0], mine, n, TRL_NODEPS);
        trl_sched_recv(s, v.remote[0], result, n, TRL_NODEPS);
    }
    if (v.nl == 1)
        return s->status;
    trl_inter_part bcast = {TRL_COLL_BCAST, "bcast", 0, n, NULL, NULL, result, result, NULL, 0};
    return trl_inter_run_part(a, s, &bcast);
}
