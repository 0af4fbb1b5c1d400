/* Exclusive scan by recursive doubling: the recursive-doubling scan with
 * the result left out of each rank's own data (rank r gets
 * x_0 op ... op x_{r-1}; rank 0's receive buffer is left untouched).
 *
 * Cost: ceil(log2 p)(alpha + n beta + 2 n gamma).
 * From: MPICH's recursive-doubling exscan.
 * The algorithm, its handling of any p, its order of combination and its
 * buffers are described in scan_recursive_doubling.c, which builds both:
 * it reads a->coll to tell the two apart, so each exists once.
 */
#include "algo/builders.h"

int trl_exscan_recursive_doubling(const trl_coll_args *a, trl_sched *s)
{
    return trl_scan_recursive_doubling(a, s);
}
