/* The communicators this thread called collectives on last, each with
 * Trellis' state of it: a trl_comm for an intracommunicator, a
 * trl_intercomm for an intercommunicator.
 *
 * Why: programs call collectives on a few communicators over and over, and
 * the MPI library's attribute lookup that finds the state otherwise costs
 * more than the rest of a small call's set-up; after a large message has
 * swept the caches it costs tens of cache misses a call
 * (docs/notebook/call-path.md, "What a call costs with cold caches"). */
#ifndef TRL_MPI_RECENT_H
#define TRL_MPI_RECENT_H

#include <mpi.h>
#include <stdbool.h>

typedef enum { TRL_RECENT_INTRA, TRL_RECENT_INTER } trl_recent_kind;

/* comm's state if this thread looked it up lately and it is of `kind`;
 * NULL otherwise, with *other_kind true when comm is known to be of the
 * other kind. */
void *trl_recent_find(MPI_Comm comm, trl_recent_kind kind, bool *other_kind);

/* Remembers comm's state (not NULL), replacing the oldest entry. */
void trl_recent_add(MPI_Comm comm, trl_recent_kind kind, void *state);

/* A communicator's state is going: empties every thread's entries, since a
 * freed handle may come back as another communicator. */
void trl_recent_forget_all(void);

#endif
