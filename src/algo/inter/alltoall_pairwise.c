/* Intercommunicator pairwise alltoall (and alltoallv, alltoallw): m =
 * max(n_0, n_1) rounds; in round k rank i of one group exchanges its two
 * blocks with rank j = (k - i) mod m of the other, where that rank exists.
 * Rank i of group 0 and rank j of group 1 meet in round (i + j) mod m on
 * both sides, every pair exactly once, and a rank has at most one partner
 * per round.
 *
 * Cost: m rounds of alpha + (block out + block in) beta; one message pair
 * in flight per rank, which spares the network the all-at-once burst of
 * the linear exchange for large blocks.
 * From: the pairwise exchange of Open MPI's and MPICH's alltoall, with the
 * round of a pair fixed by both its ranks so the groups may differ in size.
 * No deadlock: each round waits for the same rank's last round with a
 * message, and both ranks of a pair agree on its round, so every rank
 * finishes round k once every rank has finished the rounds before it.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_alltoall_pairwise(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    const size_t *sc = a->send_counts, *sd = a->send_displs;
    const size_t *rc = a->recv_counts, *rd = a->recv_displs;
    int m = v.nl > v.nr ? v.nl : v.nr, prev_recv = -1, prev_send = -1;
    for (int k = 0; k < m; k++) {
        int j = ((k - v.me) % m + m) % m;
        if (j >= v.nr)
            continue;
        int r = -1, w = -1;
        if (rc[j] > 0)
            r = trl_sched_recv(s, v.remote[j], trl_ref_at(TRL_BUF_RECV, rd[j]), rc[j],
                               TRL_DEPS(prev_recv, prev_send));
        if (sc[j] > 0)
            w = trl_sched_send(s, v.remote[j], trl_ref_at(TRL_BUF_SEND, sd[j]), sc[j],
                               TRL_DEPS(prev_recv, prev_send));
        if (r >= 0 || w >= 0) {
            prev_recv = r;
            prev_send = w;
        }
    }
    return s->status;
}
