/* Intercommunicator bcast through the remote leader: the root sends the
 * message to rank 0 of the other group, which broadcasts it within its
 * group with the intracommunicator algorithm the `bcast` parameter names
 * (binomial by default; any nestable bcast, hier included).
 *
 * Cost: alpha + n beta, then the group's bcast: with binomial,
 * (1 + ceil(log2 n_r))(alpha + n beta). One message crosses between the
 * groups, which pays where they sit on different hosts.
 * From: seed 003 (Silva and Silva, "Implementing MPI-2 Extended Collective
 * Operations"): root to the remote group's leader, then a local broadcast.
 * Any group sizes: the group's bcast handles its own size.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_bcast_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_ref buf = trl_ref_at(TRL_BUF_RECV, 0);
    trl_inter_role role = trl_inter_role_of(a);
    if (a->count == 0 || role == TRL_INTER_NONE)
        return s->status;
    if (role == TRL_INTER_ROOT) {
        trl_sched_send(s, v.remote[0], trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
        return s->status;
    }
    if (v.me == 0)
        trl_sched_recv(s, a->root, buf, a->count, TRL_NODEPS);
    if (v.nl == 1)
        return s->status;
    trl_inter_part part = {TRL_COLL_BCAST, "bcast", 0, a->count, NULL, NULL, buf, buf, NULL, 0};
    return trl_inter_run_part(a, s, &part);
}
