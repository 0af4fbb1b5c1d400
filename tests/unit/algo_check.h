/* Shared parts of the threads tier (test_algos): element types with
 * independent reference arithmetic, the tally of cases and failures, and
 * helpers to build every rank's schedule and run them as threads.
 *
 * Each family of collectives has one file (check_<family>.c) with a case
 * function: given one case (algorithm, parameters, type, ranks, count,
 * root, in place), it builds all ranks' schedules, fills inputs, computes
 * the expected result with a plain loop, runs, and compares. */
#ifndef ALGO_CHECK_H
#define ALGO_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "algo/algo.h"
#include "algo/params.h"
#include "exec/exec_threads.h"

typedef struct {
    const char *name;
    size_t size;
    bool commutative;
    void (*fill)(void *buf, int rank, size_t count, unsigned salt);
    void (*reduce)(const void *in, void *inout, size_t count);        /* inout = in (op) inout */
    void (*fold_expected)(void *acc, const void *next, size_t count); /* acc = acc (op) next */
    bool (*close)(const void *got, const void *want, size_t count, int nranks, size_t *bad);
} elem_type;

/* i64 (exact sum), f64 (sum within rounding), mat (2x2 matrix product mod
 * 2^32: associative, not commutative). */
extern const elem_type check_types[];
extern const size_t check_ntypes;

typedef struct {
    int failures, cases;
    bool quick;
    /* --seed: the core cases and one slice of the others (check_picked) */
    bool rotate;
    unsigned seed;
    int left; /* cases of the whole sweep left to the other slices */
} tally;

/* The sweep's rotation. Without --seed every case runs. With --seed S the
 * core runs (each sweep says which cases are its core: the cheap ones that find
 * most bugs) and, of the others, those of slice S % CHECK_SLICES: a case's
 * slice comes from its key (its index in the whole sweep, which seeds its data
 * too), so CHECK_SLICES consecutive seeds run every case once, and the same
 * case has the same data with any seed or none. */
enum { CHECK_SLICES = 8 };
bool check_picked(tally *t, bool core, unsigned key);

typedef struct {
    const trl_algo *algo;
    const char *params_text;
    const trl_params *params;
    const elem_type *ty;
    int p;
    size_t count; /* the sweep's count: per block, or per rank before irregular spreading */
    int root;
    bool in_place;
    unsigned seed;
    const char *layout_text; /* the described layout, or NULL (one host) */
    const struct trl_topo *topo;
} check_case;

/* Record a failure of case c (printed for the first 20). */
void check_fail(tally *t, const check_case *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Byte-exact comparison; *bad gets the first differing element. */
bool check_exact(const void *got, const void *want, size_t count, size_t size, size_t *bad);

/* Args for case c at rank 0 (callers set rank and in_place per rank, and
 * counts/displs where the collective has them). */
trl_coll_args check_args(const check_case *c);

/* Irregular counts for the v-variants, derived from the sweep's count:
 * every third rank gets nothing, the others count + rank * 3 (count 0:
 * all zero). */
void check_irregular_counts(int p, size_t count, size_t *counts);

/* Displacements that lay blocks out in reverse rank order with a gap of
 * one element between them (so misplaced writes and overruns show).
 * Returns the buffer length needed, in elements. */
size_t check_scattered_displs(int p, const size_t *counts, size_t *displs);

/* want = x_0 op x_1 op ... op x_{p-1} folded in rank order, x_r being
 * c->ty->fill(r) over n elements; tmp has room for n elements. */
void check_fold_ranks(const check_case *c, void *want, void *tmp, size_t n);

/* One case's schedules and buffers, one of each per rank (capacities in
 * elements). send[r] == recv[r] where rank r works in place; NULL where it
 * has no buffer (the executor fails any access to it). */
typedef struct {
    int p;
    int built; /* s[0..built) are built */
    trl_sched *s;
    void **send, **recv;
    size_t *send_n, *recv_n;
} check_bufs;

/* All empty for p ranks; false when out of memory (free it all the same). */
bool check_bufs_init(check_bufs *b, int p);

/* Free the built schedules, each buffer once, and the arrays. */
void check_bufs_free(check_bufs *b);

/* Build rank r's schedule for r = 0..p-1 with args_of(r) (the caller's
 * function fills the per-rank fields). Returns false after reporting. */
typedef void (*check_args_fn)(const check_case *c, int rank, trl_coll_args *a, void *ctx);
bool check_build_all(tally *t, const check_case *c, check_bufs *b, check_args_fn args_of,
                     void *ctx);

/* Run the built schedules on b's buffers (elements of elem_size) under the
 * strict thread executor; false after reporting. */
bool check_run(tally *t, const check_case *c, const check_bufs *b, size_t elem_size);

/* Whether every rank's own send buffer (not its RECV in place) still holds
 * c->ty->fill(rank) over its capacity; reports the first that does not. */
bool check_sends_unchanged(tally *t, const check_case *c, const check_bufs *b);

/* Whether every rank r, before it finishes, has heard (through a chain of
 * messages) from every rank in the bitset want[r] (NULL: every rank);
 * p <= 64. why says which rank did not. */
bool check_barrier_informs(trl_sched *s, int p, const uint64_t *want, char *why, size_t whylen);

/* The case function of each family. */
typedef void (*check_case_fn)(tally *t, const check_case *c);
void check_classic_case(tally *t, const check_case *c);        /* bcast reduce allreduce barrier */
void check_gather_case(tally *t, const check_case *c);         /* gather(v) scatter(v) */
void check_allgather_case(tally *t, const check_case *c);      /* allgather(v) */
void check_alltoall_case(tally *t, const check_case *c);       /* alltoall(v,w) */
void check_reduce_scatter_case(tally *t, const check_case *c); /* reduce_scatter(_block) */
void check_scan_case(tally *t, const check_case *c);           /* scan, exscan */
void check_neighbor_case(tally *t, const check_case *c);       /* neighbor_* */

/* The intercommunicator algorithms' whole sweep (check_inter.c); returns
 * 0, or 2 for a broken test setup. */
int check_inter_sweep(tally *t, const trl_algo *algo);

#endif
