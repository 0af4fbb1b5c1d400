/* The parameters of the intercommunicator leader algorithms: each names
 * the intracommunicator algorithm of one part of the call (table.h), with
 * its own parameters in parentheses as a hier level's: `bcast=knomial`,
 * `reduce=hier(levels=host,world)`. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include "algo/inter/table.h"

#define PART(name, of, def, help) {name, TRL_PARAM_LEVEL, def, 0, 0, of, help, 0, NULL}

const trl_param_spec trl_inter_bcast_params[] = {
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within the group that receives"),
    {0},
};
const trl_param_spec trl_inter_reduce_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within the group that contributes"),
    {0},
};
const trl_param_spec trl_inter_allreduce_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each group to its leader"),
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within each group from its leader"),
    {0},
};
const trl_param_spec trl_inter_allreduce_pairwise_params[] = {
    PART("allreduce", TRL_COLL_ALLREDUCE, "recursive_doubling",
         "the allreduce within each group before the pairs exchange"),
    {0},
};
const trl_param_spec trl_inter_barrier_pairwise_params[] = {
    PART("barrier", TRL_COLL_BARRIER, "dissemination",
         "the barrier within each group before the pairs signal"),
    {0},
};
const trl_param_spec trl_inter_barrier_params[] = {
    PART("barrier", TRL_COLL_BARRIER, "dissemination", "the barrier within each group"),
    PART("release", TRL_COLL_BCAST, "binomial",
         "the bcast of a one-byte token within each group from its leader"),
    {0},
};
const trl_param_spec trl_inter_gather_params[] = {
    PART("gather", TRL_COLL_GATHER, "binomial", "the gather within the group that contributes"),
    {0},
};
const trl_param_spec trl_inter_scatter_params[] = {
    PART("scatter", TRL_COLL_SCATTER, "binomial", "the scatter within the group that receives"),
    {0},
};
const trl_param_spec trl_inter_reduce_scatter_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each group to its leader"),
    PART("scatter", TRL_COLL_SCATTER, "linear", "the scatter within each group from its leader"),
    {0},
};
const trl_param_spec trl_inter_bcast_hosts_params[] = {
    PART("bcast", TRL_COLL_BCAST, "binomial",
         "the bcast within each host of the group that receives, from its leader"),
    {0},
};
const trl_param_spec trl_inter_allreduce_hosts_params[] = {
    PART("reduce", TRL_COLL_REDUCE, "binomial", "the reduce within each host to its leader"),
    PART("bcast", TRL_COLL_BCAST, "binomial", "the bcast within each host from its leader"),
    {0},
};
const trl_param_spec trl_inter_barrier_hosts_params[] = {
    PART("arrive", TRL_COLL_GATHER, "binomial",
         "the gather of one-byte tokens within each host to its leader"),
    PART("release", TRL_COLL_BCAST, "binomial",
         "the bcast of a one-byte token within each host from its leader"),
    {0},
};
