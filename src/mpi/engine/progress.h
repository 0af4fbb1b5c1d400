/* Starting and stopping the engine (engine.h), and its progress thread:
 * what drives the ops in flight besides the calls that turn the engine
 * themselves. */
#ifndef TRL_MPI_PROGRESS_H
#define TRL_MPI_PROGRESS_H

/* Start the engine (from MPI_Init, after the context): the progress hook,
 * and the thread where TRELLIS_PROGRESS=thread and MPI_THREAD_MULTIPLE
 * allow it. provided: the thread level MPI gave. */
void trl_engine_init(int provided);
/* Stop it (from MPI_Finalize): finishes nothing; ops left running are the
 * program's error, as with the MPI library. */
void trl_engine_finalize(void);

#endif
