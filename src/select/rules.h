/* The rules language (docs/rules.md): which algorithm runs for which
 * collective, communicator size and layout, and message size.
 *
 *   # comment
 *   allreduce bytes=0-4K  recursive_doubling
 *   bcast     ranks=9-    knomial radix=4
 *   allreduce hosts=2- placement=block  hier
 *
 * One rule per line, or per ';' (the way to write several inline in
 * TRELLIS_RULES). First match wins; user rules are tried before the
 * built-in ones, which are written in the same language and end with a
 * catch-all per collective. */
#ifndef TRL_RULES_H
#define TRL_RULES_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"
#include "select/rules_error.h"

/* An inclusive range; hi == TRL_RANGE_MAX is open-ended. */
typedef struct {
    unsigned long long lo, hi;
} trl_range;
#define TRL_RANGE_MAX (~0ULL)

typedef struct {
    trl_coll coll;
    trl_range ranks, bytes;
    int commutative; /* filter on the operation: -1 any, 0 no, 1 yes */
    /* The layout (trl_topo_stats): hosts spanned, most ranks on a host,
     * and placement: -1 any, 0 other, 1 block. */
    trl_range hosts, ranks_per_host;
    int placement;
    /* The form of the call: -1 any, 0 blocking, 1 non-blocking or
     * persistent (MPI_Ixxx, MPI_Xxx_init). */
    int nonblocking;
    /* Intercommunicator calls: -1 any, 0 no, 1 yes; the smaller group's size
     * (a range other than * matches intercommunicator calls only). */
    int inter;
    trl_range remote_ranks;
    const trl_algo *algo;
    trl_params params;
    const char *source; /* owned by the ruleset */
    int line;
    char *text; /* the rule as written, trimmed */
} trl_rule;

typedef struct {
    trl_rule *rules;
    size_t n;
    char *source; /* file name, "TRELLIS_RULES" (inline) or "built-in" */
} trl_ruleset;

/* Parse rules text. Inline text separates rules with ';' as well as
 * newlines. On error returns a negative status and fills *err; *out is
 * left empty.
 *
 * trl_rules_parse reads text as a file holds it: ';' separates rules within
 * a line too, but positions are physical lines and columns. Inline text
 * (source "TRELLIS_RULES") counts every ';' or newline separated part as a
 * line, columns counted within the part. */
int trl_rules_parse(const char *text, const char *source, trl_ruleset *out, trl_rules_error *err);
int trl_rules_parse_inline(const char *text, trl_ruleset *out, trl_rules_error *err);
/* The same under another source name (trellis_set_rules' rules). */
int trl_rules_parse_inline_as(const char *text, const char *source, trl_ruleset *out,
                              trl_rules_error *err);
void trl_rules_free(trl_ruleset *rs);

/* The built-in rules, in the rules language: those `trellis tune` wrote
 * for the reference layouts (src/select/tuned.rules, source "tuned"), then
 * those written by hand (source "built-in"). */
extern const char trl_tuned_rules_text[];
extern const char trl_builtin_rules_text[];
/* Both parsed into one ruleset, the tuned rules first. */
int trl_builtin_rules_load(trl_ruleset *out, trl_rules_error *err);
/* The text a built-in rule was read from (for its reason, its comment). */
const char *trl_builtin_text_of(const trl_rule *r);

/* The reason written above the rule at `line` of a rules text: the first
 * comment block above it, past any rules between (src/select/reason.c),
 * joined into one line in buf without the '#'s; empty where there is none
 * (a blank line comes first). Returns its length. */
size_t trl_rules_reason(const char *text, int line, char *buf, size_t cap);

/* Read TRELLIS_RULES (a file name, or rules inline) into *out; an unset or
 * empty variable gives an empty ruleset. *text receives what was parsed
 * (malloc'd; NULL when unset), so ranks can compare it; it is set even when
 * the rules fail to parse, and NULL when a file cannot be read.
 *
 * The value is a file name if, with blanks at either end removed, it
 * contains no blank, or could be a path (trl_could_be_path: text that
 * could not is never looked up) and names something that exists;
 * otherwise it is the rules themselves (every rule has at least two
 * words). A file holding a NUL byte is refused (TRL_ERR_PARSE, at the
 * NUL's line and column), so rules that load hold no NUL and strlen(*text)
 * covers all of them: ranks comparing *text compare the whole file.
 * Errors that have no position (a file that cannot be read) have line 0. */
int trl_rules_load_env(trl_ruleset *out, char **text, trl_rules_error *err);

/* The outcome of selection for one call. */
typedef struct {
    const trl_algo *algo;
    const trl_params *params;
    const trl_rule *rule;     /* the rule that chose it */
    const trl_rule *rejected; /* the first earlier matching rule that could not serve, or
                                 NULL (trl_select_passed_over gives them all) */
    const char *why;          /* why `rejected` could not serve */
} trl_choice;

/* The size the rules' bytes= filter sees (docs/rules.md), the `bytes` of
 * trl_select below:
 *   bcast, reduce, allreduce, scan, exscan: the message;
 *   gather, scatter, allgather, alltoall: one rank's block;
 *   allgatherv: the average block (all blocks / ranks, rounded down);
 *   reduce_scatter, reduce_scatter_block: the whole vector reduced;
 *   the others: 0 (see trl_coll_has_bytes). */
size_t trl_coll_rule_bytes(const trl_coll_args *a);

/* First rule (user rules, then built-in) matching the call whose algorithm
 * can serve it. The layout filters read a->topo (NULL: one host). Returns a
 * negative status only if nothing matches, which the built-in rules rule
 * out. */
int trl_select(const trl_ruleset *user, const trl_ruleset *builtin, const trl_coll_args *a,
               size_t bytes, trl_choice *out);

/* Whether a call gets one of Trellis' algorithms whatever its size: for
 * the ranks that pass MPI_PROC_NULL to a rooted intercommunicator call,
 * which do not know its size but must still go where the others go. */
typedef enum {
    TRL_SIZELESS_TRELLIS, /* every size: one of Trellis' algorithms */
    TRL_SIZELESS_LIBRARY, /* every size: the MPI library */
    TRL_SIZELESS_MIXED,   /* some sizes one, some the other */
} trl_sizeless;
trl_sizeless trl_select_sizeless(const trl_ruleset *user, const trl_ruleset *builtin,
                                 const trl_coll_args *a);

/* Every rule trl_select passes over for this call (it matches, but its
 * algorithm cannot serve the call), in the order tried: `each` gets the
 * rule and why, which is valid only until `each` returns. For reports
 * (verbose mode, explain); selection itself remembers only the first. */
typedef void (*trl_passed_fn)(const trl_rule *rule, const char *why, void *ctx);
void trl_select_passed_over(const trl_ruleset *user, const trl_ruleset *builtin,
                            const trl_coll_args *a, size_t bytes, trl_passed_fn each, void *ctx);

#endif
