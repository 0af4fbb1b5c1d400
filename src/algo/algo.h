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

#define TRL_COLL_MAP(X)                                                                            \
    X(BCAST, "bcast", "MPI_Bcast")                                                                 \
    X(REDUCE, "reduce", "MPI_Reduce")                                                              \
    X(ALLREDUCE, "allreduce", "MPI_Allreduce")                                                     \
    X(BARRIER, "barrier", "MPI_Barrier")                                                           \
    X(GATHER, "gather", "MPI_Gather")                                                              \
    X(GATHERV, "gatherv", "MPI_Gatherv")                                                           \
    X(SCATTER, "scatter", "MPI_Scatter")                                                           \
    X(SCATTERV, "scatterv", "MPI_Scatterv")                                                        \
    X(ALLGATHER, "allgather", "MPI_Allgather")                                                     \
    X(ALLGATHERV, "allgatherv", "MPI_Allgatherv")                                                  \
    X(ALLTOALL, "alltoall", "MPI_Alltoall")                                                        \
    X(ALLTOALLV, "alltoallv", "MPI_Alltoallv")                                                     \
    X(ALLTOALLW, "alltoallw", "MPI_Alltoallw")                                                     \
    X(REDUCE_SCATTER, "reduce_scatter", "MPI_Reduce_scatter")                                      \
    X(REDUCE_SCATTER_BLOCK, "reduce_scatter_block", "MPI_Reduce_scatter_block")                    \
    X(SCAN, "scan", "MPI_Scan")                                                                    \
    X(EXSCAN, "exscan", "MPI_Exscan")                                                              \
    X(NEIGHBOR_ALLGATHER, "neighbor_allgather", "MPI_Neighbor_allgather")                          \
    X(NEIGHBOR_ALLGATHERV, "neighbor_allgatherv", "MPI_Neighbor_allgatherv")                       \
    X(NEIGHBOR_ALLTOALL, "neighbor_alltoall", "MPI_Neighbor_alltoall")                             \
    X(NEIGHBOR_ALLTOALLV, "neighbor_alltoallv", "MPI_Neighbor_alltoallv")                          \
    X(NEIGHBOR_ALLTOALLW, "neighbor_alltoallw", "MPI_Neighbor_alltoallw")

typedef enum {
#define TRL_COLL_ENUM(id, name, mpi) TRL_COLL_##id,
    TRL_COLL_MAP(TRL_COLL_ENUM)
#undef TRL_COLL_ENUM
        TRL_COLL_COUNT
} trl_coll;

const char *trl_coll_name(trl_coll c);
const char *trl_coll_mpi_name(trl_coll c); /* "MPI_Bcast" */
/* Properties of a collective, for the runtime, the rules and the tests. */
bool trl_coll_is_rooted(trl_coll c);                  /* has a root argument */
bool trl_coll_is_reduction(trl_coll c);               /* combines data with an operation */
bool trl_coll_is_vector(trl_coll c);                  /* per-rank counts (the v and w variants) */
bool trl_coll_is_neighbor(trl_coll c);                /* a neighbourhood collective (a->nbhd) */
int trl_coll_from_name(const char *name, size_t len); /* -1 if unknown */

typedef enum {
    TRL_PARAM_INT,    /* a plain integer */
    TRL_PARAM_SIZE,   /* bytes, with an optional K, M or G suffix */
    TRL_PARAM_ALGO,   /* the name of another algorithm of collective `of` */
    TRL_PARAM_CHOICE, /* one of the words in `choices` ("file|arrival"): value is its index */
    TRL_PARAM_LEVELS, /* the levels of a hierarchy, "socket,host,world": trl_levels, params.h */
    TRL_PARAM_LEVEL,  /* one level's algorithm of collective `of`, with its own
                         parameters: "knomial" or "knomial(radix=4,segment=8K)" */
    TRL_PARAM_FILE,   /* a tree or script file (docs/trees.md), loaded and
                         checked when the rule is read */
} trl_param_kind;

enum {
    TRL_PARAM_REQUIRED = 1 << 0,   /* no default: a rule must give it */
    TRL_PARAM_ALSO_BCAST = 1 << 1, /* LEVEL: the name must be a bcast algorithm
                                      too (allreduce reduces up a level and
                                      broadcasts down it) */
    TRL_PARAM_TREE_SHAPE = 1 << 2, /* LEVEL: a tree shape (linear, binomial,
                                      knomial, kary, chain), for barriers */
};

typedef struct {
    const char *name;
    trl_param_kind kind;
    const char *default_text; /* parsed like a value a user writes; NULL if REQUIRED */
    long long min, max;       /* INT and SIZE */
    trl_coll of;              /* ALGO and LEVEL */
    const char *help;
    unsigned flags;      /* TRL_PARAM_REQUIRED, ... */
    const char *choices; /* CHOICE: the words, '|' between them */
} trl_param_spec;

struct trl_algo;

typedef struct {
    const trl_param_spec *spec;
    long long value;             /* INT, SIZE, CHOICE, LEVELS */
    const struct trl_algo *algo; /* ALGO and LEVEL */
    /* Owned by the value (freed by trl_params_free): LEVEL, the level
     * algorithm's own parameters (a trl_params, NULL when none were given);
     * FILE, the loaded trl_tree_file. */
    void *obj;
} trl_param_value;

/* The parameters a rule gave, in the order given; absent ones take the
 * spec's default when read. */
typedef struct {
    trl_param_value *v;
    int n;
} trl_params;

/* How a call was made: MPI_X, MPI_IX, or MPI_X_init (persistent). The
 * last two may not wait for other ranks before they return. */
typedef enum {
    TRL_CALL_BLOCKING,
    TRL_CALL_NONBLOCKING,
    TRL_CALL_PERSISTENT,
} trl_call_kind;

/* The MPI name of a collective called so: "MPI_Bcast", "MPI_Ibcast",
 * "MPI_Bcast_init". */
void trl_coll_call_name(trl_coll c, trl_call_kind k, char *buf, size_t len);

/* The shape of one call, as one rank sees it.
 *
 * Units: elements of the call's datatype. The data-movement collectives
 * (gather, scatter, allgather, alltoall and their v and w variants, like
 * bcast) move bytes: the runtime passes elem_size 1 and byte counts, so
 * ranks may describe the same bytes with different datatypes.
 *
 * Buffers, per collective (block i is rank i's):
 *   gather      SEND: this rank's block (count). RECV, root only: block i at
 *               i*count. In place (root): its block is already in RECV.
 *   gatherv     as gather with block i of counts[i] at displs[i] (displs
 *               significant at the root only).
 *   scatter     SEND, root only: block i at i*count. RECV: this rank's
 *               block. In place (root): the root's block stays in SEND.
 *   scatterv    as scatter with counts[i] at displs[i] in the root's SEND.
 *   allgather   SEND: this rank's block. RECV: block i at i*count. In
 *               place: this rank's block is already in RECV.
 *   allgatherv  as allgather with counts[i] at displs[i] (known everywhere).
 *   alltoall    SEND: block j for rank j at j*count. RECV: block i from
 *               rank i at i*count. Never in place (the runtime copies).
 *   alltoallv/w send_counts/send_displs and recv_counts/recv_displs, this
 *               rank's own, per peer (bytes for both: the runtime turns
 *               datatypes and displacements into bytes).
 *   reduce_scatter        SEND: the whole vector, block i of counts[i]
 *               elements (at the sum of the counts before it). RECV: the
 *               reduction of this rank's block. In place: SEND is RECV,
 *               holding the whole vector; the result goes to its start.
 *   reduce_scatter_block  the same with every block count elements
 *               (counts NULL).
 *   scan, exscan  SEND, RECV: count elements; RECV gets the reduction over
 *               ranks 0..rank (exscan: 0..rank-1; rank 0's RECV untouched).
 *               In place: SEND is RECV.
 *   neighbor_*  the graph is a->nbhd (algo/nbhd.h), never in place; in
 *               every form send_counts/send_displs per out-neighbour (one
 *               entry for allgather(v): one block to all) and
 *               recv_counts/recv_displs per in-neighbour, in bytes
 *               (algo/neighbor/neighbor_blocks.h); count: allgather's and
 *               alltoall's send block.
 *
 * counts and displs: for gatherv and scatterv the non-root ranks know only
 * their own count, so builders read counts[rank] there unless the
 * algorithm has TRL_NEEDS_ALL_COUNTS, in which case the runtime exchanges
 * the counts first and every rank's counts[] is complete. For alltoallv
 * and alltoallw counts is NULL, unless the algorithm has
 * TRL_NEEDS_ALL_COUNTS: then it is the p x p matrix of every rank's send
 * counts (counts[i * p + j]: rank i to rank j). */
/* Work shared by the builds of every rank of one call shape (the groups of
 * a hierarchy), for tools that build many ranks' schedules (explain,
 * simulate): set trl_coll_args.memo, and keep the layout it points at
 * alive and unchanged while the memo lives. One thread at a time. */
typedef struct trl_build_memo trl_build_memo;
trl_build_memo *trl_build_memo_new(void);
void trl_build_memo_free(trl_build_memo *memo);

typedef struct {
    trl_coll coll;
    int rank, size, root;
    size_t count;                            /* elements of the call's datatype (per block for the
                         block collectives: gather, scatter, allgather,
                         alltoall, reduce_scatter_block) */
    size_t elem_size;                        /* bytes of data per element (MPI_Type_size) */
    const size_t *counts, *displs;           /* per rank; see above */
    const size_t *send_counts, *send_displs; /* alltoallv/w */
    const size_t *recv_counts, *recv_displs;
    bool commutative; /* the operation, for reductions */
    /* This rank's send buffer is its receive buffer (MPI_IN_PLACE). Only
     * for choosing where data lands locally (to save a copy): it must never
     * change which messages a rank exchanges, since ranks may differ. */
    bool in_place;
    trl_call_kind call; /* blocking or not: the rules may tell them apart */
    /* A persistent neighbourhood v or w call whose runs from the second on
     * have their host's block sizes, which its first sends
     * (mpi/entry/neighbor_sizes.h): an algorithm with TRL_NEEDS_ALL_COUNTS
     * serves it then. */
    bool counts_planned;
    /* A blocking neighbourhood v or w call under such an algorithm: its
     * messages of more than combine= bytes (within a host or not) went with
     * the exchange of sizes before it (mpi/entry/neighbor_sizes.h), so its
     * schedule leaves them out. */
    bool direct_apart;
    const trl_params *params;
    const struct trl_algo *algo; /* set by trl_algo_build, for defaults */
    /* Where each rank of the communicator sits (host, socket, NUMA domain);
     * NULL: unknown, all on one host. Read by the hierarchical algorithms
     * and the tree files (which apply in MPI_COMM_WORLD's order only). */
    const struct trl_topo *topo;
    trl_build_memo *memo; /* NULL (the runtime), or see trl_build_memo */
    /* An intercommunicator call: the two groups within the merged
     * communicator that a->rank and a->size count (src/algo/inter/inter.h);
     * NULL for an intracommunicator. */
    const struct trl_inter *inter;
    /* A neighbourhood collective's graph (algo/nbhd.h); NULL otherwise. */
    const struct trl_nbhd *nbhd;
} trl_coll_args;

/* Whether every rank of a call knows the same "bytes" for the rules: not
 * so for gatherv, scatterv, alltoallv and alltoallw, where a rank knows
 * only its own counts (rules cannot filter on bytes for them), nor for a
 * barrier. */
bool trl_coll_has_bytes(trl_coll c);

/* Restrictions an algorithm can carry; the selector never runs an
 * algorithm whose restrictions a call violates. */
enum {
    TRL_NEEDS_COMMUTATIVE = 1 << 0,
    /* gatherv, scatterv: every rank must know every rank's count;
     * alltoallv, alltoallw: the counts between every pair of ranks (the
     * runtime exchanges them before it builds the schedule). */
    TRL_NEEDS_ALL_COUNTS = 1 << 1,
    /* Every host holds consecutive ranks of the communicator (the rules'
     * placement=block, from a->topo): the hierarchical forms that keep
     * rank order across hosts (reduce_scatter, scan). */
    TRL_NEEDS_BLOCK_PLACEMENT = 1 << 2,
    /* Serves intercommunicator calls only (src/algo/inter/); every other
     * algorithm Trellis builds serves intracommunicator calls only. */
    TRL_NEEDS_INTER = 1 << 3,
};

typedef int (*trl_build_fn)(const trl_coll_args *a, trl_sched *s);

typedef struct trl_algo {
    trl_coll coll;
    const char *name;
    const char *description;
    const char *cost;             /* alpha-beta cost, for `trellis algorithms` */
    unsigned needs;               /* TRL_NEEDS_* */
    const trl_param_spec *params; /* terminated by a NULL name */
    trl_build_fn build;           /* NULL: the MPI library's own ("mpi") */
    /* Why the algorithm cannot serve a call, beyond `needs` (a tree file
     * written for another communicator), or NULL; may be NULL itself. */
    const char *(*unusable)(const trl_coll_args *a);
} trl_algo;

/* The whole table, terminated by an entry with a NULL name. */
extern const trl_algo trl_algorithms[];

const trl_algo *trl_algo_find(trl_coll coll, const char *name, size_t len);
const trl_param_spec *trl_algo_param(const trl_algo *a, const char *name, size_t len);
/* Whether another algorithm can run `a` inside it (reduce_bcast's reduce=,
 * a hier level): built by Trellis, with no required parameter. */
bool trl_algo_nestable(const trl_algo *a);
/* The names of coll's algorithms in table order, ", " between them (only
 * the nestable ones if asked), cut to fit buf: for messages. */
void trl_algo_names(trl_coll coll, bool nestable_only, char *buf, size_t len);

/* Size parsing shared with the rules language: digits with an optional
 * K, M or G suffix, either case (powers of 1024), as the trellis command
 * reads its sizes too. Returns the characters consumed, 0 on error. */
size_t trl_parse_size(const char *text, size_t len, unsigned long long *out);
/* The other way: 65536 -> "64K". */
void trl_format_size(unsigned long long v, char *buf, size_t len);

/* Build rank a->rank's schedule and finish it. */
int trl_algo_build(const trl_algo *algo, const trl_coll_args *a, trl_sched *s);

#endif
