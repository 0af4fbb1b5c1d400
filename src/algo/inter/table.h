/* The intercommunicator algorithms' entries of the table (algorithms.c
 * expands TRL_INTER_ALGORITHMS among its own). Each serves
 * intercommunicator calls only (TRL_NEEDS_INTER), and the intracommunicator
 * algorithms serve intracommunicator calls only, so a rule that names one
 * for the other kind of communicator is passed over with the reason. The
 * leader algorithms run parts of the call within each group with
 * intracommunicator algorithms their parameters name. */
#ifndef TRL_ALGO_INTER_TABLE_H
#define TRL_ALGO_INTER_TABLE_H

#include "algo/inter/inter.h"

extern const trl_param_spec trl_inter_bcast_params[], trl_inter_reduce_params[],
    trl_inter_allreduce_params[], trl_inter_barrier_params[], trl_inter_allreduce_pairwise_params[],
    trl_inter_barrier_pairwise_params[], trl_inter_gather_params[],
    trl_inter_scatter_params[], trl_inter_reduce_scatter_params[],
    trl_inter_bcast_hosts_params[], trl_inter_allreduce_hosts_params[],
    trl_inter_barrier_hosts_params[];

#define TRL_I TRL_NEEDS_INTER
#define TRL_INTER_ALGORITHMS                                                                      \
    {TRL_COLL_BCAST, "inter_linear", "intercommunicator: the root sends to every remote rank",    \
     "n_r(a + nb)", TRL_I, NULL, trl_inter_bcast_linear},                                          \
    {TRL_COLL_BCAST, "inter_leader",                                                               \
     "intercommunicator: the root sends to the remote leader, which bcasts in its group",          \
     "a + nb + the group's bcast", TRL_I, trl_inter_bcast_params, trl_inter_bcast_leader,          \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_BCAST, "inter_hosts",                                                                \
     "intercommunicator: the root sends to each remote host's leader, which bcasts in its host",   \
     "h_r(a + nb) + a host's bcast", TRL_I, trl_inter_bcast_hosts_params, trl_inter_bcast_hosts,   \
     trl_inter_host_parts_unusable},                                                               \
    {TRL_COLL_REDUCE, "inter_linear",                                                              \
     "intercommunicator: every remote rank sends to the root, which combines in rank order",       \
     "n_r(a + nb + ng)", TRL_I, NULL, trl_inter_reduce_linear},                                    \
    {TRL_COLL_REDUCE, "inter_leader",                                                              \
     "intercommunicator: a reduce in the remote group to its leader, which sends to the root",     \
     "the group's reduce + a + nb", TRL_I, trl_inter_reduce_params, trl_inter_reduce_leader,       \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_ALLREDUCE, "inter_linear",                                                           \
     "intercommunicator: every rank sends to the remote leader, which combines and sends to its "  \
     "group", "n_r(a + nb + ng) + (n_l-1)(a + nb)", TRL_I, NULL, trl_inter_allreduce_linear},      \
    {TRL_COLL_ALLREDUCE, "inter_leader",                                                           \
     "intercommunicator: reduce in each group, the leaders exchange, bcast in each group",         \
     "reduce + a + nb + bcast", TRL_I, trl_inter_allreduce_params, trl_inter_allreduce_leader,     \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_ALLREDUCE, "inter_pairwise",                                                         \
     "intercommunicator: allreduce in each group, then each rank sends to its remote partners",    \
     "allreduce + a + nb", TRL_I, trl_inter_allreduce_pairwise_params,                             \
     trl_inter_allreduce_pairwise, trl_inter_parts_unusable},                                      \
    {TRL_COLL_ALLREDUCE, "inter_hosts",                                                            \
     "intercommunicator: reduce in each host, its leader exchanges with every remote host's "      \
     "leader, bcast in each host", "a host's reduce + h_r(a + nb + ng) + a host's bcast", TRL_I,   \
     trl_inter_allreduce_hosts_params, trl_inter_allreduce_hosts, trl_inter_host_parts_unusable},  \
    {TRL_COLL_BARRIER, "inter_linear",                                                             \
     "intercommunicator: every rank signals the remote leader, which releases its group",          \
     "(n_r + n_l - 1)a", TRL_I, NULL, trl_inter_barrier_linear},                                   \
    {TRL_COLL_BARRIER, "inter_leader",                                                             \
     "intercommunicator: a barrier in each group, the leaders exchange, release in each group",    \
     "barrier + a + bcast", TRL_I, trl_inter_barrier_params, trl_inter_barrier_leader,             \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_BARRIER, "inter_pairwise",                                                           \
     "intercommunicator: a barrier in each group, then each rank signals its remote partners",     \
     "barrier + a", TRL_I, trl_inter_barrier_pairwise_params, trl_inter_barrier_pairwise,          \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_BARRIER, "inter_hosts",                                                              \
     "intercommunicator: gather in each host, its leader signals every remote host's leader, "     \
     "release in each host", "a host's gather + h_r a + a host's bcast", TRL_I,                    \
     trl_inter_barrier_hosts_params, trl_inter_barrier_hosts, trl_inter_host_parts_unusable},      \
    {TRL_COLL_GATHER, "inter_linear", "intercommunicator: every remote rank sends to the root",   \
     "n_r a + Nb", TRL_I, NULL, trl_inter_gather_linear},                                          \
    {TRL_COLL_GATHER, "inter_leader",                                                              \
     "intercommunicator: a gather in the remote group to its leader, which sends all to the root", \
     "the group's gather + a + Nb", TRL_I, trl_inter_gather_params, trl_inter_gather_leader,       \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_GATHERV, "inter_linear", "intercommunicator: every remote rank sends to the root",  \
     "n_r a + Nb", TRL_I, NULL, trl_inter_gather_linear},                                          \
    {TRL_COLL_GATHERV, "inter_leader",                                                             \
     "intercommunicator: a gatherv in the remote group to its leader, which sends all to the "     \
     "root", "the group's gatherv + a + Nb (+ an exchange of the counts)", TRL_I | TRL_NEEDS_ALL_COUNTS, \
     trl_inter_gather_params, trl_inter_gather_leader, trl_inter_parts_unusable},                  \
    {TRL_COLL_SCATTER, "inter_linear", "intercommunicator: the root sends each remote rank its "   \
     "block", "n_r a + Nb", TRL_I, NULL, trl_inter_scatter_linear},                                \
    {TRL_COLL_SCATTER, "inter_leader",                                                             \
     "intercommunicator: the root sends all to the remote leader, which scatters in its group",    \
     "a + Nb + the group's scatter", TRL_I, trl_inter_scatter_params, trl_inter_scatter_leader,    \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_SCATTERV, "inter_linear", "intercommunicator: the root sends each remote rank its "  \
     "block", "n_r a + Nb", TRL_I, NULL, trl_inter_scatter_linear},                                \
    {TRL_COLL_SCATTERV, "inter_leader",                                                            \
     "intercommunicator: the root sends all to the remote leader, which scatters in its group",    \
     "a + Nb + the group's scatterv (+ an exchange of the counts)", TRL_I | TRL_NEEDS_ALL_COUNTS,  \
     trl_inter_scatter_params, trl_inter_scatter_leader, trl_inter_parts_unusable},                \
    {TRL_COLL_ALLGATHER, "inter_linear",                                                           \
     "intercommunicator: every rank sends its block to every remote rank", "n_r a + Nb", TRL_I,    \
     NULL, trl_inter_allgather_linear},                                                            \
    {TRL_COLL_ALLGATHER, "inter_leader",                                                           \
     "intercommunicator: every rank sends to the remote leader, which bcasts in its group",        \
     "n_r a + Nb + the group's bcast", TRL_I, trl_inter_bcast_params, trl_inter_allgather_leader,  \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_ALLGATHERV, "inter_linear",                                                          \
     "intercommunicator: every rank sends its block to every remote rank", "n_r a + Nb", TRL_I,    \
     NULL, trl_inter_allgather_linear},                                                            \
    {TRL_COLL_ALLGATHERV, "inter_leader",                                                          \
     "intercommunicator: every rank sends to the remote leader, which bcasts in its group",        \
     "n_r a + Nb + the group's bcast", TRL_I, trl_inter_bcast_params, trl_inter_allgather_leader,  \
     trl_inter_parts_unusable},                                                                    \
    {TRL_COLL_ALLTOALL, "inter_linear", "intercommunicator: post every send and receive at once",  \
     "n_r a + Nb", TRL_I, NULL, trl_inter_alltoall_linear},                                        \
    {TRL_COLL_ALLTOALL, "inter_pairwise",                                                          \
     "intercommunicator: max(n_0, n_1) rounds, one remote partner per round",                      \
     "max(n_0,n_1)(a + 2nb)", TRL_I, NULL, trl_inter_alltoall_pairwise},                           \
    {TRL_COLL_ALLTOALLV, "inter_linear", "intercommunicator: post every send and receive at once", \
     "n_r a + Nb", TRL_I, NULL, trl_inter_alltoall_linear},                                        \
    {TRL_COLL_ALLTOALLV, "inter_pairwise",                                                         \
     "intercommunicator: max(n_0, n_1) rounds, one remote partner per round",                      \
     "max(n_0,n_1)a + Nb", TRL_I, NULL, trl_inter_alltoall_pairwise},                              \
    {TRL_COLL_ALLTOALLW, "inter_linear", "intercommunicator: post every send and receive at once", \
     "n_r a + Nb", TRL_I, NULL, trl_inter_alltoall_linear},                                        \
    {TRL_COLL_ALLTOALLW, "inter_pairwise",                                                         \
     "intercommunicator: max(n_0, n_1) rounds, one remote partner per round",                      \
     "max(n_0,n_1)a + Nb", TRL_I, NULL, trl_inter_alltoall_pairwise},                              \
    {TRL_COLL_REDUCE_SCATTER, "inter_linear",                                                      \
     "intercommunicator: every rank sends to the remote leader, which combines and scatters",      \
     "n_r(a + Nb + Ng) + (n_l-1)a + Nb", TRL_I, NULL, trl_inter_reduce_scatter_linear},            \
    {TRL_COLL_REDUCE_SCATTER, "inter_leader",                                                      \
     "intercommunicator: reduce in each group, the leaders exchange, scatter in each group",       \
     "reduce + a + Nb + scatter", TRL_I, trl_inter_reduce_scatter_params,                          \
     trl_inter_reduce_scatter_leader, trl_inter_parts_unusable},                                   \
    {TRL_COLL_REDUCE_SCATTER_BLOCK, "inter_linear",                                                \
     "intercommunicator: every rank sends to the remote leader, which combines and scatters",      \
     "n_r(a + Nb + Ng) + (n_l-1)a + Nb", TRL_I, NULL, trl_inter_reduce_scatter_linear},            \
    {TRL_COLL_REDUCE_SCATTER_BLOCK, "inter_leader",                                                \
     "intercommunicator: reduce in each group, the leaders exchange, scatter in each group",       \
     "reduce + a + Nb + scatter", TRL_I, trl_inter_reduce_scatter_params,                          \
     trl_inter_reduce_scatter_leader, trl_inter_parts_unusable},

#endif
