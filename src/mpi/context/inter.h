/* Intercommunicators (seed 003): Trellis' state of one. The collectives'
 * intercommunicator forms, which run on it, are the entry points' own
 * (entry/coll_forms.h).
 *
 * Set up once, collectively over both groups: a private intracommunicator
 * spanning both (PMPI_Intercomm_merge), its ordinary state (trl_comm_get:
 * private duplicate, shared memory, topology, cache of schedules), and
 * where each rank of either group sits in it (PMPI_Group_translate_ranks,
 * no communication). A call then runs an ordinary schedule over the merged
 * communicator (src/algo/inter/inter.h), through the same cache, executor
 * and non-blocking machinery as an intracommunicator's.
 *
 * When: in the constructors Trellis intercepts (MPI_Intercomm_create, and
 * MPI_Comm_dup, split, create of an intercommunicator: entry/comm_setup.c),
 * where every rank of both groups is anyway; otherwise at the first
 * blocking collective (an intercommunicator from MPI_Comm_spawn, accept,
 * connect or join, whose other side may not run Trellis at all: setting
 * it up there would make the constructor wait for a merge the other side
 * never calls). Until then non-blocking calls go to the MPI library. */
#ifndef TRL_MPI_INTER_H
#define TRL_MPI_INTER_H

#include <mpi.h>
#include <stdbool.h>

#include "algo/inter/inter.h"
#include "mpi/context/comm.h"

typedef struct {
    trl_comm *c;     /* the merged communicator's state; NULL: the MPI library
                         serves this intercommunicator (set up failed, or the
                         groups run with different rules) */
    MPI_Comm merged; /* private, both groups */
    trl_inter shape; /* the two groups in it */
    int group;       /* this rank's group in shape */
    int local_n, remote_n;
} trl_intercomm;

/* Set comm up if it is an intercommunicator Trellis has not set up yet
 * (collective over both groups; nothing for an intracommunicator). */
void trl_inter_setup(MPI_Comm comm);

/* The state for a call of this form: set up by a blocking call if needed;
 * NULL when comm is not an intercommunicator, or the MPI library must
 * serve it. */
trl_intercomm *trl_inter_for(MPI_Comm comm, trl_call_kind call);

/* The merged rank of a rooted call's root as this rank names it (root,
 * MPI_ROOT or MPI_PROC_NULL): -1 for MPI_PROC_NULL (this rank takes no
 * part), -2 for a root MPI rejects, or for a non-blocking or persistent
 * call the MPI library must serve on every rank: its own such calls take a
 * tag from a sequence per communicator on every rank, those passing
 * MPI_PROC_NULL included, which cannot know the call's size. So Trellis
 * serves such a call only when its rules give it Trellis at every size
 * (and, for a reduce, with either kind of operation), and all ranks agree
 * without a word. */
int trl_inter_root(trl_intercomm *ic, int root, trl_coll coll, trl_call_kind call);

/* Called from MPI_Finalize. */
void trl_inter_finalize(void);

#endif
