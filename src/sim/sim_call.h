/* One call to simulate and what the run gives back: the types of the
 * simulator's interface (sim.h), below the engine's own files, which fill
 * them. */
#ifndef TRL_SIM_CALL_H
#define TRL_SIM_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "sim/model.h"

/* One step as it ran: the record `trellis simulate` writes (docs/trace-format.md). */
typedef struct {
    double t_ready;  /* its dependencies done (ns) */
    double t_posted; /* started: posted to the network, or began to compute */
    double t_done;   /* completed */
    uint64_t bytes;
    int32_t step;   /* index in the rank's schedule */
    int32_t peer;   /* send, recv; -1 otherwise */
    int32_t tag;    /* send, recv; -1 otherwise */
    int32_t after;  /* the dependency that completed last, -1: none (ready at entry) */
    uint16_t phase; /* index into the result's phase names */
    uint8_t kind;   /* trl_step_kind */
    uint8_t link;   /* trl_link of a send or recv; TRL_LINK_COUNT for local steps */
} trl_sim_step;

typedef struct {
    int rank;
    double t_enter, t_exit;
    size_t nsteps;
    const trl_sim_step *steps;
} trl_sim_rank;

/* Receives each rank's steps when it finishes; returns 0, or a negative
 * status to stop the simulation. */
typedef int (*trl_sim_sink)(void *ctx, const trl_sim_rank *r);

typedef struct {
    const trl_algo *algo;
    trl_coll_args args; /* the call's shape, params and topo; rank and memo are set per build */
    const trl_model *model;
    const double *enter; /* per rank: when it enters the call (ns); NULL: all at 0 */
    trl_sim_sink sink;   /* may be NULL */
    void *ctx;
} trl_sim_call;

typedef struct {
    double t_end;  /* the last rank's exit (ns) */
    int last_rank; /* the rank that exited last */
    size_t steps, messages, events;
    size_t peak_ranks;  /* ranks that held a schedule at one time, at most */
    size_t peak_bytes;  /* the bytes those schedules took, at most */
    char **phase_names; /* phase names of the steps' records (owned) */
    int nphases;
    char why[512]; /* on failure: what went wrong, with the rank */
} trl_sim_result;

#endif
