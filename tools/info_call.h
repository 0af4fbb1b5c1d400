/* One call as explain and simulate take it (info_call.c): its options,
 * its shape, and the call resolved as the runtime would (rules, layout, the
 * algorithm chosen). */
#ifndef TRELLIS_INFO_CALL_H
#define TRELLIS_INFO_CALL_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"
#include "algo/inter/inter.h"
#include "info_nbhd.h"
#include "select/rules.h"
#include "topo/topo.h"

#define MAX_DELAYS 64

typedef struct {
    trl_coll coll;
    long long ranks;
    long long remote; /* --remote-ranks: the other group's size; 0: an intracommunicator */
    unsigned long long bytes;
    bool bytes_given;
    long long root;
    bool root_given;
    unsigned long long elem_size;
    bool commutative;
    bool nonblocking; /* --nonblocking: as MPI_Ixxx or MPI_Xxx_init calls it */
    const char *rules;
    const char *topology;  /* --topology, as TRELLIS_TOPOLOGY */
    const char *neighbors; /* --neighbors: a Cartesian shape or an edge-list file */
    long long only_rank;   /* -1: every rank */
    enum { OUT_TEXT, OUT_STEPS, OUT_GOAL, OUT_JSON } mode;
    /* simulate */
    bool simulate;
    const char *model, *out_dir;
    const char *delay[MAX_DELAYS]; /* "R=NS", as given */
    int ndelays;
} explain_opts;

/* Per-rank counts and displacements of the v-collectives, as --bytes says;
 * on an intercommunicator (--remote-ranks) its two groups as well. */
typedef struct {
    size_t *counts, *displs;
    size_t *matrix;   /* alltoallv, alltoallw: every pair's count */
    size_t *split[2]; /* reduce_scatter on an intercommunicator: each group's counts */
    trl_inter inter;  /* the groups, where --remote-ranks is given */
    bool has_inter;
    nbhd_call nbhd; /* a neighbourhood collective's graph (--neighbors) */
} call_vectors;

typedef struct {
    trl_ruleset user, builtin;
    char *text;
    trl_topo topo;
    call_vectors shape;
    trl_coll_args args; /* params, topo set; rank is the caller's to set */
    trl_choice choice;
    char layout[1024]; /* the "layout: ..." line */
} resolved_call;

/* Parse the arguments after the command's name; 0, or the exit status
 * after printing the error. */
int parse_call_args(int argc, char **argv, explain_opts *o, bool simulate);

/* Rules, layout and selection, as in a run; 0, or the exit status after
 * printing the error. Release c with release_call either way. */
int resolve_call(const explain_opts *o, resolved_call *c);
void release_call(resolved_call *c);

/* The call's arguments as rank r passes them (a->rank r; on an
 * intercommunicator the root and blocks of r's group). */
void shape_for_rank(const explain_opts *o, const call_vectors *v, trl_coll_args *a, int r);

#endif
