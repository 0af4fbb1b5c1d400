/* Intercommunicator linear gather (and gatherv): every rank of the other
 * group sends its block straight to the root, which posts all receives at
 * once, each landing at the block's place in its receive buffer (i*count,
 * or displs[i] for gatherv). The root's group's other ranks take no part.
 *
 * Cost: n_r alpha + N beta at the root (N the bytes of all blocks); one
 * send elsewhere.
 * From: seed 003's gather (immediate receives at the root, one send from
 * each process of the leaf group); LAM-MPI's flat tree.
 * Any group sizes. A sender reads only its own count (a->count); the root
 * its counts and displacements, which it knows in MPI. Empty blocks are
 * not sent: both ends see the same count.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_gather_linear(const trl_coll_args *a, trl_sched *s)
{
    return trl__inter_linear_blocks(a, s, true);
}
