/* TRELLIS_CHECK's pre-exchange, for the calls whose blocks differ per peer
 * (trl_check_pre, check.h): started, tested, waited for, compared, freed. */
#ifndef TRL_CHECK_PRE_H
#define TRL_CHECK_PRE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi/engine/check_row.h"
#include "mpi/engine/check_sig.h"

/* The pre-exchange of a call whose blocks differ per peer (v and w forms,
 * neighbourhood collectives): out[i] is what this rank sends its i-th
 * destination, in[i] what it expects from its i-th source (bytes -1: do
 * not compare); the exchange gives got[i], which LOCAL compares with
 * in[i]. Allocated by trl_check_pre_new, owned by the check after. */
typedef enum {
    TRL_PRE_NONE,
    TRL_PRE_GATHER,    /* out[0] to the root; the root gets one from each rank */
    TRL_PRE_SCATTER,   /* the root's out[i] to rank i; in[0] */
    TRL_PRE_ALLGATHER, /* out[0] to all; in[i] from rank i */
    TRL_PRE_ALLTOALL,  /* out[i] to rank i; in[i] from rank i */
    TRL_PRE_NEIGHBOR,  /* out[i] to the i-th out-neighbour; in[i] from the i-th in-neighbour:
                          messages along the edges: Open MPI 4.1.4's non-blocking neighbour
                          alltoall paired the edges of a periodic dimension of two ranks
                          otherwise than its blocking one (tests/mpi/coll_check_neighbor
                          --seed 336, 4 ranks) */
    TRL_PRE_INTER,     /* an intercommunicator's: out[j] to the other group's rank j, in[i]
                          from its rank i (bytes -1: none); summed, never exchanged */
} trl_pre_kind;

typedef struct {
    trl_pre_kind kind;
    int root;
    int n_out, n_in;
    trl_sig *out, *in, *got;
    int *in_rank;      /* NEIGHBOR: each source's rank, malloc'd, or NULL */
    int *out_rank;     /* NEIGHBOR: each destination's rank, malloc'd, or NULL */
    MPI_Request *reqs; /* the exchange's: one, or NEIGHBOR's one an edge */
    int n_reqs;
    bool cart; /* NEIGHBOR on a Cartesian communicator (at most 16 dimensions) */
} trl_check_pre;

trl_check_pre *trl_check_pre_new(trl_pre_kind kind, int root, int n_out, int n_in);

/* Start the exchange of p over check, or with wait run it; seq: the call's
 * number (the neighbour form's tags). */
int trl_check_pre_start(trl_check_pre *p, MPI_Comm check, int64_t seq, bool wait);
/* A started exchange: whether it is done; wait for it (p may be NULL). */
int trl_check_pre_test(trl_check_pre *p, int *done);
int trl_check_pre_wait(trl_check_pre *p);
/* Without the exchange: a digest of this rank's blocks to other ranks (+)
 * and from them (-), which summed over the ranks (mod 2^64) is 0 when every
 * block matches its peer's view of it (but for a 2^-64 chance). False when
 * the blocks cannot be told so: a rank's own block differs between its two
 * sides, a side in MPI_PACKED (which matches by size alone) or a
 * neighbourhood's edges; then only the exchange can tell. */
bool trl_check_pre_digest(const trl_check_pre *p, int rank, int size, uint64_t *digest);
/* The same for a TRL_PRE_INTER (group: this rank's, 0 the first). */
bool trl_check_pre_digest_inter(const trl_check_pre *p, int group, int rank, uint64_t *digest);
/* A TRL_PRE_INTER's blocks whose digests did not cancel out: every rank's
 * blocks all-gathered on check (the merged communicator, collective over
 * it), and the first pair whose two sides differ marked on its receiver's
 * row (LOCAL, PEER: the sender's rank in its group, WANT, GOT). */
void trl_check_pre_name_inter(const trl_check_pre *p, int group, int rank, MPI_Comm check,
                              int64_t *row);
/* After the exchange: set row's LOCAL from the first block that differs. */
void trl_check_pre_compare(const trl_check_pre *p, int64_t *row);
/* Free p (NULL: nothing), unless a request of it is still in flight. */
void trl_check_pre_free(trl_check_pre *p);

#endif
