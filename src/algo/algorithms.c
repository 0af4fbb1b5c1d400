/* The table of algorithms. Adding an algorithm: write its builder file,
 * declare it in builders.h, add one entry here. Where one builder serves
 * two collectives (gather and gatherv), each has its own entry. The selector, the runtime,
 * `trellis algorithms` and the test matrix all read this table. */
/* Entries leave trailing fields out (flags, choices, unusable): zero. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "algo/algo.h"
#include "algo/builders.h"
#include "algo/inter/table.h"

#define NO_MAX 0x7fffffffffffffffLL

static const trl_param_spec radix_only[] = {
    {"radix", TRL_PARAM_INT, "4", 2, 1024, 0, "children per node of the tree"},
    {0},
};
static const trl_param_spec kary_params[] = {
    {"radix", TRL_PARAM_INT, "2", 1, 1024, 0, "children per node of the tree"},
    {0},
};
static const trl_param_spec segment_only[] = {
    {"segment", TRL_PARAM_SIZE, "64K", 1, NO_MAX, 0,
     "bytes per pipeline segment (rounded down to whole elements, at least one)"},
    {0},
};
static const trl_param_spec ring_params[] = {
    {"segment", TRL_PARAM_SIZE, "1M", 1, NO_MAX, 0,
     "largest message of one ring step; bigger blocks are sent in pieces"},
    {0},
};
static const trl_param_spec reduce_bcast_params[] = {
    {"reduce", TRL_PARAM_ALGO, "binomial", 0, 0, TRL_COLL_REDUCE, "the reduce algorithm (to rank 0)"},
    {"bcast", TRL_PARAM_ALGO, "binomial", 0, 0, TRL_COLL_BCAST, "the bcast algorithm (from rank 0)"},
    {"radix", TRL_PARAM_INT, "4", 2, 1024, 0,
     "passed to the reduce and bcast algorithms; when absent each uses its own default"},
    {"segment", TRL_PARAM_SIZE, "64K", 1, NO_MAX, 0,
     "passed to the reduce and bcast algorithms; when absent each uses its own default"},
    {0},
};

/* hier: levels= and one parameter per level naming its algorithm. */
#define LEVELS_PARAM                                                                         \
    {"levels", TRL_PARAM_LEVELS, "host,world", 0, 0, 0,                                      \
     "the levels, smallest first, ending with world: numa, socket, group:K, host, world", 0, \
     NULL}
#define LEVEL_PARAM(level, of, def, flags, help) \
    {level, TRL_PARAM_LEVEL, def, 0, 0, of, help, flags, NULL}
#define LOWER_LEVELS(of, def, flags, what)                                                      \
    LEVEL_PARAM("numa", of, def, flags, what " within each NUMA domain"),                      \
    LEVEL_PARAM("socket", of, def, flags, what " within each socket"),                         \
    LEVEL_PARAM("group", of, def, flags, what " within each group of K ranks of a host"),      \
    LEVEL_PARAM("host", of, def, flags, what " within each host")

static const trl_param_spec hier_bcast_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", 0, "the bcast"),
    LEVEL_PARAM("world", TRL_COLL_BCAST, "binomial", 0, "the bcast among the top leaders"),
    {0},
};
static const trl_param_spec hier_reduce_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_REDUCE, "binomial", 0, "the reduce"),
    LEVEL_PARAM("world", TRL_COLL_REDUCE, "binomial", 0, "the reduce among the top leaders"),
    {0},
};
static const trl_param_spec hier_allreduce_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_REDUCE, "binomial", TRL_PARAM_ALSO_BCAST,
                 "the reduce (up) and bcast (down)"),
    LEVEL_PARAM("world", TRL_COLL_ALLREDUCE, "recursive_doubling", 0,
                "the allreduce among the top leaders"),
    {0},
};
static const trl_param_spec hier_barrier_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", TRL_PARAM_TREE_SHAPE,
                 "the tree of the fan-in and fan-out"),
    LEVEL_PARAM("world", TRL_COLL_BARRIER, "dissemination", 0,
                "the barrier among the top leaders"),
    {0},
};

/* The hierarchical data movers (src/algo/hier_blocks.h): the levels move
 * ranges of blocks, so their algorithms are the v-variants'. */
static const trl_param_spec hier_gather_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_GATHERV, "linear", 0, "the gather"),
    LEVEL_PARAM("world", TRL_COLL_GATHERV, "linear", 0, "the gather among the top leaders"),
    {0},
};
static const trl_param_spec hier_scatter_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_SCATTERV, "linear", 0, "the scatter"),
    LEVEL_PARAM("world", TRL_COLL_SCATTERV, "linear", 0, "the scatter among the top leaders"),
    {0},
};
static const trl_param_spec hier_allgather_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", 0, "the bcast of all blocks (down)"),
    LEVEL_PARAM("world", TRL_COLL_ALLGATHERV, "bruck", 0, "the allgather among the top leaders"),
    LEVEL_PARAM("gather", TRL_COLL_GATHERV, "linear", 0,
                "the gather (up) within each group of every level below world"),
    {0},
};
static const trl_param_spec multileader_params[] = {
    LEVEL_PARAM("world", TRL_COLL_ALLGATHERV, "ring", 0,
                "the allgather across hosts in each lane (one rank per host)"),
    LEVEL_PARAM("host", TRL_COLL_ALLGATHERV, "ring", 0,
                "the allgather within each host of what the lanes brought"),
    {0},
};
/* The two-level forms whose steps are other collectives: one parameter
 * per step, named for where it runs or what it does. */
static const trl_param_spec hier_sharded_bcast_params[] = {
    LEVEL_PARAM("scatter", TRL_COLL_SCATTERV, "linear", 0,
                "the scatterv of the pieces within the root's host"),
    LEVEL_PARAM("world", TRL_COLL_BCAST, "binomial", 0,
                "the bcast of each piece among its holders, one per host"),
    LEVEL_PARAM("allgather", TRL_COLL_ALLGATHERV, "ring", 0, "the allgatherv within each host"),
    {0},
};
static const trl_param_spec hier_sharded_allreduce_params[] = {
    LEVEL_PARAM("reduce_scatter", TRL_COLL_REDUCE_SCATTER, "ring", 0,
                "the reduce_scatter within each host"),
    LEVEL_PARAM("world", TRL_COLL_ALLREDUCE, "ring", 0,
                "the allreduce of each piece among its holders, one per host"),
    LEVEL_PARAM("allgather", TRL_COLL_ALLGATHERV, "ring", 0, "the allgatherv within each host"),
    {"pipeline", TRL_PARAM_INT, "1", 1, 64, 0,
     "pieces the vector is cut into and pipelined: while one crosses hosts the next is "
     "reduced within them and the one before gathered"},
    {0},
};
static const trl_param_spec hier_reduce_scatter_params[] = {
    LEVEL_PARAM("host", TRL_COLL_REDUCE, "binomial", 0, "the reduce within each host"),
    LEVEL_PARAM("world", TRL_COLL_REDUCE_SCATTER, "reduce_scatterv", 0,
                "the reduce_scatter among the hosts' leaders, each getting its host's blocks"),
    LEVEL_PARAM("scatter", TRL_COLL_SCATTERV, "linear", 0,
                "the scatterv of the blocks within each host"),
    {0},
};
#define HIER_SCAN_PARAMS(coll)                                                              \
    {                                                                                       \
        LEVEL_PARAM("host", coll, "linear", 0, "the scan within each host"),                \
        LEVEL_PARAM("world", TRL_COLL_EXSCAN, "recursive_doubling", 0,                      \
                    "the exscan of the hosts' totals among their last ranks"),              \
        LEVEL_PARAM("bcast", TRL_COLL_BCAST, "binomial", 0,                                 \
                    "the bcast of the hosts before it within each host"),                   \
        {0},                                                                                \
    }
static const trl_param_spec hier_scan_params[] = HIER_SCAN_PARAMS(TRL_COLL_SCAN);
static const trl_param_spec hier_exscan_params[] = HIER_SCAN_PARAMS(TRL_COLL_EXSCAN);

/* tree: a tree or script file (docs/trees.md). */
#define TREE_FILE_PARAM                                                                  \
    {"file", TRL_PARAM_FILE, NULL, 0, 0, 0, "the tree or script file (docs/trees.md)", \
     TRL_PARAM_REQUIRED, NULL}
static const trl_param_spec tree_bcast_params[] = {TREE_FILE_PARAM, {0}};
static const trl_param_spec tree_reduce_params[] = {
    TREE_FILE_PARAM,
    {"order", TRL_PARAM_CHOICE, "file", 0, 0, 0,
     "combine children in the file's order, or as they arrive (commutative operations only)", 0,
     "file|arrival"},
    {0},
};

#define B TRL_COLL_BCAST
#define R TRL_COLL_REDUCE
#define AR TRL_COLL_ALLREDUCE
#define BAR TRL_COLL_BARRIER
#define G TRL_COLL_GATHER
#define GV TRL_COLL_GATHERV
#define S TRL_COLL_SCATTER
#define SV TRL_COLL_SCATTERV
#define AG TRL_COLL_ALLGATHER
#define AGV TRL_COLL_ALLGATHERV
#define A2A TRL_COLL_ALLTOALL
#define A2AV TRL_COLL_ALLTOALLV
#define A2AW TRL_COLL_ALLTOALLW
#define RS TRL_COLL_REDUCE_SCATTER
#define RSB TRL_COLL_REDUCE_SCATTER_BLOCK
#define SC TRL_COLL_SCAN
#define EX TRL_COLL_EXSCAN
#define COMM TRL_NEEDS_COMMUTATIVE
#define ALLC TRL_NEEDS_ALL_COUNTS
#define BLOCK TRL_NEEDS_BLOCK_PLACEMENT

const trl_algo trl_algorithms[] = {
    {B, "linear", "the root sends the whole message to every rank", "(p-1)(a + nb)", 0, NULL,
     trl_bcast_linear},
    {B, "binomial", "LAM-MPI's logarithmic spanning tree (binomial tree)", "log2(p)(a + nb)", 0,
     NULL, trl_bcast_binomial},
    {B, "knomial", "k-nomial tree: each round a node sends to radix-1 new ranks",
     "(radix-1)log_radix(p)(a + nb)", 0, radix_only, trl_bcast_knomial},
    {B, "kary", "k-ary tree: every node has up to radix children", "radix log_radix(p)(a + nb)", 0,
     kary_params, trl_bcast_kary},
    {B, "chain", "pipeline along the ranks in a chain, segment by segment",
     "(p-2+n/s)(a + sb)", 0, segment_only, trl_bcast_chain},
    {B, "scatter_allgather", "binomial scatter, then ring allgather (seed 001's SAG)",
     "(log2(p)+p-1)a + 2nb(p-1)/p", 0, NULL, trl_bcast_scatter_allgather},
    {B, "hier", "a bcast per level of a hierarchy (hosts, sockets, ...), top level first",
     "the levels' bcasts", 0, hier_bcast_params, trl_bcast_hier},
    {B, "hier_sharded",
     "large messages: scatter in the root's host, a bcast per piece across hosts, allgather "
     "in each", "scatter + h-host bcasts of n/S each (S ranks a host) + allgather", 0,
     hier_sharded_bcast_params, trl_bcast_hier_sharded},
    {B, "tree", "the bcast tree of a tree or script file", "depth x children x (a + nb)", 0,
     tree_bcast_params, trl_bcast_tree_file, trl_bcast_tree_file_unusable},

    {R, "linear", "every rank sends to the root, which combines in rank order", "(p-1)(a + nb + ng)",
     0, NULL, trl_reduce_linear},
    {R, "binomial", "LAM-MPI's logarithmic spanning tree (binomial tree)", "log2(p)(a + nb + ng)",
     0, NULL, trl_reduce_binomial},
    {R, "knomial", "k-nomial tree: each round a node receives from radix-1 ranks",
     "(radix-1)log_radix(p)(a + nb + ng)", 0, radix_only, trl_reduce_knomial},
    {R, "kary", "k-ary tree: every node has up to radix children", "radix log_radix(p)(a + nb + ng)",
     0, kary_params, trl_reduce_kary},
    {R, "chain", "pipeline along the ranks in a chain, segment by segment",
     "(p-2+n/s)(a + sb + sg)", 0, segment_only, trl_reduce_chain},
    {R, "rabenseifner", "reduce-scatter by recursive halving, then binomial gather",
     "2log2(p)a + 2nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_reduce_rabenseifner},
    {R, "hier",
     "a reduce per level of a hierarchy (hosts, sockets, ...), lowest level first; "
     "non-commutative operations where every level's groups are runs of ranks",
     "the levels' reduces", 0, hier_reduce_params, trl_reduce_hier, trl_hier_unusable},
    {R, "tree", "the reduce tree of a tree or script file", "depth x children x (a + nb + ng)", 0,
     tree_reduce_params, trl_reduce_tree_file, trl_reduce_tree_file_unusable},

    {AR, "reduce_bcast", "a reduce to rank 0, then a bcast from it (LAM-MPI's allreduce)",
     "reduce + bcast", 0, reduce_bcast_params, trl_allreduce_reduce_bcast},
    {AR, "recursive_doubling", "pairwise exchange at distance 1, 2, 4, ...",
     "log2(p)(a + nb + ng)", 0, NULL, trl_allreduce_recursive_doubling},
    {AR, "ring", "ring reduce-scatter, then ring allgather",
     "2(p-1)a + 2nb(p-1)/p + ng(p-1)/p", COMM, ring_params, trl_allreduce_ring},
    {AR, "rabenseifner", "reduce-scatter by recursive halving, allgather by recursive doubling",
     "2log2(p)a + 2nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_allreduce_rabenseifner},
    {AR, "knomial", "k-nomial reduce to rank 0, then k-nomial bcast",
     "2(radix-1)log_radix(p)(a + nb)", 0, radix_only, trl_allreduce_knomial},
    {AR, "direct", "every rank sends its vector to every other and combines all p itself",
     "(p-1)(a + nb + ng), one message deep", 0, NULL, trl_allreduce_direct},
    {AR, "hier",
     "reduce up the levels of a hierarchy, allreduce at the top, bcast down; "
     "non-commutative operations where every level's groups are runs of ranks",
     "the levels' reduces and bcasts + the top's allreduce", 0, hier_allreduce_params,
     trl_allreduce_hier, trl_hier_unusable},
    {AR, "hier_sharded",
     "large vectors: reduce-scatter in each host, an allreduce per piece across hosts, "
     "allgather in each", "reduce_scatter + h-host allreduces of n/S each (S ranks a host) + "
     "allgather", 0, hier_sharded_allreduce_params, trl_allreduce_hier_sharded,
     trl_allreduce_hier_sharded_unusable},
    {AR, "tree", "the reduce tree of a tree or script file, then its bcast tree",
     "reduce tree + bcast tree", 0, tree_reduce_params, trl_allreduce_tree_file,
     trl_allreduce_tree_file_unusable},

    {BAR, "linear", "fan-in to rank 0, then fan-out", "2(p-1)a", 0, NULL, trl_barrier_linear},
    {BAR, "binomial", "binomial fan-in to rank 0, then binomial fan-out", "2log2(p)a", 0, NULL,
     trl_barrier_binomial},
    {BAR, "dissemination", "round k: signal rank+2^k, wait for rank-2^k", "ceil(log2 p)a", 0,
     NULL, trl_barrier_dissemination},
    {BAR, "recursive_doubling", "pairwise exchange at distance 1, 2, 4, ...", "log2(p)a", 0, NULL,
     trl_barrier_recursive_doubling},
    {BAR, "direct", "every rank signals every other rank, one round", "a + (p-1) messages", 0,
     NULL, trl_barrier_direct},
    {BAR, "hier", "fan-in up the levels of a hierarchy, a barrier at the top, fan-out down",
     "2 x the levels' trees + the top's barrier", 0, hier_barrier_params, trl_barrier_hier},

    {G, "linear", "every rank sends its block straight to the root", "(p-1)a + (p-1)nb", 0, NULL,
     trl_gather_linear},
    {G, "binomial", "binomial tree: each node forwards its subtree's blocks together",
     "log2(p)a + (p-1)nb", 0, NULL, trl_gather_binomial},
    {G, "hier", "a gather per level of a hierarchy: one message per host to the root",
     "the levels' gathers", 0, hier_gather_params, trl_gather_hier},
    {GV, "linear", "every rank sends its block straight to the root", "(p-1)a + Nb", 0, NULL,
     trl_gather_linear},
    {GV, "binomial", "binomial tree: each node forwards its subtree's blocks together",
     "log2(p)a + Nb (+ an exchange of the counts)", ALLC, NULL, trl_gather_binomial},
    {GV, "hier", "a gather per level of a hierarchy: one message per host to the root",
     "the levels' gathers (+ an exchange of the counts)", ALLC, hier_gather_params,
     trl_gather_hier},
    {S, "linear", "the root sends each rank its block", "(p-1)a + (p-1)nb", 0, NULL,
     trl_scatter_linear},
    {S, "binomial", "binomial tree: each node passes on its subtree's blocks together",
     "log2(p)a + (p-1)nb", 0, NULL, trl_scatter_binomial},
    {S, "hier", "a scatter per level of a hierarchy: one message per host from the root",
     "the levels' scatters", 0, hier_scatter_params, trl_scatter_hier},
    {SV, "linear", "the root sends each rank its block", "(p-1)a + Nb", 0, NULL,
     trl_scatter_linear},
    {SV, "binomial", "binomial tree: each node passes on its subtree's blocks together",
     "log2(p)a + Nb (+ a bcast of the counts)", ALLC, NULL, trl_scatter_binomial},
    {SV, "hier", "a scatter per level of a hierarchy: one message per host from the root",
     "the levels' scatters (+ a bcast of the counts)", ALLC, hier_scatter_params,
     trl_scatter_hier},

    {AG, "ring", "p-1 steps: pass the block received last to the next rank", "(p-1)(a + nb)", 0,
     NULL, trl_allgather_ring},
    {AG, "recursive_doubling", "exchange all blocks held with the rank at distance 1, 2, 4, ...",
     "log2(p)a + (p-1)nb", 0, NULL, trl_allgather_recursive_doubling},
    {AG, "bruck", "round k: send all blocks held to rank-2^k (Bruck et al.)",
     "ceil(log2 p)a + (p-1)nb", 0, NULL, trl_allgather_bruck},
    {AG, "gather_bcast", "binomial gather to rank 0, then binomial bcast",
     "2log2(p)a + (p-1)nb + log2(p)pnb", 0, NULL, trl_allgather_gather_bcast},
    {AG, "hier",
     "gather up the levels of a hierarchy, allgather among the top leaders, bcast down",
     "the levels' gathers and bcasts + the top's allgather", 0, hier_allgather_params,
     trl_allgather_hier},
    {AG, "multileader",
     "every rank of a host leads a lane: allgather across hosts per lane, then within hosts",
     "(h-1)(a + nb) across hosts, q lanes at once, + (q-1)(a + hnb) within", 0,
     multileader_params, trl_allgather_multileader},
    {AGV, "ring", "p-1 steps: pass the block received last to the next rank", "(p-1)a + Nb", 0,
     NULL, trl_allgather_ring},
    {AGV, "recursive_doubling", "exchange all blocks held with the rank at distance 1, 2, 4, ...",
     "log2(p)a + Nb", 0, NULL, trl_allgather_recursive_doubling},
    {AGV, "bruck", "round k: send all blocks held to rank-2^k (Bruck et al.)",
     "ceil(log2 p)a + Nb", 0, NULL, trl_allgather_bruck},
    {AGV, "gather_bcast", "binomial gather to rank 0, then binomial bcast",
     "2log2(p)a + Nb + log2(p)Nb", 0, NULL, trl_allgather_gather_bcast},
    {AGV, "hier",
     "gather up the levels of a hierarchy, allgather among the top leaders, bcast down",
     "the levels' gathers and bcasts + the top's allgather", 0, hier_allgather_params,
     trl_allgather_hier},
    {AGV, "multileader",
     "every rank of a host leads a lane: allgather across hosts per lane, then within hosts",
     "(h-1)a across hosts, q lanes at once, + (q-1)a within; Nb in all", 0,
     multileader_params, trl_allgather_multileader},

    {A2A, "linear", "post every send and receive at once", "(p-1)a + (p-1)nb", 0, NULL,
     trl_alltoall_linear},
    {A2A, "pairwise", "p-1 rounds: round k sends to rank+k and receives from rank-k",
     "(p-1)(a + nb)", 0, NULL, trl_alltoall_pairwise},
    {A2A, "bruck", "ceil(log2 p) rounds of blocks whose index has bit k set (Bruck et al.)",
     "ceil(log2 p)(a + pnb/2)", 0, NULL, trl_alltoall_bruck},
    {A2A, "hier", "node-aware: a host's ranks combine their blocks, one message per pair of hosts",
     "2(q-1)a + ((h-1)/q)(a + q^2nb) across hosts + copies", 0, NULL, trl_alltoall_hier},
    {A2AV, "linear", "post every send and receive at once", "(p-1)a + Nb", 0, NULL,
     trl_alltoallv_linear},
    {A2AV, "pairwise", "p-1 rounds: round k sends to rank+k and receives from rank-k",
     "(p-1)a + Nb", 0, NULL, trl_alltoallv_pairwise},
    {A2AV, "hier", "node-aware: a host's ranks combine their blocks, one message per pair of hosts",
     "2(q-1)a + ((h-1)/q)a across hosts, bytes move up to 3 times (+ the counts' exchange)",
     ALLC, NULL, trl_alltoall_hier},
    {A2AW, "linear", "post every send and receive at once", "(p-1)a + Nb", 0, NULL,
     trl_alltoallv_linear},
    {A2AW, "pairwise", "p-1 rounds: round k sends to rank+k and receives from rank-k",
     "(p-1)a + Nb", 0, NULL, trl_alltoallv_pairwise},
    {A2AW, "hier", "node-aware: a host's ranks combine their blocks, one message per pair of hosts",
     "2(q-1)a + ((h-1)/q)a across hosts, bytes move up to 3 times (+ the counts' exchange)",
     ALLC, NULL, trl_alltoall_hier},

    {RS, "reduce_scatterv", "a binomial reduce to rank 0, then a linear scatter of the blocks",
     "log2(p)(a + nb + ng) + (p-1)a + nb", 0, NULL, trl_reduce_scatter_reduce_scatterv},
    {RS, "recursive_halving", "exchange half the vector with the rank at distance p/2, p/4, ...",
     "log2(p)a + nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_reduce_scatter_recursive_halving},
    {RS, "ring", "p-1 steps around the ring, each adding one block",
     "(p-1)a + nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_reduce_scatter_ring},
    {RS, "hier", "reduce in each host, reduce-scatter among the hosts' leaders, scatter in each",
     "host reduce + h-leader reduce_scatter + host scatter", BLOCK, hier_reduce_scatter_params,
     trl_reduce_scatter_hier, trl_reduce_scatter_hier_unusable},
    {RSB, "reduce_scatterv", "a binomial reduce to rank 0, then a linear scatter of the blocks",
     "log2(p)(a + nb + ng) + (p-1)a + nb", 0, NULL, trl_reduce_scatter_reduce_scatterv},
    {RSB, "recursive_halving", "exchange half the vector with the rank at distance p/2, p/4, ...",
     "log2(p)a + nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_reduce_scatter_recursive_halving},
    {RSB, "ring", "p-1 steps around the ring, each adding one block",
     "(p-1)a + nb(p-1)/p + ng(p-1)/p", COMM, NULL, trl_reduce_scatter_ring},
    {RSB, "hier", "reduce in each host, reduce-scatter among the hosts' leaders, scatter in each",
     "host reduce + h-leader reduce_scatter + host scatter", BLOCK, hier_reduce_scatter_params,
     trl_reduce_scatter_hier, trl_reduce_scatter_hier_unusable},

    {SC, "linear", "a chain: receive the prefix from rank-1, add, pass on to rank+1",
     "(p-1)(a + nb + ng)", 0, NULL, trl_scan_linear},
    {SC, "recursive_doubling", "round k: exchange partial results with rank +- 2^k",
     "log2(p)(a + nb + 2ng)", 0, NULL, trl_scan_recursive_doubling},
    {SC, "hier", "scan in each host, exscan of the hosts' totals, bcast of the prefix in each",
     "host scan + h-host exscan + host bcast + ng", BLOCK, hier_scan_params, trl_scan_hier,
     trl_scan_hier_unusable},
    {EX, "linear", "a chain: receive the prefix from rank-1, add, pass on to rank+1",
     "(p-1)(a + nb + ng)", 0, NULL, trl_exscan_linear},
    {EX, "recursive_doubling", "round k: exchange partial results with rank +- 2^k",
     "log2(p)(a + nb + 2ng)", 0, NULL, trl_exscan_recursive_doubling},
    {EX, "hier", "exscan in each host, exscan of the hosts' totals, bcast of the prefix in each",
     "host exscan + h-host exscan + host bcast + ng", BLOCK, hier_exscan_params, trl_exscan_hier,
     trl_scan_hier_unusable},

    /* Intercommunicator calls (src/algo/inter/table.h). */
    TRL_INTER_ALGORITHMS

    /* Not Trellis' own: the call goes to the MPI library unchanged. A rule
     * can choose it, and the benchmarks compare against it. */
    {B, "mpi", "the MPI library's own MPI_Bcast", "-", 0, NULL, NULL},
    {R, "mpi", "the MPI library's own MPI_Reduce", "-", 0, NULL, NULL},
    {AR, "mpi", "the MPI library's own MPI_Allreduce", "-", 0, NULL, NULL},
    {BAR, "mpi", "the MPI library's own MPI_Barrier", "-", 0, NULL, NULL},
    {G, "mpi", "the MPI library's own MPI_Gather", "-", 0, NULL, NULL},
    {GV, "mpi", "the MPI library's own MPI_Gatherv", "-", 0, NULL, NULL},
    {S, "mpi", "the MPI library's own MPI_Scatter", "-", 0, NULL, NULL},
    {SV, "mpi", "the MPI library's own MPI_Scatterv", "-", 0, NULL, NULL},
    {AG, "mpi", "the MPI library's own MPI_Allgather", "-", 0, NULL, NULL},
    {AGV, "mpi", "the MPI library's own MPI_Allgatherv", "-", 0, NULL, NULL},
    {A2A, "mpi", "the MPI library's own MPI_Alltoall", "-", 0, NULL, NULL},
    {A2AV, "mpi", "the MPI library's own MPI_Alltoallv", "-", 0, NULL, NULL},
    {A2AW, "mpi", "the MPI library's own MPI_Alltoallw", "-", 0, NULL, NULL},
    {RS, "mpi", "the MPI library's own MPI_Reduce_scatter", "-", 0, NULL, NULL},
    {RSB, "mpi", "the MPI library's own MPI_Reduce_scatter_block", "-", 0, NULL, NULL},
    {SC, "mpi", "the MPI library's own MPI_Scan", "-", 0, NULL, NULL},
    {EX, "mpi", "the MPI library's own MPI_Exscan", "-", 0, NULL, NULL},

    {0},
};
