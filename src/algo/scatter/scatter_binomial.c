/* Binomial scatter (and scatterv): over a binomial tree rotated to the
 * root (vrank = rank - root mod p), each rank receives its whole
 * subtree's blocks from its parent in one message, keeps its own and
 * passes each child the child's subtree's blocks, the largest subtree
 * first (the critical path). A subtree is a contiguous range of vranks
 * (the tree's vranks are in pre-order), so the message holds the blocks
 * in vrank order: the node's own first, then each child's part at the sum
 * of the counts of the vranks before the child's. The sends to the
 * children all wait only for that one receive.
 *
 * Cost: ceil(log2 p) alpha + (p-1) n beta at the root (scatterv: N beta);
 * a node's message from its parent carries its subtree's blocks.
 * From: LAM-MPI's logarithmic spanning tree (seed 000); MPICH's binomial
 * MPIR_Scatter_intra_binomial, whose relative-rank layout this follows.
 * Any number of ranks: the tree stops at p. Any root: the rotation.
 *
 * At the root each child's blocks come from their places in SEND (i*count,
 * or displs[i]). When they are contiguous and in vrank order there (for
 * scatter: a child's subtree that does not wrap past rank p-1) the message
 * leaves straight from SEND; otherwise they are packed into scratch first,
 * one copy per run of adjacent blocks. The root copies its own block to
 * RECV, or with MPI_IN_PLACE leaves it in SEND and RECV untouched.
 *
 * scatterv: the table marks it TRL_NEEDS_ALL_COUNTS, so every rank knows
 * every count and computes the same subtree totals; displs are read at the
 * root only. A subtree whose blocks are all empty is sent nothing, and a
 * node whose children's subtrees are all empty (a leaf always) receives
 * its block straight into RECV: no zero-length messages, no scratch.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/gather/rooted_blocks.h"

/* At the root: send child peer its subtree, the blocks of ranks peer,
 * peer+1, ... (m of them, total elements), each taken from its place in
 * SEND. `deps` has room for m ids. */
static void root_send(const trl_coll_args *a, trl_sched *s, int peer, int m, size_t total,
                      int *deps)
{
    size_t pos;
    if (trl__back_to_back(a, peer, m, &pos)) {
        trl_sched_send(s, peer, trl_ref_at(TRL_BUF_SEND, pos), total, TRL_NODEPS);
        return;
    }
    /* Pack into scratch, one copy per run, then send. */
    size_t base = trl_sched_scratch(s, total);
    int nd = 0;
    for (trl__runs it = trl__runs_of(peer, m); trl__next_run(a, &it);)
        deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, it.pos),
                                    trl_ref_at(TRL_BUF_SCRATCH, base + it.run_at), it.len,
                                    TRL_NODEPS);
    trl_sched_send(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), total, deps, nd);
}

int trl_scatter_binomial(const trl_coll_args *a, trl_sched *s)
{
    trl__rooted node;
    int rc = trl__rooted_init(&node, a);
    if (rc)
        return rc;
    int *deps = node.v == 0 ? malloc((size_t)node.m * sizeof *deps) : NULL;
    if (node.v == 0 && !deps) {
        free(node.pre);
        return TRL_ERR_NOMEM;
    }
    size_t own = node.own, total = node.total;
    int parent = trl_tree_parent(&node.t, a->rank);

    if (node.v == 0) {
        /* Largest subtree first: children come nearest (smallest) first. */
        for (int i = node.nchild - 1; i >= 0; i--) {
            int peer, m;
            size_t at, n = trl__rooted_child(&node, i, &peer, &m, &at);
            if (n > 0)
                root_send(a, s, peer, m, n, deps);
        }
        if (!a->in_place && own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, trl__blk_displ(a, a->rank)),
                           trl_ref_at(TRL_BUF_RECV, 0), own, TRL_NODEPS);
    } else if (total > 0 && total == own) {
        /* Nothing to pass on: receive the block where it belongs. */
        trl_sched_recv(s, parent, trl_ref_at(TRL_BUF_RECV, 0), own, TRL_NODEPS);
    } else if (total > 0) {
        size_t base = trl_sched_scratch(s, total);
        int got = trl_sched_recv(s, parent, trl_ref_at(TRL_BUF_SCRATCH, base), total, TRL_NODEPS);
        for (int i = node.nchild - 1; i >= 0; i--) {
            int peer, m;
            size_t at, n = trl__rooted_child(&node, i, &peer, &m, &at);
            if (n > 0)
                trl_sched_send(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base + at), n, TRL_DEPS(got));
        }
        if (own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, base), trl_ref_at(TRL_BUF_RECV, 0), own,
                           TRL_DEPS(got));
    }
    free(node.pre);
    free(deps);
    return s->status;
}
