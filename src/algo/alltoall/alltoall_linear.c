/* Linear alltoall: every rank posts all its receives and sends at once and
 * copies its own block locally.
 *
 * Cost: (p-1) alpha + (p-1) n beta per rank, all messages in flight
 * together (the network, not the schedule, decides their order).
 * From: the "basic linear" alltoall of LAM-MPI and Open MPI's tuned module:
 * one nonblocking send and receive per peer, then wait for all.
 * Any number of ranks: nothing depends on p being a power of two.
 *
 * Messages are emitted starting with the neighbours (send to rank+1,
 * receive from rank-1, then rank+-2, ...), so when every rank posts in
 * this order the first messages of all ranks go to different destinations
 * instead of all hitting rank 0 first. No step depends on another: each
 * block is read from SEND and lands straight in its place in RECV.
 * count 0: no messages and no copy.
 */
#include "algo/builders.h"

int trl_alltoall_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;
    if (n == 0)
        return s->status;
    for (int k = 1; k < p; k++) {
        int from = (rank - k + p) % p, to = (rank + k) % p;
        trl_sched_recv(s, from, trl_ref_at(TRL_BUF_RECV, (size_t)from * n), n, TRL_NODEPS);
        trl_sched_send(s, to, trl_ref_at(TRL_BUF_SEND, (size_t)to * n), n, TRL_NODEPS);
    }
    /* Last: the local copy overlaps the messages already posted. */
    trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, (size_t)rank * n),
                   trl_ref_at(TRL_BUF_RECV, (size_t)rank * n), n, TRL_NODEPS);
    return s->status;
}
