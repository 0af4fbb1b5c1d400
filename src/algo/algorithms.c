/* The table of algorithms. Adding an algorithm: write its builder file,
 * declare it in builders.h, add one entry here. The selector, the runtime,
 * `trellis algorithms` and the test matrix all read this table. */
#include "algo/algo.h"
#include "algo/builders.h"

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

#define B TRL_COLL_BCAST
#define R TRL_COLL_REDUCE
#define AR TRL_COLL_ALLREDUCE
#define BAR TRL_COLL_BARRIER
#define COMM TRL_NEEDS_COMMUTATIVE

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

    {BAR, "linear", "fan-in to rank 0, then fan-out", "2(p-1)a", 0, NULL, trl_barrier_linear},
    {BAR, "binomial", "binomial fan-in to rank 0, then binomial fan-out", "2log2(p)a", 0, NULL,
     trl_barrier_binomial},
    {BAR, "dissemination", "round k: signal rank+2^k, wait for rank-2^k", "ceil(log2 p)a", 0,
     NULL, trl_barrier_dissemination},
    {BAR, "recursive_doubling", "pairwise exchange at distance 1, 2, 4, ...", "log2(p)a", 0, NULL,
     trl_barrier_recursive_doubling},

    /* Not Trellis' own: the call goes to the MPI library unchanged. A rule
     * can choose it, and the benchmarks compare against it. */
    {B, "mpi", "the MPI library's own MPI_Bcast", "-", 0, NULL, NULL},
    {R, "mpi", "the MPI library's own MPI_Reduce", "-", 0, NULL, NULL},
    {AR, "mpi", "the MPI library's own MPI_Allreduce", "-", 0, NULL, NULL},
    {BAR, "mpi", "the MPI library's own MPI_Barrier", "-", 0, NULL, NULL},

    {0},
};
