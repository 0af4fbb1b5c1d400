/* TRELLIS_CHECK's watch of collectives in flight (check_inflight.h):
 * each run of a non-blocking or persistent call's op, from its start to
 * its end, under the watchdog. */
#include "mpi/engine/check_inflight.h"

#include <stdlib.h>
#include <string.h>

#include "mpi/engine/check_watch.h"

struct trl_check_op {
    trl_check_call_info call; /* its cc not kept: the communicator may go first */
    char comm_name[80];
    int slot; /* the watchdog's while a run is under way, else -1 */
};

/* The non-blocking or persistent call this thread checked last, which the
 * op made next on the same communicator is of. */
static TRL_CHECK_TLS struct {
    trl_check_call_info call;
    MPI_Comm comm;
} last_checked = {.comm = MPI_COMM_NULL};

void trl_check_inflight_note(const trl_check_call_info *call, MPI_Comm comm)
{
    last_checked.call = *call;
    last_checked.comm = comm;
}

trl_check_op *trl_check_op_new(MPI_Comm comm)
{
    if (last_checked.comm != comm || comm == MPI_COMM_NULL)
        return NULL;
    last_checked.comm = MPI_COMM_NULL;
    trl_check_op *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    o->call = last_checked.call;
    memcpy(o->comm_name, o->call.cc->name, sizeof o->comm_name);
    o->call.cc = NULL;
    o->slot = -1;
    return o;
}

void trl_check_op_run(trl_check_op *o, bool began)
{
    if (began && o->slot < 0) {
        o->slot = trl_check_watch_enter(&o->call, o->comm_name, true);
    } else if (!began && o->slot >= 0) {
        trl_check_watch_leave(o->slot);
        o->slot = -1;
    }
}

void trl_check_op_delete(trl_check_op *o)
{
    trl_check_op_run(o, false);
    free(o);
}
