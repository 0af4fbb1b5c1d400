/* Tree file allreduce: the file's reduce tree to its root, then the file's
 * bcast tree from there (LAM-MPI's allreduce over seed 000's scripted
 * reduce and broadcast; the two trees may differ). A fence between them:
 * the broadcast writes RECV, which in place is the buffer the reduce read.
 */
#include "algo/builders.h"
#include "algo/tree_file_use.h"
#include "algo/tree_steps.h"

const char *trl_allreduce_tree_file_unusable(const trl_coll_args *a)
{
    return trl__tree_file_unusable(a, true, true);
}

int trl_allreduce_tree_file(const trl_coll_args *a, trl_sched *s)
{
    const trl_tree_file *f = trl__tree_file(a);
    trl_tree up, down;
    int rc = trl__tree_file_tree(f, true, &up);
    if (!rc)
        rc = trl__tree_file_tree(f, false, &down);
    if (rc)
        return rc;
    trl_coll_args step = *a;
    step.root = f->root;
    step.coll = TRL_COLL_REDUCE;
    trl_sched_phase(s, "reduce");
    rc = trl__reduce_explicit(&step, s, &up, trl__tree_file_in_order(a));
    if (rc)
        return rc;
    trl_sched_fence(s);
    step.coll = TRL_COLL_BCAST;
    trl_sched_phase(s, "bcast");
    return trl__bcast_explicit(&step, s, &down);
}
