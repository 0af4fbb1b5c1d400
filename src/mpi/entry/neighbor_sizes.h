/* The block sizes of a v or w neighbourhood call under an algorithm that
 * needs its host's (TRL_NEEDS_ALL_COUNTS: locality): each rank sends its
 * own edges' bytes to the ranks that carry its host's traffic (the lanes:
 * trl_nb_is_lane), small messages within hosts: a blocking call's as a
 * schedule the executor runs (through the shared-memory rings where the two
 * ranks share a node), others under a spare tag (tags.h) on the
 * communicator's duplicate. A lane
 * builds its host's part of the table the algorithm reads
 * (neighbor_blocks.h, a->counts).
 *
 * A blocking call exchanges them before it builds, its blocks of more than
 * combine= bytes (which go straight) on their way meanwhile. A persistent call, whose
 * init may not wait for other ranks, posts them at its init, runs the
 * algorithm the rules give it without them (linear) at its first start,
 * and the planned one from its second on (engine.h, trl_op_plan). A
 * non-blocking call, which may not wait either, posts them at the call and
 * starts the planned schedule once they are in (engine.h). */
#ifndef TRL_NEIGHBOR_SIZES_H
#define TRL_NEIGHBOR_SIZES_H

#include <stddef.h>

#include "mpi/context/comm.h"
#include "mpi/engine/engine.h"
#include "mpi/entry/coll_common.h"

/* A blocking call: a->counts becomes the table (*table: what to free; NULL
 * where the algorithm chosen does not need it). send (its side opened) and
 * recvbuf (what the call's schedule addresses): for its messages of more
 * than combine= bytes, which go with the sizes (a->direct_apart comes back
 * true; a staged send side is then packed here first, send->packed set
 * where that succeeded: its run packs it only otherwise, and reports the
 * failure). Returns an MPI error code. */
int trl_nb_share_sizes(trl_comm *c, trl_coll_args *a, trl_move_side *send, void *recvbuf,
                       size_t **table);

/* A persistent call at its init, or a non-blocking call, where the rules
 * give it an algorithm that needs the table (*plan_needed; false: nothing
 * done): post the sizes' messages and fill *plan, whose planned entry is
 * a's with the table, a's arrays copied. *a is left for the choice without
 * the table (counts_planned off): a persistent call's first start.
 * Returns an MPI error code (nothing left behind). */
int trl_nb_plan_sizes(trl_comm *c, trl_coll_args *a, trl_op_plan *plan, bool *plan_needed);

#endif
