/* Intercommunicator barrier host by host: each host's members of a group
 * gather a one-byte token at the host's leader (the `arrive` parameter's
 * intracommunicator gather), every leader signals every leader of the
 * other group's hosts and waits for all of theirs, then releases its host
 * with a one-byte bcast (the `release` parameter's). A leader signals once
 * its host has entered, so once it has every remote leader's signal, every
 * rank of the other group has entered.
 *
 * Cost: a host's gather + h_r alpha + a host's bcast, h_r the other
 * group's hosts. The only messages between hosts are the leaders' h_l x
 * h_r signals, all in one step, where inter_leader crosses three times in
 * a row on several hosts (its group barrier, the leaders' exchange, the
 * release).
 * From: seed 003's leader scheme, with a leader per host as the
 * hierarchical barriers of seed 004 have; every leader signalling every
 * remote leader replaces the exchange between two.
 * Any group sizes and layouts.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_barrier_hosts(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_host_view hv;
    int rc = trl__inter_host_view_of(a, &hv);
    if (rc)
        return rc;
    int nm = hv.n_members;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    size_t token = trl_sched_scratch(s, 1), tokens = trl_sched_scratch(s, (size_t)nm);
    trl_ref at = trl_ref_at(TRL_BUF_SCRATCH, token);
    if (nm > 1) {
        trl_inter_part arrive = {
            TRL_COLL_GATHER, "arrive", 0, 1, NULL, NULL, at, trl_ref_at(TRL_BUF_SCRATCH, tokens),
            hv.members,      nm};
        rc = trl_inter_run_part(a, s, &arrive);
    }
    if (rc == TRL_OK && hv.members[0] == a->rank) {
        for (int k = 0; k < hv.n_leaders; k++)
            trl_sched_send(s, hv.leaders[k], none, 0, TRL_NODEPS);
        for (int k = 0; k < hv.n_leaders; k++)
            trl_sched_recv(s, hv.leaders[k], none, 0, TRL_NODEPS);
    }
    if (rc == TRL_OK && nm > 1) {
        trl_inter_part release = {TRL_COLL_BCAST, "release", 0,  1,          NULL,
                                  NULL,           at,        at, hv.members, nm};
        rc = trl_inter_run_part(a, s, &release);
    }
    trl__inter_host_view_free(&hv);
    return rc ? rc : s->status;
}
