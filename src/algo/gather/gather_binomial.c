/* Binomial gather (and gatherv): over a binomial tree rotated to the root
 * (vrank = rank - root mod p), each rank receives the blocks of its
 * children's subtrees, adds its own, and forwards its whole subtree's
 * blocks to its parent in one message. A subtree is a contiguous range of
 * vranks (the tree's vranks are in pre-order), so a node lays its
 * subtree's blocks out in scratch in vrank order: its own block first,
 * then each child's message at the sum of the counts of the vranks before
 * the child's. All receives of a node are posted at once; the send to the
 * parent waits for them.
 *
 * Cost: ceil(log2 p) alpha + (p-1) n beta at the root (gatherv: N beta);
 * a node's message to its parent carries its subtree's blocks.
 * From: LAM-MPI's logarithmic spanning tree (seed 000); MPICH's binomial
 * MPIR_Gather_intra_binomial, whose relative-rank layout this follows.
 * Any number of ranks: the tree stops at p. Any root: the rotation.
 *
 * At the root each child's blocks go to their places in RECV (i*count, or
 * displs[i]). When they are contiguous and in vrank order there (for
 * gather: a child's subtree that does not wrap past rank p-1) the message
 * lands straight in RECV; otherwise it lands in scratch and is copied out,
 * one copy per run of adjacent blocks. The root's own block is copied from
 * SEND, or with MPI_IN_PLACE is already in place.
 *
 * gatherv: the table marks it TRL_NEEDS_ALL_COUNTS, so every rank knows
 * every count and computes the same subtree totals; displs are read at the
 * root only. A subtree whose blocks are all empty sends nothing, and a
 * node whose children's subtrees are all empty sends its block straight
 * from SEND (a leaf always does): no zero-length messages, no scratch.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/gather/rooted_blocks.h"

/* At the root: receive child peer's subtree, the blocks of ranks peer,
 * peer+1, ... (m of them, total elements), and put each at its place in
 * RECV. */
static void root_receive(const trl_coll_args *a, trl_sched *s, int peer, int m, size_t total)
{
    size_t pos;
    if (trl__back_to_back(a, peer, m, &pos)) {
        trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_RECV, pos), total, TRL_NODEPS);
        return;
    }
    /* Land in scratch, then one copy per run. */
    size_t base = trl_sched_scratch(s, total);
    int got = trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), total, TRL_NODEPS);
    for (trl__runs it = trl__runs_of(peer, m); trl__next_run(a, &it);)
        trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, base + it.run_at),
                       trl_ref_at(TRL_BUF_RECV, it.pos), it.len, TRL_DEPS(got));
}

int trl_gather_binomial(const trl_coll_args *a, trl_sched *s)
{
    trl__rooted node;
    int rc = trl__rooted_init(&node, a);
    if (rc)
        return rc;
    int *deps = malloc(((size_t)node.nchild + 1) * sizeof *deps);
    if (!deps) {
        free(node.pre);
        return TRL_ERR_NOMEM;
    }
    size_t own = node.own, total = node.total;
    int parent = trl_tree_parent(&node.t, a->rank);

    if (node.v == 0) {
        for (int i = 0; i < node.nchild; i++) {
            int peer, m;
            size_t at, n = trl__rooted_child(&node, i, &peer, &m, &at);
            if (n > 0)
                root_receive(a, s, peer, m, n);
        }
        if (!a->in_place && own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0),
                           trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, a->rank)), own, TRL_NODEPS);
    } else if (total > 0 && total == own) {
        /* Nothing comes from below: send the block where it is. */
        trl_sched_send(s, parent, trl_ref_at(TRL_BUF_SEND, 0), own, TRL_NODEPS);
    } else if (total > 0) {
        size_t base = trl_sched_scratch(s, total);
        int nd = 0;
        if (own > 0)
            deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0),
                                        trl_ref_at(TRL_BUF_SCRATCH, base), own, TRL_NODEPS);
        for (int i = 0; i < node.nchild; i++) {
            int peer, m;
            size_t at, n = trl__rooted_child(&node, i, &peer, &m, &at);
            if (n > 0)
                deps[nd++] = trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base + at), n,
                                            TRL_NODEPS);
        }
        trl_sched_send(s, parent, trl_ref_at(TRL_BUF_SCRATCH, base), total, deps, nd);
    }
    free(node.pre);
    free(deps);
    return s->status;
}
