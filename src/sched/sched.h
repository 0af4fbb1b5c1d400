/* The schedule: what one rank does in one collective, as a DAG of typed
 * steps over symbolic buffers.
 *
 * Builders emit steps; executors run them. A step names buffers by role
 * (the user's send buffer, receive buffer, or the schedule's scratch area)
 * and an offset in elements of the call's datatype, so one schedule serves
 * every call with the same shape and is resolved to addresses only when it
 * runs (the idea of libnbc's relative buffers).
 *
 * Each add call returns the new step's id and takes the ids it depends on.
 * Negative ids in a dependency list are ignored, so a builder can keep
 * "the last step that touched this buffer" in a variable that starts at -1.
 *
 * Message tags are assigned here, not by builders: the k-th send from a to b
 * carries tag k, and the k-th receive at b from a expects tag k. As long as a
 * builder emits the messages between two ranks in the same logical order on
 * both sides, they match whatever order the executor posts them in; those
 * TRL_SCHED_TAG_PERIOD apart, which an executor may give one tag, complete
 * in order (trl_sched_finish).
 */
#ifndef TRL_SCHED_H
#define TRL_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    TRL_BUF_SEND,    /* the user's send buffer (read only; may alias RECV) */
    TRL_BUF_RECV,    /* the user's receive buffer (bcast: the buffer) */
    TRL_BUF_SCRATCH, /* scratch owned by the executor, sized by the schedule */
    TRL_BUF_AUX,     /* a buffer the runtime names at the run beside the user's:
                        only its own schedules use it (a neighbourhood call's
                        block sizes, sent with its data: entry/neighbor_sizes.c) */
    TRL_BUF_KINDS
} trl_buf;

typedef struct {
    trl_buf buf;
    size_t off; /* in elements of the call's datatype */
} trl_ref;

/* "send", "recv", "scratch", "aux": for messages and dumps. */
const char *trl_buf_name(trl_buf b);

static inline trl_ref trl_ref_at(trl_buf buf, size_t off)
{
    trl_ref r = {buf, off};
    return r;
}

typedef enum {
    TRL_STEP_SEND,   /* send count elements at a to peer */
    TRL_STEP_RECV,   /* receive count elements from peer into b */
    TRL_STEP_COPY,   /* copy count elements from a to b */
    TRL_STEP_REDUCE, /* b = a (op) c: a is the lower-ranked operand, as in
                        MPI_Reduce_local(a, b); c is b itself unless
                        trl_sched_finish folded a copy into b in (below) */
    TRL_STEP_NOP,    /* does nothing; joins dependencies (see fence) */
} trl_step_kind;

typedef struct {
    trl_step_kind kind;
    int peer;       /* send, recv */
    int tag;        /* send, recv: assigned by the schedule */
    uint16_t phase; /* index into the schedule's phase names (0: unnamed) */
    trl_ref a, b;
    trl_ref c; /* reduce: the operand b starts as (b itself, or a folded copy's source) */
    size_t count;
    uint32_t dep_first, ndeps; /* slice of trl_sched.deps */
} trl_step;

typedef struct {
    int peer; /* -1: a free slot */
    int sends, recvs;
} trl_sched_seq;

typedef struct {
    int rank, size;
    trl_step *steps;
    size_t nsteps, cap_steps;
    int *deps;
    size_t ndeps, cap_deps;
    size_t scratch; /* elements of scratch this schedule needs */
    int status;     /* first error met while adding steps, sticky */

    /* Derived by trl_sched_finish for the executors: for each step the
     * steps that depend on it (CSR: succ[succ_first[i] .. succ_first[i+1]]),
     * and the steps with no dependency at all. */
    uint32_t *succ_first, *succ;
    uint32_t *roots;
    size_t nroots;

    /* Every step added after a fence depends on it (-1: none). */
    int fence;
    size_t fence_from;

    /* Phases (see trl_sched_phase): names[0] is "", the unnamed phase. */
    char **phase_names;
    uint16_t nphases, cap_phases;
    uint16_t phase;       /* of the next step added */
    uint16_t phase_scope; /* names are written under it: "scope/name" */

    /* Build-time tag counters, per peer in an open-addressing table (a
     * schedule talks to few of its size's ranks); freed by finish. */
    trl_sched_seq *seq;
    size_t seq_cap, seq_n;
} trl_sched;

int trl_sched_init(trl_sched *s, int rank, int size);
void trl_sched_free(trl_sched *s);

/* Reserve count elements of scratch and return their offset. */
size_t trl_sched_scratch(trl_sched *s, size_t count);

/* Each returns the new step's id, or a negative status (also kept sticky
 * in s->status, so a builder can check once at the end). */
int trl_sched_send(trl_sched *s, int peer, trl_ref src, size_t count, const int *deps, int ndeps);
int trl_sched_recv(trl_sched *s, int peer, trl_ref dst, size_t count, const int *deps, int ndeps);
int trl_sched_copy(trl_sched *s, trl_ref src, trl_ref dst, size_t count, const int *deps,
                   int ndeps);
int trl_sched_reduce(trl_sched *s, trl_ref in, trl_ref inout, size_t count, const int *deps,
                     int ndeps);

/* Make every later step wait for every step added so far: how one builder
 * runs two algorithms one after the other (reduce then bcast). */
int trl_sched_fence(trl_sched *s);
/* Make every later step wait only for the steps added since the last fence
 * that write data (receive, copy, reduce), not for sends to complete: for
 * builders whose later steps never write a buffer an earlier send reads
 * (the levels of a bcast, a barrier's empty messages), so a leader starts
 * its next level as soon as it has the data. Sends it passes over are not
 * waited for by a later fence either; the schedule still ends only when
 * every step is done. */
int trl_sched_fence_data(trl_sched *s);

/* Make every later step wait for the listed steps only (entries -1: none),
 * in place of the current fence, as if a fence over them had just been
 * set: how a pipelining builder keeps its pieces apart (each piece's next
 * part waits for its own last part and for the previous piece's same
 * part, trl_sched_fence closing each part). Returns the step waited for
 * (a join of several) or -1 if none; an error is kept in s->status. */
int trl_sched_wait_for(trl_sched *s, const int *deps, int ndeps);

/* Where a schedule built for a subgroup lands in a larger one: the
 * subgroup's rank i is rank ranks[i] of s, and its SEND and RECV buffers
 * are the given places of s (its scratch gets fresh scratch of s). */
typedef struct {
    const int *ranks;
    trl_ref send, recv;
} trl_sched_map;

/* Append sub's steps to s, translated by m, in sub's order (so messages
 * between two ranks keep their order and tags stay matched). Every
 * appended step also waits for s's current fence, as added steps do. sub
 * must not be finished. Returns s->status. */
int trl_sched_append(trl_sched *s, const trl_sched *sub, const trl_sched_map *m);

/* Phases: every step carries the name of the part of its algorithm it
 * belongs to ("reduce-scatter", "host reduce"), which explain, simulate and
 * traces report time by. trl_sched_phase names the phase of every step
 * added after it (until the next call); before any call steps are in the
 * unnamed phase "". Names nest with "/": while a composing builder runs
 * another algorithm inside its own phase it opens a scope
 * (trl_sched_phase_enter), and the inner algorithm's names are written
 * under it ("reduce/reduce-scatter"); trl_sched_append writes the appended
 * schedule's names under the current phase of s the same way. Each
 * returns the phase's index, or a negative status (kept sticky). */
int trl_sched_phase(trl_sched *s, const char *name);
/* Name the phase as trl_sched_phase does, and open a scope of it; returns
 * the scope to give back to trl_sched_phase_leave, which closes it and
 * makes the enclosing phase current again. */
int trl_sched_phase_enter(trl_sched *s, const char *name);
void trl_sched_phase_leave(trl_sched *s, int outer);
/* A phase's name ("" for the unnamed phase and for an unknown index). */
const char *trl_sched_phase_name(const trl_sched *s, int phase);

/* Dependency lists as compound literals: TRL_DEPS(a, b) or TRL_NODEPS. */
#define TRL_DEPS(...)                                                                              \
    (const int[]){__VA_ARGS__}, (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int))
#define TRL_NODEPS NULL, 0

/* An executor may give messages between two ranks whose tags differ by a
 * multiple of this the same tag (the MPI executor sends tag k as
 * tag_base + k % tag_span, the span a power of two of at least this; a tag
 * range per run keeps runs that overlap apart). So trl_sched_finish makes
 * each message to or from a peer wait for the one this many tags before it
 * in the same direction. Then sends that share a tag start in tag order, and
 * receives that share one are posted (or looked for) one at a time, in tag
 * order; since MPI matches messages of one sender and tag in the order they
 * were sent, and the shared-memory rings and stash keep that order too, the
 * i-th receive of a tag gets the i-th message. An executor that matched
 * out of order would need more. */
enum { TRL_SCHED_TAG_PERIOD = 256 };

/* Derive the executor tables; returns s->status. Chains messages a tag
 * period apart (TRL_SCHED_TAG_PERIOD). Also folds each copy
 * whose only successor is a reduce into the same elements into that
 * reduce (the copy becomes a nop, the reduce reads the copy's source as
 * its c): one pass over the data instead of two, as MPI_IN_PLACE gets. */
int trl_sched_finish(trl_sched *s);

/* Whether two places are the same (where data already lies in place). */
static inline bool trl_ref_same(trl_ref x, trl_ref y)
{
    return x.buf == y.buf && x.off == y.off;
}

/* Print the schedule as one GOAL rank block (LogGOPSim's text format):
 * sizes in bytes (elem_size bytes per element), one label per step. */
void trl_sched_print_goal(const trl_sched *s, size_t elem_size, FILE *out);

/* The same steps for people: buffers and offsets spelled out, and a
 * "phase NAME:" line before the first step of each run of steps of one
 * named phase. */
void trl_sched_print_steps(const trl_sched *s, FILE *out);

#endif
