/* The parameters of rules (params.c): parsing a value of each kind, the
 * builders' reading of the values a rule gave (or the defaults), and
 * formatting and freeing them. The types are algo.h's. */
#ifndef TRL_PARAMS_H
#define TRL_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"

/* The levels of a hierarchy, lowest first; the last is always world.
 * group:K cuts each host's ranks (those taking part at that level, in rank
 * order) into runs of K. */
typedef enum {
    TRL_LEVEL_NUMA,
    TRL_LEVEL_SOCKET,
    TRL_LEVEL_GROUP,
    TRL_LEVEL_HOST,
    TRL_LEVEL_WORLD,
    TRL_LEVEL_COUNT
} trl_level_kind;

typedef struct {
    int n;
    trl_level_kind kind[TRL_LEVEL_COUNT];
    int group; /* K of group:K */
} trl_levels;

/* The name of a level in `levels=`, which is also the name of the
 * parameter that gives its algorithm. */
const char *trl_level_name(trl_level_kind k);
void trl_levels_decode(long long value, trl_levels *out);

/* Whether an ALGO or LEVEL parameter may name `a` (its collective, nestable,
 * and what the level needs besides: a bcast too, a tree shape). */
bool trl_param_runs(const trl_param_spec *spec, const trl_algo *a);

/* Parse one parameter value; on error returns a negative status and points
 * *why at a message that says what is accepted (a range, the algorithms a
 * name may be), kept per thread until the next call. */
int trl_param_parse_value(const trl_param_spec *spec, const char *text, size_t len,
                          trl_param_value *out, const char **why);

/* Read a parameter: the value the rule gave, or the spec's default. */
long long trl_param_int(const trl_coll_args *a, const char *name);
const trl_algo *trl_param_algo(const trl_coll_args *a, const char *name);
/* LEVEL: the algorithm and, through *params, its own parameters (never
 * NULL: an empty list when none were given). */
const trl_algo *trl_param_level(const trl_coll_args *a, const char *name,
                                const trl_params **params);
/* FILE: the loaded file (a trl_tree_file), NULL when the rule gave none. */
const void *trl_param_obj(const trl_coll_args *a, const char *name);

/* A value as a user would write it ("64K", "knomial(radix=4)", the file's
 * path), for tools. */
void trl_param_format(const trl_param_value *v, char *buf, size_t len);

/* Parse "k=v k=v" for algorithm `algo` into *out (for tests and tools;
 * the rules parser reports positions itself). Free with trl_params_free. */
int trl_params_from_string(const trl_algo *algo, const char *text, trl_params *out,
                           const char **why);
void trl_params_free(trl_params *p);

/* The values of `given` that `sub` declares (same name and kind),
 * re-pointed at sub's own specs: how a composed algorithm passes its
 * parameters on. A value outside sub's range gives TRL_ERR_UNSUPPORTED.
 * The view shares given's objects: release it with trl_params_release,
 * never trl_params_free. */
int trl_params_view(const trl_params *given, const trl_algo *sub, trl_params *out);
void trl_params_release(trl_params *view);

#endif
