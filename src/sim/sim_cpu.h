/* Inside the simulator: a rank's CPU and ports (sim_cpu.c), as the run
 * (sim.c) drives them with the events. */
#ifndef TRL_SIM_CPU_H
#define TRL_SIM_CPU_H

#include <stdint.h>

#include "sim/sim_state.h"

/* Rank R enters the call at t: its first steps are ready. */
void trl__sim_enter(sim *S, sim_rank *R, double t);
/* An event at t (a failure if out of memory). */
int trl__sim_push(sim *S, double t, ev_type type, int rank, int a, int b, int c);
/* A stamp no event or step has had: later than every one before. */
uint64_t trl__sim_fresh_stamp(sim *S);
/* The bytes a message's per-byte costs count: s, or s-1 (engine bytes=s-1). */
double trl__sim_charged(const sim *S, uint64_t bytes);
/* Step i is done; the steps it frees are ready with R->ready_stamp. */
void trl__sim_complete(sim *S, sim_rank *R, uint32_t i, double now);
/* A send's data leaves rank R's port. */
void trl__sim_transmit(sim *S, sim_rank *R, uint32_t i, double now);
/* The CPU's work (WORK_*) on step i ends now. */
void trl__sim_work_done(sim *S, sim_rank *R, uint32_t i, int what, double now);
/* Under loggopsim, a message R has not taken in yet (by its stamp). */
void trl__sim_in_push(sim_rank *R, uint32_t i);
/* R may start work now (the executor: at once; loggopsim: once this
 * instant's events are all in, settle_all). */
void trl__sim_settle(sim *S, sim_rank *R, double now);
void trl__sim_settle_all(sim *S, double now);

#endif
