/* The run-time tracer: TRELLIS_TRACE=DIR records, for the blocking
 * collectives Trellis serves, every step's ready, posted and done times
 * with the call's collective, bytes, algorithm and rule, and writes them at
 * MPI_Finalize as DIR/rank-NNNNN.jsonl in the timeline format
 * (docs/trace-format.md) that `trellis trace DIR` reads.
 *
 * Off (the default) it costs one predictable branch per call and per step.
 * Memory is bounded: the last TRELLIS_TRACE_CALLS calls (default 1000) per
 * rank are kept, and a call of more than TRELLIS_TRACE_STEPS steps
 * (default 1,000,000; a helper's ahead of its schedule's counted in) keeps
 * its call record only.
 */
#ifndef TRL_TRACE_H
#define TRL_TRACE_H

#include <stdbool.h>

#include "exec/exec_mpi.h"
#include "mpi/context/comm.h"

/* Whether TRELLIS_TRACE is set (read once, at trl_trace_init). */
extern bool trl_trace_on;
/* What the call path tests: constant false in a build without the tracer's
 * hooks (cmake -DTRELLIS_TRACING=OFF), which exists to measure them. */
#ifdef TRL_NO_TRACE
#define TRL_TRACING false
#else
#define TRL_TRACING trl_trace_on
#endif

/* After the runtime is up (collective over MPI_COMM_WORLD when tracing):
 * estimates every rank's clock offset to rank 0. world: WORLD's layout. */
void trl_trace_init(const trl_topo *world);

/* Before the runtime stops (collective over MPI_COMM_WORLD when tracing):
 * checks the clocks again and writes this rank's file. */
void trl_trace_finalize(void);

/* A traced call starts: its record, with *out set to the executor's step
 * times (NULL when the call is not traced: no memory, too many steps). */
typedef struct trl_trace_call trl_trace_call;
trl_trace_call *trl_trace_begin(const trl_cache_entry *e, trl_comm *c, trl_exec_trace **out);

/* ... and ends (after the executor finished, whatever its outcome). */
void trl_trace_end(trl_trace_call *t);

/* A helper schedule run on c just before a call's own, as part of that
 * call (trl_run_helper: a blocking v or w neighbourhood call's block sizes
 * under locality, and the blocks sent with them): its steps open the
 * record of c's next traced call, ahead of the call's schedule's, and its
 * start is the call's. Begun and ended as a call is, then parked on c; the
 * caller lets go of it once the call ran (trl_trace_prefix_drop), so that
 * a call that did not take it (an error between, the MPI library served
 * it) leaves nothing for the next. */
trl_trace_call *trl_trace_prefix_begin(const trl_cache_entry *e, trl_comm *c, trl_exec_trace **out);
void trl_trace_prefix_end(trl_trace_call *t, trl_comm *c);
void trl_trace_prefix_drop(trl_comm *c);

#endif
