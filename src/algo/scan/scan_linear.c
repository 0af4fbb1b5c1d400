/* Linear scan: a chain. Rank r receives the prefix x_0 op ... op x_{r-1}
 * from rank r-1, combines its own data into it and passes the result on
 * to rank r+1.
 *
 * Cost: (p-1)(alpha + n beta + n gamma) along the chain: the last rank
 * waits for every other. Each rank sends and receives at most one message,
 * so for few ranks it is hard to beat.
 * From: LAM-MPI's and Open MPI's basic linear scan (a rank waits for its
 * left neighbour, seed 000), written as a chain.
 * Any number of ranks: nothing depends on p being a power of two.
 *
 * Order of combination: the received prefix is always the left operand
 * (b = prefix op own), so non-commutative operations get rank order.
 *
 * Buffers: the result forms in RECV. For a commutative operation without
 * MPI_IN_PLACE the prefix is received straight into RECV and own data is
 * folded into it (no copy, no scratch); otherwise own data is copied into
 * RECV (already there in place) while the prefix arrives in scratch, and
 * the prefix is folded in from the left.
 */
#include "algo/builders.h"

int trl_scan_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0)
        return s->status;
    if (rank == 0) {
        if (!a->in_place)
            trl_sched_copy(s, own, result, n, TRL_NODEPS);
        if (p > 1) /* straight from SEND: no wait for the copy */
            trl_sched_send(s, 1, own, n, TRL_NODEPS);
        return s->status;
    }
    int done;
    if (a->commutative && !a->in_place) {
        int got = trl_sched_recv(s, rank - 1, result, n, TRL_NODEPS);
        done = trl_sched_reduce(s, own, result, n, TRL_DEPS(got));
    } else {
        trl_ref prefix = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        int copied = a->in_place ? -1 : trl_sched_copy(s, own, result, n, TRL_NODEPS);
        int got = trl_sched_recv(s, rank - 1, prefix, n, TRL_NODEPS);
        done = trl_sched_reduce(s, prefix, result, n, TRL_DEPS(got, copied));
    }
    if (rank < p - 1)
        trl_sched_send(s, rank + 1, result, n, TRL_DEPS(done));
    return s->status;
}
