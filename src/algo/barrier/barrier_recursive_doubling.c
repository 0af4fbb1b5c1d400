/* Recursive-doubling barrier: in round k every rank exchanges a signal
 * with the rank whose (new) rank differs in bit k, and sends the next
 * round's signal only after this round's has arrived; after log2(p) rounds
 * every rank has heard from every other.
 *
 * Cost: log2(p) alpha for a power of two; two more rounds when p is not
 * (the fold and the unfold).
 * From: the pairwise-exchange barrier of MPICH and Open MPI (tuned's
 * "recursive doubling").
 * Non-power-of-two ranks: folded as in src/pattern/rdouble.h. Each even
 * rank among the first 2(p - pof2) signals the odd rank above it and waits;
 * that rank joins the exchange once signalled and releases its partner at
 * the end.
 * Messages carry no data (count 0 at offset 0 of scratch).
 */
#include "algo/builders.h"
#include "pattern/rdouble.h"

int trl_barrier_recursive_doubling(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    if (p == 1)
        return s->status;

    int partner = trl_rd_fold_partner(rank, p);
    if (trl_rd_fold_sits_out(rank, p)) {
        trl_sched_send(s, partner, none, 0, TRL_NODEPS);
        trl_sched_recv(s, partner, none, 0, TRL_NODEPS);
        return s->status;
    }

    int pof2 = trl_rd_pof2(p), newrank = trl_rd_fold_newrank(rank, p);
    int sent = -1, heard = -1;
    if (partner >= 0)
        heard = trl_sched_recv(s, partner, none, 0, TRL_NODEPS);
    for (int m = 1; m < pof2; m <<= 1) {
        int peer = trl_rd_fold_rank(newrank ^ m, p);
        /* The signal carries everything heard so far. */
        sent = trl_sched_send(s, peer, none, 0, TRL_DEPS(sent, heard));
        heard = trl_sched_recv(s, peer, none, 0, TRL_NODEPS);
    }
    if (partner >= 0)
        trl_sched_send(s, partner, none, 0, TRL_DEPS(sent, heard));
    return s->status;
}
