/* Reduce, then broadcast: the reduce algorithm named by the `reduce`
 * parameter combines every rank's vector at rank 0 into RECV, and after a
 * fence the bcast algorithm named by `bcast` sends the result from rank 0
 * to every rank's RECV.
 *
 * Cost: the chosen reduce's plus the chosen bcast's; with binomial trees
 * 2 log2(p)(alpha + n beta) + log2(p) n gamma. Twice the latency of
 * recursive doubling, but any reduce and bcast pair can be chosen, and the
 * reduce decides whether non-commutative operations are served.
 * From: LAM-MPI's allreduce (seed 000): MPI_Reduce to rank 0, then
 * MPI_Bcast from it.
 * Non-power-of-two ranks: whatever the two algorithms do.
 *
 * The two phases share one schedule and are separated by a fence: the
 * bcast may write RECV only after the reduce has finished reading SEND,
 * which in place is the same buffer. The sub-algorithms are called through
 * the table with their own defaults; `radix` and `segment`, when a rule
 * gives them, reach whichever of the two declares them.
 */
#include <stdlib.h>
#include <string.h>

#include "algo/allreduce/allreduce_compose.h"
#include "algo/builders.h"
#include "algo/usable.h"
#include "core/status.h"

static int run_sub(const trl_coll_args *a, trl_sched *s, const trl_algo *sub, trl_coll coll)
{
    if (!sub || !sub->build || sub->coll != coll)
        return TRL_ERR_UNSUPPORTED;
    trl_params params;
    int rc = trl_params_view(a->params, sub, &params);
    if (rc)
        return rc;
    trl_coll_args args = *a;
    args.coll = coll;
    args.root = 0;
    args.algo = sub;
    args.params = &params;
    rc = trl_algo_unusable(sub, &args) ? TRL_ERR_UNSUPPORTED : sub->build(&args, s);
    trl_params_release(&params);
    return rc;
}

int trl__allreduce_compose(const trl_coll_args *a, trl_sched *s, const trl_algo *reduce,
                           const trl_algo *bcast)
{
    /* Each part is a phase, and the algorithms' own phases nest under it
     * ("reduce/reduce-scatter"). */
    int outer = trl_sched_phase_enter(s, "reduce");
    int rc = run_sub(a, s, reduce, TRL_COLL_REDUCE);
    if (rc)
        return rc;
    trl_sched_fence(s);
    trl_sched_phase_leave(s, outer);
    outer = trl_sched_phase_enter(s, "bcast");
    rc = run_sub(a, s, bcast, TRL_COLL_BCAST);
    if (rc)
        return rc;
    trl_sched_phase_leave(s, outer);
    return s->status;
}

int trl_allreduce_reduce_bcast(const trl_coll_args *a, trl_sched *s)
{
    return trl__allreduce_compose(a, s, trl_param_algo(a, "reduce"), trl_param_algo(a, "bcast"));
}
