/* Intercommunicator linear reduce_scatter (and reduce_scatter_block):
 * every rank sends its whole vector to the other group's rank 0, which
 * combines the vectors in the sending group's rank order and sends each
 * rank of its own group its block (this group's recvcounts). Each group
 * thus gets the reduction of the other group's data, scattered over it.
 *
 * Cost at a leader: n_r (alpha + N beta + N gamma) + (n_l - 1) alpha +
 * N beta, N the vector; two messages deep.
 * From: the flat trees of LAM-MPI (seed 000), once per direction.
 * Any group sizes. Non-commutative operations: trl__inter_fold_remote.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_reduce_scatter_linear(const trl_coll_args *a, trl_sched *s)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t total, *packed;
    int rc = trl__inter_local_blocks(a, &total, &packed);
    if (rc || total == 0) {
        free(packed);
        return rc ? rc : s->status;
    }
    size_t mine = a->counts ? a->counts[v.me] : a->count;
    trl_sched_send(s, v.remote[0], trl_ref_at(TRL_BUF_SEND, 0), total, TRL_NODEPS);
    if (v.me != 0) {
        if (mine > 0)
            trl_sched_recv(s, v.local[0], trl_ref_at(TRL_BUF_RECV, 0), mine, TRL_NODEPS);
        free(packed);
        return s->status;
    }
    size_t sum = trl_sched_scratch(s, total);
    rc = trl__inter_fold_remote(a, s, trl_ref_at(TRL_BUF_SCRATCH, sum), total);
    for (int i = 0; i < v.nl && rc == TRL_OK; i++) {
        size_t n = a->counts ? a->counts[i] : a->count;
        size_t at = sum + (packed ? packed[i] : (size_t)i * a->count);
        if (n == 0)
            continue;
        if (i == 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, at), trl_ref_at(TRL_BUF_RECV, 0), n,
                           TRL_NODEPS);
        else
            trl_sched_send(s, v.local[i], trl_ref_at(TRL_BUF_SCRATCH, at), n, TRL_NODEPS);
    }
    free(packed);
    return rc ? rc : s->status;
}
