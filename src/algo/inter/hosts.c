/* A group's hosts, for the intercommunicator algorithms that cross between
 * the groups host by host (inter_hosts): which host each member sits on,
 * each host's leader, and whether the parts they run within each host can
 * serve the call (inter.h). */
#include "algo/inter/inter.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "algo/hier.h"
#include "core/status.h"
#include "topo/topo.h"

/* The hosts of the group whose members are ranks[0..n-1] (merged ranks),
 * as the hierarchical algorithms see a communicator's (hier.h): hosts in
 * the order of their lowest group rank, each host's group ranks in order.
 * me: this rank's group rank, or -1 (the other group). */
static int group_hosts(const trl_coll_args *a, const int *ranks, int n, int me, trl_hier_hosts *hh)
{
    trl_topo t = {0};
    if (a->topo) {
        int rc = trl_topo_subset(a->topo, ranks, n, &t);
        if (rc) {
            memset(hh, 0, sizeof *hh);
            return rc;
        }
    }
    trl_coll_args g = {.rank = me, .size = n, .topo = t.host ? &t : NULL};
    int rc = trl_hier_hosts_init(hh, &g);
    trl_topo_free(&t);
    return rc;
}

int trl__inter_host_view_of(const trl_coll_args *a, trl_inter_host_view *hv)
{
    trl_inter_view v = trl_inter_view_of(a);
    memset(hv, 0, sizeof *hv);
    trl_hier_hosts mine, theirs;
    int rc = group_hosts(a, v.local, v.nl, v.me, &mine);
    if (rc)
        return rc;
    rc = group_hosts(a, v.remote, v.nr, -1, &theirs);
    if (rc == TRL_OK) {
        hv->n_members = trl_hier_host_size(&mine, mine.mine);
        hv->members = malloc((size_t)hv->n_members * sizeof *hv->members);
        hv->leaders = malloc((size_t)theirs.n * sizeof *hv->leaders);
        rc = hv->members && hv->leaders ? TRL_OK : TRL_ERR_NOMEM;
    }
    if (rc == TRL_OK) {
        for (int i = 0; i < hv->n_members; i++)
            hv->members[i] = v.local[trl_hier_host_rank(&mine, mine.mine, i)];
        for (hv->n_leaders = 0; hv->n_leaders < theirs.n; hv->n_leaders++)
            hv->leaders[hv->n_leaders] = v.remote[trl_hier_host_rank(&theirs, hv->n_leaders, 0)];
    }
    trl_hier_hosts_free(&theirs);
    trl_hier_hosts_free(&mine);
    if (rc)
        trl__inter_host_view_free(hv);
    return rc;
}

void trl__inter_host_view_free(trl_inter_host_view *hv)
{
    free(hv->members);
    free(hv->leaders);
    memset(hv, 0, sizeof *hv);
}

/* Why the parts cannot serve group g host by host, or NULL. */
static const char *group_unusable(const trl_coll_args *a, int g)
{
    const trl_inter *in = a->inter;
    trl_hier_hosts hh;
    int *ranks = malloc((size_t)in->n[g] * sizeof *ranks);
    if (!ranks || group_hosts(a, in->ranks[g], in->n[g], -1, &hh) != TRL_OK) {
        free(ranks);
        return "the group's hosts could not be found";
    }
    const char *why = NULL;
    for (int h = 0; h < hh.n && !why; h++) {
        int n = trl_hier_host_size(&hh, h);
        for (int i = 0; i < n; i++)
            ranks[i] = in->ranks[g][trl_hier_host_rank(&hh, h, i)];
        /* Its group ranks, in order, are consecutive when they span n. */
        bool gap = trl_hier_host_rank(&hh, h, n - 1) - trl_hier_host_rank(&hh, h, 0) != n - 1;
        if (gap && !a->commutative)
            why = "a non-commutative operation needs each host to hold consecutive ranks of "
                  "its group";
        if (!why)
            why = trl__inter_parts_unusable_over(a, ranks, n);
    }
    trl_hier_hosts_free(&hh);
    free(ranks);
    return why;
}

const char *trl_inter_host_parts_unusable(const trl_coll_args *a)
{
    for (int g = 0; g < 2; g++) {
        const char *why = group_unusable(a, g);
        if (why)
            return why;
    }
    return NULL;
}
