/* The parameter kinds beyond numbers and algorithm names (params_levels.c),
 * for algo.c. */
#ifndef TRL_PARAMS_EXTRA_H
#define TRL_PARAMS_EXTRA_H

#include "algo/algo.h"

int trl__param_parse_extra(const trl_param_spec *spec, const char *text, size_t len,
                           trl_param_value *out, const char **why);
void trl__param_free_obj(trl_param_value *v);
void trl__param_format_extra(const trl_param_value *v, char *buf, size_t len);

#endif
