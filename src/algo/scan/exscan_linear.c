/* Linear exclusive scan: a chain. Rank r receives the prefix
 * x_0 op ... op x_{r-1} from rank r-1, which is its result, and passes
 * prefix op x_r on to rank r+1. Rank 0 only sends its data; its receive
 * buffer is left untouched.
 *
 * Cost: (p-1)(alpha + n beta) + (p-2) n gamma along the chain.
 * From: LAM-MPI's and Open MPI's basic linear exscan (seed 000), written
 * as a chain.
 * Any number of ranks: nothing depends on p being a power of two.
 *
 * Order of combination: the received prefix is always the left operand
 * (b = prefix op own), so non-commutative operations get rank order.
 *
 * Buffers: the prefix is received straight into RECV. A middle rank
 * copies its own data to scratch (at once, while the prefix is on its
 * way), folds the prefix into it from the left and sends that on; with
 * MPI_IN_PLACE the prefix is received only once own data is copied out of
 * RECV. The last rank only receives.
 */
#include "algo/builders.h"

int trl_exscan_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (n == 0 || p == 1)
        return s->status;
    if (rank == 0) {
        trl_sched_send(s, 1, own, n, TRL_NODEPS);
        return s->status;
    }
    if (rank == p - 1) {
        trl_sched_recv(s, rank - 1, result, n, TRL_NODEPS);
        return s->status;
    }
    trl_ref next = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
    int copied = trl_sched_copy(s, own, next, n, TRL_NODEPS);
    int got = trl_sched_recv(s, rank - 1, result, n, TRL_DEPS(a->in_place ? copied : -1));
    int done = trl_sched_reduce(s, result, next, n, TRL_DEPS(got, copied));
    trl_sched_send(s, rank + 1, next, n, TRL_DEPS(done));
    return s->status;
}
