/* The completion calls, MPI_Start(all), MPI_Request_free and MPI_Cancel,
 * so that Trellis' non-blocking and persistent collectives (engine.h) work
 * in them like the MPI library's own requests, alone or mixed with any
 * other requests in one array.
 *
 * With no Trellis collective in flight and no persistent one alive, each
 * call goes straight to the MPI library. Otherwise:
 *   - while any Trellis op runs, a call never blocks inside the MPI
 *     library (which would not advance Trellis' schedules): it alternates a
 *     turn of the engine and the library's non-blocking test, and blocks in
 *     the library only once nothing of Trellis' runs;
 *   - a persistent Trellis request is an inactive request of the library's
 *     own (engine.h): these calls look for such handles, answer for them
 *     themselves, and hand the library the rest of the array with
 *     MPI_REQUEST_NULL in their places.
 * Non-blocking Trellis requests are generalized requests: once the engine
 * completed them the library's own calls finish and free them (MPI_Wait
 * ignoring the status leaves the free for later: trl_op_retire). */
#include <stdlib.h>
#include <string.h>

#include "exec/mpi_impl.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/run.h"

static bool fast(void)
{
    return !trl_engine_busy() && !trl_ops_alive();
}

/* The persistent op a handle stands for, or NULL (non-blocking Trellis
 * requests are the library's to complete). */
static trl_op *persistent_op(MPI_Request r)
{
    trl_op *op = trl_op_of(r);
    return op && op->persistent ? op : NULL;
}

/* A completed collective's status, as the MPI library leaves it. */
static void empty_status(MPI_Status *st, int rc)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    memset(st, 0, sizeof *st);
    st->MPI_ERROR = rc;
    PMPI_Status_set_elements(st, MPI_BYTE, 0);
}

/* An inactive request's status: MPI's empty status (source MPI_ANY_SOURCE,
 * tag MPI_ANY_TAG, error MPI_SUCCESS, no elements, not cancelled). */
static void inactive_status(MPI_Status *st)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    empty_status(st, MPI_SUCCESS);
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
}

static MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* Persistent ops in an array: ops[i] is the op of reqs[i] or NULL; tmp is
 * reqs with those replaced by MPI_REQUEST_NULL. Returns the number found,
 * -1 if out of memory. */
typedef struct {
    int n, found;
    trl_op **ops;
    MPI_Request *tmp;
} split;

static int split_open(split *sp, int n, const MPI_Request *reqs)
{
    *sp = (split){n, 0, NULL, NULL};
    if (!trl_ops_alive() || n <= 0)
        return 0;
    sp->ops = calloc((size_t)n, sizeof *sp->ops);
    sp->tmp = malloc((size_t)n * sizeof *sp->tmp);
    if (!sp->ops || !sp->tmp)
        return -1;
    for (int i = 0; i < n; i++) {
        sp->ops[i] = persistent_op(reqs[i]);
        sp->tmp[i] = sp->ops[i] ? MPI_REQUEST_NULL : reqs[i];
        sp->found += sp->ops[i] != NULL;
    }
    return sp->found;
}

/* Copy the library's answers back into the program's array. */
static void split_close(split *sp, MPI_Request *reqs)
{
    if (sp->found)
        for (int i = 0; i < sp->n; i++)
            if (!sp->ops[i])
                reqs[i] = sp->tmp[i];
    free(sp->ops);
    free(sp->tmp);
}

/* An op counts as active while started and not yet completed by a
 * completion call. */
static bool active(const trl_op *op)
{
    return op && (trl_op_running(op) || trl_op_finished(op));
}

/* Complete op i: status, result through the communicator's handler. */
static int take(trl_op *op, MPI_Status *st)
{
    int rc = MPI_SUCCESS;
    trl_op_take(op, &rc);
    empty_status(st, rc);
    return rc == MPI_SUCCESS ? rc : trl_error(op->comm, rc);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (fast())
        return PMPI_Wait(req, status);
    trl_op *op = trl_op_of(*req);
    if (op && !op->persistent) {
        /* Trellis' own collective: drive it as a blocking call waits (no
         * library test on every poll), then hand back MPI_REQUEST_NULL
         * with the request's free left for later (trl_op_retire), or let
         * the library complete the generalized request. */
        if (!trl_engine_threaded()) {
            trl_op_wait(op);
            if (status == MPI_STATUS_IGNORE && trl_op_retire(op, req))
                return MPI_SUCCESS;
        }
        op = NULL;
    }
    if (op) {
        if (!active(op)) {
            inactive_status(status);
            return MPI_SUCCESS;
        }
        /* As a non-blocking op waits: in the executor's own loop where it
         * is the only op in flight. */
        if (!trl_engine_threaded())
            trl_op_wait(op);
        while (!trl_op_finished(op))
            trl_engine_poll();
        return take(op, status);
    }
    for (;;) {
        if (!trl_engine_busy())
            return PMPI_Wait(req, status);
        trl_engine_poll();
        int flag, rc = PMPI_Test(req, &flag, status);
        if (rc != MPI_SUCCESS || flag)
            return rc;
    }
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (fast())
        return PMPI_Test(req, flag, status);
    trl_engine_poll();
    trl_op *op = persistent_op(*req);
    if (op) {
        /* Running when looked at: not complete, even if it finishes
         * before the next look. */
        *flag = !trl_op_running(op);
        if (!*flag)
            return MPI_SUCCESS;
        if (!trl_op_finished(op)) {
            inactive_status(status);
            return MPI_SUCCESS;
        }
        return take(op, status);
    }
    return PMPI_Test(req, flag, status);
}

/* One pass of Testall: every request done (persistent ones finished or
 * inactive), or nothing changes. */
static int testall_once(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses, split *sp)
{
    for (int i = 0; sp->found && i < n; i++) {
        if (sp->ops[i] && trl_op_running(sp->ops[i])) {
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    int rc = trl_testall(n, sp->found ? sp->tmp : reqs, flag, statuses);
    if (rc != MPI_SUCCESS || !*flag || !sp->found)
        return rc;
    int first = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!sp->ops[i])
            continue;
        /* Looked at once: take() clears it, and a finished op's status is
         * take()'s, not an inactive request's. */
        bool finished = trl_op_finished(sp->ops[i]);
        int r = finished ? take(sp->ops[i], status_at(statuses, i)) : MPI_SUCCESS;
        if (!finished)
            inactive_status(status_at(statuses, i));
        if (first == MPI_SUCCESS)
            first = r;
    }
    return first == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_IN_STATUS;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (fast())
        return trl_testall(n, reqs, flag, statuses);
    trl_engine_poll();
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc = testall_once(n, reqs, flag, statuses, &sp);
    split_close(&sp, reqs);
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    if (fast())
        return PMPI_Waitall(n, reqs, statuses);
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc, flag = 0;
    for (;;) {
        if (!sp.found && !trl_engine_busy()) {
            rc = PMPI_Waitall(n, reqs, statuses);
            break;
        }
        trl_engine_poll();
        rc = testall_once(n, reqs, &flag, statuses, &sp);
        if (rc != MPI_SUCCESS || flag)
            break;
    }
    split_close(&sp, reqs);
    return rc;
}

/* One pass of Testany; *index MPI_UNDEFINED with *flag set when no request
 * is active. */
static int testany_once(int n, MPI_Request *reqs, int *index, int *flag, MPI_Status *status,
                        split *sp)
{
    bool any_active = false;
    for (int i = 0; sp->found && i < n; i++) {
        if (sp->ops[i] && trl_op_finished(sp->ops[i])) {
            *index = i;
            *flag = 1;
            return take(sp->ops[i], status);
        }
        any_active = any_active || active(sp->ops[i]);
    }
    int rc = PMPI_Testany(n, sp->found ? sp->tmp : reqs, index, flag, status);
    if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && any_active)
        *flag = 0; /* the library has nothing active, but a Trellis op runs */
    else if (rc == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED)
        inactive_status(status); /* the library may leave its error field */
    return rc;
}

int MPI_Testany(int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    if (fast())
        return PMPI_Testany(n, reqs, index, flag, status);
    trl_engine_poll();
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc = testany_once(n, reqs, index, flag, status, &sp);
    split_close(&sp, reqs);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (fast())
        return PMPI_Waitany(n, reqs, index, status);
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc, flag = 0;
    for (;;) {
        if (!sp.found && !trl_engine_busy()) {
            rc = PMPI_Waitany(n, reqs, index, status);
            break;
        }
        trl_engine_poll();
        rc = testany_once(n, reqs, index, &flag, status, &sp);
        if (rc != MPI_SUCCESS || flag)
            break;
    }
    split_close(&sp, reqs);
    return rc;
}

/* One pass of Testsome: the finished persistent ops first, then what the
 * library finished. *outcount MPI_UNDEFINED when nothing is active. */
static int testsome_once(int n, MPI_Request *reqs, int *outcount, int *indices,
                         MPI_Status *statuses, split *sp)
{
    int k = 0, err = MPI_SUCCESS;
    bool any_active = false;
    for (int i = 0; sp->found && i < n; i++) {
        if (sp->ops[i] && trl_op_finished(sp->ops[i])) {
            int r = take(sp->ops[i], status_at(statuses, k));
            if (r != MPI_SUCCESS)
                err = MPI_ERR_IN_STATUS;
            indices[k++] = i;
        } else if (active(sp->ops[i])) {
            any_active = true;
        }
    }
    int lib = 0;
    int rc = PMPI_Testsome(n, sp->found ? sp->tmp : reqs, &lib, indices + k,
                           statuses == MPI_STATUSES_IGNORE ? TRL_STATUSES_IGNORE : statuses + k);
    if (rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS)
        return rc;
    if (rc == MPI_ERR_IN_STATUS)
        err = rc;
    if (lib == MPI_UNDEFINED)
        *outcount = k > 0 || any_active ? k : MPI_UNDEFINED;
    else
        *outcount = k + lib;
    return err;
}

int MPI_Testsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (fast())
        return PMPI_Testsome(n, reqs, outcount, indices, statuses);
    trl_engine_poll();
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc = testsome_once(n, reqs, outcount, indices, statuses, &sp);
    split_close(&sp, reqs);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (fast())
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    split sp;
    if (split_open(&sp, n, reqs) < 0) {
        split_close(&sp, reqs);
        return MPI_ERR_NO_MEM;
    }
    int rc;
    for (;;) {
        if (!sp.found && !trl_engine_busy()) {
            rc = PMPI_Waitsome(n, reqs, outcount, indices, statuses);
            break;
        }
        trl_engine_poll();
        rc = testsome_once(n, reqs, outcount, indices, statuses, &sp);
        if ((rc != MPI_SUCCESS && rc != MPI_ERR_IN_STATUS) || *outcount != 0)
            break;
    }
    split_close(&sp, reqs);
    return rc;
}

int MPI_Request_get_status(MPI_Request req, int *flag, MPI_Status *status)
{
    if (fast())
        return PMPI_Request_get_status(req, flag, status);
    trl_engine_poll();
    trl_op *op = persistent_op(req);
    if (op) {
        *flag = !trl_op_running(op);
        if (*flag && trl_op_finished(op))
            empty_status(status, op->rc);
        else if (*flag)
            inactive_status(status);
        return MPI_SUCCESS;
    }
    return PMPI_Request_get_status(req, flag, status);
}

int MPI_Start(MPI_Request *req)
{
    trl_op *op = persistent_op(*req);
    if (!op)
        return PMPI_Start(req);
    int rc = trl_op_start(op);
    return rc == MPI_SUCCESS ? rc : trl_error(op->comm, rc);
}

int MPI_Startall(int n, MPI_Request reqs[])
{
    if (!trl_ops_alive())
        return PMPI_Startall(n, reqs);
    /* In array order: collectives start in the same order on every rank. */
    for (int i = 0; i < n; i++) {
        int rc = MPI_Start(&reqs[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* MPI calls freeing or cancelling an active non-blocking collective
 * erroneous; the MPI library answers MPI_ERR_REQUEST, and so does Trellis,
 * for its persistent ones too. */
int MPI_Request_free(MPI_Request *req)
{
    trl_op *op = trl_op_of(*req);
    if (!op)
        return PMPI_Request_free(req);
    if (!op->persistent) {
        if (trl_op_running(op))
            return trl_error(op->comm, MPI_ERR_REQUEST);
        return PMPI_Request_free(req); /* finished: the grequest goes */
    }
    int rc = trl_op_free(op);
    if (rc != MPI_SUCCESS)
        return trl_error(op->comm, rc);
    *req = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *req)
{
    trl_op *op = trl_op_of(*req);
    if (op && active(op))
        return trl_error(op->comm, MPI_ERR_REQUEST);
    return PMPI_Cancel(req);
}
