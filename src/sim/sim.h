/* `trellis simulate`'s engine: a discrete-event simulation of the very
 * schedules the runtime runs (the same builders, rules and layouts) under
 * the LogGP model of sim/model.h (docs/simulate.md).
 *
 * Each rank runs its schedule as the MPI executor (src/exec/exec_mpi.c)
 * does (engine style=executor, the default): it starts every ready step,
 * receives before the others and each kind in the order it became ready
 * (the executor's two FIFO queues); a send costs its rank's CPU the link's
 * overhead and then travels on its own; a receive is posted at no cost
 * and, once its message is in and the receiving port is free, costs the
 * CPU the overhead (+ recv_per_byte a byte); reduce and copy steps hold
 * the CPU. Under style=loggopsim each rank runs it as LogGOPSim runs a GOAL
 * schedule: sends wait for the rank's one port, messages are taken in on
 * arrival, posted or not, and the CPUs serve what was ready first, in that
 * order across ranks, once every event of the instant is in (sim/model.h,
 * docs/simulate.md).
 * Messages match receives by (sender, tag), as the schedule assigned them.
 *
 * Memory: a rank's schedule is built when the simulation first needs it
 * (when the rank enters the call, or a message reaches it before that),
 * kept in a compact form, and dropped when the rank has finished and its
 * steps went to the sink. A hierarchy's groups are worked out once for all
 * ranks (trl_build_memo), and building one rank costs nothing per rank of
 * the job, so a million ranks fit.
 */
#ifndef TRL_SIM_SIM_H
#define TRL_SIM_SIM_H

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
    int32_t step;  /* index in the rank's schedule */
    int32_t peer;  /* send, recv; -1 otherwise */
    int32_t tag;   /* send, recv; -1 otherwise */
    int32_t after; /* the dependency that completed last, -1: none (ready at entry) */
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
    trl_coll_args args;   /* the call's shape, params and topo; rank and memo are set per build */
    const trl_model *model;
    const double *enter;  /* per rank: when it enters the call (ns); NULL: all at 0 */
    trl_sim_sink sink;    /* may be NULL */
    void *ctx;
} trl_sim_call;

typedef struct {
    double t_end;   /* the last rank's exit (ns) */
    int last_rank;  /* the rank that exited last */
    size_t steps, messages, events;
    size_t peak_ranks; /* ranks that held a schedule at one time, at most */
    size_t peak_bytes; /* the bytes those schedules took, at most */
    char **phase_names; /* phase names of the steps' records (owned) */
    int nphases;
    char why[512]; /* on failure: what went wrong, with the rank */
} trl_sim_result;

/* Run the call; 0, or a negative status with res->why saying why (a
 * schedule that cannot be built, ranks that disagree on their messages, a
 * deadlock). Free res with trl_sim_result_free either way. */
int trl_sim_run(const trl_sim_call *c, trl_sim_result *res);
void trl_sim_result_free(trl_sim_result *res);

#endif
