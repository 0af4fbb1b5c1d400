/* The table of algorithms, trl_algorithms[]: the registry's entries
 * (registry.h) expanded, then the "mpi" one of every collective. The
 * selector, the runtime, `trellis algorithms` and the tests all read it.
 * Above it, the parameter specs the entries name (.params): an algorithm
 * whose parameters no other has adds its array here. */
#include "algo/algo.h"
#include "algo/builders.h"
#include "algo/registry.h"

#define NO_MAX 0x7fffffffffffffffLL

static const trl_param_spec radix_only[] = {
    {.name = "radix",
     .kind = TRL_PARAM_INT,
     .default_text = "4",
     .min = 2,
     .max = 1024,
     .help = "children per node of the tree"},
    {.name = NULL},
};
static const trl_param_spec locality_params[] = {
    {.name = "lanes",
     .kind = TRL_PARAM_INT,
     .default_text = "1",
     .min = 1,
     .max = 1024,
     .help = "ranks of each host that carry its traffic with the other hosts (1: a leader)"},
    {.name = "combine",
     .kind = TRL_PARAM_SIZE,
     .default_text = "1G",
     .min = 0,
     .max = NO_MAX,
     .help = "bytes of the largest block between hosts that is combined (larger ones go "
             "straight)"},
    {.name = NULL},
};
static const trl_param_spec kary_params[] = {
    {.name = "radix",
     .kind = TRL_PARAM_INT,
     .default_text = "2",
     .min = 1,
     .max = 1024,
     .help = "children per node of the tree"},
    {.name = NULL},
};
static const trl_param_spec segment_only[] = {
    {.name = "segment",
     .kind = TRL_PARAM_SIZE,
     .default_text = "64K",
     .min = 1,
     .max = NO_MAX,
     .help = "bytes per pipeline segment (rounded down to whole elements, at least one)"},
    {.name = NULL},
};
static const trl_param_spec ring_params[] = {
    {.name = "segment",
     .kind = TRL_PARAM_SIZE,
     .default_text = "1M",
     .min = 1,
     .max = NO_MAX,
     .help = "largest message of one ring step; bigger blocks are sent in pieces"},
    {.name = NULL},
};
static const trl_param_spec reduce_bcast_params[] = {
    {.name = "reduce",
     .kind = TRL_PARAM_ALGO,
     .default_text = "binomial",
     .of = TRL_COLL_REDUCE,
     .help = "the reduce algorithm (to rank 0)"},
    {.name = "bcast",
     .kind = TRL_PARAM_ALGO,
     .default_text = "binomial",
     .of = TRL_COLL_BCAST,
     .help = "the bcast algorithm (from rank 0)"},
    {.name = "radix",
     .kind = TRL_PARAM_INT,
     .default_text = "4",
     .min = 2,
     .max = 1024,
     .help = "passed to the reduce and bcast algorithms; when absent each uses its own default"},
    {.name = "segment",
     .kind = TRL_PARAM_SIZE,
     .default_text = "64K",
     .min = 1,
     .max = NO_MAX,
     .help = "passed to the reduce and bcast algorithms; when absent each uses its own default"},
    {.name = NULL},
};

/* hier: levels= and one parameter per level naming its algorithm. */
#define LEVELS_PARAM                                                                               \
    {                                                                                              \
        .name = "levels", .kind = TRL_PARAM_LEVELS, .default_text = "host,world",                  \
        .help = "the levels, smallest first, ending with world: numa, socket, group:K, host, "     \
                "world"                                                                            \
    }
#define LEVEL_PARAM(level, of_, def, flags_, help_)                                                \
    {                                                                                              \
        .name = level, .kind = TRL_PARAM_LEVEL, .default_text = def, .of = of_, .help = help_,     \
        .flags = flags_                                                                            \
    }
#define LOWER_LEVELS(of, def, flags, what)                                                         \
    LEVEL_PARAM("numa", of, def, flags, what " within each NUMA domain"),                          \
        LEVEL_PARAM("socket", of, def, flags, what " within each socket"),                         \
        LEVEL_PARAM("group", of, def, flags, what " within each group of K ranks of a host"),      \
        LEVEL_PARAM("host", of, def, flags, what " within each host")

static const trl_param_spec hier_bcast_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", 0, "the bcast"),
    LEVEL_PARAM("world", TRL_COLL_BCAST, "binomial", 0, "the bcast among the top leaders"),
    {.name = NULL},
};
static const trl_param_spec hier_reduce_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_REDUCE, "binomial", 0, "the reduce"),
    LEVEL_PARAM("world", TRL_COLL_REDUCE, "binomial", 0, "the reduce among the top leaders"),
    {.name = NULL},
};
static const trl_param_spec hier_allreduce_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_REDUCE, "binomial", TRL_PARAM_ALSO_BCAST,
                 "the reduce (up) and bcast (down)"),
    LEVEL_PARAM("world", TRL_COLL_ALLREDUCE, "recursive_doubling", 0,
                "the allreduce among the top leaders"),
    {.name = NULL},
};
static const trl_param_spec hier_barrier_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", TRL_PARAM_TREE_SHAPE,
                 "the tree of the fan-in and fan-out"),
    LEVEL_PARAM("world", TRL_COLL_BARRIER, "dissemination", 0, "the barrier among the top leaders"),
    {.name = NULL},
};

/* The hierarchical data movers (src/algo/hier_blocks.h): the levels move
 * ranges of blocks, so their algorithms are the v-variants'. */
static const trl_param_spec hier_gather_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_GATHERV, "linear", 0, "the gather"),
    LEVEL_PARAM("world", TRL_COLL_GATHERV, "linear", 0, "the gather among the top leaders"),
    {.name = NULL},
};
static const trl_param_spec hier_scatter_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_SCATTERV, "linear", 0, "the scatter"),
    LEVEL_PARAM("world", TRL_COLL_SCATTERV, "linear", 0, "the scatter among the top leaders"),
    {.name = NULL},
};
static const trl_param_spec hier_allgather_params[] = {
    LEVELS_PARAM,
    LOWER_LEVELS(TRL_COLL_BCAST, "binomial", 0, "the bcast of all blocks (down)"),
    LEVEL_PARAM("world", TRL_COLL_ALLGATHERV, "bruck", 0, "the allgather among the top leaders"),
    LEVEL_PARAM("gather", TRL_COLL_GATHERV, "linear", 0,
                "the gather (up) within each group of every level below world"),
    {.name = NULL},
};
static const trl_param_spec multileader_params[] = {
    LEVEL_PARAM("world", TRL_COLL_ALLGATHERV, "ring", 0,
                "the allgather across hosts in each lane (one rank per host)"),
    LEVEL_PARAM("host", TRL_COLL_ALLGATHERV, "ring", 0,
                "the allgather within each host of what the lanes brought"),
    {.name = NULL},
};
/* The two-level forms whose steps are other collectives: one parameter
 * per step, named for where it runs or what it does. */
static const trl_param_spec hier_sharded_bcast_params[] = {
    LEVEL_PARAM("scatter", TRL_COLL_SCATTERV, "linear", 0,
                "the scatterv of the pieces within the root's host"),
    LEVEL_PARAM("world", TRL_COLL_BCAST, "binomial", 0,
                "the bcast of each piece among its holders, one per host"),
    LEVEL_PARAM("allgather", TRL_COLL_ALLGATHERV, "ring", 0, "the allgatherv within each host"),
    {.name = NULL},
};
static const trl_param_spec hier_sharded_allreduce_params[] = {
    LEVEL_PARAM("reduce_scatter", TRL_COLL_REDUCE_SCATTER, "ring", 0,
                "the reduce_scatter within each host"),
    LEVEL_PARAM("world", TRL_COLL_ALLREDUCE, "ring", 0,
                "the allreduce of each piece among its holders, one per host"),
    LEVEL_PARAM("allgather", TRL_COLL_ALLGATHERV, "ring", 0, "the allgatherv within each host"),
    {.name = "pipeline",
     .kind = TRL_PARAM_INT,
     .default_text = "1",
     .min = 1,
     .max = 64,
     .help = "pieces the vector is cut into and pipelined: while one crosses hosts the next is "
             "reduced within them and the one before gathered"},
    {.name = NULL},
};
static const trl_param_spec hier_reduce_scatter_params[] = {
    LEVEL_PARAM("host", TRL_COLL_REDUCE, "binomial", 0, "the reduce within each host"),
    LEVEL_PARAM("world", TRL_COLL_REDUCE_SCATTER, "reduce_scatterv", 0,
                "the reduce_scatter among the hosts' leaders, each getting its host's blocks"),
    LEVEL_PARAM("scatter", TRL_COLL_SCATTERV, "linear", 0,
                "the scatterv of the blocks within each host"),
    {.name = NULL},
};
#define HIER_SCAN_PARAMS(coll)                                                                     \
    {                                                                                              \
        LEVEL_PARAM("host", coll, "linear", 0, "the scan within each host"),                       \
            LEVEL_PARAM("world", TRL_COLL_EXSCAN, "recursive_doubling", 0,                         \
                        "the exscan of the hosts' totals among their last ranks"),                 \
            LEVEL_PARAM("bcast", TRL_COLL_BCAST, "binomial", 0,                                    \
                        "the bcast of the hosts before it within each host"),                      \
            {.name = NULL},                                                                        \
    }
static const trl_param_spec hier_scan_params[] = HIER_SCAN_PARAMS(TRL_COLL_SCAN);
static const trl_param_spec hier_exscan_params[] = HIER_SCAN_PARAMS(TRL_COLL_EXSCAN);

/* tree: a tree or script file (docs/trees.md). */
#define TREE_FILE_PARAM                                                                            \
    {                                                                                              \
        .name = "file", .kind = TRL_PARAM_FILE, .flags = TRL_PARAM_REQUIRED,                       \
        .help = "the tree or script file (docs/trees.md)"                                          \
    }
static const trl_param_spec tree_bcast_params[] = {TREE_FILE_PARAM, {.name = NULL}};
static const trl_param_spec tree_reduce_params[] = {
    TREE_FILE_PARAM,
    {.name = "order",
     .kind = TRL_PARAM_CHOICE,
     .default_text = "file",
     .choices = "file|arrival",
     .help = "combine children in the file's order, or as they arrive (commutative operations "
             "only)"},
    {.name = NULL},
};

/* The intercommunicator leader algorithms: each parameter names the
 * intracommunicator algorithm of one part of the call, with its own
 * parameters in parentheses as a hier level's: `bcast=knomial`,
 * `reduce=hier(levels=host,world)`. */
#define PART(name, of, def, help) LEVEL_PARAM(name, of, def, 0, help)

static const trl_param_spec inter_bcast_params[] = {
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within the group that receives"),
    {.name = NULL},
};
static const trl_param_spec inter_reduce_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within the group that contributes"),
    {.name = NULL},
};
static const trl_param_spec inter_allreduce_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each group to its leader"),
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within each group from its leader"),
    {.name = NULL},
};
static const trl_param_spec inter_allreduce_pairwise_params[] = {
    PART("allreduce", TRL_COLL_ALLREDUCE, "recursive_doubling",
         "the allreduce within each group before the pairs exchange"),
    {.name = NULL},
};
static const trl_param_spec inter_barrier_pairwise_params[] = {
    PART("barrier", TRL_COLL_BARRIER, "dissemination",
         "the barrier within each group before the pairs signal"),
    {.name = NULL},
};
static const trl_param_spec inter_barrier_params[] = {
    PART("barrier", TRL_COLL_BARRIER, "dissemination", "the barrier within each group"),
    PART("release", TRL_COLL_BCAST, "binomial",
         "the bcast of a one-byte token within each group from its leader"),
    {.name = NULL},
};
static const trl_param_spec inter_gather_params[] = {
    PART("gather", TRL_COLL_GATHER, "binomial", "the gather within the group that contributes"),
    {.name = NULL},
};
static const trl_param_spec inter_scatter_params[] = {
    PART("scatter", TRL_COLL_SCATTER, "binomial", "the scatter within the group that receives"),
    {.name = NULL},
};
static const trl_param_spec inter_reduce_scatter_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each group to its leader"),
    PART("scatter", TRL_COLL_SCATTER, "linear", "the scatter within each group from its leader"),
    {.name = NULL},
};
static const trl_param_spec inter_bcast_hosts_params[] = {
    PART("bcast", TRL_COLL_BCAST, "binomial",
         "the bcast within each host of the group that receives, from its leader"),
    {.name = NULL},
};
static const trl_param_spec inter_allreduce_hosts_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each host to its leader"),
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within each host from its leader"),
    {.name = NULL},
};
static const trl_param_spec inter_barrier_hosts_params[] = {
    PART("arrive", TRL_COLL_GATHER, "binomial",
         "the gather of one-byte tokens within each host to its leader"),
    PART("release", TRL_COLL_BCAST, "binomial",
         "the bcast of a one-byte token within each host from its leader"),
    {.name = NULL},
};

#define TRL_ENTRY(coll_, name_, build_, ...)                                                       \
    {.coll = TRL_COLL_##coll_, .name = name_, .build = build_, __VA_ARGS__},
#define TRL_ENTRY_CHECKED(coll_, name_, build_, unusable_, ...)                                    \
    TRL_ENTRY(coll_, name_, build_, .unusable = unusable_, __VA_ARGS__)
/* Not Trellis' own: the call goes to the MPI library unchanged (no builder).
 * A rule can choose it, and the benchmarks compare against it. */
#define TRL_ENTRY_MPI(id, name_, mpi)                                                              \
    {.coll = TRL_COLL_##id,                                                                        \
     .name = "mpi",                                                                                \
     .description = "the MPI library's own " mpi,                                                  \
     .cost = "-"},

const trl_algo trl_algorithms[] = {
    TRL_ALGORITHMS(TRL_ENTRY, TRL_ENTRY_CHECKED) TRL_COLL_MAP(TRL_ENTRY_MPI){.name = NULL},
};
