/* Binomial barrier: a fan-in to rank 0 over a binomial tree, then a
 * fan-out down the same tree. A rank signals its parent once every child
 * has signalled it; rank 0, having heard from the whole tree, answers its
 * children, and each rank passes the answer on to its own.
 *
 * Cost: 2 ceil(log2 p) alpha on the longest path (rank 0 handles
 * ceil(log2 p) messages each way).
 * From: LAM-MPI's logarithmic barrier (seed 000); the tree is
 * src/pattern/tree.h's binomial tree, the one the binomial bcast and reduce
 * use.
 * Any number of ranks: the binomial tree is cut off at p; nothing depends
 * on p being a power of two.
 * Messages carry no data (count 0 at offset 0 of scratch). The fan-out
 * serves the largest subtree first, as the binomial bcast does: the
 * executor posts sends in the order they are built, and the smallest first
 * cost a gap per level (trellis simulate, tests/cli/test_simulate.py).
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/tree_steps.h"
#include "core/status.h"
#include "pattern/tree.h"

int trl_barrier_binomial(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    trl_ref none = trl_ref_at(TRL_BUF_SCRATCH, 0);
    if (p == 1)
        return s->status;

    trl_tree t;
    int rc = trl_tree_init(&t, TRL_TREE_BINOMIAL, 2, p, 0);
    if (rc)
        return rc;
    int parent = trl_tree_parent(&t, rank), nchildren = trl_tree_nchildren(&t, rank);

    /* heard[] ends with the step the fan-out waits for. */
    int *heard = malloc((size_t)(nchildren + 1) * sizeof *heard);
    int *order = trl__tree_serving_order(&t, rank, nchildren);
    if (!heard || !order) {
        free(heard);
        free(order);
        return TRL_ERR_NOMEM;
    }
    trl_sched_phase(s, "fan-in");
    for (int i = 0; i < nchildren; i++)
        heard[i] = trl_sched_recv(s, trl_tree_child(&t, rank, i), none, 0, TRL_NODEPS);

    int go;
    if (parent >= 0) {
        trl_sched_send(s, parent, none, 0, heard, nchildren);
        trl_sched_phase(s, "fan-out");
        /* The parent answers only after this rank's signal, so the answer
         * can be posted at once. */
        go = trl_sched_recv(s, parent, none, 0, TRL_NODEPS);
        for (int i = 0; i < nchildren; i++)
            trl_sched_send(s, order[i], none, 0, TRL_DEPS(go));
    } else {
        trl_sched_phase(s, "fan-out");
        for (int i = 0; i < nchildren; i++)
            trl_sched_send(s, order[i], none, 0, heard, nchildren);
    }
    free(heard);
    free(order);
    return s->status;
}
