/* TRELLIS_CHECK: every rank describes each collective call it makes, and
 * the ranks compare the descriptions before the call runs (docs/check.md).
 *
 * A description (trl_check_desc) is a row of fields. Most must be equal on
 * every rank that cares about them (the care bits: a root's receive side
 * means nothing on other ranks); LOCAL must be 0 everywhere (a rank found
 * its own arguments at odds with what a peer said in the pre-exchange);
 * ISROOT, where any rank cares, must be 1 somewhere (an intercommunicator
 * call's root group names one MPI_ROOT). The entry layer fills the rows
 * (entry/check_calls.c); this file compares them, on private duplicates of
 * the communicator, one pair for the blocking calls and one for the
 * non-blocking and persistent ones: MPI libraries match the two kinds
 * apart, and programs rely on it (a blocking and a non-blocking collective
 * crossed on one communicator, tests/mpi/test_request_rules.c), so each
 * kind is numbered and compared on its own:
 *   - blocking calls: the optional pre-exchange (each rank's per-peer
 *     signatures to the peers that must match them), then the rows
 *     all-gathered; a difference is reported by one rank and the job
 *     stopped (check_report.c);
 *   - non-blocking and persistent calls (checked at MPI_Ixxx and
 *     MPI_Xxx_init: MPI makes them local, so nothing may wait here): the
 *     same steps started non-blocking and followed up whenever the engine
 *     turns (trl_check_poll), in the calls' order.
 * A watchdog thread reports a rank that has waited TRELLIS_CHECK_TIMEOUT
 * seconds (default 60) in a call: the rank missing is the one that does not
 * report. */
#ifndef TRL_CHECK_H
#define TRL_CHECK_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi/engine/check_inflight.h"
#include "mpi/engine/check_ops.h"
#include "mpi/engine/check_pre.h"
#include "mpi/engine/check_row.h"
#include "mpi/engine/check_sig.h"
#include "mpi/engine/mode.h"


extern bool trl_check_on;

/* The call site a Fortran binding's wrapper (entry/fortran_args.h) passes on
 * to the C entry point it calls: the program's, not the wrapper's. NULL
 * otherwise. */
extern TRL_CHECK_TLS const void *trl_check_caller;

/* After MPI_Init: reads TRELLIS_CHECK and TRELLIS_CHECK_TIMEOUT, sets up
 * MPI_COMM_WORLD and MPI_COMM_SELF, starts the watchdog. */
void trl_check_init(void);
/* Before MPI_Finalize: completes the checks in flight, frees what the
 * check holds. */
void trl_check_finalize(void);
/* A new communicator (intra or inter) made from parent, while its ranks
 * are together in its constructor: its private duplicates for the checks. */
void trl_check_comm_new(MPI_Comm parent, MPI_Comm comm);

/* Where this rank stands in comm, or false when comm has no check state
 * and cannot get one now (a non-blocking call on a communicator made some
 * way Trellis did not see: the call goes unchecked). */
bool trl_check_where_of(MPI_Comm comm, const trl_mode *mode, trl_check_where *w);

/* Compare d (and pre, which it takes) across the ranks of the communicator
 * w is of (trl_check_where_of) for a call made in mode from site. Returns MPI_SUCCESS; on a mismatch the job stops. */
int trl_check_call(const trl_check_where *w, trl_check_desc *d, trl_check_pre *pre,
                   const trl_check_labels *labels, const trl_mode *mode, const void *site);

/* How a blocking call's check on an intracommunicator exchanges its words
 * on the program's communicator: the entry layer hands over Trellis' own,
 * unchecked, at start: an allreduce, and for two ranks a message each way
 * (post: *served false where it cannot, and then the allreduce; take:
 * *done once the peer's words are there, with wait once they are). */
typedef int (*trl_check_allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef struct {
    void *c; /* the entry layer's: where the words went */
} trl_check_words;
typedef int (*trl_check_post_fn)(MPI_Comm comm, const int64_t mine[2], trl_check_words *w,
                                 bool *served);
typedef int (*trl_check_take_fn)(const trl_check_words *w, int64_t theirs[2], bool wait,
                                 bool *done);
void trl_check_set_exchange(trl_check_allreduce_fn allreduce, trl_check_post_fn post,
                            trl_check_take_fn take);

/* Two ranks' blocking calls are compared around the call, not before it:
 * the words go out first, and the peer's are taken when the call returns,
 * so that their way across overlaps the call's own. Meanwhile the call
 * must not wait anywhere the words are not looked for:
 *   - deferred: whether this thread's blocking call has its verdict still
 *     to come (its run then looks with trl_check_idle while it waits);
 *   - settle: wait for the verdict now (before the MPI library's own
 *     collective, or one of its collectives on Trellis' duplicate; and
 *     when the call fails: a mismatch may be why). */
bool trl_check_deferred(void);
void trl_check_idle(void);
void trl_check_settle_call(void);

/* Before a collective of the MPI library's in a call (the call itself, or
 * counts shared on Trellis' duplicate): the check's verdict on the call,
 * if still to come, since the library waits without looking for it. */
static inline void trl_before_library_collective(void)
{
    if (trl_check_on)
        trl_check_settle_call();
}

/* A blocking call checked by trl_check_call returned: its verdict (if
 * deferred), and the watchdog's end of it. */
void trl_check_done(void);

/* Checks in flight (non-blocking): whether any, and follow them up. */
bool trl_check_pending(void);
void trl_check_poll(void);

#endif
