/* The plan of a persistent or non-blocking op (engine.h runs it). */
#ifndef TRL_OP_PLAN_H
#define TRL_OP_PLAN_H

#include <stdbool.h>

#include "mpi/context/cache.h"
#include "mpi/engine/mode.h"

/* A persistent op whose schedule after its first run is planned from what
 * its ranks send each other meanwhile: their block sizes, for an
 * algorithm that needs every rank's (TRL_NEEDS_ALL_COUNTS), which MPI-4
 * lets no *_init wait for. The op's first run is its entry's, and it
 * finishes only once arrived(state) says those messages completed, so
 * that at each rank's second start they are in whatever the other ranks
 * do; from then on the op runs planned(state)'s entry instead: every rank
 * switches at the same run, so their schedules match. A non-blocking op
 * with a plan runs only the planned entry, once arrived (engine.h).
 * arrived returns an MPI error code and sets *in; planned returns NULL
 * when it cannot build (out of memory). release(state) when the op goes
 * or the plan is taken. */
typedef struct trl_op_plan {
    void *state;
    int (*arrived)(void *state, bool *in);
    const trl_cache_entry *(*planned)(void *state);
    void (*release)(void *state);
} trl_op_plan;

/* Whether a run whose schedule ended may finish: its plan's messages are
 * in, or it has none (then *planned: the next run takes the planned
 * entry); *rc takes their error. */
bool trl_plan_in(trl_op_plan *p, bool *planned, int *rc);

/* Until trl_plan_in says so (yield: between looks, as ranks share cores). */
void trl_plan_wait(trl_op_plan *p, bool *planned, int *rc, bool yield);

/* At the start of the run after that: *entry becomes the planned one
 * (pinned) and the plan's state goes; the first run's entry, still pinned,
 * goes to *first, for the op to unpin when it goes: the taking may run on
 * the progress thread, which must not touch the communicator's cache.
 * Where the rules give the planned call the MPI library's own, which every
 * rank finds alike, *entry stays. MPI_ERR_NO_MEM where nothing could be
 * built: the other ranks' runs will then not match this one's (they wait
 * for it: a hang, as for any rank out of memory in a collective). */
int trl_plan_take(trl_op_plan *p, bool *planned, trl_cache_entry **entry, trl_cache_entry **first);

/* The plan's state goes (the op goes, or the plan was taken). */
void trl_plan_release(trl_op_plan *p);

/* A call that makes no op lets its mode's plan go. */
void trl_op_plan_drop(const trl_mode *mode);

#endif
