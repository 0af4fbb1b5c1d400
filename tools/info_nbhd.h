/* A neighbourhood collective's graph for explain and simulate (--neighbors):
 * a Cartesian shape or an edge-list file, and each rank's blocks. */
#ifndef TRELLIS_INFO_NBHD_H
#define TRELLIS_INFO_NBHD_H

#include "info_call.h"

/* The graph --neighbors gives (default: a periodic ring of --ranks), with
 * every edge --bytes long (allgather: one block to every neighbour): 0, -1
 * out of memory, or EXIT_USAGE after printing the error. */
int nbhd_shape(const explain_opts *o, trl_coll_args *a, call_vectors *v);

/* a's graph and blocks as rank r passes them. */
void nbhd_for_rank(const explain_opts *o, const call_vectors *v, trl_coll_args *a, int r);

#endif
