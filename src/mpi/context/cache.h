/* A communicator's cache of schedules: a bounded set of entries, each a
 * choice and its built schedule under the key of the calls it serves. What
 * chooses and builds on a miss is schedule.h's; this is the keeping. */
#ifndef TRL_MPI_CACHE_H
#define TRL_MPI_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"
#include "sched/sched.h"
#include "select/rules.h"

/* One cached choice and schedule. The key holds everything the schedule
 * depends on; datatypes and ops are passed at run time, so handles are not
 * part of it (a freed and reused handle cannot alias a stale entry). */
typedef struct {
    trl_coll coll;
    int root;
    size_t count, elem_size;
    bool commutative, in_place, direct_apart;
    trl_call_kind call; /* the rules may choose differently by kind */
    unsigned rules;     /* the rules it was chosen by (trellis_set_rules) */
    bool valid;
    /* Which counter of tag ranges its runs take (tags.h): 0, or for an
     * intercommunicator's rooted call 1 + the root's merged rank. */
    int tag_class;
    bool transient;       /* built outside the cache (every entry was pinned):
                       freed when its last user unpins it */
    int pins;             /* users running it: never evicted while > 0 */
    size_t *vec, nvec;    /* the v-variants' per-rank arrays, back to back */
    const trl_algo *algo; /* NULL build: the MPI library's own */
    trl_sched sched;
    /* For the tracer (engine/trace.c): what the rules saw, and the rule
     * that chose. */
    size_t rule_bytes;
    const trl_rule *rule;
} trl_cache_entry;

typedef struct {
    trl_cache_entry *entries;
    int cap, next, last_hit; /* last_hit -1: none yet */
    unsigned gen;            /* moves on whenever an entry is replaced */
} trl_cache;

/* An empty cache of cap entries; false when out of memory. */
bool trl_cache_init(trl_cache *k, int cap);
void trl_cache_free(trl_cache *k);

/* The entry whose key is a's under the rules numbered rules, or NULL.
 * size: the communicator's, the length of a's per-rank arrays (for
 * alltoallv and alltoallw a->counts is size x size). Programs repeat the
 * same call: the last hit is tried first. */
const trl_cache_entry *trl_cache_find(trl_cache *k, const trl_coll_args *a, int size,
                                      unsigned rules);

/* a's per-rank arrays back to back in a malloc'd *vec (NULL, 0 when it has
 * none), as an entry's key keeps them; false when out of memory. */
bool trl_cache_key_arrays(const trl_coll_args *a, int size, size_t **vec, size_t *nvec);

/* An entry to fill for a new key, its old schedule and arrays freed and
 * marked invalid: the next one round-robin that no run pins, or, with every
 * entry pinned, a transient one (*transient; calloc'd); NULL when out of
 * memory. The cache's generation moves on (a memo may point at it). */
trl_cache_entry *trl_cache_claim(trl_cache *k, bool *transient);

/* Fill e, claimed (or transient), with a's key (vec, nvec: its arrays,
 * trl_cache_key_arrays; NULL, 0 for a transient entry), the rules numbered
 * rules, algo and its built schedule: valid from then on. The rule that
 * chose is left NULL, for the caller to set. */
void trl_cache_fill(trl_cache_entry *e, const trl_coll_args *a, unsigned rules, bool transient,
                    size_t *vec, size_t nvec, const trl_algo *algo, trl_sched sched);

/* A claimed entry is filled: it becomes the last hit, and the next claim
 * starts past it (nothing for a transient one). */
void trl_cache_filled(trl_cache *k, bool transient);

/* Keep e from eviction while it runs; unpin when done (a transient entry
 * is then freed). */
trl_cache_entry *trl_cache_pin(const trl_cache_entry *e);
void trl_cache_unpin(trl_cache_entry *e);

/* Let go of e, an entry calloc'd and kept outside a cache: freed now, or,
 * where a run pins it, at its last unpin (e becomes transient). The caller
 * holds what guards the pins (the engine's lock, where ops run). */
void trl_cache_drop(trl_cache_entry *e);

#endif
