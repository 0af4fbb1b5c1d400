/* Intercommunicator bcast host by host: the root sends the message to the
 * leader of each of the other group's hosts (its lowest rank there), which
 * broadcasts it among its host's members of the group with the
 * intracommunicator algorithm the `bcast` parameter names.
 *
 * Cost: h_r (alpha + n beta) at the root, h_r the other group's hosts,
 * then a host's bcast; with binomial, (h_r + ceil(log2 q))(alpha + n beta),
 * q the most ranks on a host. One message crosses to each remote host and
 * none crosses twice, where inter_leader's group bcast crosses again from
 * the remote leader to the group's other hosts.
 * From: seed 003's root-to-remote-leader bcast, with a leader per host as
 * the hierarchical bcasts of seed 004 have.
 * Any group sizes and layouts; no layout: one host, as inter_leader.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_bcast_hosts(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_role role = trl_inter_role_of(a);
    if (a->count == 0 || role == TRL_INTER_NONE)
        return s->status;
    trl_inter_host_view hv;
    int rc = trl__inter_host_view_of(a, &hv);
    if (rc)
        return rc;
    trl_ref buf = trl_ref_at(TRL_BUF_RECV, 0);
    if (role == TRL_INTER_ROOT) {
        for (int k = 0; k < hv.n_leaders; k++)
            trl_sched_send(s, hv.leaders[k], trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    } else {
        if (hv.members[0] == a->rank)
            trl_sched_recv(s, a->root, buf, a->count, TRL_NODEPS);
        trl_inter_part bcast = {TRL_COLL_BCAST, "bcast", 0,   a->count,   NULL,
                                NULL,           buf,     buf, hv.members, hv.n_members};
        if (hv.n_members > 1)
            rc = trl_inter_run_part(a, s, &bcast);
    }
    trl__inter_host_view_free(&hv);
    return rc ? rc : s->status;
}
