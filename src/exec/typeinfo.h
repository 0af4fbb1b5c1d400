/* What the hot path needs to know of a datatype, without asking the MPI
 * library on every call: its size, extent, true bounds, and whether count
 * elements of it are plain bytes back to back (contiguous). Predefined
 * datatypes, which are never freed, are asked once and kept in a table;
 * derived ones are asked each time (a freed handle may come back as
 * another type). Also whether an operation is predefined (and so
 * commutative). */
#ifndef TRL_TYPEINFO_H
#define TRL_TYPEINFO_H

#include <mpi.h>
#include <stdbool.h>

typedef struct {
    int size;
    MPI_Aint extent, true_lb, true_extent;
    bool contiguous;
    bool named; /* predefined: the handle always means this type */
} trl_type_info;

/* Whether type is predefined (asks the library once per named type; a
 * derived one costs one query). */
bool trl_type_named(MPI_Datatype type);

/* Fills *out and returns it. */
const trl_type_info *trl_type_info_of(MPI_Datatype type, trl_type_info *out);

/* Whether op is one of MPI's predefined operations (never freed). */
bool trl_op_predefined(MPI_Op op);

/* Whether op is commutative: predefined ones are, without a call. */
bool trl_op_commutes(MPI_Op op);

#endif
