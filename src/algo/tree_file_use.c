#include "algo/tree_file_use.h"

#include <stdio.h>

#include "algo/params.h"
#include "core/status.h"
#include "topo/topo.h"

const trl_tree_file *trl__tree_file(const trl_coll_args *a)
{
    return trl_param_obj(a, "file");
}

bool trl__tree_file_in_order(const trl_coll_args *a)
{
    return trl_param_int(a, "order") == 0; /* "file|arrival" */
}

const char *trl__tree_file_unusable(const trl_coll_args *a, bool reduce, bool bcast)
{
    static _Thread_local char why[600];
    const trl_tree_file *f = trl__tree_file(a);
    if (!f)
        return "no tree file= given";
    /* Files are written for MPI_COMM_WORLD's ranks; without a topology
     * (tests, explain) the communicator is taken to be WORLD. */
    if (f->size != a->size) {
        snprintf(why, sizeof why, "%s is written for %d ranks; the communicator has %d", f->path,
                 f->size, a->size);
        return why;
    }
    if (a->topo && !a->topo->world_order) {
        snprintf(why, sizeof why,
                 "%s is written for MPI_COMM_WORLD's rank order; this "
                 "communicator's ranks are in another order",
                 f->path);
        return why;
    }
    if ((reduce && !f->has_reduce) || (bcast && !f->has_bcast)) {
        snprintf(why, sizeof why, "%s has no %s tree", f->path,
                 reduce && !f->has_reduce ? "reduce" : "bcast");
        return why;
    }
    if (reduce && !a->commutative) {
        if (!trl__tree_file_in_order(a))
            return "order=arrival needs a commutative operation";
        if (!trl_tree_links_ordered(&f->reduce, f->size, f->root)) {
            snprintf(why, sizeof why,
                     "the reduce tree of %s does not combine in rank order, "
                     "which a non-commutative operation needs (docs/trees.md)",
                     f->path);
            return why;
        }
    }
    return NULL;
}

int trl__tree_file_tree(const trl_tree_file *f, bool reduce, trl_tree *t)
{
    const trl_tree_links *l = reduce ? &f->reduce : &f->bcast;
    return trl_tree_init_explicit(t, f->size, f->root, l->parent, l->child_first, l->child);
}
