/* Intercommunicator linear allreduce: every rank sends its vector to the
 * other group's rank 0 (its leader); each leader combines the vectors it
 * received in the sending group's rank order and sends the result to every
 * rank of its own group. Each group thus gets the reduction of the other
 * group's data, as MPI defines it.
 *
 * Cost at a leader: n_r (alpha + n beta + n gamma) + (n_l - 1)(alpha +
 * n beta); two messages deep.
 * From: the flat trees of LAM-MPI (seed 000), once per direction.
 * Any group sizes. Non-commutative operations: trl__inter_fold_remote.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_allreduce_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t n = a->count;
    trl_ref result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0)
        return s->status;
    trl_sched_send(s, v.remote[0], trl_ref_at(TRL_BUF_SEND, 0), n, TRL_NODEPS);
    if (v.me != 0) {
        trl_sched_recv(s, v.local[0], result, n, TRL_NODEPS);
        return s->status;
    }
    int rc = trl__inter_fold_remote(a, s, result, n);
    for (int i = 1; i < v.nl && rc == 0; i++)
        trl_sched_send(s, v.local[i], result, n, TRL_NODEPS);
    return rc ? rc : s->status;
}
