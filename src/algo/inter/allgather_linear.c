/* Intercommunicator linear allgather (and allgatherv): every rank sends its
 * block to every rank of the other group and receives each of theirs at
 * its place (counts[i] at displs[i]), all at once. Rank i starts with
 * remote rank i (mod the other group's size), so the first messages do not
 * all go to one rank.
 *
 * Cost: n_r alpha + (n_r n_own + N_r) beta per rank; one message deep.
 * From: the direct exchange of Open MPI's basic linear allgather, between
 * the two groups.
 * Any group sizes. Empty blocks are not sent: both ends see the count.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allgather_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    for (int k = 0; k < v.nr; k++) {
        int j = (v.me + k) % v.nr;
        if (a->counts[j] > 0)
            trl_sched_recv(s, v.remote[j], trl_ref_at(TRL_BUF_RECV, a->displs[j]), a->counts[j],
                           TRL_NODEPS);
        if (a->count > 0)
            trl_sched_send(s, v.remote[j], trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    }
    return s->status;
}
