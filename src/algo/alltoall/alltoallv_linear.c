/* Linear alltoallv (and alltoallw): every rank posts all its receives and
 * sends at once and copies its own block locally.
 *
 * Cost: (p-1) alpha + N beta per rank, N the bytes this rank sends (and
 * receives); all messages in flight together.
 * From: the "basic linear" alltoallv of LAM-MPI and Open MPI.
 * Any number of ranks: nothing depends on p being a power of two.
 *
 * Counts and displacements are this rank's own, per peer, in elements
 * (bytes for alltoallw, which the runtime has already flattened): block
 * for rank j at send_displs[j] (send_counts[j]), block from rank i at
 * recv_displs[i] (recv_counts[i]). A message of zero elements is left out:
 * MPI requires the sender's count for a pair to match the receiver's, so
 * both ends skip the same messages. Messages are emitted starting with the
 * neighbours (rank+-1, rank+-2, ...) to spread the load, as in the regular
 * linear alltoall. No step depends on another.
 */
#include "algo/builders.h"
#include "core/status.h"

int trl_alltoallv_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    const size_t *sc = a->send_counts, *sd = a->send_displs;
    const size_t *rc = a->recv_counts, *rd = a->recv_displs;
    /* The own block's count on the two sides: a larger send would be
     * truncated, which MPI calls an error. */
    if (sc[rank] > rc[rank])
        return TRL_ERR_INVALID;
    for (int k = 1; k < p; k++) {
        int from = (rank - k + p) % p, to = (rank + k) % p;
        if (rc[from] > 0)
            trl_sched_recv(s, from, trl_ref_at(TRL_BUF_RECV, rd[from]), rc[from], TRL_NODEPS);
        if (sc[to] > 0)
            trl_sched_send(s, to, trl_ref_at(TRL_BUF_SEND, sd[to]), sc[to], TRL_NODEPS);
    }
    /* Last: the local copy overlaps the messages already posted. */
    if (sc[rank] > 0)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, sd[rank]), trl_ref_at(TRL_BUF_RECV, rd[rank]),
                       sc[rank], TRL_NODEPS);
    return s->status;
}
