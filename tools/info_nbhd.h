/* A neighbourhood collective's graph for explain and simulate (--neighbors):
 * a Cartesian shape or an edge-list file, and each rank's blocks. */
#ifndef TRELLIS_INFO_NBHD_H
#define TRELLIS_INFO_NBHD_H

#include <stddef.h>

#include "algo/algo.h"
#include "algo/nbhd.h"

/* The graph and its blocks: every edge's count, and each edge's
 * displacement at its end (rank r's out-edges from g.out_off[r], in-edges
 * from g.in_off[r]). */
typedef struct {
    trl_nbhd g;
    size_t *counts, *sdispls, *rdispls, zero;
} nbhd_call;

/* The graph spec gives (NULL: a periodic ring of ranks), every edge n
 * elements long (allgather: one block to every neighbour): 0, -1 out of
 * memory, or EXIT_USAGE after printing the error. */
int nbhd_call_make(const char *spec, long long ranks, size_t n, nbhd_call *nc);
void nbhd_call_free(nbhd_call *nc);

/* a's graph and blocks as rank r passes them. */
void nbhd_call_for_rank(const nbhd_call *nc, trl_coll coll, trl_coll_args *a, int r);

#endif
