/* Step emission shared by the tree algorithms, so each tree broadcast and
 * tree reduce exists once: bcast/bcast_tree.c and reduce/reduce_tree.c. */
#ifndef TRL_TREE_STEPS_H
#define TRL_TREE_STEPS_H

#include "algo/algo.h"
#include "pattern/tree.h"

/* The n children of rank in the order it serves them: largest subtree
 * first (the critical path), ties to the later child, which in a binomial
 * or k-nomial tree is the farther one; an explicit tree's in its own order. Malloc'ed; NULL when out of memory. */
int *trl__tree_serving_order(const trl_tree *t, int rank, int n);

/* Broadcast over tree t in segments of `segment` elements (>= count: the
 * plain tree broadcast). */
int trl__bcast_tree(const trl_coll_args *a, trl_sched *s, const trl_tree *t, size_t segment);

/* Reduce over a tree of the given kind and radix, in segments of `segment`
 * elements; the order of combination is described in reduce_tree.c. */
int trl__reduce_tree(const trl_coll_args *a, trl_sched *s, trl_tree_kind kind, int radix,
                     size_t segment);

/* Reduce over the explicit tree t (rooted at t->root, which may differ from
 * the call's root: the result then takes one more message). in_file_order:
 * children are combined one after another in t's order; otherwise as they
 * arrive (commutative operations only). A non-commutative operation needs
 * an ordered tree (every subtree a run of ranks from its top, children's
 * runs in order, root 0) and in_file_order. */
int trl__reduce_explicit(const trl_coll_args *a, trl_sched *s, const trl_tree *t,
                         bool in_file_order);

/* Broadcast over the explicit tree t; when the call's root is not t's
 * root, the root first sends the buffer to t's root. */
int trl__bcast_explicit(const trl_coll_args *a, trl_sched *s, const trl_tree *t);

#endif
