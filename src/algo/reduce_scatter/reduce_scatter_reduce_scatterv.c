/* Reduce-scatter as a binomial reduce of the whole vector to rank 0,
 * followed by a linear scatter of the blocks from rank 0.
 *
 * Reduce: each rank receives the partial results of its children in the
 * binomial tree rooted at rank 0 (rank r's children are r+1, r+2, r+4, ...
 * below its lowest set bit), combines them with its own vector and sends
 * the result to its parent. Scatter: rank 0 sends block i (counts[i]
 * elements at the sum of the counts before it) to rank i and keeps block 0.
 *
 * Cost: ceil(log2 p)(alpha + N beta + N gamma) for the reduce of the whole
 * vector (N elements) plus (p-1) alpha + N beta (p-1)/p for the scatter,
 * both at rank 0. Latency-bound and simple; the one reduce-scatter here
 * that serves non-commutative operations.
 * From: Open MPI's basic reduce_scatter (MPI_Reduce to rank 0, then
 * MPI_Scatterv), LAM-MPI's binomial tree (seed 000).
 * Any number of ranks: the tree stops at p. Blocks of zero elements get
 * no message.
 *
 * Order of combination: in the binomial tree rooted at rank 0 every
 * subtree holds a contiguous run of ranks that starts at its top, and the
 * children's runs follow one another in child order (r+1, r+2, r+4, ...).
 *  - non-commutative: a node computes own op c_1 op ... op c_k from right
 *    to left: the last child's result is received straight into the
 *    accumulator and each step folds the next lower operand in from the
 *    left (b = a op b), its own vector last, so rank 0 ends with
 *    x_0 op x_1 op ... op x_{p-1}.
 *  - commutative: the nearest child (the smallest subtree, expected first)
 *    lands in the accumulator and own data is folded into it; the other
 *    children land in slots of their own and are combined in order of
 *    arrival.
 *
 * Buffers: the accumulator is the scratch slot of the child received
 * first (received into directly, no copy); a leaf sends its send buffer as
 * it is. At rank 0 with MPI_IN_PLACE and a commutative operation the
 * receive buffer already holds rank 0's whole vector, so the children are
 * combined straight into it and block 0 is already in place; otherwise
 * rank 0 copies block 0 from the accumulator into its receive buffer.
 * Elsewhere, with MPI_IN_PLACE, the block from rank 0 is received only
 * after this rank's vector has been read (it may overwrite the start).
 */
#include <stdlib.h>

#include "algo/blocks.h"
#include "algo/builders.h"
#include "algo/reduce_scatter/reduce_scatter_steps.h"
#include "core/status.h"
#include "pattern/tree.h"

int trl_reduce_scatter_reduce_scatterv(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t *off = trl__blk_prefix(a, 0, p); /* off[p]: the whole vector */
    int *kids = NULL, *joins = NULL;
    int rc = TRL_ERR_NOMEM;
    if (!off)
        return TRL_ERR_NOMEM;
    size_t n = off[p], mine = off[rank + 1] - off[rank];
    trl_ref own = trl_ref_at(TRL_BUF_SEND, 0), result = trl_ref_at(TRL_BUF_RECV, 0);
    if (trl__reduce_scatter_trivial(a, s, off)) {
        rc = s->status;
        goto out;
    }

    trl_tree t;
    if ((rc = trl_tree_init_ordered(&t, TRL_TREE_BINOMIAL, 2, p)))
        goto out;
    int parent = trl_tree_parent(&t, rank), nk = trl_tree_nchildren(&t, rank);
    kids = malloc(((size_t)nk + 1) * sizeof *kids);
    joins = malloc(((size_t)nk + 1) * sizeof *joins);
    if (!kids || !joins) {
        rc = TRL_ERR_NOMEM;
        goto out;
    }
    trl_tree_children(&t, rank, kids, nk);

    /* Reduce. acc ends holding this subtree's result once every step in
     * joins is done. */
    trl_sched_phase(s, "reduce");
    trl_ref acc = own;
    int njoins = 0;
    bool acc_is_recv = rank == 0 && a->in_place && a->commutative;
    if (nk > 0) {
        /* One slot of n per child, except where the accumulator is RECV. */
        size_t slots = trl_sched_scratch(s, (size_t)nk * n);
#define SLOT(i) trl_ref_at(TRL_BUF_SCRATCH, slots + (size_t)(i)*n)
        if (acc_is_recv) {
            acc = result; /* holds rank 0's own vector already */
            for (int i = 0; i < nk; i++) {
                int got = trl_sched_recv(s, kids[i], SLOT(i), n, TRL_NODEPS);
                joins[njoins++] = trl_sched_reduce(s, SLOT(i), acc, n, TRL_DEPS(got));
            }
        } else if (a->commutative) {
            acc = SLOT(0); /* the nearest child, expected first */
            int first = trl_sched_recv(s, kids[0], acc, n, TRL_NODEPS);
            joins[njoins++] = trl_sched_reduce(s, own, acc, n, TRL_DEPS(first));
            for (int i = 1; i < nk; i++) {
                int got = trl_sched_recv(s, kids[i], SLOT(i), n, TRL_NODEPS);
                joins[njoins++] = trl_sched_reduce(s, SLOT(i), acc, n, TRL_DEPS(first, got));
            }
        } else {
            acc = SLOT(nk - 1);
            int last = trl_sched_recv(s, kids[nk - 1], acc, n, TRL_NODEPS);
            for (int i = nk - 2; i >= 0; i--) {
                int got = trl_sched_recv(s, kids[i], SLOT(i), n, TRL_NODEPS);
                last = trl_sched_reduce(s, SLOT(i), acc, n, TRL_DEPS(last, got));
            }
            joins[njoins++] = trl_sched_reduce(s, own, acc, n, TRL_DEPS(last));
        }
#undef SLOT
    }

    if (rank != 0) {
        int up = trl_sched_send(s, parent, acc, n, joins, njoins);
        trl_sched_phase(s, "scatter");
        /* In place the block lands over the vector just read. */
        if (mine > 0)
            trl_sched_recv(s, 0, result, mine, TRL_DEPS(a->in_place ? up : -1));
        rc = s->status;
        goto out;
    }

    /* Scatter from rank 0, in rank order. */
    trl_sched_phase(s, "scatter");
    for (int r = 1; r < p; r++) {
        size_t len = off[r + 1] - off[r];
        if (len > 0)
            trl_sched_send(s, r, trl_ref_at(acc.buf, acc.off + off[r]), len, joins, njoins);
    }
    if (!acc_is_recv && mine > 0)
        trl_sched_copy(s, acc, result, mine, joins, njoins);
    rc = s->status;
out:
    free(off);
    free(kids);
    free(joins);
    return rc;
}
