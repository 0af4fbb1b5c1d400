/* A datatype's type signature (the sequence of basic types it holds, which
 * MPI requires to match between the sides of a collective) as a hash, for
 * TRELLIS_CHECK (check.h). Two signatures hash alike however they are
 * built: four MPI_INTs, one contiguous type of four MPI_INTs and a vector
 * of two blocks of two MPI_INTs are one sequence. MPI_PACKED matches any
 * signature of the same size, so a side in MPI_PACKED is compared by its
 * bytes alone (trl_sig_match). */
#ifndef TRL_CHECK_SIG_H
#define TRL_CHECK_SIG_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* The check's per-thread state, on the path of every call: initial-exec,
 * as engine.c's and context/recent.c's (the library is loaded at start-up),
 * so no TLS call per access. */
#define TRL_CHECK_TLS __thread __attribute__((tls_model("initial-exec")))

typedef struct {
    int64_t hash;  /* 0 .. 2^61-2; TRL_SIG_PACKED for MPI_PACKED data */
    int64_t bytes; /* the data's size */
} trl_sig;

#define TRL_SIG_PACKED INT64_C(-1)

/* The signature of count elements of type. */
trl_sig trl_sig_of(int count, MPI_Datatype type);

/* Whether data of signature a may be received as b (and b sent as a). */
static inline bool trl_sig_match(trl_sig a, trl_sig b)
{
    if (a.hash == TRL_SIG_PACKED || b.hash == TRL_SIG_PACKED)
        return a.bytes == b.bytes;
    return a.hash == b.hash && a.bytes == b.bytes;
}

#endif
