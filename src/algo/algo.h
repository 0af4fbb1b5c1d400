/* The table of algorithms: one entry per (collective, algorithm), read by
 * the selector, the runtime, `trellis algorithms` and the tests alike.
 *
 * A builder is pure: from the call's shape (rank, size, root, count,
 * element size, commutativity) and the rule's parameters it emits the
 * schedule of one rank. It never calls MPI.
 */
#ifndef TRL_ALGO_H
#define TRL_ALGO_H

#include <stdbool.h>
#include <stddef.h>

#include "sched/sched.h"

#define TRL_COLL_MAP(X) \
    X(BCAST, "bcast")   \
    X(REDUCE, "reduce") \
    X(ALLREDUCE, "allreduce") \
    X(BARRIER, "barrier")

typedef enum {
#define TRL_COLL_ENUM(id, name) TRL_COLL_##id,
    TRL_COLL_MAP(TRL_COLL_ENUM)
#undef TRL_COLL_ENUM
    TRL_COLL_COUNT
} trl_coll;

const char *trl_coll_name(trl_coll c);
int trl_coll_from_name(const char *name, size_t len); /* -1 if unknown */

typedef enum {
    TRL_PARAM_INT,  /* a plain integer */
    TRL_PARAM_SIZE, /* bytes, with an optional K, M or G suffix */
    TRL_PARAM_ALGO, /* the name of another algorithm of collective `of` */
} trl_param_kind;

typedef struct {
    const char *name;
    trl_param_kind kind;
    const char *default_text; /* parsed like a value a user writes */
    long long min, max;       /* INT and SIZE */
    trl_coll of;              /* ALGO */
    const char *help;
} trl_param_spec;

struct trl_algo;

typedef struct {
    const trl_param_spec *spec;
    long long value;             /* INT and SIZE */
    const struct trl_algo *algo; /* ALGO */
} trl_param_value;

/* The parameters a rule gave, in the order given; absent ones take the
 * spec's default when read. */
typedef struct {
    trl_param_value *v;
    int n;
} trl_params;

typedef struct {
    trl_coll coll;
    int rank, size, root;
    size_t count;     /* elements of the call's datatype */
    size_t elem_size; /* bytes of data per element (MPI_Type_size) */
    bool commutative; /* the operation, for reductions */
    /* This rank's send buffer is its receive buffer (MPI_IN_PLACE). Only
     * for choosing where data lands locally (to save a copy): it must never
     * change which messages a rank exchanges, since ranks may differ. */
    bool in_place;
    const trl_params *params;
    const struct trl_algo *algo; /* set by trl_algo_build, for defaults */
} trl_coll_args;

/* Restrictions an algorithm can carry; the selector never runs an
 * algorithm whose restrictions a call violates. */
enum {
    TRL_NEEDS_COMMUTATIVE = 1 << 0,
};

typedef int (*trl_build_fn)(const trl_coll_args *a, trl_sched *s);

typedef struct trl_algo {
    trl_coll coll;
    const char *name;
    const char *description;
    const char *cost; /* alpha-beta cost, for `trellis algorithms` */
    unsigned needs;   /* TRL_NEEDS_* */
    const trl_param_spec *params; /* terminated by a NULL name */
    trl_build_fn build;           /* NULL: the MPI library's own ("mpi") */
} trl_algo;

/* The whole table, terminated by an entry with a NULL name. */
extern const trl_algo trl_algorithms[];

const trl_algo *trl_algo_find(trl_coll coll, const char *name, size_t len);
const trl_param_spec *trl_algo_param(const trl_algo *a, const char *name, size_t len);

/* Why `algo` cannot serve the call `a`, or NULL if it can. Follows the
 * algorithms named by ALGO parameters too. */
const char *trl_algo_unusable(const trl_algo *algo, const trl_coll_args *a);

/* Parse one parameter value; on error returns a negative status and points
 * *why at a message. */
int trl_param_parse_value(const trl_param_spec *spec, const char *text, size_t len,
                          trl_param_value *out, const char **why);

/* Read a parameter: the value the rule gave, or the spec's default. */
long long trl_param_int(const trl_coll_args *a, const char *name);
const trl_algo *trl_param_algo(const trl_coll_args *a, const char *name);

/* Parse "k=v k=v" for algorithm `algo` into *out (for tests and tools;
 * the rules parser reports positions itself). Free with trl_params_free. */
int trl_params_from_string(const trl_algo *algo, const char *text, trl_params *out,
                           const char **why);
void trl_params_free(trl_params *p);

/* Size parsing shared with the rules language: digits with an optional
 * K, M or G suffix (powers of 1024). Returns the characters consumed, 0 on
 * error. */
size_t trl_parse_size(const char *text, size_t len, unsigned long long *out);

/* Build rank a->rank's schedule and finish it. */
int trl_algo_build(const trl_algo *algo, const trl_coll_args *a, trl_sched *s);

#endif
