/* Intercommunicator linear scatter (and scatterv): the root sends each rank
 * of the other group its block straight from its place in the send buffer
 * (i*count, or displs[i] for scatterv), all sends at once; each of them
 * posts one receive. The root's group's other ranks take no part.
 *
 * Cost: n_r alpha + N beta at the root (N the bytes of all blocks); one
 * receive elsewhere.
 * From: seed 003's scatter (immediate sends from the root, a blocking
 * receive at each process of the leaf group); LAM-MPI's flat tree.
 * Any group sizes. A receiver reads only its own count (a->count). Empty
 * blocks are not sent.
 */
#include "algo/builders.h"
#include "algo/inter/inter.h"

int trl_inter_scatter_linear(const trl_coll_args *a, trl_sched *s)
{
    return trl__inter_linear_blocks(a, s, false);
}
