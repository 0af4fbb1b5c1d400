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

/* At the root: send child vranks [v, v+m) (total elements) to peer, each
 * block taken from its place in SEND. `deps` has room for m ids. */
static void root_send(const trl_coll_args *a, trl_sched *s, int peer, int v, int m, size_t total,
                      int *deps)
{
    /* Count the runs of non-empty blocks that lie end to end in SEND. */
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
        trl_sched_send(s, peer, trl_ref_at(TRL_BUF_SEND, first), total, TRL_NODEPS);
        return;
    }
    /* Pack into scratch, one copy per run, then send. */
    size_t base = trl_sched_scratch(s, total);
    size_t at = 0, run_at = 0, run_pos = 0, run_len = 0; /* at: offset in the message */
    int nd = 0;
    for (int j = v; j < v + m; j++) {
        int r = rank_of(a, j);
        size_t n = block_count(a, r), pos = block_pos(a, r);
        if (n == 0)
            continue;
        if (run_len > 0 && pos != run_pos + run_len) {
            deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, run_pos),
                                        trl_ref_at(TRL_BUF_SCRATCH, base + run_at), run_len,
                                        TRL_NODEPS);
            run_len = 0;
        }
        if (run_len == 0) {
            run_at = at;
            run_pos = pos;
        }
        run_len += n;
        at += n;
    }
    deps[nd++] = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, run_pos),
                                trl_ref_at(TRL_BUF_SCRATCH, base + run_at), run_len, TRL_NODEPS);
    trl_sched_send(s, peer, trl_ref_at(TRL_BUF_SCRATCH, base), total, deps, nd);
}

int trl_scatter_binomial(const trl_coll_args *a, trl_sched *s)
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
    int *deps = v == 0 ? malloc((size_t)m * sizeof *deps) : NULL;
    if (!pre || (v == 0 && !deps)) {
        free(pre);
        free(deps);
        return TRL_ERR_NOMEM;
    }
    pre[0] = 0;
    for (int j = 0; j < m; j++)
        pre[j + 1] = pre[j] + block_count(a, rank_of(a, v + j));
    size_t own = m > 0 ? pre[1] : 0, total = pre[m]; /* m >= 1: v is in its subtree */

    if (v == 0) {
        /* Largest subtree first: children come nearest (smallest) first. */
        for (int i = nchild - 1; i >= 0; i--) {
            int cv = trl_tree_vchild(&t, v, i), cm = trl_tree_vsubtree(&t, cv);
            size_t n = pre[cv + cm] - pre[cv];
            if (n > 0)
                root_send(a, s, rank_of(a, cv), cv, cm, n, deps);
        }
        if (!a->in_place && own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, block_pos(a, a->rank)),
                           trl_ref_at(TRL_BUF_RECV, 0), own, TRL_NODEPS);
    } else if (total > 0 && total == own) {
        /* Nothing to pass on: receive the block where it belongs. */
        trl_sched_recv(s, rank_of(a, trl_tree_vparent(&t, v)), trl_ref_at(TRL_BUF_RECV, 0), own,
                       TRL_NODEPS);
    } else if (total > 0) {
        size_t base = trl_sched_scratch(s, total);
        int got = trl_sched_recv(s, rank_of(a, trl_tree_vparent(&t, v)),
                                 trl_ref_at(TRL_BUF_SCRATCH, base), total, TRL_NODEPS);
        for (int i = nchild - 1; i >= 0; i--) {
            int cv = trl_tree_vchild(&t, v, i), j = cv - v, cm = trl_tree_vsubtree(&t, cv);
            size_t n = pre[j + cm] - pre[j];
            if (n > 0)
                trl_sched_send(s, rank_of(a, cv), trl_ref_at(TRL_BUF_SCRATCH, base + pre[j]), n,
                               TRL_DEPS(got));
        }
        if (own > 0)
            trl_sched_copy(s, trl_ref_at(TRL_BUF_SCRATCH, base), trl_ref_at(TRL_BUF_RECV, 0), own,
                           TRL_DEPS(got));
    }
    free(pre);
    free(deps);
    return s->status;
}
