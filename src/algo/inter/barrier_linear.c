/* Intercommunicator linear barrier: every rank signals the other group's
 * rank 0 (its leader); a leader that has heard from every rank of the
 * other group releases each rank of its own. A rank thus leaves once every
 * rank of the other group has entered, as MPI defines the barrier.
 *
 * Cost at a leader: n_r alpha in, (n_l - 1) alpha out; two messages deep.
 * From: the linear fan-in and fan-out of LAM-MPI's barrier (seed 000)
 * across the two groups.
 * Any group sizes. Messages carry no data.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_barrier_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    trl_sched_send(s, v.remote[0], none, 0, TRL_NODEPS);
    if (v.me != 0) {
        trl_sched_recv(s, v.local[0], none, 0, TRL_NODEPS);
        return s->status;
    }
    for (int i = 0; i < v.nr; i++)
        trl_sched_recv(s, v.remote[i], none, 0, TRL_NODEPS);
    trl_sched_fence(s);
    for (int i = 1; i < v.nl; i++)
        trl_sched_send(s, v.local[i], none, 0, TRL_NODEPS);
    return s->status;
}
