/* Intercommunicator allreduce host by host: each host's members of a group
 * reduce their vectors to the host's leader (the `reduce` parameter's
 * intracommunicator algorithm), every leader sends its host's result to
 * every leader of the other group's hosts and folds theirs in host order,
 * then broadcasts that within its host (the `bcast` parameter's). Each
 * group thus gets the reduction of the other group's data.
 *
 * Cost: a host's reduce + h_r(alpha + n beta) + (h_r - 1) n gamma + a
 * host's bcast, h_r the other group's hosts. The only messages between
 * hosts are the leaders' h_l x h_r, all in one step, where inter_leader
 * crosses three times in a row on several hosts (its group reduce, the
 * leaders' exchange, its group bcast).
 * From: seed 003's reduce / exchange / bcast, with a leader per host as
 * the hierarchical allreduces of seed 004 have; every leader exchanging
 * with every remote leader replaces the exchange between two.
 * Any group sizes and layouts; a non-commutative operation needs each host
 * to hold consecutive ranks of its group (host by host is rank order).
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allreduce_hosts(const trl_coll_args *a, trl_sched *s)
{
    size_t n = a->count;
    if (n == 0)
        return s->status;
    trl_inter_host_view hv;
    int rc = trl__inter_host_view_of(a, &hv);
    if (rc)
        return rc;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    trl_ref partial = own; /* this host's reduction at its leader */
    if (hv.n_members > 1) {
        partial = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        trl_inter_part reduce = {TRL_COLL_REDUCE, "reduce",   0,           n, NULL, NULL, own,
                                 partial,         hv.members, hv.n_members};
        rc = trl_inter_run_part(a, s, &reduce);
    }
    if (rc == TRL_OK && hv.members[0] == a->rank) {
        for (int k = 0; k < hv.n_leaders; k++)
            trl_sched_send(s, hv.leaders[k], partial, n, TRL_NODEPS);
        trl__inter_fold_from(a, s, result, n, hv.leaders, hv.n_leaders);
    }
    if (rc == TRL_OK && hv.n_members > 1) {
        trl_inter_part bcast = {TRL_COLL_BCAST, "bcast", 0,      n,          NULL,
                                NULL,           result,  result, hv.members, hv.n_members};
        rc = trl_inter_run_part(a, s, &bcast);
    }
    trl__inter_host_view_free(&hv);
    return rc ? rc : s->status;
}
