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
    unsigned rules;     /* the rules it was chosen by (trellis_set_rules) */
    bool valid;
    /* Which counter of tag ranges its runs take (trl_comm_tags): 0, or for
     * an intercommunicator's rooted call 1 + the root's merged rank. */
    int tag_class;
    bool transient; /* built outside the cache (every entry was pinned):
                       freed when its last user unpins it */
    int pins;       /* users running it: never evicted while > 0 */
    size_t *vec, nvec; /* the v-variants' per-rank arrays, back to back */
    const trl_algo *algo; /* NULL build: the MPI library's own */
    trl_sched sched;
    /* For the tracer (trace.c): what the rules saw, and the rule that chose. */
    size_t rule_bytes;
    const trl_rule *rule;
} trl_cache_entry;

/* A uniform data-movement call (gather, scatter, allgather, alltoall) as
 * its program passed it: everything its entry point checks and works out
 * before the lookup follows from these. */
typedef struct {
    int root, send_count, recv_count;
    MPI_Datatype send_type, recv_type;
    bool send_in_place, recv_in_place; /* the buffer passed was MPI_IN_PLACE */
    trl_call_kind call;
} trl_move_key;

/* The last such call of one collective that ran on the user's buffers as
 * they are (predefined contiguous types, nothing staged): a repeat runs
 * its entry at once (coll_common.h, trl_move_repeat). */
typedef struct {
    trl_move_key key;
    const trl_cache_entry *e; /* NULL: none remembered yet */
    unsigned gen;             /* the cache's generation when e was found */
    bool send_used, recv_used;
} trl_move_memo;

typedef struct {
    MPI_Comm dup; /* collective traffic only; never matches user messages */
    int rank, size;
    int tag_ub; /* the largest tag MPI allows */
    /* Tags: each run of a schedule on this communicator takes the next of
     * tag_slots ranges of tag_span tags (trl_comm_tags), so runs that
     * overlap (non-blocking calls, a blocking one among them) never match
     * each other's messages. MPI's rule that every rank starts the
     * collectives of a communicator in the same order keeps the ranks'
     * counts in step. Blocking, non-blocking and persistent calls count
     * apart, each in its own share of the ranges, as the MPI libraries
     * keep them apart (a program that calls a blocking and a non-blocking
     * collective in different orders on different ranks still runs); a
     * persistent call takes its range once, at its init (MPI matches
     * persistent calls by the order of their inits). */
    unsigned seq[TRL_CALL_PERSISTENT + 1];
    int tag_slots, tag_span;
    int tag_per_group; /* ranges each counter cycles through; 0: counters
                          share the ranges (more counters than ranges) */
    /* An intercommunicator's merged communicator counts runs per class
     * (trl_comm_tag_classes): the ranks of the root's group other than the
     * root take no part in a rooted call, so one counter for all calls
     * would fall out of step between them and the others; each root's
     * calls count apart, among the ranks that take part in them (and per
     * form of call: nclasses x 3 counters). NULL: one class, seq. */
    unsigned *class_seq;
    int nclasses;
    /* The attribute and every op alive hold one: a communicator freed while
     * a persistent request on it lives goes when that request goes. */
    int refs;
    trl_cache_entry *cache;
    int cache_cap, cache_next, last_hit;
    unsigned cache_gen; /* moves on whenever an entry is replaced */
    trl_move_memo move_memo[TRL_COLL_COUNT];
    trl_exec_mem mem;
    trl_shm shm; /* small messages among this node's ranks */
    /* Per-call working space of the v-variants: 6 arrays of size entries
     * (counts, displacements), allocated on first use. */
    size_t *vec;
    /* trl_comm_choose's answers for collectives without a size, per form
     * of call (trl_call_kind). */
    const trl_algo *choice[TRL_COLL_COUNT][TRL_CALL_PERSISTENT + 1];
    /* trl_comm_sizeless's answers + 1 (0: not asked yet), per form of call
     * and commutativity. */
    signed char sizeless[TRL_COLL_COUNT][TRL_CALL_PERSISTENT + 1][2];
    /* trl_rules_gen when move_memo, choice and sizeless were last known to
     * answer for the rules in force (trl_comm_sync_rules). */
    unsigned rules_gen;
    trl_topo topo; /* where each rank sits: from WORLD's, no communication */
    /* The same on every rank of the communicator, different for every
     * communicator: rank 0's world rank and its count of communicators
     * set up (trace.c names calls with it and traced_calls). */
    int64_t trace_id;
    uint32_t traced_calls;
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
 * part of the key where given (each c->size long; for alltoallv and
 * alltoallw a->counts is the c->size x c->size matrix of send counts).
 * NULL when the call must go to the MPI library (with the reason printed
 * in verbose mode). */
const trl_cache_entry *trl_comm_lookup(trl_comm *c, trl_coll_args *a);

/* Only the choice for a call (with verbose mode's report), for gatherv,
 * scatterv, alltoallv and alltoallw, whose callers must exchange counts
 * first when the algorithm needs every rank's. NULL when nothing can be
 * chosen. */
const trl_algo *trl_comm_choose(trl_comm *c, trl_coll_args *a);

/* Whether the rules give the call one of Trellis' algorithms whatever its
 * size (select/rules.h), for this communicator; asked once per collective,
 * form of call and commutativity. */
trl_sizeless trl_comm_sizeless(trl_comm *c, trl_coll_args *a);

/* Hold c for an op; let go of it (freed at the last). */
void trl_comm_hold(trl_comm *c);
void trl_comm_release(trl_comm *c);

/* The tag range of the next run of e on c (of a persistent e: of its
 * init). */
void trl_comm_tags(trl_comm *c, const trl_cache_entry *e, int *base, int *span);

/* Count runs in n classes (an intercommunicator's merged communicator:
 * 1 + its size), each with its own share of the tag ranges; the ranges
 * shrink where the classes would otherwise get fewer than 16 each. false
 * when out of memory (c unchanged). */
bool trl_comm_tag_classes(trl_comm *c, int n);

/* Whether Trellis serves collectives (the rules and the topology loaded). */
bool trl_runtime_ready(void);

/* A hash of the user's rules text, the same on every rank of one job (the
 * runtime checked it): intercommunicators joining two jobs compare it. */
unsigned long long trl_rules_hash(void);

/* Moves on whenever trellis_set_rules replaces the rules. A communicator's
 * memos and answers kept outside its cache's keys (move_memo, choice,
 * sizeless) are from older rules while its rules_gen differs. */
extern unsigned trl_rules_gen;
void trl_comm_rules_changed(trl_comm *c);
static inline void trl_comm_sync_rules(trl_comm *c)
{
    if (c->rules_gen != trl_rules_gen)
        trl_comm_rules_changed(c);
}

/* Keep e from eviction while it runs; unpin when done (a transient entry
 * is then freed). */
trl_cache_entry *trl_cache_pin(trl_comm *c, const trl_cache_entry *e);
void trl_cache_unpin(trl_comm *c, trl_cache_entry *e);

/* c->vec, grown to hold 6 arrays of c->size entries; NULL if out of memory. */
size_t *trl_comm_vec(trl_comm *c);

#endif
