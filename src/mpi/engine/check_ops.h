/* TRELLIS_CHECK's names for MPI's operations: one table gives both the
 * number every rank gives an operation (compared) and its name (reported). */
#ifndef TRL_CHECK_OPS_H
#define TRL_CHECK_OPS_H

#include <mpi.h>
#include <stdint.h>

/* An operation as a number every rank gives it alike: the predefined ones
 * 1.., any user-defined one 100. */
int64_t trl_check_op_code(MPI_Op op);

/* "MPI_SUM", ... for a code of trl_check_op_code. */
const char *trl_check_op_name(int64_t code);

#endif
