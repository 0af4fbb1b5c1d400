/* Trellis' state of each intracommunicator, and the registry that finds
 * it: a private duplicate, the layout of its ranks, shared memory, its tag
 * ranges and its cache of schedules, kept as an attribute of the
 * communicator and freed with it. (An intercommunicator's state is the
 * state of a merged intracommunicator: inter.h.) */
#ifndef TRL_MPI_COMM_H
#define TRL_MPI_COMM_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "algo/algo.h"
#include "algo/nbhd.h"
#include "exec/exec_mpi.h"
#include "mpi/context/cache.h"
#include "mpi/context/tags.h"
#include "topo/topo.h"

/* A uniform data-movement call (gather, scatter, allgather, alltoall,
 * neighbor_allgather, neighbor_alltoall) as its program passed it:
 * everything its entry point checks and works out before the lookup
 * follows from these (and, for the neighbourhood ones, from the
 * communicator's neighbourhood, fixed for its life). */
typedef struct {
    int root, send_count, recv_count;
    MPI_Datatype send_type, recv_type;
    bool send_in_place, recv_in_place; /* the buffer passed was MPI_IN_PLACE */
    trl_call_kind call;
} trl_move_key;

/* The last such call of one collective that ran on the user's buffers as
 * they are (predefined contiguous types, nothing staged): a repeat runs
 * its entry at once (entry/coll_common.h, trl_move_repeat). */
typedef struct {
    trl_move_key key;
    const trl_cache_entry *e; /* NULL: none remembered yet */
    unsigned gen;             /* the cache's generation when e was found */
    bool send_used, recv_used;
} trl_move_memo;

typedef struct {
    MPI_Comm dup; /* collective traffic only; never matches user messages */
    int rank, size;
    trl_tags tags;
    /* The attribute and every op alive hold one: a communicator freed while
     * a persistent request on it lives goes when that request goes. */
    int refs;
    trl_cache cache;
    /* The schedules non-blocking neighbourhood v and w calls planned from
     * their host's block sizes (entry/neighbor_sizes.c), kept apart from
     * cache: only the engine uses them (under its lock when a progress
     * thread runs), and it may take a plan inside a blocking call whose
     * cached entry a claim on cache would evict. Made on first use. */
    trl_cache planned;
    trl_move_memo move_memo[TRL_COLL_COUNT];
    trl_exec_mem mem;
    trl_shm shm; /* small messages among this node's ranks */
    /* Per-call working space of the v-variants: 6 arrays of size entries
     * (counts, displacements), allocated on first use. */
    size_t *vec;
    /* trl_comm_choose's answers for collectives without a size, per form
     * of call (trl_call_kind). */
    const trl_algo *choice[TRL_COLL_COUNT][TRL_CALL_PERSISTENT + 1];
    const trl_params *choice_params[TRL_COLL_COUNT][TRL_CALL_PERSISTENT + 1];
    /* trl_comm_sizeless's answers + 1 (0: not asked yet), per form of call
     * and commutativity. */
    signed char sizeless[TRL_COLL_COUNT][TRL_CALL_PERSISTENT + 1][2];
    /* trl_rules_gen when move_memo, choice and sizeless were last known to
     * answer for the rules in force (schedule.h, trl_comm_sync_rules). */
    unsigned rules_gen;
    trl_topo topo; /* where each rank sits: from WORLD's, no communication */
    /* A Cartesian or graph communicator's neighbourhood, every rank's,
     * read once when the state is made (nbhd_mpi.h); nbhd.size 0: none
     * (no topology, or it could not be read: the MPI library serves the
     * neighbourhood collectives). nbvec: 4 arrays of the larger degree
     * (the neighbourhood calls' byte counts and displacements). */
    trl_nbhd nbhd;
    size_t *nbvec;
    /* A blocking neighbourhood v or w call's exchange of block sizes
     * (entry/neighbor_sizes.c), kept for the call it last ran for (its
     * entry's vec says which): its schedule, NULL until made. */
    struct {
        trl_cache_entry *entry;
    } sizes_run;
    /* The same on every rank of the communicator, different for every
     * communicator: rank 0's world rank and its count of communicators
     * set up (engine/trace.c names calls with it and traced_calls). */
    int64_t trace_id;
    uint32_t traced_calls;
    /* A helper's trace record for the call it runs ahead of (trace.h):
     * set and taken within that call. */
    struct trl_trace_call *trace_prefix;
} trl_comm;

/* Open the registry (MPI_Init, once the rules are loaded: collectives are
 * served from then on): world is MPI_COMM_WORLD's layout (taken over),
 * cache_cap the entries of each communicator's cache. false when the MPI
 * library cannot keep attributes (Trellis is then off). */
bool trl_comm_registry_open(trl_topo *world, int cache_cap);
/* Close it (MPI_Finalize, while the MPI library still runs): the states of
 * the predefined communicators go, and no thread finds any state after. */
void trl_comm_registry_close(void);

/* Whether Trellis serves collectives (the registry is open). */
bool trl_runtime_ready(void);

/* MPI_COMM_WORLD's layout: described (TRELLIS_TOPOLOGY) or discovered. */
const trl_topo *trl_comm_world_topo(void);

/* What happens when the program frees a communicator whose state exists
 * (its attribute is deleted, on every rank at the same point among its
 * collectives): by default its shared memory is detached and the
 * attribute's hold let go of; the engine sets its own (engine.h), which
 * first finishes the ops still running on it. */
typedef void trl_comm_freed_fn(trl_comm *c);
void trl_comm_on_free(trl_comm_freed_fn *fn);

/* The state of an intracommunicator, created on first use (collective
 * over comm); NULL for intercommunicators and when Trellis is off. */
trl_comm *trl_comm_get(MPI_Comm comm);
/* The same without creating it (a non-blocking call must not wait for
 * other ranks): NULL where it does not exist yet. */
trl_comm *trl_comm_find(MPI_Comm comm);
/* Verbose mode's note, once, that comm had no state for a call that may
 * not create it. */
void trl_not_set_up(MPI_Comm comm);

/* Hold c for an op; let go of it (freed at the last). */
void trl_comm_hold(trl_comm *c);
void trl_comm_release(trl_comm *c);

/* c->vec, grown to hold 6 arrays of c->size entries; NULL if out of memory. */
size_t *trl_comm_vec(trl_comm *c);

#endif
