/* Linear barrier: every rank signals rank 0, which answers every rank once
 * it has heard from all of them (a fan-in, then a fan-out).
 *
 * Cost: 2(p-1) alpha at rank 0, which serialises every message; two
 * messages elsewhere.
 * From: the flat tree of LAM-MPI up to 4 processes (seed 000).
 * Any number of ranks: nothing depends on p being a power of two.
 * Messages carry no data (count 0 at offset 0 of scratch).
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"

int trl_barrier_linear(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    if (p == 1)
        return s->status;
    if (a->rank != 0) {
        /* The answer can be posted at once: rank 0 sends it only after it
         * has heard from everyone, this rank included. */
        trl_sched_phase(s, "fan-in");
        trl_sched_send(s, 0, none, 0, TRL_NODEPS);
        trl_sched_phase(s, "fan-out");
        trl_sched_recv(s, 0, none, 0, TRL_NODEPS);
        return s->status;
    }
    int *heard = malloc((size_t)(p - 1) * sizeof *heard);
    if (!heard)
        return TRL_ERR_NOMEM;
    trl_sched_phase(s, "fan-in");
    for (int r = 1; r < p; r++)
        heard[r - 1] = trl_sched_recv(s, r, none, 0, TRL_NODEPS);
    trl_sched_phase(s, "fan-out");
    for (int r = 1; r < p; r++)
        trl_sched_send(s, r, none, 0, heard, p - 1);
    free(heard);
    return s->status;
}
