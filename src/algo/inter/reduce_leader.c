/* Intercommunicator reduce through the remote leader: the other group
 * reduces its vectors to its rank 0 with the intracommunicator algorithm
 * the `reduce` parameter names (binomial by default; any nestable reduce,
 * hier included), which sends the result to the root.
 *
 * Cost: the group's reduce, then alpha + n beta: with binomial,
 * ceil(log2 n_r)(alpha + n beta + n gamma) + alpha + n beta. One message
 * crosses between the groups.
 * From: seed 003: a local reduce in the leaf group, then a send from its
 * leader to the root.
 * Any group sizes. Non-commutative operations: the group's reduce keeps
 * rank order (group ranks are the intercommunicator's ranks of that group).
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_reduce_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t n = a->count;
    trl_inter_role role = trl_inter_role_of(a);
    if (n == 0 || role == TRL_INTER_NONE)
        return s->status;
    if (role == TRL_INTER_ROOT) {
        trl_sched_recv(s, v.remote[0], trl_ref_at(TRL_BUF_RECV, 0), n, TRL_NODEPS);
        return s->status;
    }
    trl_ref result = trl_ref_at(TRL_BUF_SEND, 0); /* a group of one sends its own */
    if (v.nl > 1) {
        result = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        trl_inter_part part = {
            TRL_COLL_REDUCE, "reduce", 0, n, NULL, NULL, trl_ref_at(TRL_BUF_SEND, 0),
            result,          NULL,     0};
        int rc = trl_inter_run_part(a, s, &part);
        if (rc)
            return rc;
    }
    if (v.me == 0)
        trl_sched_send(s, a->root, result, n, TRL_NODEPS);
    return s->status;
}
