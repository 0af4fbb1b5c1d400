/* The threads tier for the algorithms that read more than the call's
 * shape: `hier` and `multileader` over described layouts, `tree` over generated tree and
 * script files (check_layouts.c). */
#ifndef CHECK_LAYOUTS_H
#define CHECK_LAYOUTS_H

#include "algo_check.h"
#include "topo/topo.h"

typedef struct {
    const trl_algo *algo;
    check_case_fn run_case;
    tally t;
    unsigned seed;
} sweep;

/* One parameter variant on p ranks over counts (up to max_count), roots,
 * types and in place; layout/topo where the algorithm reads them. */
void sweep_size(sweep *w, const char *text, const trl_params *params, size_t max_count, int p,
                const char *layout, const trl_topo *topo);

/* Parse a variant's parameters, saying why on failure. */
bool with_params(const trl_algo *algo, const char *text, trl_params *params);

int sweep_hier(sweep *w);
int sweep_tree(sweep *w);

#endif
