/* Collectives in flight: non-blocking (MPI_Ixxx) and persistent
 * (MPI_Xxx_init / MPIX_Xxx_init + MPI_Start) calls, and the progress engine
 * that advances them (docs/design.md, "Non-blocking and persistent
 * collectives").
 *
 * An op is one call: a pinned cached schedule, an execution of it with its
 * own working memory, the buffers it runs over, and what to do before it
 * starts and after it finished (pack and unpack staged data). The program
 * holds a request for it:
 *   - non-blocking: a generalized request (MPI_Grequest_start), which the
 *     engine completes when the schedule finishes; MPI_Wait and friends
 *     then treat it as any request of the MPI library's;
 *   - persistent: an inactive persistent request of the MPI library's own
 *     (a receive from MPI_PROC_NULL, never started by the library) stands
 *     for it, and Trellis' MPI_Start and completion calls recognise it.
 * Every op in flight advances whenever the engine runs: inside every
 * completion call and every Trellis collective, in the MPI library's own
 * progress loop where it offers a hook (Open MPI), and in a progress
 * thread with TRELLIS_PROGRESS=thread.
 */
#ifndef TRL_ENGINE_H
#define TRL_ENGINE_H

#include <mpi.h>
#include <stdbool.h>

#include "mpi/context/comm.h"
#include "mpi/engine/mode.h"
#include "mpi/engine/op.h"
#include "mpi/engine/op_plan.h"

/* Advance every op in flight once. Safe to call from anywhere, any number
 * of times: it does nothing while already running on this thread. */
void trl_engine_progress(void);

/* trl_engine_progress for the completion calls, which programs (and
 * Trellis) call in loops: when no step moved and the ranks share cores, it
 * yields the core as Open MPI's own progress does (mpi_yield_when_idle),
 * so a rank polling for a message does not hold off the rank that sends it. */
void trl_engine_poll(void);

/* Whether any op is in flight (cheap: a counter). */
bool trl_engine_busy(void);

/* Serve a call that is not blocking: make an op over the cached entry e
 * (NULL: nothing to move, every run finishes at once; c may then be NULL)
 * and the given buffers, hand it the hooks (with data, which it then owns:
 * release is called when it goes), and either start it and return a
 * generalized request (non-blocking) or return a persistent handle
 * (persistent). A non-blocking call with a plan (mode->plan) runs no
 * schedule until its plan's messages are in, then the planned one (e where
 * the plan gives the MPI library's own); its tags are taken at the call.
 * On failure, nothing is left behind (release was called). Returns an MPI
 * error code. */
int trl_op_submit(const trl_mode *mode, trl_comm *c, MPI_Comm comm, const trl_cache_entry *e,
                  const void *sendbuf, void *recvbuf, MPI_Datatype dtype, MPI_Op op,
                  const trl_op_hooks *hooks, void *data);


/* What the engine does when the program frees c (comm.h,
 * trl_comm_on_free): the ops still running on c run to their end
 * (trl_engine_settle), its shared memory is detached, and the attribute's
 * hold on c is let go of under the engine's lock. */
void trl_engine_comm_freed(trl_comm *c);

/* The program frees c (MPI_Comm_free, which every rank of c calls at the
 * same point among c's collectives): every op still running on c runs to its
 * end here, so that what is left of c on this rank is of no use to the
 * other ranks any more and its collective parts can go now (the caller
 * detaches the shared memory) instead of at the last op's end, which
 * comes at different calls on different ranks. */
void trl_engine_settle(const trl_comm *c);

/* The op a handle stands for (non-blocking or persistent), or NULL. */
trl_op *trl_op_of(MPI_Request request);

/* Advance every op in flight until op finishes, as a blocking collective
 * waits. Only without a progress thread (which owns the engine then). */
void trl_op_wait(trl_op *op);

/* The end of MPI_Wait on a non-blocking op that finished without error,
 * where the program ignores the status: the op goes and *req becomes
 * MPI_REQUEST_NULL now, as the library would leave it, but the finished
 * generalized request is freed in the library later (after the next op's
 * first messages left, or in MPI_Finalize), off the path between one
 * collective and the next. Returns false where it does not apply (the
 * caller then lets the library complete the request). Not with a progress
 * thread. */
bool trl_op_retire(trl_op *op, MPI_Request *req);

/* Persistent requests: start; whether it finished (then it becomes
 * inactive: *rc is its result); free an inactive one. */
int trl_op_start(trl_op *op);
bool trl_op_take(trl_op *op, int *rc);
int trl_op_free(trl_op *op);

/* Whether any Trellis request exists (cheap). */
bool trl_ops_alive(void);

/* The engine's lock, for callers that run schedules outside it while a
 * progress thread may run (blocking collectives with TRELLIS_PROGRESS=
 * thread). */
void trl_engine_lock(void);
void trl_engine_unlock(void);
bool trl_engine_threaded(void);

/* What progress.c starts, stops and drives the engine with. */
/* How many ops are in flight (cheap: a counter). */
int trl_engine_running(void);
/* With the lock held: advance every op in flight once; whether a step
 * finished. */
bool trl_engine_turn(void);
/* With the lock held: wait until an op starts or trl_engine_wake. */
void trl_engine_sleep(void);
void trl_engine_wake(void);
/* From now on the lock is taken (on: a progress thread runs), or not. */
void trl_engine_set_threaded(bool on);
/* At MPI_Finalize: free the requests and communicators that finished ops
 * left (first; the ops kept for reuse last: op_pool.h). */
void trl_engine_flush(void);

#endif
