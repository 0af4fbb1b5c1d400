/* The node a rank is in the binomial tree rotated to the root, which the
 * binomial gather and scatter share. A subtree is a contiguous range of
 * vranks (pre-order), so its blocks travel back to back in vrank order in
 * one message: the node's own block first, then each child's subtree. */
#ifndef TRL_ROOTED_BLOCKS_H
#define TRL_ROOTED_BLOCKS_H

#include <stdlib.h>

#include "algo/blocks.h"
#include "core/status.h"
#include "pattern/tree.h"

typedef struct {
    trl_tree t;
    int v, m, nchild;  /* this rank's vrank, its subtree's size, its children */
    size_t *pre;       /* pre[j]: where vrank v+j's block starts in the message */
    size_t own, total; /* elements of this rank's block and of the message */
} trl__rooted;

/* 0, or a failure's status (with nothing left to free). */
static inline int trl__rooted_init(trl__rooted *n, const trl_coll_args *a)
{
    int rc = trl_tree_init(&n->t, TRL_TREE_BINOMIAL, 2, a->size, a->root);
    if (rc)
        return rc;
    n->v = trl_tree_vrank(&n->t, a->rank);
    n->m = trl_tree_vsubtree(&n->t, n->v); /* >= 1: v is in its subtree */
    n->nchild = trl_tree_vnchildren(&n->t, n->v);
    n->pre = trl__blk_prefix(a, a->rank, n->m);
    if (!n->pre)
        return TRL_ERR_NOMEM;
    n->own = n->pre[1];
    n->total = n->pre[n->m];
    return 0;
}

/* Child i's subtree: the child's rank (*peer, also its subtree's first
 * block), the subtree's size (*m) and where its blocks start in the
 * message (*at). Returns their elements. */
static inline size_t trl__rooted_child(const trl__rooted *n, int i, int *peer, int *m, size_t *at)
{
    int cv = trl_tree_vchild(&n->t, n->v, i), j = cv - n->v;
    *peer = trl_tree_rank(&n->t, cv);
    *m = trl_tree_vsubtree(&n->t, cv);
    *at = n->pre[j];
    return n->pre[j + *m] - n->pre[j];
}

#endif
