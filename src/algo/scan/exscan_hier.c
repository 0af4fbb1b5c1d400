/* Hierarchical exclusive scan (`hier`) where every host holds consecutive
 * ranks: an exscan within each host, an exscan of the hosts' totals among
 * their last ranks, a broadcast of each host's prefix within it, combined
 * in from the left (rank r gets x_0 op ... op x_{r-1}; rank 0's receive
 * buffer is left untouched).
 *
 * Cost, h hosts of q ranks: the host exscan, log2(h) rounds of the
 * leaders' exscan across hosts, the host's bcast, n gamma.
 * From: MPICH's SMP-aware exscan, as scan_hier.c.
 * The algorithm, its irregular layouts, its order of combination and its
 * buffers are described in scan_hier.c, which builds both: it reads
 * a->coll to tell the two apart, so each exists once.
 */
#include "algo/builders.h"

int trl_exscan_hier(const trl_coll_args *a, trl_sched *s)
{
    return trl_scan_hier(a, s);
}
