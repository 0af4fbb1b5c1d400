/* Runs one rank's schedule over MPI point-to-point on a private
 * communicator, starting each step as soon as its dependencies are done.
 *
 * An execution is a state machine: trl_exec_start resolves the buffers and
 * starts the steps that are ready, trl_exec_progress advances it without
 * blocking (what a non-blocking collective's progress engine calls), and
 * trl_exec_finish runs it to the end (a blocking collective). Each step
 * costs a constant amount of work however many steps the schedule has:
 * ready steps wait in FIFO queues, and at most `window` of them are in
 * flight at a time, so completions are found by testing a bounded set of
 * requests (docs/design.md, "The executor").
 */
#ifndef TRL_EXEC_MPI_H
#define TRL_EXEC_MPI_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "core/clock.h"
#include "exec/exec_mem.h"
#include "exec/shm.h"
#include "sched/sched.h"

/* A traced execution's record (src/mpi/engine/trace.c): per step, when it became
 * ready, was started and completed (trl_now_ns), and which step's
 * completion made it ready (-1: none, ready at the start). */
typedef struct {
    int64_t *t; /* 3 per step: ready, posted, done; 0 until then */
    int32_t *after;
} trl_exec_trace;

typedef struct {
    const void *sendbuf; /* already resolved for MPI_IN_PLACE */
    void *recvbuf;
    MPI_Datatype dtype;
    MPI_Op op;
    MPI_Comm comm; /* the private duplicate */
    /* Schedule tags become MPI tags tag_base + tag % tag_span: executions
     * that may overlap on one communicator get disjoint ranges. */
    int tag_base, tag_span;
    trl_shm *shm; /* small messages within the node; NULL: all through MPI */
    /* Called while waiting with nothing moved, when set: other work that
     * must advance meanwhile (collectives in flight); the executor then
     * never blocks inside MPI. */
    void (*idle)(void);
    trl_exec_trace *trace; /* NULL: not traced (the usual case: one test per step) */
    void *aux;             /* TRL_BUF_AUX (sched.h); NULL where the schedule has none */
} trl_exec_call;

typedef struct {
    const trl_sched *s;
    trl_exec_call call;
    trl_exec_mem *m;
    char *base[TRL_BUF_KINDS]; /* SEND, RECV, SCRATCH, AUX resolved */
    MPI_Aint extent;
    int type_size;
    bool contiguous;
    size_t done;                 /* steps finished */
    size_t recv_head, recv_tail; /* recv_q[head..tail) */
    size_t other_head, other_tail;
    size_t nreqs, nshm;      /* in flight: MPI requests, shared-memory steps */
    size_t nshm_send;        /* ... of which sends waiting for a slot */
    size_t in_recv, in_send; /* in flight, by kind */
    size_t window;           /* bound on each of in_recv and in_send (grows
                                    on a stall) */
    /* Flow control for long schedules (0: off): every flow-th MPI send to
     * a peer is synchronous, and a send may start only while fewer than
     * `credit` of the messages before it to that peer are unmatched. Eager
     * sends otherwise finish at once, and a sender running thousands of
     * messages ahead swamps the MPI library's queues, whose cost grows
     * with their length. credit: how many may be unmatched (2 x flow,
     * doubled on each stall). */
    int flow, credit;
    unsigned long idle;       /* polls since the last step finished */
    double stall_since;       /* when a stall was first seen (0: none) */
    unsigned long stall_idle; /* idle then: a smaller idle is a new stall */
    uint32_t bell;            /* shared memory's doorbell at the last look */
    bool bell_seen;           /* ... and whether there was one */
    int status;               /* first error, sticky */
} trl_exec;

/* In-flight steps per execution to begin with (TRELLIS_EXEC_WINDOW). */
size_t trl_exec_window(void);

/* Resolve the buffers and start what is ready. m is this execution's
 * memory, which it may not share with another running one. Returns an MPI
 * error code. */
int trl_exec_start(trl_exec *x, const trl_sched *s, const trl_exec_call *call, trl_exec_mem *m);

/* Advance without blocking; *finished true once every step is done.
 * Returns an MPI error code (the execution is then abandoned: see
 * trl_exec_cancel). */
int trl_exec_progress(trl_exec *x, bool *finished);

/* Run to the end, waiting as a blocking collective does. */
int trl_exec_finish(trl_exec *x);

/* After an error: cancel and complete whatever is still in flight. */
void trl_exec_cancel(trl_exec *x);

/* Start and finish: one blocking run. */
int trl_exec_mpi(const trl_sched *s, const trl_exec_call *call, trl_exec_mem *m);

#endif
