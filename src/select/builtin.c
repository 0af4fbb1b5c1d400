/* The built-in rules: tried after the user's own (TRELLIS_RULES), in the
 * same language, so `trellis explain --builtin-rules` can print them and a
 * user can copy and edit them. They are kept as text rather than tables on
 * purpose: no threshold of the library lives anywhere else.
 *
 * Chosen from measurements on this project's 2-core machine (2 ranks, and
 * 4 and 8 oversubscribed ranks); docs/results.md has the figures and the
 * commands. Keep the catch-all at the end of each collective, so that
 * selection always succeeds (the unit test `rules` checks it). */
#include "select/rules.h"

const char trl_builtin_rules_text[] =
    "# Built-in rules. First match wins; a rule whose algorithm cannot serve\n"
    "# the call (for example one needing a commutative operation) is passed\n"
    "# over. Each collective ends with a catch-all any call can use.\n"
    "\n"
    "# Binomial matched or beat scatter_allgather at every size measured\n"
    "# (2, 4 and 8 ranks on one host).\n"
    "bcast                                binomial\n"
    "\n"
    "# Binomial receives straight into the root's buffer; Rabenseifner's extra\n"
    "# messages did not pay on one host.\n"
    "reduce                               binomial\n"
    "\n"
    "# Ring sends halves on 2 ranks: below Open MPI's 4 KiB shared-memory\n"
    "# eager limit where recursive doubling's whole vector is not, and\n"
    "# faster than the MPI library from 32 KiB. Ring and Rabenseifner need a\n"
    "# commutative operation; others fall through to recursive doubling.\n"
    "allreduce  ranks=2  bytes=2049-4K    ring\n"
    "allreduce  ranks=2  bytes=32K-       ring\n"
    "allreduce           bytes=-32K       recursive_doubling\n"
    "allreduce           bytes=32K-       rabenseifner\n"
    "allreduce                            recursive_doubling\n"
    "\n"
    "barrier                              recursive_doubling\n"
    "\n"
    "gather                               binomial\n"
    "gatherv                              linear\n"
    "scatter                              binomial\n"
    "scatterv                             linear\n"
    "allgather                            recursive_doubling\n"
    "allgatherv                           ring\n"
    "alltoall                             pairwise\n"
    "alltoallv                            linear\n"
    "alltoallw                            linear\n"
    "reduce_scatter                       ring\n"
    "reduce_scatter                       reduce_scatterv\n"
    "reduce_scatter_block                 ring\n"
    "reduce_scatter_block                 reduce_scatterv\n"
    "scan                                 recursive_doubling\n"
    "exscan                               recursive_doubling\n";
