/* What the `tree` algorithms (bcast, reduce, allreduce) share: when a tree
 * file can serve a call, and its trees as trl_tree. */
#ifndef TRL_TREE_FILE_USE_H
#define TRL_TREE_FILE_USE_H

#include "algo/algo.h"
#include "pattern/tree.h"
#include "tree/tree_file.h"

/* The rule's file (NULL only if a rule bypassed the parser's check). */
const trl_tree_file *trl__tree_file(const trl_coll_args *a);

/* Why the rule's file cannot serve the call, or NULL: its size and rank
 * order, the directions the collective needs, and for a non-commutative
 * operation the order of combination. */
const char *trl__tree_file_unusable(const trl_coll_args *a, bool reduce, bool bcast);

/* The file's reduce or bcast tree. */
int trl__tree_file_tree(const trl_tree_file *f, bool reduce, trl_tree *t);

/* order=file (true) or order=arrival. */
bool trl__tree_file_in_order(const trl_coll_args *a);

#endif
