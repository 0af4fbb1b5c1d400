/* Datatypes and operations that Trellis' collectives in flight still use.
 *
 * MPI lets a program free a datatype or an operation as soon as the call
 * that uses it returned: MPI_Op_free right after MPI_Ireduce, MPI_Type_free
 * right after MPI_Ialltoallw or MPI_Allreduce_init. The object must live
 * until the calls that use it complete (or, for a persistent request, until
 * it is freed). The MPI library keeps its own requests' objects with
 * reference counts Trellis cannot reach, so Trellis keeps its own: each op
 * (engine.h) holds the derived datatypes and user-defined operations it
 * will use after its call returned, and MPI_Type_free and MPI_Op_free on a
 * held handle hand the program MPI_DATATYPE_NULL / MPI_OP_NULL at once and
 * leave the library's free to the last hold's end. Predefined handles,
 * which are never freed, are never held.
 *
 * Thread-safe: holds are taken on the program's threads and let go where
 * an op ends (a progress thread, the library's free callback).
 */
#ifndef TRL_HOLDS_H
#define TRL_HOLDS_H

#include <mpi.h>
#include <stdbool.h>

/* Hold a handle; false when it needs no hold (predefined) or none could be
 * taken (out of memory): the caller then must not let it go. */
bool trl_hold_type(MPI_Datatype type);
void trl_let_type(MPI_Datatype type);
bool trl_hold_op(MPI_Op op);
void trl_let_op(MPI_Op op);

/* Hold (let go of) every datatype of n, types[i] for i < n; hold: false
 * when out of memory, none then held. */
bool trl_hold_types(const MPI_Datatype *types, int n);
void trl_let_types(const MPI_Datatype *types, int n);

/* Holds let go of while this thread is inside the MPI library's own call
 * (a generalized request's free callback) leave the library's frees they
 * make due to trl_holds_flush, called outside it. */
void trl_holds_inside_library(bool inside);
void trl_holds_flush(void);

/* MPI_Finalize: the frees due, then forget the holds left (ops the program
 * never completed). */
void trl_holds_finalize(void);

#endif
