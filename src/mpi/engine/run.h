/* Running a cached schedule on a communicator's private duplicate, in
 * whichever form the program called: now (blocking), or as an op in flight
 * whose request goes to the program (engine.h). */
#ifndef TRL_MPI_RUN_H
#define TRL_MPI_RUN_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi/context/comm.h"
#include "mpi/engine/engine.h"

/* How MPI_X calls: blocking. MPI_IX and MPI_X_init pass their own mode. */
extern const trl_mode trl_blocking;

/* Report an error as the MPI library's own calls do: through comm's error
 * handler, then returned (MPI_Comm_call_errhandler itself returns
 * MPI_SUCCESS once a handler such as MPI_ERRORS_RETURN returns). */
int trl_error(MPI_Comm comm, int rc);

/* Run a cached schedule on c's private duplicate as the mode says: now
 * (blocking), or as an op in flight whose request goes to the program
 * (engine.h). An error goes through the user's communicator's error
 * handler, as the MPI library's own collective would. */
int trl_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
            void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_mode *mode);

/* The same with hooks around each run (engine.h): before packs, after
 * unpacks and returns the result, release frees data (hooks never call an
 * error handler: the caller reports the result). */
int trl_run_hooked(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
                   void *recvbuf, MPI_Datatype dtype, MPI_Op op, const trl_op_hooks *hooks,
                   void *data, const trl_mode *mode);

/* Run e's schedule, one of Trellis' own that is no collective of the
 * program's (a neighbourhood call's block sizes: entry/neighbor_sizes.c),
 * now, as a blocking call's is run: the next blocking tag range of c, the
 * executor's shared memory and waits; as an op under a progress thread
 * (which pins e while it runs). Over bytes (MPI_BYTE). Traced (not
 * under a progress thread, as blocking calls are not) as the first steps
 * of the call that follows on c (trl_trace_prefix_begin). aux: the
 * schedule's TRL_BUF_AUX (sched.h), or NULL. Errors returned, not
 * reported. */
int trl_run_helper(const trl_cache_entry *e, trl_comm *c, const void *sendbuf, void *recvbuf,
                   void *aux);

/* TRELLIS_CHECK's words between two ranks of a node (engine/check.h,
 * entry/entries.c): posted before a blocking call, taken after it (or
 * while it waits). Post: one message to the peer through shared memory,
 * under a tag no schedule uses; *served false where that cannot be (c not
 * of 2 ranks that share memory, or a progress thread owning the engine),
 * the same on both ranks. Take: the peer's, *done once there; with wait,
 * waits for it. */
int trl_run_words_post(trl_comm *c, const int64_t mine[2], bool *served);
int trl_run_words_take(trl_comm *c, int64_t theirs[2], bool wait, bool *done);

/* A call with nothing to move: MPI_SUCCESS, or a request that completes
 * at once (at every start, if persistent). */
int trl_nothing(MPI_Comm comm, const trl_mode *mode);

#endif
