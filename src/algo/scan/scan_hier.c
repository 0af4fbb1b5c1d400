/* Hierarchical scan and exscan (`hier`) where every host holds
 * consecutive ranks (placement=block): a scan (exscan) within each host;
 * the hosts' totals, held by each host's last rank, go through an exscan
 * among those last ranks, which gives each host the reduction of all
 * hosts before it; that prefix is broadcast within the host and combined
 * in from the left. Host 0 needs no prefix and skips the broadcast.
 *
 *   ranks 0-2 | 3-5: host 1's last rank (5) gets x0..x2 from the exscan,
 *   broadcasts it to 3 and 4, and each rank r of host 1 computes
 *   (x0..x2) op (x3..xr).
 *
 * Cost, h hosts of q ranks, linear within hosts, recursive doubling among
 * them, a binomial bcast: (q-1)(alpha + n beta + n gamma) +
 * log2(h)(alpha + n beta + 2n gamma) + log2(q)(alpha + n beta) + n gamma.
 * Only the exscan among the h last ranks crosses hosts, in log2(h) rounds
 * instead of the flat algorithms' log2(p) or p-1.
 * From: the SMP-aware scans of MPICH (MPIR_Scan_intra_smp: a scan within
 * each node, an exscan among node leaders, a bcast within each node) and
 * of Open MPI's han, with the last rank as leader so the host's total
 * needs no extra message.
 *
 * exscan: rank r gets x_0 op ... op x_{r-1}; the host exscan leaves each
 * host's first rank without a local part, so there the result is the
 * prefix alone, and rank 0's RECV is left untouched as everywhere. The
 * last rank's total is its exscan result op its own input, so it keeps a
 * copy of its input (the host exscan may overwrite it in place).
 *
 * Irregular layouts: hosts of any sizes; on a host of one rank the host
 * step is a copy and there is no broadcast. Other placements cannot keep
 * rank order across hosts: refused (TRL_NEEDS_BLOCK_PLACEMENT), and the next
 * rule serves the call. Non-commutative operations: rank order holds at
 * every step (the prefix is always the left operand).
 *
 * Parameters: host= (the scan or exscan within each host), world= (the
 * exscan among the hosts' last ranks), bcast= (the broadcast of the
 * prefix within each host). This file builds both scan and exscan, told
 * apart by a->coll (exscan_hier.c).
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "algo/hier.h"
#include "core/status.h"

const char *trl_scan_hier_unusable(const trl_coll_args *a)
{
    const char *why = trl_hier_level_unusable(a, "host");
    return why ? why : trl_hier_level_unusable(a, "world");
}

int trl_scan_hier(const trl_coll_args *a, trl_sched *s)
{
    size_t n = a->count;
    if (n == 0)
        return s->status;
    trl_hier_hosts hh;
    int rc = trl_hier_hosts_init(&hh, a);
    if (rc)
        return rc;
    bool exclusive = a->coll == TRL_COLL_EXSCAN;
    int q = hh.first[hh.mine + 1] - hh.first[hh.mine];
    trl_hier_group host = trl_hier_host_group(&hh, hh.mine, q - 1); /* led by its last rank */
    bool last = host.me == q - 1;
    const trl_params *params;
    const trl_algo *algo;
    trl_ref in = trl_ref_at(a->in_place ? TRL_BUF_RECV : TRL_BUF_SEND, 0);
    trl_ref recv = trl_ref_at(TRL_BUF_RECV, 0);
    /* The host's total, at its last rank: scan, its result; exscan, its
     * input (alone on its host) or a copy of it to fold the host's exscan
     * into. */
    trl_ref total = exclusive ? in : recv;
    if (exclusive && last && q > 1) {
        total = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, n));
        trl_sched_copy(s, in, total, n, TRL_NODEPS);
        trl_sched_fence(s);
    }

    if (q > 1) {
        trl_coll_args call = trl_hier_call(a, a->coll, n, NULL, NULL, a->in_place);
        algo = trl_param_level(a, "host", &params);
        rc = trl_hier_run_call(&call, s, &host, algo, params, in, recv);
    } else if (!exclusive) {
        trl_sched_copy(s, in, recv, n, TRL_NODEPS); /* skipped in place */
        trl_sched_fence(s);
    }
    if (rc == TRL_OK && exclusive && last && q > 1) {
        trl_sched_reduce(s, recv, total, n, TRL_NODEPS); /* (x_first..x_{r-1}) op x_r */
        trl_sched_fence(s);
    }

    /* The prefix of the hosts before this one, at every rank of hosts 1.. */
    trl_ref prefix = trl_ref_at(TRL_BUF_SCRATCH, hh.mine > 0 ? trl_sched_scratch(s, n) : 0);
    trl_hier_group top;
    if (rc == TRL_OK && last && hh.n > 1 && (rc = trl_hier_hosts_one_each(&hh, true, &top)) == 0) {
        trl_coll_args call = trl_hier_call(a, TRL_COLL_EXSCAN, n, NULL, NULL, false);
        algo = trl_param_level(a, "world", &params);
        rc = trl_hier_run_call(&call, s, &top, algo, params, total, prefix);
        free(top.ranks);
    }
    if (rc == TRL_OK && hh.mine > 0) {
        if (q > 1) {
            trl_coll_args call = trl_hier_call(a, TRL_COLL_BCAST, n, NULL, NULL, false);
            algo = trl_param_level(a, "bcast", &params);
            rc = trl_hier_run_call(&call, s, &host, algo, params, prefix, prefix);
        }
        if (exclusive && host.me == 0) /* no local part: the prefix is the result */
            trl_sched_copy(s, prefix, recv, n, TRL_NODEPS);
        else
            trl_sched_reduce(s, prefix, recv, n, TRL_NODEPS);
    }
    trl_hier_hosts_free(&hh);
    return rc ? rc : s->status;
}
