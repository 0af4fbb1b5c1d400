/* Dissemination barrier: in round k every rank signals rank + 2^k and
 * waits for rank - 2^k (mod p). A rank's signal in round k goes out only
 * after it has heard in round k-1, so after round k it has heard, through
 * chains of signals, from the 2^(k+1) - 1 ranks below it; after
 * ceil(log2 p) rounds, from everyone.
 *
 * Cost: ceil(log2 p) alpha, every rank busy in every round; the fewest
 * rounds of any barrier, for any p.
 * From: Hensgen, Finkel and Manber, "Two algorithms for barrier
 * synchronization" (1988); MPICH's barrier.
 * Any number of ranks: distances wrap around mod p, so nothing depends on
 * p being a power of two.
 * Messages carry no data (count 0 at offset 0 of scratch).
 */
#include "algo/builders.h"
#include "pattern/rdouble.h"

int trl_barrier_dissemination(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank, rounds = trl_rd_ceil_log2(p);
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    int sent = -1, heard = -1;
    for (int k = 0; k < rounds; k++) {
        /* The signal carries everything heard so far. The wait has no
         * dependency: each round's message has its own peer and tag. */
        sent = trl_sched_send(s, trl_rd_dissem_to(rank, p, k), none, 0, TRL_DEPS(sent, heard));
        heard = trl_sched_recv(s, trl_rd_dissem_from(rank, p, k), none, 0, TRL_NODEPS);
    }
    return s->status;
}
