/* TRELLIS_CHECK's words: a blocking call's description on an
 * intracommunicator in 16 bytes a rank, which the ranks combine (one
 * allreduce, or two ranks' swap: check.c) instead of the rows themselves:
 *   [0] the row's hash (the call's number and form left out: the words of
 *       a call meet only the same call's), or HASH_DIFFERS where this rank
 *       cannot vouch for its call (its own blocks differ, or only the
 *       pre-exchange can tell: a block in MPI_PACKED, a neighbourhood);
 *       combined: kept where equal, HASH_DIFFERS where not;
 *   [1] the per-peer digest (trl_check_pre_digest); combined: summed.
 * The combined words agree exactly when the rows do (but for a collision
 * of 62-bit hashes or of the 64-bit digests' sum). */
#ifndef TRL_CHECK_WORDS_H
#define TRL_CHECK_WORDS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi/engine/check_pre.h"
#include "mpi/engine/check_row.h"

#define HASH_DIFFERS INT64_C(-1)

void trl_check_words_of(const trl_check_call_info *call, const trl_check_pre *pre, int64_t v[2]);
/* inout = in combined with inout */
void trl_check_words_combine(const int64_t *in, int64_t *inout);
bool trl_check_words_agree(const int64_t all[2]);

/* The combination as an MPI operation on pairs of MPI_INT64_T
 * (commutative: Trellis' allreduce takes it as it takes MPI_MAX), made by
 * start and freed by end. */
extern MPI_Op trl_check_words_op;
void trl_check_words_start(void);
void trl_check_words_end(void);

#endif
