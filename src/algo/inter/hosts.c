/* A group's hosts, for the intercommunicator algorithms that cross between
 * the groups host by host (inter_hosts): which host each member sits on,
 * each host's leader, and whether the parts they run within each host can
 * serve the call (inter.h). */
#include "algo/inter/inter.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "topo/topo.h"

int trl__inter_hosts_of(const trl_coll_args *a, const int *ranks, int n, trl_inter_hosts *h)
{
    memset(h, 0, sizeof *h);
    trl_topo t = {0};
    if (a->topo) {
        int rc = trl_topo_subset(a->topo, ranks, n, &t);
        if (rc)
            return rc;
    }
    int nhosts = t.host ? t.nhosts : 1;
    int *st = malloc(((size_t)n + (size_t)nhosts) * sizeof *st);
    if (!st) {
        trl_topo_free(&t);
        return TRL_ERR_NOMEM;
    }
    *h = (trl_inter_hosts){nhosts, st, st + n, st};
    /* trl_topo_subset numbers hosts by first appearance: a host's leader
     * is the first rank seen there. */
    for (int k = 0; k < nhosts; k++)
        h->leader[k] = -1;
    for (int i = 0; i < n; i++) {
        h->host[i] = t.host ? t.host[i] : 0;
        if (h->leader[h->host[i]] < 0)
            h->leader[h->host[i]] = i;
    }
    trl_topo_free(&t);
    return TRL_OK;
}

void trl__inter_hosts_free(trl_inter_hosts *h)
{
    free(h->storage);
    memset(h, 0, sizeof *h);
}

int trl__inter_host_members(const trl_coll_args *a, const trl_inter_hosts *mine, int **members,
                            int *n)
{
    trl_inter_view v = trl_inter_view_of(a);
    int k = mine->host[v.me];
    *n = 0;
    *members = malloc((size_t)v.nl * sizeof **members);
    if (!*members)
        return TRL_ERR_NOMEM;
    for (int i = 0; i < v.nl; i++)
        if (mine->host[i] == k)
            (*members)[(*n)++] = v.local[i];
    return TRL_OK;
}

/* Why the parts cannot serve group g host by host, or NULL. */
static const char *group_unusable(const trl_coll_args *a, int g)
{
    const trl_inter *in = a->inter;
    trl_inter_hosts h;
    int *ranks = malloc((size_t)in->n[g] * sizeof *ranks);
    if (!ranks || trl__inter_hosts_of(a, in->ranks[g], in->n[g], &h) != TRL_OK) {
        free(ranks);
        return "the group's hosts could not be found";
    }
    const char *why = NULL;
    for (int k = 0; k < h.nhosts && !why; k++) {
        int n = 0;
        bool gap = false; /* host k's ranks are not consecutive */
        for (int i = 0; i < in->n[g]; i++) {
            if (h.host[i] != k)
                continue;
            gap = gap || (n > 0 && h.host[i - 1] != k);
            ranks[n++] = in->ranks[g][i];
        }
        if (gap && !a->commutative)
            why = "a non-commutative operation needs each host to hold consecutive ranks of "
                  "its group";
        if (!why)
            why = trl__inter_parts_unusable_over(a, ranks, n);
    }
    trl__inter_hosts_free(&h);
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
