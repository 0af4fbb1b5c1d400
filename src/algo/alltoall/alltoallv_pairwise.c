/* Pairwise alltoallv (and alltoallw): p-1 rounds; in round k rank r sends
 * its block for rank r+k and receives rank r-k's block for it (mod p).
 *
 * Cost: (p-1) alpha + N beta per rank, N the bytes it sends; one message
 * pair in flight at a time.
 * From: the pairwise exchange of MPICH's and Open MPI's alltoallv.
 * Any number of ranks: (r+k) mod p and (r-k) mod p pair every rank with
 * two distinct peers each round for any p.
 *
 * Counts and displacements are this rank's own, per peer, in elements
 * (bytes for alltoallw): block for rank j at send_displs[j]
 * (send_counts[j]), block from rank i at recv_displs[i] (recv_counts[i]).
 * A message of zero elements is left out (both ends know the pair's count,
 * which MPI requires to agree).
 *
 * Rounds wait for each other, as in the regular pairwise alltoall (see
 * alltoall_pairwise.c for why): round k's messages depend on the messages
 * of the last round before it that had any. A round whose two messages are
 * both empty costs nothing and holds nothing up. No deadlock: a round's
 * steps depend only on the same rank's earlier rounds.
 */
#include "algo/builders.h"
#include "core/status.h"

int trl_alltoallv_pairwise(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    const size_t *sc = a->send_counts, *sd = a->send_displs;
    const size_t *rc = a->recv_counts, *rd = a->recv_displs;
    if (sc[rank] > rc[rank]) /* the own block would be truncated: erroneous */
        return TRL_ERR_INVALID;
    if (sc[rank] > 0)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, sd[rank]), trl_ref_at(TRL_BUF_RECV, rd[rank]),
                       sc[rank], TRL_NODEPS);
    int prev_recv = -1, prev_send = -1;
    for (int k = 1; k < p; k++) {
        int from = (rank - k + p) % p, to = (rank + k) % p;
        int r = -1, w = -1;
        if (rc[from] > 0)
            r = trl_sched_recv(s, from, trl_ref_at(TRL_BUF_RECV, rd[from]), rc[from],
                               TRL_DEPS(prev_recv, prev_send));
        if (sc[to] > 0)
            w = trl_sched_send(s, to, trl_ref_at(TRL_BUF_SEND, sd[to]), sc[to],
                               TRL_DEPS(prev_recv, prev_send));
        if (r >= 0 || w >= 0) {
            prev_recv = r;
            prev_send = w;
        }
    }
    return s->status;
}
