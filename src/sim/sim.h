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

#include "sim/sim_call.h"

/* Run the call; 0, or a negative status with res->why saying why (a
 * schedule that cannot be built, ranks that disagree on their messages, a
 * deadlock). Free res with trl_sim_result_free either way. */
int trl_sim_run(const trl_sim_call *c, trl_sim_result *res);
void trl_sim_result_free(trl_sim_result *res);

#endif
