/* Trees over ranks: pure peer math, no buffers and no steps.
 *
 * A tree has a shape over virtual ranks (vranks) 0..size-1, with vrank 0 at
 * the top, and a labelling that says which real rank sits at each vrank:
 *
 *  - rotated (trl_tree_init): vrank = (rank - root + size) % size, so the
 *    same shape serves any root. Broadcasts and commutative reductions
 *    use it.
 *  - ordered (trl_tree_init_ordered): ranks are handed out in pre-order
 *    (a node, then its children's subtrees in child order), so the root is
 *    rank 0, every subtree covers a contiguous range of ranks that starts
 *    at its own top, and the children's ranges follow one another in child
 *    order. A non-commutative reduction over such a tree combines in exact
 *    rank order by folding each node's value with its children's results
 *    in child order. For binomial, k-nomial and chain trees the pre-order
 *    of the vranks is the identity, so "ordered" is "rotated with root 0";
 *    for k-ary trees (numbered level by level) it is a relabelling.
 *
 * Shapes: binomial (LAM-MPI and MPICH's order), k-nomial, k-ary, chain.
 * Internally there are two families: binomial is k-nomial with radix 2,
 * and a chain is a k-ary tree with radix 1.
 *
 * Children come in a fixed order; callers read them one at a time with
 * trl_tree_child (no storage at all) or fill an array of their own with
 * trl_tree_children (count first, then fill: no fixed capacity). The
 * model is MPICH's treealgo, which keeps this math apart from the
 * schedules that use it.
 */
#ifndef TRL_PATTERN_TREE_H
#define TRL_PATTERN_TREE_H

#include <stdbool.h>

typedef enum {
    TRL_TREE_BINOMIAL, /* children vrank+1, +2, +4, ... below the lowest set bit */
    TRL_TREE_KNOMIAL,  /* children vrank + j*radix^i, j = 1..radix-1 */
    TRL_TREE_KARY,     /* children vrank*radix+1 .. vrank*radix+radix */
    TRL_TREE_CHAIN,    /* child vrank+1 */
    TRL_TREE_EXPLICIT, /* given rank by rank (a tree file): vrank is rank */
} trl_tree_kind;

typedef struct {
    trl_tree_kind kind;
    int radix;    /* knomial: >= 2; kary: >= 1; binomial 2 and chain 1, set by init */
    int size;     /* ranks in the tree, >= 1 */
    int root;     /* the rank at vrank 0 */
    bool ordered; /* ranks are the vranks' pre-order positions (root is 0) */
    /* explicit: rank r's parent (-1 at the root) and its children
     * child[child_first[r] .. child_first[r+1]) in order; not owned. */
    const int *parent, *child_first, *child;
} trl_tree;

/* A tree rooted at `root` with rotated labels. radix is ignored for
 * binomial and chain. Returns TRL_OK or TRL_ERR_INVALID. */
int trl_tree_init(trl_tree *t, trl_tree_kind kind, int radix, int size, int root);

/* A tree rooted at rank 0 whose subtrees cover contiguous rank ranges in
 * child order (see above). */
int trl_tree_init_ordered(trl_tree *t, trl_tree_kind kind, int radix, int size);

/* A tree given rank by rank (checked by its loader: every rank reaches
 * root, parent and children agree). Ranks are not relabelled. */
int trl_tree_init_explicit(trl_tree *t, int size, int root, const int *parent,
                           const int *child_first, const int *child);

/* ---- the shape, over vranks ---- */

int trl_tree_vparent(const trl_tree *t, int vrank); /* -1 at vrank 0 */
int trl_tree_vnchildren(const trl_tree *t, int vrank);
int trl_tree_vchild(const trl_tree *t, int vrank, int i); /* -1 past the last */
int trl_tree_vsubtree(const trl_tree *t, int vrank);      /* nodes, itself included */

/* Position of vrank in a pre-order walk (children in order), and back. */
int trl_tree_preorder(const trl_tree *t, int vrank);
int trl_tree_at_preorder(const trl_tree *t, int pos);

/* ---- the same over real ranks ---- */

int trl_tree_vrank(const trl_tree *t, int rank);
int trl_tree_rank(const trl_tree *t, int vrank);

int trl_tree_parent(const trl_tree *t, int rank); /* -1 at the root */
int trl_tree_nchildren(const trl_tree *t, int rank);
int trl_tree_child(const trl_tree *t, int rank, int i); /* -1 past the last */
int trl_tree_subtree_size(const trl_tree *t, int rank);

/* Writes the first min(n, cap) children of rank to out and returns n, the
 * number of children: call with cap 0 to size an array, then again. */
int trl_tree_children(const trl_tree *t, int rank, int *out, int cap);

#endif
