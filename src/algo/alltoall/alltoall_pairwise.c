/* Pairwise alltoall: p-1 rounds; in round k rank r sends its block for
 * rank r+k and receives rank r-k's block for it (mod p).
 *
 * Cost: (p-1)(alpha + n beta): the same volume as linear, but one message
 * pair in flight per rank at a time.
 * From: the pairwise exchange of MPICH's and Open MPI's alltoall for large
 * messages (one MPI_Sendrecv per round).
 * Any number of ranks: (r+k) mod p and (r-k) mod p pair every rank with
 * two distinct peers each round for any p; in round k every rank sends to
 * the rank that receives from it in that same round, so rounds match up.
 *
 * Why rounds wait for each other: round k's send and receive depend on
 * both messages of round k-1 having completed. That is the point of the
 * algorithm versus linear: each rank has exactly one send and one receive
 * outstanding, so no receiver is flooded by p-1 senders at once, there is
 * no burst of unexpected messages, and for large blocks the links carry
 * one exchange at a time (the contention that makes linear slow at scale).
 * It cannot deadlock: round k's steps depend only on the same rank's
 * round k-1, and every rank's round k-1 can complete once round k-2 has.
 * The local copy of the rank's own block depends on nothing.
 * count 0: no messages and no copy.
 */
#include "algo/builders.h"

int trl_alltoall_pairwise(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    if (n == 0)
        return s->status;
    trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, (size_t)rank * n),
                   trl_ref_at(TRL_BUF_RECV, (size_t)rank * n), n, TRL_NODEPS);
    int prev_recv = -1, prev_send = -1;
    for (int k = 1; k < p; k++) {
        int from = (rank - k + p) % p, to = (rank + k) % p;
        int r = trl_sched_recv(s, from, trl_ref_at(TRL_BUF_RECV, (size_t)from * n), n,
                               TRL_DEPS(prev_recv, prev_send));
        int w = trl_sched_send(s, to, trl_ref_at(TRL_BUF_SEND, (size_t)to * n), n,
                               TRL_DEPS(prev_recv, prev_send));
        prev_recv = r;
        prev_send = w;
    }
    return s->status;
}
