/* Direct allreduce: every rank sends its vector straight to every other
 * rank and combines all p vectors itself.
 *
 * Cost: (p-1)(alpha + n beta) + (p-1) n gamma, but only one message deep:
 * for a few ranks and short vectors, such as the top level of a hierarchy
 * with one rank per host, a single round of latency beats the log2(p)
 * rounds of recursive doubling and the two of a reduce and a bcast. It
 * sends p(p-1) messages in all, so it is not for many ranks.
 *
 * Any operation, commutative or not: every rank forms
 * x0 (op) x1 (op) ... (op) x(p-1) in that order, from the right
 * (acc = x(p-1), then acc = xi (op) acc), so all ranks compute the same
 * result bit for bit.
 *
 * Buffers: a scratch slot per rank receives the others' vectors; the
 * result builds up in RECV. In place, the own vector is first copied to
 * its slot, since RECV is overwritten while the sends may still read it.
 */
#include <stdlib.h>

#include "algo/allreduce/allreduce_steps.h"
#include "algo/builders.h"
#include "core/status.h"

int trl_allreduce_direct(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    trl_ref send = trl_ref_at(TRL_BUF_SEND, 0), recv = trl_ref_at(TRL_BUF_RECV, 0);

    if (trl__allreduce_trivial(a, s))
        return s->status;

    size_t base = trl_sched_scratch(s, (size_t)p * n);
    int *got = malloc((size_t)p * sizeof *got); /* step that receives xi */
    if (!got)
        return TRL_ERR_NOMEM;
    trl_ref mine = send;
    int own = -1; /* the step after which the own vector can be read */
    if (a->in_place) {
        mine = trl_ref_at(TRL_BUF_SCRATCH, base + (size_t)rank * n);
        own = trl_sched_copy(s, send, mine, n, TRL_NODEPS);
    }
    /* Send to the ranks above first, wrapping around, so that not every
     * rank sends to rank 0 first. */
    for (int k = 1; k < p; k++) {
        int peer = (rank + k) % p;
        trl_sched_send(s, peer, mine, n, TRL_DEPS(own));
    }
    for (int k = 1; k < p; k++) {
        int peer = (rank - k + p) % p;
        got[peer] = trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base + (size_t)peer * n), n,
                                   TRL_NODEPS);
    }
    got[rank] = own;

    /* acc = x(p-1); then acc = xi (op) acc for i = p-2 .. 0. */
    trl_ref top = p - 1 == rank ? mine : trl_ref_at(TRL_BUF_SCRATCH, base + (size_t)(p - 1) * n);
    int last = -1;
    if (!(a->in_place && rank == p - 1))
        last = trl_sched_copy(s, top, recv, n, TRL_DEPS(got[p - 1], own));
    for (int i = p - 2; i >= 0; i--) {
        trl_ref xi = i == rank ? mine : trl_ref_at(TRL_BUF_SCRATCH, base + (size_t)i * n);
        last = trl_sched_reduce(s, xi, recv, n, TRL_DEPS(last, got[i], own));
    }
    free(got);
    return s->status;
}
