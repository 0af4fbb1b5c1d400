/* Which algorithm the rules chose for a call and why (info_choice.c), as
 * explain prints it, in words or as JSON (simulate's too). */
#ifndef TRELLIS_INFO_CHOICE_H
#define TRELLIS_INFO_CHOICE_H

#include <stdio.h>

#include "info_call.h"

/* The call, the algorithm and its parameters, the rule, its reason and the
 * rules passed over, one per line. */
void print_choice_text(const explain_opts *o, const resolved_call *c, FILE *out);
/* {"collective": ..., "algorithm": ..., "rule": ..., ... (no closing brace). */
void print_choice_json(const explain_opts *o, const resolved_call *c, FILE *out);

#endif
