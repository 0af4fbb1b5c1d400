/* Intercommunicator reduce_scatter (and reduce_scatter_block) through the
 * leaders: each group reduces its vectors to its rank 0 (the `reduce`
 * parameter's intracommunicator algorithm), the leaders exchange the two
 * results, and each scatters the other group's result over its own group
 * by this group's recvcounts (the `scatter` parameter's algorithm).
 *
 * Cost: reduce + alpha + N beta + scatter; with binomial trees
 * ceil(log2 n)(alpha + N beta + N gamma) + alpha + N beta +
 * ceil(log2 n) alpha + N beta, N the vector.
 * From: seed 003 reduces locally and scatters straight into the other
 * group, which needs the other group's recvcounts at each leader (an
 * exchange before the reduce); exchanging the whole result and scattering
 * locally needs no counts beyond each group's own, so every call can be
 * served without a round of counts.
 * Any group sizes; non-commutative operations keep rank order in the
 * reduce.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_reduce_scatter_leader(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t total, *packed;
    int rc = trl__inter_local_blocks(a, &total, &packed);
    if (rc || total == 0) {
        free(packed);
        return rc ? rc : s->status;
    }
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), mine = own;
    if (v.nl > 1) {
        mine = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total));
        trl_inter_part reduce = {
            TRL_COLL_REDUCE, "reduce", 0, total, NULL, NULL, own, mine, NULL, 0};
        rc = trl_inter_run_part(a, s, &reduce);
    }
    /* The other group's result: straight into RECV in a group of one. */
    trl_ref theirs = v.nl == 1 ? trl_ref_at(TRL_BUF_RECV, 0)
                               : trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total));
    if (rc == TRL_OK && v.me == 0) {
        trl_sched_send(s, v.remote[0], mine, total, TRL_NODEPS);
        trl_sched_recv(s, v.remote[0], theirs, total, TRL_NODEPS);
    }
    if (rc == TRL_OK && v.nl > 1) {
        trl_inter_part scatter = {TRL_COLL_SCATTER,
                                  "scatter",
                                  0,
                                  a->count,
                                  a->counts,
                                  packed,
                                  theirs,
                                  trl_ref_at(TRL_BUF_RECV, 0),
                                  NULL,
                                  0};
        rc = trl_inter_run_part(a, s, &scatter);
    }
    free(packed);
    return rc ? rc : s->status;
}
