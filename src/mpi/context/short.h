/* Out of memory on this rank in a collective Trellis was to serve.
 *
 * Sending the call to the MPI library instead, as a choice of the rules
 * does on every rank alike, is no way out here: the other ranks run
 * Trellis' schedule and would wait for this one for ever. So a site that
 * runs out where it would otherwise leave the call to the library marks
 * it with trl_short_of_memory, and the entry point (entries.c) reports
 * MPI_ERR_NO_MEM through the communicator's error handler instead: the job
 * ends under the default handler (MPI_ERRORS_ARE_FATAL), and under
 * MPI_ERRORS_RETURN the program gets the error, as the MPI standard
 * leaves it after an error. */
#ifndef TRL_MPI_SHORT_H
#define TRL_MPI_SHORT_H

/* What ran out in this thread's current call (a few words), or NULL. Set
 * and read on every call: initial-exec, one load, no lookup of the
 * library's TLS block. */
#define TRL_SHORT_TLS __thread __attribute__((tls_model("initial-exec")))
extern TRL_SHORT_TLS const char *trl_memory_short;

/* Marks the current call short of memory for `what`. */
static inline void trl_short_of_memory(const char *what)
{
    trl_memory_short = what;
}

#endif
