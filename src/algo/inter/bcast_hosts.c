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
#include <stdlib.h>

#include "algo/inter/inter.h"

int trl_inter_bcast_hosts(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_inter_role role = trl_inter_role_of(a);
    if (a->count == 0 || role == TRL_INTER_NONE)
        return s->status;
    bool root = role == TRL_INTER_ROOT;
    trl_inter_hosts h; /* the receiving group's */
    int rc = trl__inter_hosts_of(a, root ? v.remote : v.local, root ? v.nr : v.nl, &h);
    if (rc)
        return rc;
    if (root) {
        for (int k = 0; k < h.nhosts; k++)
            trl_sched_send(s, v.remote[h.leader[k]], trl_ref_at(TRL_BUF_SEND, 0), a->count,
                           TRL_NODEPS);
        trl__inter_hosts_free(&h);
        return s->status;
    }
    int *members, n;
    rc = trl__inter_host_members(a, &h, &members, &n);
    if (rc == TRL_OK) {
        trl_ref buf = trl_ref_at(TRL_BUF_RECV, 0);
        if (members[0] == a->rank)
            trl_sched_recv(s, a->root, buf, a->count, TRL_NODEPS);
        trl_inter_part bcast = {TRL_COLL_BCAST, "bcast", 0, a->count, NULL, NULL, buf, buf,
                                members, n};
        if (n > 1)
            rc = trl_inter_run_part(a, s, &bcast);
        free(members);
    }
    trl__inter_hosts_free(&h);
    return rc ? rc : s->status;
}
