/* The collectives of bench/latency: their names, what a row's size means
 * for each, how each is called (the MPI library's own PMPI_X or MPI_X,
 * which is Trellis when preloaded), and how its data are filled and its
 * results checked. latency.c is the harness (options, timing, statistics,
 * output) and knows nothing about any one collective beyond this header.
 *
 * Size of a row (the `bytes` column), as Trellis's rules mean `bytes`
 * (docs/rules.md), with elements of 4 bytes (int or float):
 *
 *   bcast, reduce, allreduce, scan, exscan   the message: count elements
 *   gather, scatter, allgather, alltoall     one rank's block: count
 *                                            elements to (or from) each rank
 *   gatherv, scatterv, allgatherv,           the same block, given as
 *   alltoallv, alltoallw                     uniform counts (all equal to
 *                                            count), so they compare with
 *                                            the plain ones
 *   reduce_scatter, reduce_scatter_block     the whole vector reduced:
 *                                            count x ranks elements, each
 *                                            rank's block count = bytes /
 *                                            4 / ranks rounded down, at
 *                                            least 1
 *   barrier                                  no data: 0
 *
 * The `count` of a row is the count argument of the call: the message, one
 * block, or (reduce_scatter*) one rank's block.
 *
 * Every collective also comes in its non-blocking form (MPI_Ibcast, ...,
 * MPI_Iexscan), named with an `i` in front ("iallreduce"): the same sizes,
 * data and checks, the call being the start and then the wait. */
#ifndef LATENCY_COLLS_H
#define LATENCY_COLLS_H

#include <mpi.h>
#include <stddef.h>

enum coll {
    COLL_BCAST,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_BARRIER,
    COLL_GATHER,
    COLL_GATHERV,
    COLL_SCATTER,
    COLL_SCATTERV,
    COLL_ALLGATHER,
    COLL_ALLGATHERV,
    COLL_ALLTOALL,
    COLL_ALLTOALLV,
    COLL_ALLTOALLW,
    COLL_REDUCE_SCATTER,
    COLL_REDUCE_SCATTER_BLOCK,
    COLL_SCAN,
    COLL_EXSCAN,
    NCOLL
};
/* Lower case, as in Trellis's rules: "bcast", ..., "reduce_scatter_block". */
extern const char *const coll_names[NCOLL];
/* The MPI functions: "MPI_Bcast", ... (prefix P for the PMPI_ name). */
extern const char *const coll_mpi_names[NCOLL];
/* The non-blocking forms: "ibcast", ... and "MPI_Ibcast", .... */
extern const char *const coll_inames[NCOLL];
extern const char *const coll_impi_names[NCOLL];

/* The variants a row times:
 *   VAR_MPI       the MPI library's own: PMPI_X (blocking rows) or PMPI_IX +
 *                 PMPI_Wait (non-blocking rows);
 *   VAR_TRELLIS   the call as a program makes it, Trellis when preloaded:
 *                 MPI_X, or MPI_IX + MPI_Wait;
 *   VAR_BLOCKING  non-blocking rows only: MPI_X, the blocking call through
 *                 Trellis, to compare start + wait with. */
enum variant { VAR_MPI, VAR_TRELLIS, VAR_BLOCKING, NVAR };
extern const char *const var_names[NVAR];

/* How many wrong results each rank prints before it only counts them. */
#define MAX_PRINTED_ERRORS 20

/* What every measurement shares: the communicator, buffers and counters. */
typedef struct {
    MPI_Comm comm;
    int rank;
    int size;
    int root;
    int use_float;
    MPI_Datatype dtype;
    void *sbuf;
    void *rbuf;
    /* The uniform counts and displacements of the v-variants and alltoallw,
     * size entries each, set by coll_set_counts for each row. */
    int *counts;         /* all equal to the row's count */
    int *displs;         /* r * count, in elements */
    int *byte_displs;    /* r * count * 4, in bytes (alltoallw) */
    MPI_Datatype *types; /* all dtype (alltoallw) */
    long call_id;        /* advances on every checked call, the same on all ranks */
    long printed_errors; /* this rank's printed error reports */
    int abort_on_error;
} bench;

/* The count argument of one row of collective c whose nominal size is
 * `nominal` bytes on `ranks` ranks, and in *bytes the row's size as
 * Trellis's rules mean it (above). Barrier: 0 and 0. */
int coll_row(enum coll c, size_t nominal, int ranks, size_t *bytes);

/* Bytes that sbuf and rbuf must each hold for every row of collective c
 * up to the nominal size max_nominal on `ranks` ranks. */
size_t coll_buffer_bytes(enum coll c, size_t max_nominal, int ranks);

/* Allocates b->counts, displs, byte_displs and types for b->size ranks;
 * -1 when out of memory. */
int coll_alloc_counts(bench *b);

/* Frees those and the buffers b->sbuf and b->rbuf. */
void coll_free(bench *b);

/* Sets b->counts, displs, byte_displs and types for a row of this count;
 * returns -1 when the byte displacements of this size do not fit an int. */
int coll_set_counts(bench *b, int count);

/* Sets up the buffers of a checked call: the data depend on the call (so on
 * the iteration) and on the rank, and whatever the call must write and
 * this rank will check is filled with -1 first. */
void coll_prepare(const bench *b, enum coll c, int count, long call);

/* Runs one call of the given variant, blocking or (nonblocking) started and
 * waited for. */
int coll_call(const bench *b, enum coll c, enum variant v, int count, int nonblocking);

/* Starts the non-blocking form of collective c: PMPI_IX for VAR_MPI, MPI_IX
 * otherwise. The caller completes *req (PMPI_ or MPI_ Wait/Test alike). */
int coll_start(const bench *b, enum coll c, enum variant v, int count, MPI_Request *req);

/* Verifies a checked call's result on this rank; returns 1 if it is wrong
 * (and reports the first wrong element on stderr), 0 if it is right. */
int coll_verify(bench *b, enum coll c, enum variant v, int count, long call);

#endif
