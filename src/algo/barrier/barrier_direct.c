/* Direct barrier: every rank signals every other rank at once and waits
 * for all of their signals. A rank signals on entry, so once it has heard
 * from all, all have entered.
 *
 * Cost: alpha of depth, one round, but p - 1 messages out and in at every
 * rank (p(p-1) in all): for few ranks where a round costs more than a
 * message, such as the leaders of a few hosts (hier world=direct), where
 * linear needs two rounds across hosts and dissemination ceil(log2 p).
 * From: the all-to-all barrier (Hensgen, Finkel and Manber, 1988, compare
 * it with their dissemination barrier); the one-round shape of allreduce
 * `direct`.
 * Any number of ranks. Messages carry no data (count 0 at offset 0 of
 * scratch).
 */
#include "algo/builders.h"

int trl_barrier_direct(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    /* Start at the next rank so not every rank sends to rank 0 first. */
    for (int k = 1; k < p; k++)
        trl_sched_send(s, (rank + k) % p, none, 0, TRL_NODEPS);
    for (int k = 1; k < p; k++)
        trl_sched_recv(s, (rank - k + p) % p, none, 0, TRL_NODEPS);
    return s->status;
}
