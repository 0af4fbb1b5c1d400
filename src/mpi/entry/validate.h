/* Arguments the MPI library rejects, found before any message moves.
 *
 * A rank whose arguments the MPI library would reject hands the call to
 * it (PMPI_X), which reports the error exactly as it does without Trellis
 * (class, error handler) and returns at once: its own checks come before
 * any communication. The checks are local, so a rank can only judge its
 * own arguments; where a program passes the same wrong arguments on every
 * rank (the usual case: one (datatype, op) pair by MPI's rules, one
 * uncommitted type, one mismatched count), every rank hands the call over
 * and no rank waits for another.
 *
 * Which datatypes the library accepts, and which (datatype, op) pairs, is
 * asked of the library itself, once: a call with count 0 on a private
 * one-rank communicator whose errors return. The answer is kept: for
 * predefined datatypes in a table (they are never freed); for derived
 * ones in an attribute of the datatype, which goes with it when it is
 * freed (a reused handle starts afresh). Only acceptance is kept: a type
 * refused because it is not committed yet may be committed later.
 */
#ifndef TRL_VALIDATE_H
#define TRL_VALIDATE_H

#include <mpi.h>
#include <stdbool.h>

#include "algo/algo.h"

/* Whether the library accepts op on type in a reduction (including that
 * type is committed). Also false for MPI_DATATYPE_NULL and MPI_OP_NULL. */
bool trl_reduction_ok(MPI_Datatype type, MPI_Op op);

/* Whether the library accepts type on one side of a data-movement
 * collective (bcast: TRL_SIDE_SEND). Also false for MPI_DATATYPE_NULL. */
typedef enum { TRL_SIDE_SEND, TRL_SIDE_RECV } trl_side_kind;
bool trl_move_type_ok(trl_coll coll, trl_side_kind side, MPI_Datatype type);

/* The arguments of a reduction that the library rejects on this rank: a
 * negative count, a (type, op) pair it refuses, and MPI_IN_PLACE where MPI
 * does not allow it. recv_significant: the receive buffer matters here
 * (every rank but reduce's non-roots); there MPI_IN_PLACE may be the send
 * buffer but not the receive buffer, and send and receive buffers at one
 * address are aliased (MPI forbids it: MPI_IN_PLACE is the way), whatever
 * the count. Elsewhere MPI_IN_PLACE may not be the send buffer. */
bool trl_reduction_refused(const void *sendbuf, const void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, bool recv_significant);

/* One side of a data-movement call on a rank where it is significant:
 * whether the library rejects it (MPI_IN_PLACE where no in-place form
 * applies, a negative count, a datatype it refuses). v-variants: counts
 * and displs must be given, no count negative. */
bool trl_side_refused(trl_coll coll, trl_side_kind side, const void *buf, int count,
                      MPI_Datatype type);
bool trl_vside_refused(trl_coll coll, trl_side_kind side, const void *buf, const int *counts,
                       const int *displs, MPI_Datatype type, int p);

/* alltoallw's side: a datatype per block, each judged by the library. */
bool trl_wside_refused(trl_side_kind side, const void *buf, const int *counts, const int *displs,
                       const MPI_Datatype *types, int p);

/* Frees the probe communicator and the attribute key (MPI_Finalize). */
void trl_validate_finalize(void);

#endif
