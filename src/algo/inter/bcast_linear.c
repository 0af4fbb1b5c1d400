/* Intercommunicator linear bcast: the root sends the whole message to every
 * rank of the other group, all sends at once; each of them posts one
 * receive. The root's group's other ranks take no part.
 *
 * Cost: n_r (alpha + n beta) at the root, n_r the other group's ranks; one
 * message deep.
 * From: the flat tree of LAM-MPI (seed 000) stretched across the two
 * groups; seed 003 sends to the remote leader instead (bcast leader).
 * Any group sizes: nothing depends on a power of two.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_bcast_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_inter_role role = trl_inter_role_of(a);
    if (a->count == 0)
        return s->status;
    if (role == TRL_INTER_ROOT)
        for (int i = 0; i < v.nr; i++)
            trl_sched_send(s, v.remote[i], trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    else if (role == TRL_INTER_REMOTE)
        trl_sched_recv(s, a->root, trl_ref_at(TRL_BUF_RECV, 0), a->count, TRL_NODEPS);
    return s->status;
}
