/* State of the library inside one MPI process: the rules, and per
 * communicator the private duplicate and the cache of schedules. */
#ifndef TRL_RUNTIME_H
#define TRL_RUNTIME_H

#include <mpi.h>
#include <stdbool.h>

#include "algo/algo.h"
#include "exec/exec_mpi.h"
#include "select/rules.h"
#include "topo/topo.h"

/* One cached choice and schedule. The key holds everything the schedule
 * depends on; datatypes and ops are passed at run time, so handles are not
 * part of it (a freed and reused handle cannot alias a stale entry). */
typedef struct {
    trl_coll coll;
    int root;
    size_t count, elem_size;
    bool commutative, in_place;
    trl_call_kind call; /* the rules may choose differently by kind */
    bool valid;
    bool transient; /* built outside the cache (every entry was pinned):
                       freed when its last user unpins it */
    int pins;       /* users running it: never evicted while > 0 */
    size_t *vec, nvec; /* the v-variants' per-rank arrays, back to back */
    const trl_algo *algo; /* NULL build: the MPI library's own */
    trl_sched sched;
} trl_cache_entry;

typedef struct {
    MPI_Comm dup; /* collective traffic only; never matches user messages */
    int rank, size;
    int tag_ub; /* the largest tag MPI allows */
    /* Tags: each run of a schedule on this communicator takes the next of
     * tag_slots ranges of tag_span tags (trl_comm_tags), so runs that
     * overlap (non-blocking calls, a blocking one among them) never match
     * each other's messages. MPI's rule that every rank starts the
     * collectives of a communicator in the same order keeps the ranks'
     * counts in step. */
    unsigned seq;
    int tag_slots, tag_span;
    /* The attribute and every op alive hold one: a communicator freed while
     * a persistent request on it lives goes when that request goes. */
    int refs;
    trl_cache_entry *cache;
    int cache_cap, cache_next, last_hit;
    trl_exec_mem mem;
    trl_shm shm; /* small messages among this node's ranks */
    /* Per-call working space of the v-variants: 6 arrays of size entries
     * (counts, displacements), allocated on first use. */
    size_t *vec;
    /* trl_comm_choose's answers for collectives without a size. */
    const trl_algo *choice[TRL_COLL_COUNT];
    trl_topo topo; /* where each rank sits: from WORLD's, no communication */
} trl_comm;

/* Called from MPI_Init/MPI_Init_thread after the MPI library started:
 * reads and checks the rules on every rank (collective over WORLD). On a
 * rules error with the default policy, reports it and exits the process. */
void trl_runtime_init(void);
/* Called from MPI_Finalize before the MPI library stops. */
void trl_runtime_finalize(void);

/* The state of an intracommunicator, created on first use (collective
 * over comm); NULL for intercommunicators and when Trellis is off. */
trl_comm *trl_comm_get(MPI_Comm comm);
/* The same without creating it (a non-blocking call must not wait for
 * other ranks): NULL where it does not exist yet. */
trl_comm *trl_comm_find(MPI_Comm comm);
/* Verbose mode's note, once, that comm had no state for a call that may
 * not create it. */
void trl_not_set_up(MPI_Comm comm);

/* The cache entry for a call, selecting and building on a miss. a->rank
 * and a->size are filled in here; the per-rank arrays a->counts etc. are
 * part of the key where given (each c->size long). NULL when the call must
 * go to the MPI library (with the reason printed in verbose mode). */
const trl_cache_entry *trl_comm_lookup(trl_comm *c, trl_coll_args *a);

/* Only the choice for a call (with verbose mode's report), for gatherv and
 * scatterv, whose callers must exchange counts first when the algorithm
 * needs every rank's. NULL when nothing can be chosen. */
const trl_algo *trl_comm_choose(trl_comm *c, trl_coll_args *a);

/* Hold c for an op; let go of it (freed at the last). */
void trl_comm_hold(trl_comm *c);
void trl_comm_release(trl_comm *c);

/* The tag range of the next run of a schedule on c. */
void trl_comm_tags(trl_comm *c, int *base, int *span);

/* Keep e from eviction while it runs; unpin when done (a transient entry
 * is then freed). */
trl_cache_entry *trl_cache_pin(trl_comm *c, const trl_cache_entry *e);
void trl_cache_unpin(trl_comm *c, trl_cache_entry *e);

/* c->vec, grown to hold 6 arrays of c->size entries; NULL if out of memory. */
size_t *trl_comm_vec(trl_comm *c);

#endif
