/* Linear broadcast: the root sends the whole buffer to every other rank.
 *
 * Cost: (p-1)(alpha + n beta) at the root; one receive elsewhere.
 * From: the flat tree of LAM-MPI up to 4 processes (seed 000).
 * Any number of ranks: nothing depends on p being a power of two.
 */
#include "algo/builders.h"

int trl_bcast_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_ref buf = trl_ref_at(TRL_BUF_RECV, 0);
    if (a->rank != a->root) {
        trl_sched_recv(s, a->root, buf, a->count, TRL_NODEPS);
        return s->status;
    }
    /* Sends go out in rank order after the root, so rank root+1 is served first. */
    for (int i = 1; i < a->size; i++)
        trl_sched_send(s, (a->root + i) % a->size, buf, a->count, TRL_NODEPS);
    return s->status;
}
