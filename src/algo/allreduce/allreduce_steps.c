#include "algo/allreduce/allreduce_steps.h"

#include "pattern/rdouble.h"

bool trl__allreduce_trivial(const trl_coll_args *a, trl_sched *s)
{
    if (a->size > 1 && a->count > 0)
        return false;
    trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0), trl_ref_at(TRL_BUF_RECV, 0), a->count,
                   TRL_NODEPS);
    return true;
}

bool trl__allreduce_sit_out(const trl_coll_args *a, trl_sched *s)
{
    if (!trl_rd_fold_sits_out(a->rank, a->size))
        return false;
    int partner = trl_rd_fold_partner(a->rank, a->size);
    int sent = trl_sched_send(s, partner, trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
    /* In place, the result arrives over the vector still being sent. */
    trl_sched_recv(s, partner, trl_ref_at(TRL_BUF_RECV, 0), a->count, TRL_DEPS(sent));
    return true;
}
