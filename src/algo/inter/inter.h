/* Intercommunicator collectives (seed 003) as ordinary schedules.
 *
 * An intercommunicator joins two disjoint groups. The runtime merges them
 * once into a private intracommunicator (src/mpi/context/inter.c) and computes,
 * without communication, where each member of either group sits in it.
 * A schedule of an intercommunicator call is then a schedule over the
 * merged communicator's ranks like any other: the executors, shared
 * memory, the cache, tracing and the non-blocking machinery run it
 * unchanged. Builders see the two groups through trl_coll_args.inter.
 *
 * The shape of a call, as one rank sees it (a->rank: its merged rank):
 *   - a->root (rooted calls): the root's merged rank, on the root and on
 *     the other group's ranks (which passed the root's group rank). The
 *     root's group's other ranks (MPI_PROC_NULL) take no part: the runtime
 *     never builds a schedule for them.
 *   - Blocks are indexed by group rank, never by merged rank: counts[i]
 *     and displs[i] describe the block of the remote group's rank i (a
 *     root's gather or scatter, allgather's receive side), or of the local
 *     group's rank i (reduce_scatter: this group's recvcounts). The
 *     arrays the runtime passes are as long as the merged communicator,
 *     zero past the group.
 * Per collective (data movers in bytes, elem_size 1, as for
 * intracommunicators):
 *   bcast       root: SEND count bytes. Remote group: RECV count bytes.
 *   reduce      remote group: SEND count. Root: RECV, the reduction of the
 *               remote group's vectors in its rank order.
 *   allreduce   SEND, RECV count: RECV gets the reduction of the OTHER
 *               group's vectors, in that group's rank order.
 *   barrier     no data: a rank leaves once every rank of the other group
 *               has entered.
 *   gather(v)   remote group: SEND count. Root: RECV block i (counts[i]
 *               at displs[i], or count at i*count) from remote rank i.
 *               gatherv's leader algorithm needs every count on the
 *               remote group (TRL_NEEDS_ALL_COUNTS): the runtime exchanges
 *               them and passes them as counts[] there too.
 *   scatter(v)  the reverse: root SEND blocks; remote group RECV count.
 *   allgather(v)  SEND count (this rank's block); RECV block i (counts[i]
 *               at displs[i]) from remote rank i.
 *   alltoall(v,w)  send_counts/send_displs and recv_counts/recv_displs per
 *               remote rank (alltoall's too, uniform).
 *   reduce_scatter(_block)  SEND: this rank's vector, the sum of counts[]
 *               (this group's recvcounts) or count x local size elements.
 *               RECV: block `me` of the reduction of the OTHER group's
 *               vectors (scattered by this group's counts).
 * MPI_IN_PLACE does not exist on intercommunicators.
 */
#ifndef TRL_ALGO_INTER_H
#define TRL_ALGO_INTER_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"
#include "core/status.h"

/* The two groups inside the merged communicator. Groups are numbered by
 * the merged communicator: group 0 holds merged rank 0. */
typedef struct trl_inter {
    int size;            /* ranks of the merged communicator: n[0] + n[1] */
    int n[2];            /* each group's ranks */
    const int *ranks[2]; /* each group's members as merged ranks, in group rank order */
    const int *group;    /* per merged rank: its group */
    const int *index;    /* per merged rank: its rank in its group */
    int *storage;        /* owned: what the arrays above point into */
} trl_inter;

/* From the groups' merged ranks (ranks0: n0 of them, ranks1: n1; together
 * a permutation of 0..n0+n1-1, ranks0 holding 0). TRL_ERR_INVALID if not. */
int trl_inter_init(trl_inter *in, const int *ranks0, int n0, const int *ranks1, int n1);
void trl_inter_free(trl_inter *in);

/* One rank's view of its call: its own group and the other. */
typedef struct {
    int me;                    /* this rank's rank in its group */
    int nl, nr;                /* ranks in the local and remote groups */
    const int *local, *remote; /* their merged ranks */
} trl_inter_view;

trl_inter_view trl_inter_view_of(const trl_coll_args *a);

/* A rooted call's part for this rank: the root, a rank of the other group
 * (which receives from or contributes to the root), or none (the root's
 * group's other ranks, MPI_PROC_NULL in MPI, whose a->root is -1). */
typedef enum { TRL_INTER_NONE, TRL_INTER_ROOT, TRL_INTER_REMOTE } trl_inter_role;
trl_inter_role trl_inter_role_of(const trl_coll_args *a);

/* The sizes the rules' ranks= and remote_ranks= see: both groups must
 * choose alike, so every rank matches the rules as the larger group sees
 * the call (*ranks its size, *remote the smaller's); equal groups see the
 * same. */
void trl_inter_rule_sizes(const trl_coll_args *a, unsigned long long *ranks,
                          unsigned long long *remote);

/* The size the rules' bytes= sees (trl_coll_rule_bytes): alike on every
 * rank that takes part (docs/rules.md). */
size_t trl_inter_rule_bytes(const trl_coll_args *a);

/* Run an intracommunicator algorithm of the table over this rank's own
 * group as part of s: the group's rank i is local[i], its layout a->topo's
 * restricted to the group. A fence before (the part waits for what this
 * rank did so far) and after. */
typedef struct {
    trl_coll coll;                 /* the part's collective */
    const char *param;             /* the LEVEL parameter naming its algorithm */
    int root;                      /* a group rank (rooted parts) */
    size_t count;                  /* elements (per block where it has blocks) */
    const size_t *counts, *displs; /* per group rank, or NULL (uniform blocks) */
    trl_ref send, recv;            /* where the part's SEND and RECV lie in s */
    const int *over;               /* the part's ranks as merged ranks, or NULL: this rank's */
    int n_over;                    /* whole group; else a subset of it holding this rank */
} trl_inter_part;

int trl_inter_run_part(const trl_coll_args *a, trl_sched *s, const trl_inter_part *part);

/* The `unusable` hook of the leader algorithms: why a part (named by a
 * LEVEL parameter) cannot serve this call, or NULL. */
const char *trl_inter_parts_unusable(const trl_coll_args *a);
/* The same for the parts run over the merged ranks ranks[0..n-1] only. */
const char *trl__inter_parts_unusable_over(const trl_coll_args *a, const int *ranks, int n);

/* What a rank of an inter_hosts call needs of the layout (src/algo/inter/
 * hosts.c): each host's members of a group are led by their lowest group
 * rank, hosts taken in order of first appearance in group rank order (no
 * layout: one host). */
typedef struct {
    int *members;  /* this rank's host's members of its own group, merged ranks in */
    int n_members; /* group rank order: the leader first */
    int *leaders;  /* the other group's host leaders, merged ranks, host by host */
    int n_leaders;
} trl_inter_host_view;

int trl__inter_host_view_of(const trl_coll_args *a, trl_inter_host_view *hv);
void trl__inter_host_view_free(trl_inter_host_view *hv);

/* The `unusable` hook of the algorithms whose parts run within each host of
 * a group (inter_hosts): every part on every host of both groups; and a
 * non-commutative operation needs every host to hold consecutive ranks of
 * its group (host by host is then rank order). */
const char *trl_inter_host_parts_unusable(const trl_coll_args *a);

/* Receive every remote rank's n elements and fold them into dst in the
 * remote group's rank order (for a commutative operation, in order of
 * arrival), as the root of a linear reduce does; then a fence, so later
 * steps see the result. Scratch: one slot of n per remote rank. */
int trl__inter_fold_remote(const trl_coll_args *a, trl_sched *s, trl_ref dst, size_t n);
/* The same from the n_from merged ranks `from`, folded in their order. */
int trl__inter_fold_from(const trl_coll_args *a, trl_sched *s, trl_ref dst, size_t n,
                         const int *from, int n_from);

/* The pairwise step between the groups: this rank sends n elements at out
 * to every remote rank j with j mod n_l == me (at least its partner, when
 * the other group is larger), and receives n elements into in from remote
 * rank me mod n_r. Every rank of either group thus receives one message
 * from the other group. Steps after what came before (the caller fences). */
int trl__inter_pairs(const trl_coll_args *a, trl_sched *s, trl_ref out, trl_ref in, size_t n);

/* a seen as a call over n blocks (a->size n), for the block helpers of
 * algo/blocks.h, which count blocks modulo a->size. */
trl_coll_args trl__inter_blocks(const trl_coll_args *a, int n);

/* The linear rooted data movers: the root receives (to_root) or sends
 * block i (counts[i] at displs[i], or count at i*count) from or to remote
 * rank i, all at once; a rank of the other group sends or receives its
 * own a->count. Empty blocks are not sent. */
int trl__inter_linear_blocks(const trl_coll_args *a, trl_sched *s, bool to_root);

/* This rank's own group's blocks back to back in group rank order (counts[i],
 * or count each where counts is NULL): their total, and where counts is
 * given their offsets in *packed (malloc'ed; NULL otherwise: uniform blocks
 * lie at i*count already). Returns a status. */
int trl__inter_local_blocks(const trl_coll_args *a, size_t *total, size_t **packed);

/* The builders, src/algo/inter/<collective>_<name>.c, are declared from the
 * registry (algo/builders.h). */

#endif
