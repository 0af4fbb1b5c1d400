#define _GNU_SOURCE
#include "mpi/engine/engine.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "mpi/engine/check.h"
#include "mpi/engine/leftovers.h"
#include "mpi/engine/handles.h"
#include "mpi/engine/holds.h"
#include "mpi/engine/op_pool.h"

static struct {
    pthread_mutex_t lock;
    trl_op *head;            /* running ops, newest first */
    atomic_int running;      /* how many */
    atomic_int alive;        /* ops alive (in the handle table) */
    bool threaded;           /* the lock is needed: a progress thread runs */
    atomic_bool share_cores; /* a running op's ranks share cores (shm.yield);
                                 written in turns, read without the lock */
    pthread_cond_t wake;     /* an op started, or stop: for the idle thread */
    trl_handles table;       /* handles -> ops, for every op alive */
    bool in_free_fn;         /* inside the library's free callback (leftovers.h) */
} eng = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* Set while this thread runs the engine, so the MPI library's progress
 * hook (called from inside the engine's own PMPI calls) does not enter it
 * again. Initial-exec: the hook reads it on every turn of the library's
 * progress loop, and the library is loaded at start-up, never dlopen'ed. */
static _Thread_local bool inside __attribute__((tls_model("initial-exec")));

bool trl_engine_busy(void)
{
    /* TRELLIS_CHECK's checks in flight are followed up in the turns */
    return atomic_load_explicit(&eng.running, memory_order_relaxed) > 0 || trl_check_pending();
}

int trl_engine_running(void)
{
    return atomic_load_explicit(&eng.running, memory_order_relaxed);
}

bool trl_ops_alive(void)
{
    return atomic_load_explicit(&eng.alive, memory_order_relaxed) > 0;
}

bool trl_engine_threaded(void)
{
    return eng.threaded;
}

/* Set while this thread holds the lock: free_fn, which the MPI library may
 * call from inside a completion made under it (finish), must not take it
 * again. */
static _Thread_local bool holding __attribute__((tls_model("initial-exec")));

void trl_engine_lock(void)
{
    if (eng.threaded) {
        pthread_mutex_lock(&eng.lock);
        holding = true;
    }
}

void trl_engine_unlock(void)
{
    if (eng.threaded) {
        holding = false;
        pthread_mutex_unlock(&eng.lock);
    }
}

/* ---- handles ---- */

trl_op *trl_op_of(MPI_Request r)
{
    if (!trl_ops_alive() || r == MPI_REQUEST_NULL)
        return NULL;
    trl_engine_lock();
    trl_op *found = trl_handles_find(&eng.table, r);
    trl_engine_unlock();
    return found;
}

/* ---- running ops ---- */

static void link_op(trl_op *op)
{
    op->prev = NULL;
    op->next = eng.head;
    if (eng.head)
        eng.head->prev = op;
    eng.head = op;
    if (atomic_fetch_add(&eng.running, 1) == 0 && eng.threaded)
        pthread_cond_signal(&eng.wake); /* the caller holds the lock */
}

static void unlink_op(trl_op *op)
{
    if (op->prev)
        op->prev->next = op->next;
    else
        eng.head = op->next;
    if (op->next)
        op->next->prev = op->prev;
    op->prev = op->next = NULL;
    atomic_fetch_sub(&eng.running, 1);
}

/* Free the communicators that free_fn kept (leftovers.h). */
static void let_go(void)
{
    trl_engine_lock();
    trl_left_free_comms(false);
    trl_engine_unlock();
}

static void release(trl_op *op)
{
    if (op->in_table) {
        trl_handles_del(&eng.table, op->request, op);
        atomic_fetch_sub(&eng.alive, 1);
    }
    if (op->hooks.release)
        op->hooks.release(op);
    trl_plan_release(&op->plan);
    if (op->holds_type)
        trl_let_type(op->call.dtype);
    if (op->holds_op)
        trl_let_op(op->call.op);
    if (op->entry)
        trl_cache_unpin(op->entry);
    if (op->first)
        trl_cache_unpin(op->first);
    if (op->c)
        trl_left_comm(op->c, eng.in_free_fn);
    trl_check_op_free(op->check);
    trl_op_pool_put(op);
}

/* The schedule finished (or failed): finish the buffers, tell the program. */
static void finish(trl_op *op, int rc)
{
    unlink_op(op);
    op->arriving = false;
    trl_check_op_ended(op->check);
    if (op->hooks.after)
        op->rc = op->hooks.after(op, rc);
    else if (rc != MPI_SUCCESS)
        op->rc = rc;
    /* A persistent op is finished (its result in) before it stops running:
     * a program's thread that reads it not running while a progress thread
     * finishes it must find it finished, or it takes it for inactive, never
     * completes it, and its next MPI_Start is refused. */
    if (op->persistent)
        __atomic_store_n(&op->finished, true, __ATOMIC_RELEASE);
    __atomic_store_n(&op->running, false, __ATOMIC_RELEASE);
    if (!op->persistent && op->in_table)
        PMPI_Grequest_complete(op->request);
    /* else its request does not exist yet: trl_op_submit completes it */
}

/* Start the schedule of op, linked and running. */
static void launch(trl_op *op)
{
    /* The schedule runs even if preparing failed, so no rank is left
     * waiting; the failure is reported when it finishes (op->rc). */
    op->rc = op->hooks.before ? op->hooks.before(op) : MPI_SUCCESS;
    trl_check_op_began(op->check);
    int run = trl_exec_start(&op->x, &op->entry->sched, &op->call, &op->mem);
    if (run != MPI_SUCCESS) {
        trl_exec_cancel(&op->x);
        finish(op, run);
    }
}

/* An awaiting op's plan is in (trl_plan_in said so): its planned schedule
 * starts, in the tag range of the op's place among the calls. An error
 * taking the plan leaves the op running, for the caller to finish. */
static int start_planned(trl_op *op)
{
    int rc = trl_plan_take(&op->plan, &op->planned, &op->entry, &op->first);
    if (rc == MPI_SUCCESS) {
        op->arriving = op->awaiting = false;
        launch(op);
    }
    return rc;
}

static int begin(trl_op *op)
{
    if (op->planned) {
        int rc = trl_plan_take(&op->plan, &op->planned, &op->entry, &op->first);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    if (!op->entry) {
        /* Nothing to move: finished as soon as started. */
        op->rc = MPI_SUCCESS;
        link_op(op);
        op->running = true;
        finish(op, MPI_SUCCESS);
        return MPI_SUCCESS;
    }
    if (!op->persistent) /* a persistent op's were fixed at its init */
        trl_tags_next(&op->c->tags, op->entry->call, op->entry->tag_class, &op->call.tag_base,
                      &op->call.tag_span);
    op->running = true;
    op->finished = false;
    link_op(op);
    if (!op->awaiting) {
        launch(op);
        return MPI_SUCCESS;
    }
    /* An awaiting op whose plan is in (a rank that receives no sizes)
     * starts now, else in the turn that finds it in; no turn inside the
     * library's test, which would find this op half begun. */
    op->arriving = true;
    bool was = inside, in;
    int rc = MPI_SUCCESS;
    inside = true;
    in = trl_plan_in(&op->plan, &op->planned, &rc);
    inside = was;
    if (in && (rc != MPI_SUCCESS || (rc = start_planned(op)) != MPI_SUCCESS))
        finish(op, rc);
    return MPI_SUCCESS;
}

/* Run op's schedule to its end alone, as a blocking call runs, and finish
 * it. The library's progress hook stays out meanwhile (inside), so no turn
 * of the engine touches the execution under way. */
static void run_out(trl_op *op)
{
    if (!op->running)
        return;
    inside = true;
    int rc = MPI_SUCCESS;
    if (op->awaiting) { /* its sizes first, then its schedule */
        trl_plan_wait(&op->plan, &op->planned, &rc, op->c->shm.yield);
        rc = rc == MPI_SUCCESS ? start_planned(op) : rc;
    }
    if (rc == MPI_SUCCESS && op->running) {
        rc = trl_exec_finish(&op->x);
        trl_plan_wait(&op->plan, &op->planned, &rc, op->c->shm.yield);
    }
    inside = false;
    if (op->running) /* else its start failed, and it finished */
        finish(op, rc);
}

/* One turn over the running ops; the caller holds the lock. Returns
 * whether any step finished. */
static bool turn(void)
{
    bool moved = false, share = false;
    inside = true;
    if (trl_check_pending())
        trl_check_poll();
    for (trl_op *op = eng.head, *next; op; op = next) {
        next = op->next;
        share = share || (op->c && op->c->shm.yield);
        bool done = op->arriving;
        int rc = MPI_SUCCESS;
        if (!done) {
            size_t before = op->x.done;
            rc = trl_exec_progress(&op->x, &done);
            moved = moved || op->x.done != before;
            if (rc != MPI_SUCCESS)
                trl_exec_cancel(&op->x);
        }
        if (done && rc == MPI_SUCCESS && !trl_plan_in(&op->plan, &op->planned, &rc)) {
            op->arriving = true; /* its plan's messages are still on their way */
            continue;
        }
        if (op->awaiting && rc == MPI_SUCCESS) {
            rc = start_planned(op);
            moved = true;
            if (rc == MPI_SUCCESS)
                continue; /* its schedule started (or failed to, and finished) */
        }
        if (done || rc != MPI_SUCCESS)
            finish(op, rc);
    }
    inside = false;
    atomic_store_explicit(&eng.share_cores, share, memory_order_relaxed);
    return moved;
}

/* A turn if no other thread takes one; whether it moved a step (true when
 * there is nothing to turn: then the caller has no reason to yield). */
static bool progress(void)
{
    if (inside || !trl_engine_busy())
        return true;
    if (eng.threaded) {
        if (pthread_mutex_trylock(&eng.lock) != 0)
            return false; /* the progress thread is at it */
        holding = true;
    }
    bool moved = turn();
    trl_engine_unlock();
    return moved;
}

void trl_engine_progress(void)
{
    progress();
}

void trl_engine_poll(void)
{
    if (!progress() && atomic_load_explicit(&eng.share_cores, memory_order_relaxed))
        sched_yield(); /* ranks share cores: let the peer run */
}

/* trl_op_wait's idle polls between two turns of the library's progress. */
enum { WAIT_MPI_EVERY = 64 };

void trl_op_wait(trl_op *op)
{
    if (op->running && atomic_load_explicit(&eng.running, memory_order_relaxed) == 1 && !inside) {
        /* The only op in flight: wait in the executor's own loop, as the
         * blocking call does (fewer steps a poll than a turn of the
         * engine, and the same spin-then-sleep on shared memory). */
        run_out(op);
        return;
    }
    /* Turning the engine is all a wait needs: each turn advances every op
     * and polls the library where an op has MPI requests out; between two
     * looks at shared memory the cost is a doorbell read, so a message is
     * seen as soon as a blocking collective would see it. */
    for (unsigned long idle = 0; op->running;) {
        size_t before = op->x.done;
        trl_engine_poll();
        if (!op->running || op->x.done != before) {
            idle = 0;
            continue;
        }
        if (++idle % WAIT_MPI_EVERY == 0) {
            /* The program's own operations move only while the library
             * runs (an Isend whose receiver waits for this collective). */
            int any;
            PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, op->c->dup, &any, MPI_STATUS_IGNORE);
        }
    }
}

void trl_engine_settle(const trl_comm *c)
{
    for (;;) {
        trl_engine_lock();
        trl_op *left = NULL;
        for (trl_op *op = eng.head; op && !left; op = op->next)
            if (op->c == c)
                left = op;
        trl_engine_unlock();
        if (!left)
            return;
        if (eng.threaded)
            trl_engine_poll(); /* the progress thread runs it */
        else
            trl_op_wait(left);
    }
}

void trl_engine_comm_freed(trl_comm *c)
{
    trl_engine_settle(c);
    trl_shm_detach(&c->shm);
    trl_engine_lock(); /* a progress thread may release c's ops meanwhile */
    trl_comm_release(c);
    trl_engine_unlock();
}

/* ---- requests ---- */

static int query_fn(void *extra, MPI_Status *status)
{
    trl_op *op = extra;
    /* What the MPI library's own collectives leave in a status. */
    memset(status, 0, sizeof *status);
    status->MPI_ERROR = op->rc;
    PMPI_Status_set_elements(status, MPI_BYTE, 0);
    PMPI_Status_set_cancelled(status, 0);
    return op->rc;
}

/* The MPI library calls this where the request's last reference goes:
 * in the program's free or completion call, or, where the program freed
 * the request first (it saw it complete before the completion returned),
 * inside PMPI_Grequest_complete, which finish() calls under the lock: then
 * this thread holds it already. */
static int free_fn(void *extra)
{
    if (trl_left_freeing())
        return MPI_SUCCESS; /* a retired request: its op went already */
    bool held = holding;
    if (!held)
        trl_engine_lock();
    eng.in_free_fn = true;
    trl_holds_inside_library(true);
    release(extra);
    trl_holds_inside_library(false);
    eng.in_free_fn = false;
    if (!held)
        trl_engine_unlock();
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS; /* MPI_Cancel never gets here: see requests.c */
}

bool trl_op_retire(trl_op *op, MPI_Request *req)
{
    if (eng.threaded || op->persistent || op->running || !op->in_table || op->rc != MPI_SUCCESS)
        return false;
    trl_left_request(op->request);
    *req = MPI_REQUEST_NULL;
    /* The op goes now, as at the end of a wait in the library: with it its
     * hold on the communicator, whose freeing is collective. */
    release(op);
    return true;
}

int trl_op_submit(const trl_mode *mode, trl_comm *c, MPI_Comm comm, const trl_cache_entry *e,
                  const void *sendbuf, void *recvbuf, MPI_Datatype dtype, MPI_Op mpi_op,
                  const trl_op_hooks *hooks, void *data)
{
    /* MPI matches persistent collectives by the order of their inits, not
     * of their starts (which may differ between ranks): each takes its tag
     * range here, once, from its own class of ranges (trl_tags_next); first
     * of all, so that every rank counts this init whatever fails below. */
    int tag_base = 0, tag_span = 0;
    if (mode->kind == TRL_MODE_PERSISTENT && e)
        trl_tags_next(&c->tags, e->call, e->tag_class, &tag_base, &tag_span);
    trl_engine_lock();
    trl_op *op = trl_op_pool_take();
    /* The holds under the lock too: free_fn on another of the program's
     * threads changes the same counts under it (release). */
    if (op && c)
        trl_comm_hold(c);
    if (op && e)
        op->entry = trl_cache_pin(e);
    trl_engine_unlock();
    if (!op) {
        trl_op tmp = {.hooks = *hooks, .data = data};
        if (hooks->release)
            hooks->release(&tmp);
        trl_op_plan_drop(mode);
        return MPI_ERR_NO_MEM;
    }
    op->c = c;
    op->comm = comm;
    if (e) {
        op->call = (trl_exec_call){sendbuf, recvbuf, dtype, mpi_op, c->dup, 0,
                                   0,       &c->shm, NULL,  NULL,   NULL};
        /* The program may free the datatype and the operation as soon as
         * this call returns (holds.h). */
        op->holds_type = trl_hold_type(dtype);
        op->holds_op = trl_hold_op(mpi_op);
    }
    op->hooks = *hooks;
    op->data = data;
    if (mode->plan)
        op->plan = *mode->plan;
    op->persistent = mode->kind == TRL_MODE_PERSISTENT;
    op->awaiting = !op->persistent && mode->plan;
    op->check = trl_check_on ? trl_check_op_new(comm) : NULL;
    if (op->persistent && e) {
        op->call.tag_base = tag_base;
        op->call.tag_span = tag_span;
    }
    int rc;
    trl_engine_lock();
    /* A persistent op's handle is a request of the MPI library's own that
     * it never runs: a receive from rank 0 of MPI_COMM_SELF, never started.
     * Not one from MPI_PROC_NULL: MPICH 4.0.2 hands such a request's memory,
     * once freed, to a later persistent collective of its own, which then
     * never completes. */
    static char none;
    /* A non-blocking op starts before its request is made: its first
     * messages are then on their way while the MPI library makes the
     * request, which for small messages is much of a call's cost. If it
     * finishes meanwhile, finish() leaves the request to be completed
     * here. */
    if (!op->persistent)
        begin(op);
    if (!trl_handles_reserve(&eng.table))
        rc = MPI_ERR_NO_MEM;
    else if (op->persistent)
        rc = PMPI_Recv_init(&none, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &op->request);
    else
        rc = PMPI_Grequest_start(query_fn, free_fn, cancel_fn, op, &op->request);
    if (rc == MPI_SUCCESS) {
        trl_handles_put(&eng.table, op->request, op);
        op->in_table = true;
        atomic_fetch_add(&eng.alive, 1);
        *mode->request = op->request;
        if (!op->persistent && !op->running)
            PMPI_Grequest_complete(op->request);
    } else {
        /* No request to hand out: the other ranks still need this rank's
         * part of a schedule already started. */
        run_out(op);
        release(op);
    }
    trl_engine_unlock();
    /* The requests of earlier ops, freed now that this op's first
     * messages are on their way, and the communicators, datatypes and
     * operations they kept. */
    trl_left_free_requests();
    let_go();
    trl_holds_flush();
    return rc;
}

int trl_op_start(trl_op *op)
{
    if (trl_op_running(op) || trl_op_finished(op))
        return MPI_ERR_REQUEST; /* started and not completed: erroneous */
    trl_engine_lock();
    int rc = begin(op);
    trl_engine_unlock();
    return rc;
}

bool trl_op_take(trl_op *op, int *rc)
{
    if (!trl_op_finished(op))
        return false;
    op->finished = false;
    *rc = op->rc;
    return true;
}

int trl_op_free(trl_op *op)
{
    if (trl_op_running(op) || trl_op_finished(op))
        return MPI_ERR_REQUEST; /* active: the MPI library refuses this too */
    trl_engine_lock();
    MPI_Request r = op->request;
    release(op);
    trl_engine_unlock();
    return PMPI_Request_free(&r);
}

/* ---- what progress.c drives the engine with ---- */

bool trl_engine_turn(void)
{
    return turn();
}

void trl_engine_sleep(void)
{
    pthread_cond_wait(&eng.wake, &eng.lock);
}

void trl_engine_wake(void)
{
    pthread_cond_signal(&eng.wake);
}

void trl_engine_set_threaded(bool on)
{
    eng.threaded = on;
}

void trl_engine_flush(void)
{
    trl_left_free_requests();
    trl_engine_lock();
    trl_left_free_comms(true);
    trl_engine_unlock();
}
