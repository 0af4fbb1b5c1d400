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
#include "core/status.h"
#include "pattern/tree.h"

static int rank_of(const trl_coll_args *a, int v)
{
    return (a->root + v) % a->size;
}

static size_t block_count(const trl_coll_args *a, int r)
{
    return a->counts ? a->counts[r] : a->count;
}

static size_t block_pos(const trl_coll_args *a, int r)
{
    return a->counts ? a->displs[r] : (size_t)r * a->count;
}

/* At the root: receive child vranks [v, v+m) (total elements, from peer)
 * and put every block at its place in RECV. */
static void root_receive(const trl_coll_args *a, trl_sched *s, int peer, int v, int m,
                         size_t total)
{
    /* Count the runs of non-empty blocks that lie end to end in RECV. */
    int runs = 0;
    size_t first = 0, end = 0;
    for (int j = v; j < v + m; j++) {
        int r = rank_of(a, j);
        size_t n = block_count(a, r), pos = block_pos(a, r);
        if (n == 0)
            continue;
        if (runs == 0)
            first = pos;
        if (runs == 0 || pos != end)
            runs++;
        end = pos + n;
    }
    if (runs == 1) {
        trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_RECV, first), total, TRL_NODEPS);
        return;
    }
    /* Land in scratch, then one copy per run. */
    size_t base = trl_sched_scratch(s, total);
    int got = trl_sched_recv(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), total, TRL_NODEPS);
    size_t at = 0, run_at = 0, run_pos = 0, run_len = 0; /* at: offset in the message */
    for (int j = v; j < v + m; j++) {
        int r = rank_of(a, j);
        size_t n = block_count(a, r), pos = block_pos(a, r);
        if (n == 0)
            continue;
        if (run_len > 0 && pos != run_pos + run_len) {
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, base + run_at),
                           trl_ref_at(TRL_BUF_RECV, run_pos), run_len, TRL_DEPS(got));
            run_len = 0;
        }
        if (run_len == 0) {
            run_at = at;
            run_pos = pos;
        }
        run_len += n;
        at += n;
    }
    trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, base + run_at), trl_ref_at(TRL_BUF_RECV, run_pos),
                   run_len, TRL_DEPS(got));
}

int trl_gather_binomial(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size;
    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, p, a->root);
    if (rc)
        return rc;
    int v = trl_tree_vrank(&t, a->rank);
    int m = trl_tree_vsubtree(&t, v), nchild = trl_tree_vnchildren(&t, v);

    /* pre[j]: elements of vranks v .. v+j-1, the offset of vrank v+j's
     * block in this node's message. */
    size_t *pre = malloc(((size_t)m + 1) * sizeof *pre);
    int *deps = malloc(((size_t)nchild + 1) * sizeof *deps);
    if (!pre || !deps) {
        free(pre);
        free(deps);
        return TRL_ERR_NOMEM;
    }
    pre[0] = 0;
    for (int j = 0; j < m; j++)
        pre[j + 1] = pre[j] + block_count(a, rank_of(a, v + j));
    size_t own = pre[1], total = pre[m];

    if (v == 0) {
        for (int i = 0; i < nchild; i++) {
            int cv = trl_tree_vchild(&t, v, i), cm = trl_tree_vsubtree(&t, cv);
            size_t n = pre[cv + cm] - pre[cv];
            if (n > 0)
                root_receive(a, s, rank_of(a, cv), cv, cm, n);
        }
        if (!a->in_place && own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0),
                           trl_ref_at(TRL_BUF_RECV, block_pos(a, a->rank)), own, TRL_NODEPS);
    } else if (total > 0 && total == own) {
        /* Nothing comes from below: send the block where it is. */
        trl_sched_send(s, rank_of(a, trl_tree_vparent(&t, v)), trl_ref_at(TRL_BUF_SEND, 0), own,
                       TRL_NODEPS);
    } else if (total > 0) {
        size_t base = trl_sched_scratch(s, total);
        int nd = 0;
        if (own > 0)
            deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, 0),
                                        trl_ref_at(TRL_BUF_SCRATCH, base), own, TRL_NODEPS);
        for (int i = 0; i < nchild; i++) {
            int cv = trl_tree_vchild(&t, v, i), j = cv - v, cm = trl_tree_vsubtree(&t, cv);
            size_t n = pre[j + cm] - pre[j];
            if (n > 0)
                deps[nd++] = trl_sched_recv(s, rank_of(a, cv),
                                            trl_ref_at(TRL_BUF_SCRATCH, base + pre[j]), n,
                                            TRL_NODEPS);
        }
        trl_sched_send(s, rank_of(a, trl_tree_vparent(&t, v)), trl_ref_at(TRL_BUF_SCRATCH, base),
                       total, deps, nd);
    }
    free(pre);
    free(deps);
    return s->status;
}
