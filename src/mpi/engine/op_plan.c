#include "mpi/engine/op_plan.h"

#include <mpi.h>
#include <sched.h>

bool trl_plan_in(trl_op_plan *p, bool *planned, int *rc)
{
    if (!p->state || *planned)
        return true;
    bool in = false;
    int arc = p->arrived(p->state, &in);
    if (arc != MPI_SUCCESS) {
        *rc = *rc == MPI_SUCCESS ? arc : *rc;
        in = true; /* the run reports it; the next one plans nothing */
    }
    *planned = in && arc == MPI_SUCCESS;
    return in;
}

void trl_plan_wait(trl_op_plan *p, bool *planned, int *rc, bool yield)
{
    while (!trl_plan_in(p, planned, rc))
        if (yield)
            sched_yield(); /* the ranks that send it may share this core */
}

int trl_plan_take(trl_op_plan *p, bool *planned, trl_cache_entry **entry, trl_cache_entry **first)
{
    const trl_cache_entry *e = p->planned(p->state);
    if (!e)
        return MPI_ERR_NO_MEM;
    if (e->algo->build) {
        *first = *entry;
        *entry = trl_cache_pin(e);
    }
    trl_plan_release(p);
    *planned = false;
    return MPI_SUCCESS;
}

void trl_plan_release(trl_op_plan *p)
{
    if (p->state && p->release)
        p->release(p->state);
    p->state = NULL;
}

void trl_op_plan_drop(const trl_mode *mode)
{
    if (mode->plan) {
        trl_op_plan unused = *mode->plan;
        trl_plan_release(&unused);
    }
}
