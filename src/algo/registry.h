/* The registry of algorithms: one entry per (collective, algorithm), in the
 * order `trellis algorithms` lists them. Everything else follows from it:
 * builders.h declares the builders and checks it names, algorithms.c expands
 * it into trl_algorithms[], and the build lists the ctests from it (one
 * algo.<collective>.<name> each, tests/CMakeLists.txt). Adding an algorithm:
 * its builder file and one entry here (CONTRIBUTING.md).
 *
 *   ALGO(COLLECTIVE, "name", builder, fields)
 *   CHECKED(COLLECTIVE, "name", builder, unusable, fields)
 *
 * COLLECTIVE is a TRL_COLL_ without the prefix; builder the function that
 * emits a rank's schedule (trl_build_fn); unusable, CHECKED's only, the
 * function that says why the algorithm cannot serve a call beyond .needs (a
 * tree file written for another communicator) or returns NULL. fields are
 * trl_algo's, by name (algo.h):
 *   .params       its parameters, a spec array of algorithms.c (none: omit)
 *   .needs        restrictions, TRL_NEEDS_* (none: omit)
 *   .cost         the alpha-beta cost `trellis algorithms` prints
 *   .description  one line on what it does
 * One builder may serve several collectives (gather's serves gatherv), one
 * entry each. Every collective also has "mpi", the MPI library's own, made
 * from TRL_COLL_MAP (algo.h) after these. */
#ifndef TRL_ALGO_REGISTRY_H
#define TRL_ALGO_REGISTRY_H

/* The table is laid out by hand, a field a line: clang-format would pack it. */
/* clang-format off */
/* The neighbourhood collectives' two entries each, alike but for the
 * collective and what locality needs first. */
#define TRL_NEIGHBOR_LINEAR(ALGO, COLL)                                                            \
    ALGO(COLL, "linear", trl_neighbor_linear,                                                      \
         .cost = "d(a) + Nb, d edges to other ranks, N bytes sent",                                \
         .description = "one message per edge, all at once (as the MPI libraries do)")
#define TRL_NEIGHBOR_LOCALITY(ALGO, COLL, NEEDS)                                                   \
    ALGO(COLL, "locality", trl_neighbor_locality, .params = locality_params, .needs = (NEEDS),      \
         .cost = "per host pair of m edges: 3a + 3mnb (gather, leaders, scatter)",                 \
         .description = "a host's blocks for each other host go as one message between "           \
                        "the hosts' leaders")
#define TRL_ALGORITHMS(ALGO, CHECKED)                                                              \
    /* bcast */                                                                                    \
    ALGO(BCAST, "linear", trl_bcast_linear,                                                        \
         .cost = "(p-1)(a + nb)",                                                                  \
         .description = "the root sends the whole message to every rank")                          \
    ALGO(BCAST, "binomial", trl_bcast_binomial,                                                    \
         .cost = "log2(p)(a + nb)",                                                                \
         .description = "LAM-MPI's logarithmic spanning tree (binomial tree)")                     \
    ALGO(BCAST, "knomial", trl_bcast_knomial, .params = radix_only,                                \
         .cost = "(radix-1)log_radix(p)(a + nb)",                                                  \
         .description = "k-nomial tree: each round a node sends to radix-1 new ranks")             \
    ALGO(BCAST, "kary", trl_bcast_kary, .params = kary_params,                                     \
         .cost = "radix log_radix(p)(a + nb)",                                                     \
         .description = "k-ary tree: every node has up to radix children")                         \
    ALGO(BCAST, "chain", trl_bcast_chain, .params = segment_only,                                  \
         .cost = "(p-2+n/s)(a + sb)",                                                              \
         .description = "pipeline along the ranks in a chain, segment by segment")                 \
    ALGO(BCAST, "scatter_allgather", trl_bcast_scatter_allgather,                                  \
         .cost = "(log2(p)+p-1)a + 2nb(p-1)/p",                                                    \
         .description = "binomial scatter, then ring allgather (seed 001's SAG)")                  \
    ALGO(BCAST, "hier", trl_bcast_hier, .params = hier_bcast_params,                               \
         .cost = "the levels' bcasts",                                                             \
         .description = "a bcast per level of a hierarchy (hosts, sockets, ...), top level first") \
    ALGO(BCAST, "hier_sharded", trl_bcast_hier_sharded, .params = hier_sharded_bcast_params,       \
         .cost = "scatter + h-host bcasts of n/S each (S ranks a host) + allgather",               \
         .description = "large messages: scatter in the root's host, a bcast per piece across "    \
                        "hosts, allgather in each")                                                \
    CHECKED(BCAST, "tree", trl_bcast_tree_file, trl_bcast_tree_file_unusable,                      \
            .params = tree_bcast_params,                                                           \
            .cost = "depth x children x (a + nb)",                                                 \
            .description = "the bcast tree of a tree or script file")                              \
    /* reduce */                                                                                   \
    ALGO(REDUCE, "linear", trl_reduce_linear,                                                      \
         .cost = "(p-1)(a + nb + ng)",                                                             \
         .description = "every rank sends to the root, which combines in rank order")              \
    ALGO(REDUCE, "binomial", trl_reduce_binomial,                                                  \
         .cost = "log2(p)(a + nb + ng)",                                                           \
         .description = "LAM-MPI's logarithmic spanning tree (binomial tree)")                     \
    ALGO(REDUCE, "knomial", trl_reduce_knomial, .params = radix_only,                              \
         .cost = "(radix-1)log_radix(p)(a + nb + ng)",                                             \
         .description = "k-nomial tree: each round a node receives from radix-1 ranks")            \
    ALGO(REDUCE, "kary", trl_reduce_kary, .params = kary_params,                                   \
         .cost = "radix log_radix(p)(a + nb + ng)",                                                \
         .description = "k-ary tree: every node has up to radix children")                         \
    ALGO(REDUCE, "chain", trl_reduce_chain, .params = segment_only,                                \
         .cost = "(p-2+n/s)(a + sb + sg)",                                                         \
         .description = "pipeline along the ranks in a chain, segment by segment")                 \
    ALGO(REDUCE, "rabenseifner", trl_reduce_rabenseifner, .needs = TRL_NEEDS_COMMUTATIVE,          \
         .cost = "2log2(p)a + 2nb(p-1)/p + ng(p-1)/p",                                             \
         .description = "reduce-scatter by recursive halving, then binomial gather")               \
    CHECKED(REDUCE, "hier", trl_reduce_hier, trl_hier_unusable, .params = hier_reduce_params,      \
            .cost = "the levels' reduces",                                                         \
            .description = "a reduce per level of a hierarchy (hosts, sockets, ...), lowest "      \
                           "level first; non-commutative operations where every level's groups "   \
                           "are runs of ranks")                                                    \
    CHECKED(REDUCE, "tree", trl_reduce_tree_file, trl_reduce_tree_file_unusable,                   \
            .params = tree_reduce_params,                                                          \
            .cost = "depth x children x (a + nb + ng)",                                            \
            .description = "the reduce tree of a tree or script file")                             \
    /* allreduce */                                                                                \
    ALGO(ALLREDUCE, "reduce_bcast", trl_allreduce_reduce_bcast, .params = reduce_bcast_params,     \
         .cost = "reduce + bcast",                                                                 \
         .description = "a reduce to rank 0, then a bcast from it (LAM-MPI's allreduce)")          \
    ALGO(ALLREDUCE, "recursive_doubling", trl_allreduce_recursive_doubling,                        \
         .cost = "log2(p)(a + nb + ng)",                                                           \
         .description = "pairwise exchange at distance 1, 2, 4, ...")                              \
    ALGO(ALLREDUCE, "ring", trl_allreduce_ring, .params = ring_params,                             \
         .needs = TRL_NEEDS_COMMUTATIVE,                                                           \
         .cost = "2(p-1)a + 2nb(p-1)/p + ng(p-1)/p",                                               \
         .description = "ring reduce-scatter, then ring allgather")                                \
    ALGO(ALLREDUCE, "rabenseifner", trl_allreduce_rabenseifner, .needs = TRL_NEEDS_COMMUTATIVE,    \
         .cost = "2log2(p)a + 2nb(p-1)/p + ng(p-1)/p",                                             \
         .description = "reduce-scatter by recursive halving, allgather by recursive doubling")    \
    ALGO(ALLREDUCE, "knomial", trl_allreduce_knomial, .params = radix_only,                        \
         .cost = "2(radix-1)log_radix(p)(a + nb)",                                                 \
         .description = "k-nomial reduce to rank 0, then k-nomial bcast")                          \
    ALGO(ALLREDUCE, "direct", trl_allreduce_direct,                                                \
         .cost = "(p-1)(a + nb + ng), one message deep",                                           \
         .description = "every rank sends its vector to every other and combines all p itself")    \
    CHECKED(ALLREDUCE, "hier", trl_allreduce_hier, trl_hier_unusable,                              \
            .params = hier_allreduce_params,                                                       \
            .cost = "the levels' reduces and bcasts + the top's allreduce",                        \
            .description = "reduce up the levels of a hierarchy, allreduce at the top, bcast "     \
                           "down; non-commutative operations where every level's groups are "      \
                           "runs of ranks")                                                        \
    CHECKED(ALLREDUCE, "hier_sharded", trl_allreduce_hier_sharded,                                 \
            trl_allreduce_hier_sharded_unusable, .params = hier_sharded_allreduce_params,          \
            .cost = "reduce_scatter + h-host allreduces of n/S each (S ranks a host) + allgather", \
            .description = "large vectors: reduce-scatter in each host, an allreduce per piece "   \
                           "across hosts, allgather in each")                                      \
    CHECKED(ALLREDUCE, "tree", trl_allreduce_tree_file, trl_allreduce_tree_file_unusable,          \
            .params = tree_reduce_params,                                                          \
            .cost = "reduce tree + bcast tree",                                                    \
            .description = "the reduce tree of a tree or script file, then its bcast tree")        \
    /* barrier */                                                                                  \
    ALGO(BARRIER, "linear", trl_barrier_linear,                                                    \
         .cost = "2(p-1)a",                                                                        \
         .description = "fan-in to rank 0, then fan-out")                                          \
    ALGO(BARRIER, "binomial", trl_barrier_binomial,                                                \
         .cost = "2log2(p)a",                                                                      \
         .description = "binomial fan-in to rank 0, then binomial fan-out")                        \
    ALGO(BARRIER, "dissemination", trl_barrier_dissemination,                                      \
         .cost = "ceil(log2 p)a",                                                                  \
         .description = "round k: signal rank+2^k, wait for rank-2^k")                             \
    ALGO(BARRIER, "recursive_doubling", trl_barrier_recursive_doubling,                            \
         .cost = "log2(p)a",                                                                       \
         .description = "pairwise exchange at distance 1, 2, 4, ...")                              \
    ALGO(BARRIER, "direct", trl_barrier_direct,                                                    \
         .cost = "a + (p-1) messages",                                                             \
         .description = "every rank signals every other rank, one round")                          \
    ALGO(BARRIER, "hier", trl_barrier_hier, .params = hier_barrier_params,                         \
         .cost = "2 x the levels' trees + the top's barrier",                                      \
         .description = "fan-in up the levels of a hierarchy, a barrier at the top, fan-out down") \
    /* gather and scatter; their builders serve the v-variants: counts[] when                      \
     * given, else count per rank */                                                               \
    ALGO(GATHER, "linear", trl_gather_linear,                                                      \
         .cost = "(p-1)a + (p-1)nb",                                                               \
         .description = "every rank sends its block straight to the root")                         \
    ALGO(GATHER, "binomial", trl_gather_binomial,                                                  \
         .cost = "log2(p)a + (p-1)nb",                                                             \
         .description = "binomial tree: each node forwards its subtree's blocks together")         \
    ALGO(GATHER, "hier", trl_gather_hier, .params = hier_gather_params,                            \
         .cost = "the levels' gathers",                                                            \
         .description = "a gather per level of a hierarchy: one message per host to the root")     \
    ALGO(GATHERV, "linear", trl_gather_linear,                                                     \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "every rank sends its block straight to the root")                         \
    ALGO(GATHERV, "binomial", trl_gather_binomial, .needs = TRL_NEEDS_ALL_COUNTS,                  \
         .cost = "log2(p)a + Nb (+ an exchange of the counts)",                                    \
         .description = "binomial tree: each node forwards its subtree's blocks together")         \
    ALGO(GATHERV, "hier", trl_gather_hier, .params = hier_gather_params,                           \
         .needs = TRL_NEEDS_ALL_COUNTS,                                                            \
         .cost = "the levels' gathers (+ an exchange of the counts)",                              \
         .description = "a gather per level of a hierarchy: one message per host to the root")     \
    ALGO(SCATTER, "linear", trl_scatter_linear,                                                    \
         .cost = "(p-1)a + (p-1)nb",                                                               \
         .description = "the root sends each rank its block")                                      \
    ALGO(SCATTER, "binomial", trl_scatter_binomial,                                                \
         .cost = "log2(p)a + (p-1)nb",                                                             \
         .description = "binomial tree: each node passes on its subtree's blocks together")        \
    ALGO(SCATTER, "hier", trl_scatter_hier, .params = hier_scatter_params,                         \
         .cost = "the levels' scatters",                                                           \
         .description = "a scatter per level of a hierarchy: one message per host from the root")  \
    ALGO(SCATTERV, "linear", trl_scatter_linear,                                                   \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "the root sends each rank its block")                                      \
    ALGO(SCATTERV, "binomial", trl_scatter_binomial, .needs = TRL_NEEDS_ALL_COUNTS,                \
         .cost = "log2(p)a + Nb (+ a bcast of the counts)",                                        \
         .description = "binomial tree: each node passes on its subtree's blocks together")        \
    ALGO(SCATTERV, "hier", trl_scatter_hier, .params = hier_scatter_params,                        \
         .needs = TRL_NEEDS_ALL_COUNTS,                                                            \
         .cost = "the levels' scatters (+ a bcast of the counts)",                                 \
         .description = "a scatter per level of a hierarchy: one message per host from the root")  \
    /* allgather; its builders serve allgatherv likewise */                                        \
    ALGO(ALLGATHER, "ring", trl_allgather_ring,                                                    \
         .cost = "(p-1)(a + nb)",                                                                  \
         .description = "p-1 steps: pass the block received last to the next rank")                \
    ALGO(ALLGATHER, "recursive_doubling", trl_allgather_recursive_doubling,                        \
         .cost = "log2(p)a + (p-1)nb",                                                             \
         .description = "exchange all blocks held with the rank at distance 1, 2, 4, ...")         \
    ALGO(ALLGATHER, "bruck", trl_allgather_bruck,                                                  \
         .cost = "ceil(log2 p)a + (p-1)nb",                                                        \
         .description = "round k: send all blocks held to rank-2^k (Bruck et al.)")                \
    ALGO(ALLGATHER, "gather_bcast", trl_allgather_gather_bcast,                                    \
         .cost = "2log2(p)a + (p-1)nb + log2(p)pnb",                                               \
         .description = "binomial gather to rank 0, then binomial bcast")                          \
    ALGO(ALLGATHER, "hier", trl_allgather_hier, .params = hier_allgather_params,                   \
         .cost = "the levels' gathers and bcasts + the top's allgather",                           \
         .description = "gather up the levels of a hierarchy, allgather among the top leaders, "   \
                        "bcast down")                                                              \
    ALGO(ALLGATHER, "multileader", trl_allgather_multileader, .params = multileader_params,        \
         .cost = "(h-1)(a + nb) across hosts, q lanes at once, + (q-1)(a + hnb) within",           \
         .description = "every rank of a host leads a lane: allgather across hosts per lane, "     \
                        "then within hosts")                                                       \
    ALGO(ALLGATHERV, "ring", trl_allgather_ring,                                                   \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "p-1 steps: pass the block received last to the next rank")                \
    ALGO(ALLGATHERV, "recursive_doubling", trl_allgather_recursive_doubling,                       \
         .cost = "log2(p)a + Nb",                                                                  \
         .description = "exchange all blocks held with the rank at distance 1, 2, 4, ...")         \
    ALGO(ALLGATHERV, "bruck", trl_allgather_bruck,                                                 \
         .cost = "ceil(log2 p)a + Nb",                                                             \
         .description = "round k: send all blocks held to rank-2^k (Bruck et al.)")                \
    ALGO(ALLGATHERV, "gather_bcast", trl_allgather_gather_bcast,                                   \
         .cost = "2log2(p)a + Nb + log2(p)Nb",                                                     \
         .description = "binomial gather to rank 0, then binomial bcast")                          \
    ALGO(ALLGATHERV, "hier", trl_allgather_hier, .params = hier_allgather_params,                  \
         .cost = "the levels' gathers and bcasts + the top's allgather",                           \
         .description = "gather up the levels of a hierarchy, allgather among the top leaders, "   \
                        "bcast down")                                                              \
    ALGO(ALLGATHERV, "multileader", trl_allgather_multileader, .params = multileader_params,       \
         .cost = "(h-1)a across hosts, q lanes at once, + (q-1)a within; Nb in all",               \
         .description = "every rank of a host leads a lane: allgather across hosts per lane, "     \
                        "then within hosts")                                                       \
    /* alltoall; hier serves alltoallv and alltoallw too, with the matrix of                       \
     * counts; alltoallv's builders serve alltoallw (both arrive in bytes) */                      \
    ALGO(ALLTOALL, "linear", trl_alltoall_linear,                                                  \
         .cost = "(p-1)a + (p-1)nb",                                                               \
         .description = "post every send and receive at once")                                     \
    ALGO(ALLTOALL, "pairwise", trl_alltoall_pairwise,                                              \
         .cost = "(p-1)(a + nb)",                                                                  \
         .description = "p-1 rounds: round k sends to rank+k and receives from rank-k")            \
    ALGO(ALLTOALL, "bruck", trl_alltoall_bruck,                                                    \
         .cost = "ceil(log2 p)(a + pnb/2)",                                                        \
         .description = "ceil(log2 p) rounds of blocks whose index has bit k set (Bruck et al.)")  \
    ALGO(ALLTOALL, "hier", trl_alltoall_hier,                                                      \
         .cost = "2(q-1)a + ((h-1)/q)(a + q^2nb) across hosts + copies",                           \
         .description = "node-aware: a host's ranks combine their blocks, one message per pair "   \
                        "of hosts")                                                                \
    ALGO(ALLTOALLV, "linear", trl_alltoallv_linear,                                                \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "post every send and receive at once")                                     \
    ALGO(ALLTOALLV, "pairwise", trl_alltoallv_pairwise,                                            \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "p-1 rounds: round k sends to rank+k and receives from rank-k")            \
    ALGO(ALLTOALLV, "hier", trl_alltoall_hier, .needs = TRL_NEEDS_ALL_COUNTS,                      \
         .cost = "2(q-1)a + ((h-1)/q)a across hosts, bytes move up to 3 times (+ the counts' "     \
                 "exchange)",                                                                      \
         .description = "node-aware: a host's ranks combine their blocks, one message per pair "   \
                        "of hosts")                                                                \
    ALGO(ALLTOALLW, "linear", trl_alltoallv_linear,                                                \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "post every send and receive at once")                                     \
    ALGO(ALLTOALLW, "pairwise", trl_alltoallv_pairwise,                                            \
         .cost = "(p-1)a + Nb",                                                                    \
         .description = "p-1 rounds: round k sends to rank+k and receives from rank-k")            \
    ALGO(ALLTOALLW, "hier", trl_alltoall_hier, .needs = TRL_NEEDS_ALL_COUNTS,                      \
         .cost = "2(q-1)a + ((h-1)/q)a across hosts, bytes move up to 3 times (+ the counts' "     \
                 "exchange)",                                                                      \
         .description = "node-aware: a host's ranks combine their blocks, one message per pair "   \
                        "of hosts")                                                                \
    /* reduce_scatter; its builders serve reduce_scatter_block (counts NULL) */                    \
    ALGO(REDUCE_SCATTER, "reduce_scatterv", trl_reduce_scatter_reduce_scatterv,                    \
         .cost = "log2(p)(a + nb + ng) + (p-1)a + nb",                                             \
         .description = "a binomial reduce to rank 0, then a linear scatter of the blocks")        \
    ALGO(REDUCE_SCATTER, "recursive_halving", trl_reduce_scatter_recursive_halving,                \
         .needs = TRL_NEEDS_COMMUTATIVE,                                                           \
         .cost = "log2(p)a + nb(p-1)/p + ng(p-1)/p",                                               \
         .description = "exchange half the vector with the rank at distance p/2, p/4, ...")        \
    ALGO(REDUCE_SCATTER, "ring", trl_reduce_scatter_ring, .needs = TRL_NEEDS_COMMUTATIVE,          \
         .cost = "(p-1)a + nb(p-1)/p + ng(p-1)/p",                                                 \
         .description = "p-1 steps around the ring, each adding one block")                        \
    CHECKED(REDUCE_SCATTER, "hier", trl_reduce_scatter_hier, trl_reduce_scatter_hier_unusable,     \
            .params = hier_reduce_scatter_params, .needs = TRL_NEEDS_BLOCK_PLACEMENT,              \
            .cost = "host reduce + h-leader reduce_scatter + host scatter",                        \
            .description = "reduce in each host, reduce-scatter among the hosts' leaders, "        \
                           "scatter in each")                                                      \
    ALGO(REDUCE_SCATTER_BLOCK, "reduce_scatterv", trl_reduce_scatter_reduce_scatterv,              \
         .cost = "log2(p)(a + nb + ng) + (p-1)a + nb",                                             \
         .description = "a binomial reduce to rank 0, then a linear scatter of the blocks")        \
    ALGO(REDUCE_SCATTER_BLOCK, "recursive_halving", trl_reduce_scatter_recursive_halving,          \
         .needs = TRL_NEEDS_COMMUTATIVE,                                                           \
         .cost = "log2(p)a + nb(p-1)/p + ng(p-1)/p",                                               \
         .description = "exchange half the vector with the rank at distance p/2, p/4, ...")        \
    ALGO(REDUCE_SCATTER_BLOCK, "ring", trl_reduce_scatter_ring, .needs = TRL_NEEDS_COMMUTATIVE,    \
         .cost = "(p-1)a + nb(p-1)/p + ng(p-1)/p",                                                 \
         .description = "p-1 steps around the ring, each adding one block")                        \
    CHECKED(REDUCE_SCATTER_BLOCK, "hier", trl_reduce_scatter_hier,                                 \
            trl_reduce_scatter_hier_unusable, .params = hier_reduce_scatter_params,                \
            .needs = TRL_NEEDS_BLOCK_PLACEMENT,                                                    \
            .cost = "host reduce + h-leader reduce_scatter + host scatter",                        \
            .description = "reduce in each host, reduce-scatter among the hosts' leaders, "        \
                           "scatter in each")                                                      \
    /* scan and exscan */                                                                          \
    ALGO(SCAN, "linear", trl_scan_linear,                                                          \
         .cost = "(p-1)(a + nb + ng)",                                                             \
         .description = "a chain: receive the prefix from rank-1, add, pass on to rank+1")         \
    ALGO(SCAN, "recursive_doubling", trl_scan_recursive_doubling,                                  \
         .cost = "log2(p)(a + nb + 2ng)",                                                          \
         .description = "round k: exchange partial results with rank +- 2^k")                      \
    CHECKED(SCAN, "hier", trl_scan_hier, trl_scan_hier_unusable, .params = hier_scan_params,       \
            .needs = TRL_NEEDS_BLOCK_PLACEMENT,                                                    \
            .cost = "host scan + h-host exscan + host bcast + ng",                                 \
            .description = "scan in each host, exscan of the hosts' totals, bcast of the prefix "  \
                           "in each")                                                              \
    ALGO(EXSCAN, "linear", trl_exscan_linear,                                                      \
         .cost = "(p-1)(a + nb + ng)",                                                             \
         .description = "a chain: receive the prefix from rank-1, add, pass on to rank+1")         \
    ALGO(EXSCAN, "recursive_doubling", trl_exscan_recursive_doubling,                              \
         .cost = "log2(p)(a + nb + 2ng)",                                                          \
         .description = "round k: exchange partial results with rank +- 2^k")                      \
    CHECKED(EXSCAN, "hier", trl_exscan_hier, trl_scan_hier_unusable, .params = hier_exscan_params, \
            .needs = TRL_NEEDS_BLOCK_PLACEMENT,                                                    \
            .cost = "host exscan + h-host exscan + host bcast + ng",                               \
            .description = "exscan in each host, exscan of the hosts' totals, bcast of the "       \
                           "prefix in each")                                                       \
    /* neighbourhood collectives (Cartesian and graph communicators: algo/nbhd.h);                 \
       both serve all five; locality's v and w forms need their host's block sizes first */       \
    TRL_NEIGHBOR_LINEAR(ALGO, NEIGHBOR_ALLGATHER)                                                  \
    TRL_NEIGHBOR_LINEAR(ALGO, NEIGHBOR_ALLGATHERV)                                                 \
    TRL_NEIGHBOR_LINEAR(ALGO, NEIGHBOR_ALLTOALL)                                                   \
    TRL_NEIGHBOR_LINEAR(ALGO, NEIGHBOR_ALLTOALLV)                                                  \
    TRL_NEIGHBOR_LINEAR(ALGO, NEIGHBOR_ALLTOALLW)                                                  \
    TRL_NEIGHBOR_LOCALITY(ALGO, NEIGHBOR_ALLGATHER, 0)                                             \
    TRL_NEIGHBOR_LOCALITY(ALGO, NEIGHBOR_ALLTOALL, 0)                                              \
    TRL_NEIGHBOR_LOCALITY(ALGO, NEIGHBOR_ALLGATHERV, TRL_NEEDS_ALL_COUNTS)                         \
    TRL_NEIGHBOR_LOCALITY(ALGO, NEIGHBOR_ALLTOALLV, TRL_NEEDS_ALL_COUNTS)                          \
    TRL_NEIGHBOR_LOCALITY(ALGO, NEIGHBOR_ALLTOALLW, TRL_NEEDS_ALL_COUNTS)                          \
    /* Intercommunicator calls only (src/algo/inter/<collective>_<name>.c); the others             \
     * serve intracommunicator calls only. Their names start with inter_. */                       \
    ALGO(BCAST, "inter_linear", trl_inter_bcast_linear, .needs = TRL_NEEDS_INTER,                  \
         .cost = "n_r(a + nb)",                                                                    \
         .description = "intercommunicator: the root sends to every remote rank")                  \
    CHECKED(BCAST, "inter_leader", trl_inter_bcast_leader, trl_inter_parts_unusable,               \
            .params = inter_bcast_params, .needs = TRL_NEEDS_INTER,                                \
            .cost = "a + nb + the group's bcast",                                                  \
            .description = "intercommunicator: the root sends to the remote leader, which bcasts " \
                           "in its group")                                                         \
    CHECKED(BCAST, "inter_hosts", trl_inter_bcast_hosts, trl_inter_host_parts_unusable,            \
            .params = inter_bcast_hosts_params, .needs = TRL_NEEDS_INTER,                          \
            .cost = "h_r(a + nb) + a host's bcast",                                                \
            .description = "intercommunicator: the root sends to each remote host's leader, "      \
                           "which bcasts in its host")                                             \
    ALGO(REDUCE, "inter_linear", trl_inter_reduce_linear, .needs = TRL_NEEDS_INTER,                \
         .cost = "n_r(a + nb + ng)",                                                               \
         .description = "intercommunicator: every remote rank sends to the root, which combines "  \
                        "in rank order")                                                           \
    CHECKED(REDUCE, "inter_leader", trl_inter_reduce_leader, trl_inter_parts_unusable,             \
            .params = inter_reduce_params, .needs = TRL_NEEDS_INTER,                               \
            .cost = "the group's reduce + a + nb",                                                 \
            .description = "intercommunicator: a reduce in the remote group to its leader, which " \
                           "sends to the root")                                                    \
    ALGO(ALLREDUCE, "inter_linear", trl_inter_allreduce_linear, .needs = TRL_NEEDS_INTER,          \
         .cost = "n_r(a + nb + ng) + (n_l-1)(a + nb)",                                             \
         .description = "intercommunicator: every rank sends to the remote leader, which "         \
                        "combines and sends to its group")                                         \
    CHECKED(ALLREDUCE, "inter_leader", trl_inter_allreduce_leader, trl_inter_parts_unusable,       \
            .params = inter_allreduce_params, .needs = TRL_NEEDS_INTER,                            \
            .cost = "reduce + a + nb + bcast",                                                     \
            .description = "intercommunicator: reduce in each group, the leaders exchange, bcast " \
                           "in each group")                                                        \
    CHECKED(ALLREDUCE, "inter_pairwise", trl_inter_allreduce_pairwise, trl_inter_parts_unusable,   \
            .params = inter_allreduce_pairwise_params, .needs = TRL_NEEDS_INTER,                   \
            .cost = "allreduce + a + nb",                                                          \
            .description = "intercommunicator: allreduce in each group, then each rank sends to "  \
                           "its remote partners")                                                  \
    CHECKED(ALLREDUCE, "inter_hosts", trl_inter_allreduce_hosts, trl_inter_host_parts_unusable,    \
            .params = inter_allreduce_hosts_params, .needs = TRL_NEEDS_INTER,                      \
            .cost = "a host's reduce + h_r(a + nb + ng) + a host's bcast",                         \
            .description = "intercommunicator: reduce in each host, its leader exchanges with "    \
                           "every remote host's leader, bcast in each host")                       \
    ALGO(BARRIER, "inter_linear", trl_inter_barrier_linear, .needs = TRL_NEEDS_INTER,              \
         .cost = "(n_r + n_l - 1)a",                                                               \
         .description = "intercommunicator: every rank signals the remote leader, which releases " \
                        "its group")                                                               \
    CHECKED(BARRIER, "inter_leader", trl_inter_barrier_leader, trl_inter_parts_unusable,           \
            .params = inter_barrier_params, .needs = TRL_NEEDS_INTER,                              \
            .cost = "barrier + a + bcast",                                                         \
            .description = "intercommunicator: a barrier in each group, the leaders exchange, "    \
                           "release in each group")                                                \
    CHECKED(BARRIER, "inter_pairwise", trl_inter_barrier_pairwise, trl_inter_parts_unusable,       \
            .params = inter_barrier_pairwise_params, .needs = TRL_NEEDS_INTER,                     \
            .cost = "barrier + a",                                                                 \
            .description = "intercommunicator: a barrier in each group, then each rank signals "   \
                           "its remote partners")                                                  \
    CHECKED(BARRIER, "inter_hosts", trl_inter_barrier_hosts, trl_inter_host_parts_unusable,        \
            .params = inter_barrier_hosts_params, .needs = TRL_NEEDS_INTER,                        \
            .cost = "a host's gather + h_r a + a host's bcast",                                    \
            .description = "intercommunicator: gather in each host, its leader signals every "     \
                           "remote host's leader, release in each host")                           \
    ALGO(GATHER, "inter_linear", trl_inter_gather_linear, .needs = TRL_NEEDS_INTER,                \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: every remote rank sends to the root")                  \
    CHECKED(GATHER, "inter_leader", trl_inter_gather_leader, trl_inter_parts_unusable,             \
            .params = inter_gather_params, .needs = TRL_NEEDS_INTER,                               \
            .cost = "the group's gather + a + Nb",                                                 \
            .description = "intercommunicator: a gather in the remote group to its leader, which " \
                           "sends all to the root")                                                \
    ALGO(GATHERV, "inter_linear", trl_inter_gather_linear, .needs = TRL_NEEDS_INTER,               \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: every remote rank sends to the root")                  \
    CHECKED(GATHERV, "inter_leader", trl_inter_gather_leader, trl_inter_parts_unusable,            \
            .params = inter_gather_params, .needs = TRL_NEEDS_ALL_COUNTS | TRL_NEEDS_INTER,        \
            .cost = "the group's gatherv + a + Nb (+ an exchange of the counts)",                  \
            .description = "intercommunicator: a gatherv in the remote group to its leader, "      \
                           "which sends all to the root")                                          \
    ALGO(SCATTER, "inter_linear", trl_inter_scatter_linear, .needs = TRL_NEEDS_INTER,              \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: the root sends each remote rank its block")            \
    CHECKED(SCATTER, "inter_leader", trl_inter_scatter_leader, trl_inter_parts_unusable,           \
            .params = inter_scatter_params, .needs = TRL_NEEDS_INTER,                              \
            .cost = "a + Nb + the group's scatter",                                                \
            .description = "intercommunicator: the root sends all to the remote leader, which "    \
                           "scatters in its group")                                                \
    ALGO(SCATTERV, "inter_linear", trl_inter_scatter_linear, .needs = TRL_NEEDS_INTER,             \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: the root sends each remote rank its block")            \
    CHECKED(SCATTERV, "inter_leader", trl_inter_scatter_leader, trl_inter_parts_unusable,          \
            .params = inter_scatter_params, .needs = TRL_NEEDS_ALL_COUNTS | TRL_NEEDS_INTER,       \
            .cost = "a + Nb + the group's scatterv (+ an exchange of the counts)",                 \
            .description = "intercommunicator: the root sends all to the remote leader, which "    \
                           "scatters in its group")                                                \
    ALGO(ALLGATHER, "inter_linear", trl_inter_allgather_linear, .needs = TRL_NEEDS_INTER,          \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: every rank sends its block to every remote rank")      \
    CHECKED(ALLGATHER, "inter_leader", trl_inter_allgather_leader, trl_inter_parts_unusable,       \
            .params = inter_bcast_params, .needs = TRL_NEEDS_INTER,                                \
            .cost = "n_r a + Nb + the group's bcast",                                              \
            .description = "intercommunicator: every rank sends to the remote leader, which "      \
                           "bcasts in its group")                                                  \
    ALGO(ALLGATHERV, "inter_linear", trl_inter_allgather_linear, .needs = TRL_NEEDS_INTER,         \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: every rank sends its block to every remote rank")      \
    CHECKED(ALLGATHERV, "inter_leader", trl_inter_allgather_leader, trl_inter_parts_unusable,      \
            .params = inter_bcast_params, .needs = TRL_NEEDS_INTER,                                \
            .cost = "n_r a + Nb + the group's bcast",                                              \
            .description = "intercommunicator: every rank sends to the remote leader, which "      \
                           "bcasts in its group")                                                  \
    ALGO(ALLTOALL, "inter_linear", trl_inter_alltoall_linear, .needs = TRL_NEEDS_INTER,            \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: post every send and receive at once")                  \
    ALGO(ALLTOALL, "inter_pairwise", trl_inter_alltoall_pairwise, .needs = TRL_NEEDS_INTER,        \
         .cost = "max(n_0,n_1)(a + 2nb)",                                                          \
         .description = "intercommunicator: max(n_0, n_1) rounds, one remote partner per round")   \
    ALGO(ALLTOALLV, "inter_linear", trl_inter_alltoall_linear, .needs = TRL_NEEDS_INTER,           \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: post every send and receive at once")                  \
    ALGO(ALLTOALLV, "inter_pairwise", trl_inter_alltoall_pairwise, .needs = TRL_NEEDS_INTER,       \
         .cost = "max(n_0,n_1)a + Nb",                                                             \
         .description = "intercommunicator: max(n_0, n_1) rounds, one remote partner per round")   \
    ALGO(ALLTOALLW, "inter_linear", trl_inter_alltoall_linear, .needs = TRL_NEEDS_INTER,           \
         .cost = "n_r a + Nb",                                                                     \
         .description = "intercommunicator: post every send and receive at once")                  \
    ALGO(ALLTOALLW, "inter_pairwise", trl_inter_alltoall_pairwise, .needs = TRL_NEEDS_INTER,       \
         .cost = "max(n_0,n_1)a + Nb",                                                             \
         .description = "intercommunicator: max(n_0, n_1) rounds, one remote partner per round")   \
    ALGO(REDUCE_SCATTER, "inter_linear", trl_inter_reduce_scatter_linear,                          \
         .needs = TRL_NEEDS_INTER,                                                                 \
         .cost = "n_r(a + Nb + Ng) + (n_l-1)a + Nb",                                               \
         .description = "intercommunicator: every rank sends to the remote leader, which "         \
                        "combines and scatters")                                                   \
    CHECKED(REDUCE_SCATTER, "inter_leader", trl_inter_reduce_scatter_leader,                       \
            trl_inter_parts_unusable, .params = inter_reduce_scatter_params,                       \
            .needs = TRL_NEEDS_INTER,                                                              \
            .cost = "reduce + a + Nb + scatter",                                                   \
            .description = "intercommunicator: reduce in each group, the leaders exchange, "       \
                           "scatter in each group")                                                \
    ALGO(REDUCE_SCATTER_BLOCK, "inter_linear", trl_inter_reduce_scatter_linear,                    \
         .needs = TRL_NEEDS_INTER,                                                                 \
         .cost = "n_r(a + Nb + Ng) + (n_l-1)a + Nb",                                               \
         .description = "intercommunicator: every rank sends to the remote leader, which "         \
                        "combines and scatters")                                                   \
    CHECKED(REDUCE_SCATTER_BLOCK, "inter_leader", trl_inter_reduce_scatter_leader,                 \
            trl_inter_parts_unusable, .params = inter_reduce_scatter_params,                       \
            .needs = TRL_NEEDS_INTER,                                                              \
            .cost = "reduce + a + Nb + scatter",                                                   \
            .description = "intercommunicator: reduce in each group, the leaders exchange, "       \
                           "scatter in each group")
/* clang-format on */

#endif
