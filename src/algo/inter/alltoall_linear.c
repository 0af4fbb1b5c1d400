/* Intercommunicator linear alltoall (and alltoallv, alltoallw): every rank
 * posts its receive from and its send to each rank of the other group at
 * once. Rank i starts with remote rank i (mod the other group's size), so
 * the first messages do not all go to one rank.
 *
 * Cost: n_r alpha + N beta per rank (N its bytes); one message deep.
 * From: seed 003's alltoall (immediate receives and sends between each
 * pair of processes of opposing groups); Open MPI's basic linear alltoall.
 * Any group sizes. Counts and displacements are this rank's own, per
 * remote rank; empty messages are left out (both ends see the count).
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_alltoall_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    const size_t *sc = a->send_counts, *sd = a->send_displs;
    const size_t *rc = a->recv_counts, *rd = a->recv_displs;
    for (int k = 0; k < v.nr; k++) {
        int j = (v.me + k) % v.nr;
        if (rc[j] > 0)
            trl_sched_recv(s, v.remote[j], trl_ref_at(TRL_BUF_RECV, rd[j]), rc[j], TRL_NODEPS);
        if (sc[j] > 0)
            trl_sched_send(s, v.remote[j], trl_ref_at(TRL_BUF_SEND, sd[j]), sc[j], TRL_NODEPS);
    }
    return s->status;
}
