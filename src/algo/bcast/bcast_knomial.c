/* PLACEHOLDER: not written yet; returns "not supported" so nothing selects it wrongly. */
#include "algo/builders.h"
#include "core/status.h"

int trl_bcast_knomial(const trl_coll_args *a, trl_sched *s)
{
    (void)a;
    (void)s;
    return TRL_ERR_UNSUPPORTED;
}
