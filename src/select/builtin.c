/* The built-in rules: tried after the user's own (TRELLIS_RULES), in the
 * same language, so `trellis explain` can print them and a user can copy
 * and edit them. They are kept as text rather than tables on purpose: no
 * threshold of the library lives anywhere else.
 *
 * These are first guesses from the alpha-beta cost model (seed 001: trees
 * for latency-bound messages, scatter/reduce-scatter based algorithms for
 * bandwidth-bound ones). They will be retuned from measurements on the
 * emulated cluster; keep the catch-all at the end of each collective, so
 * that selection always succeeds (the unit test `rules` checks it). */
#include "select/rules.h"

const char trl_builtin_rules_text[] =
    "# Built-in rules. First match wins; a rule whose algorithm cannot serve\n"
    "# the call (for example one needing a commutative operation) is passed\n"
    "# over. Each collective ends with a catch-all any call can use.\n"
    "\n"
    "bcast      bytes=512K-  scatter_allgather\n"
    "bcast                   binomial\n"
    "\n"
    "# rabenseifner needs a commutative operation; the others fall to binomial.\n"
    "reduce     bytes=512K-  rabenseifner\n"
    "reduce                  binomial\n"
    "\n"
    "allreduce  bytes=-16K   recursive_doubling\n"
    "allreduce  bytes=-4M    rabenseifner\n"
    "allreduce  bytes=4M-    ring\n"
    "allreduce               recursive_doubling\n"
    "\n"
    "barrier                 recursive_doubling\n";
