/* Intercommunicator linear reduce: every rank of the other group sends its
 * vector to the root, which combines them in that group's rank order (in
 * order of arrival for a commutative operation). The root's group's other
 * ranks take no part.
 *
 * Cost: n_r (alpha + n beta + n gamma) at the root; one send elsewhere.
 * From: the flat tree of LAM-MPI (seed 000) stretched across the groups.
 * Any group sizes. Non-commutative operations: the root folds right to
 * left (trl__inter_fold_remote), ending with x_0 op x_1 op ... op x_{n-1}.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_reduce_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_role role = trl_inter_role_of(a);
    if (a->count == 0)
        return s->status;
    if (role == TRL_INTER_ROOT)
        return trl__inter_fold_remote(a, s, trl_ref_at(TRL_BUF_RECV, 0), a->count);
    if (role == TRL_INTER_REMOTE)
        trl_sched_send(s, a->root, trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    return s->status;
}
