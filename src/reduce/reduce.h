/* MPI_Reduce_local with Trellis' own kernels (src/reduce/kernels_*.c) for
 * the predefined operations on the predefined datatypes MPI defines them
 * for, so a collective's result does not depend on the MPI library's
 * kernels (Open MPI 4.1's AVX kernel saturates 8-bit MPI_SUM instead of
 * wrapping). Everything else goes to the MPI library's PMPI_Reduce_local:
 * user operations, pairs MPI does not define (the library reports its own
 * error), and derived datatypes other than contiguous runs of one covered
 * predefined type.
 */
#ifndef TRL_REDUCE_H
#define TRL_REDUCE_H

#include <mpi.h>
#include <stddef.h>

/* inout[i] = in[i] op inout[i] for count elements of type, as
 * MPI_Reduce_local(in, inout, count, type, op); the buffers must not
 * overlap and may lie at any byte address. Returns an MPI error code. */
int trl_reduce_local(const void *in, void *inout, size_t count, MPI_Datatype type, MPI_Op op);

/* out[i] = in[i] op other[i] for count elements of a contiguous type of
 * `size` bytes: a copy of other into out and trl_reduce_local, a few KiB
 * at a time, so the reduction finds the copy still in cache (one pass over
 * memory instead of two). `in` must not overlap out; other may be out, or
 * overlap it (then copied whole first). */
int trl_reduce_into(const void *in, const void *other, void *out, size_t count, size_t size,
                    MPI_Datatype type, MPI_Op op);

/* Whether trl_reduce_local runs (type, op) on Trellis' kernels: the tests
 * and the benchmark use it to know which path they measure. */
int trl_reduce_covers(MPI_Datatype type, MPI_Op op);

#endif
