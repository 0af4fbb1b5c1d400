/* The built-in rules: tried after the user's own (TRELLIS_RULES), in the
 * same language, so `trellis explain --builtin-rules` can print them and a
 * user can copy and edit them. They are kept as text rather than tables on
 * purpose: no threshold of the library lives anywhere else.
 *
 * One host: chosen from measurements on this project's 2-core machine (2
 * ranks, and 4 and 8 oversubscribed ranks); the figures and the commands
 * are in docs/notebook/builtin-rules-one-host.md. Several hosts (hosts=2-
 * ranks_per_host=2-): the hierarchical forms, measured on the emulated
 * cluster at 4 bytes and 1 MiB in four shapes
 * (docs/notebook/builtin-rules-hosts.md); the size thresholds between are
 * still the cost models' (each rule's comment gives its reason). Keep the
 * catch-all at the end of each collective, so that selection always
 * succeeds (the unit test `rules` checks it); the intercommunicator rules
 * come last, each one its collective's catch-all for intercommunicator
 * calls (rules of the other kind never match); bcast, allreduce and
 * barrier were measured there, the others not (their comment says so). */
#include "select/rules.h"

#include <stdlib.h>
#include <string.h>

#include "core/settings.h"
#include "core/status.h"

/* TRL_TUNED_RULES_TEXT: src/select/tuned.rules, the rules `trellis tune`
 * wrote on the reference layouts (bench/tune_builtin.sh), each with its
 * measurements. They name their layout exactly (ranks=, hosts=,
 * ranks_per_host=), so they come first and the hand-written rules below
 * serve the rest; they keep their own source name ("tuned") so that the
 * hand rules' line numbers stay put when the tuned ones are made anew. */
#include "tuned_rules.h"

const char trl_tuned_rules_text[] = TRL_TUNED_RULES_TEXT;

const char trl_builtin_rules_text[] =
    "# Built-in rules. First match wins; a rule whose algorithm cannot serve\n"
    "# the call (for example one needing a commutative operation) is passed\n"
    "# over. Each collective ends with a catch-all any call can use.\n"
    "#\n"
    "# The rules with hosts=2- ranks_per_host=2- serve communicators that\n"
    "# span several hosts with more than one rank on some host: each picks a\n"
    "# hierarchical form, measured on the emulated cluster at 4 bytes and\n"
    "# 1 MiB (4 x 4, 8 x 2, 2 x 8, 6+6+4; docs/notebook/builtin-rules-hosts.md);\n"
    "# the thresholds between are the cost models'.\n"
    "# One host, or one rank per host, gets the flat rules as before.\n"
    "\n"
    "# Several hosts: hier crosses hosts only among the hosts' leaders, one\n"
    "# message per host. 4-nomial levels: on 4 x 4 (testbed) a 4-byte bcast\n"
    "# with binomial levels took 1.29-1.55x Open MPI's (3 runs), a star per\n"
    "# level 0.87-1.35x (5 runs). From 64 KiB hier_sharded sends n/S across\n"
    "# hosts per piece (S ranks a host), all of a host's ranks at once; its pieces\n"
    "# by scatter_allgather: 1 MiB at 1 Gbit/s on 4 x 4, 14.1 ms against 17.4 with\n"
    "# binomial pieces, Open MPI 32.9 (docs/notebook/builtin-rules-hosts.md).\n"
    "bcast      hosts=2- ranks_per_host=2- bytes=64K- hier_sharded world=scatter_allgather\n"
    "bcast      hosts=2- ranks_per_host=2-            hier host=knomial(radix=4) "
    "world=knomial(radix=4)\n"
    "# Binomial matched or beat scatter_allgather at every size measured\n"
    "# (2, 4 and 8 ranks on one host).\n"
    "bcast                                binomial\n"
    "\n"
    "# Several hosts: one message per host crosses hosts, a host's ranks\n"
    "# combine over the host first. A non-commutative operation needs\n"
    "# placement=block; elsewhere the rule is passed over.\n"
    "reduce     hosts=2- ranks_per_host=2-            hier\n"
    "# Binomial receives straight into the root's buffer; Rabenseifner's extra\n"
    "# messages did not pay on one host.\n"
    "reduce                               binomial\n"
    "\n"
    "# Several hosts: hier reduces within each host, allreduces among the\n"
    "# leaders and broadcasts back, one message per host per step across\n"
    "# hosts; from 64 KiB hier_sharded splits the vector over a host's ranks\n"
    "# so each host link carries 2n(h-1)/h, not 2n log2(h), and every rank\n"
    "# drives its piece. Non-commutative: hier_sharded's ring steps need a\n"
    "# commutative operation, hier needs placement=block; else flat. Across\n"
    "# 4 and 8 hosts the pieces go by Rabenseifner (1 MiB at 1 Gbit/s: 4 x 4\n"
    "# 16.9-18.0 ms against 23.3-23.6 by ring, 8 x 2 19.3 against 21.1);\n"
    "# across 3 hosts ring (6+6+4: 14.9 against 24.8, Rabenseifner folding\n"
    "# the odd host in), 2 hosts alike; other counts were not measured and keep\n"
    "# ring (docs/notebook/builtin-rules-hosts.md). From 1 MiB across 4 hosts, in\n"
    "# 3 pieces pipelined by ring, the host steps overlapping the transfers\n"
    "# (1 Gbit/s: 0.78-0.82x Open MPI's time at 1 MiB, 0.85 at 2 MiB, 0.96-0.98\n"
    "# at 4 MiB, against 0.92-1.20 unpipelined; slower at 512 KiB and below).\n"
    "allreduce  hosts=4 ranks_per_host=2- bytes=1M- hier_sharded pipeline=3\n"
    "allreduce  hosts=4 ranks_per_host=2- bytes=64K- hier_sharded world=rabenseifner\n"
    "allreduce  hosts=8 ranks_per_host=2- bytes=64K- hier_sharded world=rabenseifner\n"
    "allreduce  hosts=2- ranks_per_host=2- bytes=64K- hier_sharded\n"
    "allreduce  hosts=2- ranks_per_host=2-            hier\n"
    "# 2 ranks: direct (whole vectors, a copy folded in) 0.39-0.61x the\n"
    "# library's time at 4-256 KiB, ring's 0.46-0.81; ring above (512 KiB: 0.70\n"
    "# against 0.86). More ranks: recursive doubling to 32 KiB, then Rabenseifner.\n"
    "# Ring and Rabenseifner need a commutative operation; else recursive doubling.\n"
    "allreduce  ranks=2  bytes=2049-256K  direct\n"
    "allreduce  ranks=2  bytes=256K-      ring\n"
    "allreduce           bytes=-32K       recursive_doubling\n"
    "allreduce           bytes=32K-       rabenseifner\n"
    "allreduce                            recursive_doubling\n"
    "\n"
    "# Several hosts: a fan-in within each host, a barrier among the hosts'\n"
    "# leaders and a fan-out: log2(hosts) rounds cross hosts, one message\n"
    "# per host each, instead of every rank's. A 4-nomial fan (a star on\n"
    "# 4 ranks): 0.67x Open MPI's on 4 x 4 against 0.71-0.73x binomial. Up\n"
    "# to 4 hosts the leaders meet at one (linear), which beat their\n"
    "# dissemination in three runs on 4 x 4 (0.60-0.70x Open MPI's against\n"
    "# 0.70-0.83x); more hosts keep dissemination's log2(hosts) rounds.\n"
    "barrier    hosts=2-4 ranks_per_host=2-           hier host=knomial(radix=4) world=linear\n"
    "barrier    hosts=2- ranks_per_host=2-            hier host=knomial(radix=4)\n"
    "# One host: recursive doubling, ceil(log2 p) rounds of one empty message\n"
    "# each way per rank.\n"
    "barrier                              recursive_doubling\n"
    "\n"
    "# Several hosts: gather and scatter through the hosts' leaders, one\n"
    "# message per host to or from the root instead of one per rank; the\n"
    "# bytes crossing hosts are the same, the extra hop stays within a host.\n"
    "# gatherv and scatterv hier need every rank's count (one exchange\n"
    "# first): a non-blocking call passes them over.\n"
    "gather     hosts=2- ranks_per_host=2-            hier\n"
    "gatherv    hosts=2- ranks_per_host=2-            hier\n"
    "scatter    hosts=2- ranks_per_host=2-            hier\n"
    "scatterv   hosts=2- ranks_per_host=2-            hier\n"
    "# The data movers, measured on 2 ranks and on 4 and 8 oversubscribed\n"
    "# ranks: linear gather and scatter (and their v variants) matched the\n"
    "# trees on 2 ranks and beat them on 4 and 8, where every extra hop waits\n"
    "# for a descheduled rank; the v trees pay an exchange of counts as well.\n"
    "gather                               linear\n"
    "gatherv                              linear\n"
    "scatter                              linear\n"
    "scatterv                             linear\n"
    "\n"
    "# Several hosts: hier gathers each host's blocks to its leader, runs the\n"
    "# allgather among leaders with one message per host and step, and\n"
    "# broadcasts within hosts; from 16 KiB blocks multileader spreads the\n"
    "# traffic across hosts over every rank of a host (one lane each) and\n"
    "# replaces the broadcast of the whole result with a ring allgather.\n"
    "allgather  hosts=2- ranks_per_host=2- bytes=16K- multileader\n"
    "allgather  hosts=2- ranks_per_host=2-            hier\n"
    "allgatherv hosts=2- ranks_per_host=2- bytes=16K- multileader\n"
    "allgatherv hosts=2- ranks_per_host=2-            hier\n"
    "# Recursive doubling won most rows on 4 and 8 ranks; ring from 1 MiB.\n"
    "allgather                            recursive_doubling\n"
    "allgatherv          bytes=1M-        ring\n"
    "allgatherv                           recursive_doubling\n"
    "\n"
    "# Several hosts, small blocks: node-aware hier combines a host's blocks\n"
    "# so each pair of hosts exchanges one message each way instead of q x q;\n"
    "# it moves every byte three times, so from 4 KiB blocks the flat rule\n"
    "# below wins on bytes. alltoallv and alltoallw have no size to filter\n"
    "# on and take it always; it needs every rank's counts (one allgather\n"
    "# first), so a non-blocking call passes it over.\n"
    "alltoall   hosts=2- ranks_per_host=2- bytes=-4K  hier\n"
    "alltoallv  hosts=2- ranks_per_host=2-            hier\n"
    "alltoallw  hosts=2- ranks_per_host=2-            hier\n"
    "# Linear posts every message at once; pairwise and Bruck lost at 4 and 8.\n"
    "alltoall                             linear\n"
    "alltoallv                            linear\n"
    "alltoallw                            linear\n"
    "\n"
    "# Several hosts in block placement, vectors up to 64 KiB: a reduce\n"
    "# within each host, a reduce_scatter among the leaders and a scatter\n"
    "# within hosts: log2(hosts) steps cross hosts, one message per host,\n"
    "# where the flat trees send every rank's. Larger vectors keep the flat\n"
    "# rules, which move fewer bytes.\n"
    "reduce_scatter       hosts=2- ranks_per_host=2- placement=block bytes=-64K hier\n"
    "reduce_scatter_block hosts=2- ranks_per_host=2- placement=block bytes=-64K hier\n"
    "# Ring and recursive halving need a commutative operation; others fall\n"
    "# through to reduce_scatterv, which keeps rank order. On 8 ranks the\n"
    "# reduce-then-scatter was faster for small vectors.\n"
    "reduce_scatter       ranks=2         ring\n"
    "reduce_scatter       ranks=8- bytes=-2K reduce_scatterv\n"
    "reduce_scatter                       recursive_halving\n"
    "reduce_scatter                       reduce_scatterv\n"
    "reduce_scatter_block ranks=8- bytes=-1K reduce_scatterv\n"
    "reduce_scatter_block                 recursive_halving\n"
    "reduce_scatter_block                 reduce_scatterv\n"
    "\n"
    "# Several hosts in block placement (a scan needs rank order): a scan\n"
    "# within each host, an exscan of the hosts' totals among one rank per\n"
    "# host, a bcast within hosts; log2(hosts) steps cross hosts instead of\n"
    "# a chain through every rank or every rank's recursive doubling.\n"
    "scan                 hosts=2- ranks_per_host=2- placement=block hier\n"
    "exscan               hosts=2- ranks_per_host=2- placement=block hier\n"
    "# The chain won up to 4 ranks and for large vectors; recursive doubling's\n"
    "# log2(p) rounds won small vectors on 8.\n"
    "scan                 ranks=8- bytes=-2K recursive_doubling\n"
    "scan                                 linear\n"
    "exscan               ranks=8- bytes=-2K recursive_doubling\n"
    "exscan                               linear\n"
    "# Neighbourhood collectives between hosts: the blocks a host sends\n"
    "# another combined into one message, spread over 4 lanes a host, won up\n"
    "# to 4K a block on the emulated 4 x 4 (2D and 3D stencils, a random graph:\n"
    "# 1.1-2.3x the MPI library's, linear 0.8-1.3x; docs/notebook/neighbor.md,\n"
    "# bench/neighbor_configs.sh); above it linear won (the lanes carry their\n"
    "# host's bytes twice more). The v form decides block by block (combine=).\n"
    "# neighbor_allgather on the two grids: 1.0-2.2x, linear 0.8-1.2x.\n"
    "# allgatherv and alltoallw on the random graph: one leader a host won,\n"
    "# 1.6-2.4x up to 2K a block and 1.3-1.4x at 4K (lanes=4 1.3-1.7x, linear\n"
    "# 0.9-1.3x); above 4K linear won.\n"
    "# On hosts of 8 ranks (the emulated 2 x 8) every combined form lost from\n"
    "# 4K a block (0.6-1.05x the library, linear 0.9-0.97x) and won up to 2K\n"
    "# (1.1-2.6x): there they stop at 2K. On hosts of 2 (8 x 2) one leader\n"
    "# lost allgatherv and alltoallw at 4K (0.93x) where two lanes won (1.15-\n"
    "# 1.19x). docs/notebook/neighbor.md, \"Other shapes\".\n"
    "neighbor_allgather hosts=2- ranks_per_host=8- bytes=-2K locality lanes=4\n"
    "neighbor_allgather hosts=2- ranks_per_host=8- linear\n"
    "neighbor_alltoall  hosts=2- ranks_per_host=8- bytes=-2K locality lanes=4\n"
    "neighbor_alltoall  hosts=2- ranks_per_host=8- linear\n"
    "neighbor_alltoallv hosts=2- ranks_per_host=8- locality lanes=4 combine=2K\n"
    "neighbor_allgatherv hosts=2- ranks_per_host=8- locality combine=2K\n"
    "neighbor_alltoallw hosts=2- ranks_per_host=8- locality combine=2K\n"
    "neighbor_allgatherv hosts=2- ranks_per_host=2 locality lanes=4 combine=4K\n"
    "neighbor_alltoallw hosts=2- ranks_per_host=2 locality lanes=4 combine=4K\n"
    "neighbor_allgather hosts=2- ranks_per_host=2- bytes=-4K locality lanes=4\n"
    "neighbor_alltoall  hosts=2- ranks_per_host=2- bytes=-4K locality lanes=4\n"
    "neighbor_alltoallv hosts=2- ranks_per_host=2- locality lanes=4 combine=4K\n"
    "neighbor_allgatherv hosts=2- ranks_per_host=2- locality combine=4K\n"
    "neighbor_alltoallw hosts=2- ranks_per_host=2- locality combine=4K\n"
    "# Otherwise one message per edge, as the MPI libraries do.\n"
    "neighbor_allgather                   linear\n"
    "neighbor_allgatherv                  linear\n"
    "neighbor_alltoall                    linear\n"
    "neighbor_alltoallv                   linear\n"
    "neighbor_alltoallw                   linear\n"
    "\n"
    "# Intercommunicators (their own algorithms, inter_*: a rule naming one\n"
    "# matches intercommunicator calls only). ranks= is the larger group,\n"
    "# remote_ranks= the smaller. MPI defines no scan or exscan there.\n"
    "# bcast, allreduce and barrier: measured with bench/inter_latency\n"
    "# against the MPI library's own, 3 or more launches a form\n"
    "# (docs/notebook/intercommunicators.md, \"Intercommunicator collectives\"\n"
    "# and \"Intercommunicators host by host\"). 8+8 on the emulated 4 x 4: the\n"
    "# root's direct sends beat the leader form's bcast up to 16 KiB\n"
    "# (median 0.53-0.68 of the library's time against 0.70-1.17 in one set\n"
    "# of launches, 0.79-1.10 against 0.93-1.17 in another); up to 1 KiB\n"
    "# and from 64 KiB inter_hosts with linear parts (leader to leader\n"
    "# across, hosts of 4) beats them: at 4 B 0.75-0.83 against 0.74-0.90\n"
    "# over four sets (medians 0.83 and 0.88), 16 B-1 KiB 0.62-0.85 against\n"
    "# 0.67-0.95, 64 KiB-4 MiB 0.59-0.66 against the leader form's\n"
    "# 0.94-1.04; at 4-16 KiB the root's sends stay ahead (0.63-0.67\n"
    "# against 0.66-0.82). inter_hosts with linear parts also: allreduce\n"
    "# 0.48-0.76 against 0.64-0.89 at 4 B-4 MiB (16 KiB 1.02 against 1.04),\n"
    "# barrier 0.69 against 0.96 (4 launches a form, 2026-11-27; the leader\n"
    "# forms with hierarchical parts before had cut the barrier from 1.35\n"
    "# to 1.00 and the allreduce from 0.95-0.99 to 0.82-0.93). Hosts of\n"
    "# more ranks: NOT MEASURED; inter_hosts' bcast with binomial parts (it\n"
    "# crosses between hosts once where the leader form's crosses twice),\n"
    "# the leader forms with hierarchical parts for allreduce and barrier\n"
    "# as measured before. 2+2 on one host (two sets of launches,\n"
    "# 2026-11-27): linear allreduce at 16-128 KiB 0.88-1.05 against the\n"
    "# leader form's 0.98-1.06, the leader form from 256 KiB; bcast: no\n"
    "# form below 1 in both sets at 16-256 KiB; barrier linear 0.61 against\n"
    "# 1.02.\n"
    "# Larger groups and the other collectives: NOT MEASURED, the algorithms'\n"
    "# alpha-beta costs (the leader forms: log-depth trees within each group,\n"
    "# one message each way between the rank 0s; gather/scatter: the root's\n"
    "# direct sends, every block crosses once).\n"
    "bcast     hosts=2- ranks_per_host=-4 bytes=-1K inter_hosts bcast=linear\n"
    "bcast     ranks=-8 bytes=-16K        inter_linear\n"
    "bcast     hosts=2- ranks_per_host=-4 inter_hosts bcast=linear\n"
    "bcast     hosts=2-                   inter_hosts\n"
    "bcast                                inter_leader\n"
    "allreduce hosts=1 ranks=-2 bytes=-128K inter_linear\n"
    "allreduce hosts=2- ranks_per_host=-4 inter_hosts reduce=linear bcast=linear\n"
    "allreduce hosts=2-                   inter_leader reduce=hier bcast=hier\n"
    "allreduce                            inter_leader\n"
    "barrier   hosts=1 ranks=-2           inter_linear\n"
    "barrier   hosts=2- ranks_per_host=-4 inter_hosts arrive=linear release=linear\n"
    "barrier   hosts=2-                   inter_leader barrier=hier release=hier\n"
    "barrier                              inter_leader\n"
    "reduce                               inter_leader\n"
    "gather                               inter_linear\n"
    "gatherv                              inter_linear\n"
    "scatter                              inter_linear\n"
    "scatterv                             inter_linear\n"
    "allgather                            inter_leader\n"
    "allgatherv                           inter_leader\n"
    "alltoall                             inter_linear\n"
    "alltoallv                            inter_linear\n"
    "alltoallw                            inter_linear\n"
    "reduce_scatter                       inter_leader\n"
    "reduce_scatter_block                 inter_leader\n";

static const char tuned_source[] = "tuned";

int trl_builtin_rules_load(trl_ruleset *out, trl_rules_error *err)
{
    trl_ruleset tuned = {0}, hand = {0};
    *out = (trl_ruleset){0};
    /* TRELLIS_TUNED=off: the hand rules alone (to compare, or where the
     * tuned machine is unlike this one). */
    const char *tuned_text = trl_setting_on("TRELLIS_TUNED", true) ? trl_tuned_rules_text : "";
    int rc = trl_rules_parse(tuned_text, tuned_source, &tuned, err);
    if (rc)
        return rc;
    rc = trl_rules_parse(trl_builtin_rules_text, "built-in", &hand, err);
    if (rc) {
        trl_rules_free(&tuned);
        return rc;
    }
    /* The tuned rules move in front of the hand ones: each rule's source
     * points at a name that outlives the ruleset. */
    trl_rule *all = realloc(hand.rules, (tuned.n + hand.n) * sizeof *all + 1);
    if (!all) {
        trl_rules_free(&tuned);
        trl_rules_free(&hand);
        return TRL_ERR_NOMEM;
    }
    memmove(all + tuned.n, all, hand.n * sizeof *all);
    for (size_t i = 0; i < tuned.n; i++) {
        all[i] = tuned.rules[i];
        all[i].source = tuned_source;
    }
    free(tuned.rules); /* the rules themselves now belong to `all` */
    free(tuned.source);
    hand.rules = all;
    hand.n += tuned.n;
    *out = hand;
    return TRL_OK;
}

const char *trl_builtin_text_of(const trl_rule *r)
{
    return r->source == tuned_source ? trl_tuned_rules_text : trl_builtin_rules_text;
}
