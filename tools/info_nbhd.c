/* --neighbors SPEC: a Cartesian shape, dimensions joined by 'x', each with
 * an optional 'p' for periodic ("4px4p" is a 4 x 4 torus, "2x2x4p" a
 * 2 x 2 x 4 box periodic in the last dimension), or the name of a file of
 * edges, one "SOURCE DEST" per line ('#' starts a comment), each rank's
 * destinations and sources in the file's order. */
#include "info_nbhd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/neighbor/neighbor_blocks.h"
#include "info_common.h"

enum { MAX_DIMS = 16 };

static int cart(long long ranks, const char *text, trl_nbhd *g)
{
    int dims[MAX_DIMS], periods[MAX_DIMS], n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long d = strtol(p, &end, 10);
        if (end == p || d < 1 || n == MAX_DIMS)
            return usage_error("--neighbors: '%s' is neither a file nor a Cartesian shape such "
                               "as 4px4p (dimensions joined by x, p for periodic)",
                               text);
        dims[n] = (int)d;
        periods[n] = *end == 'p';
        p = end + periods[n];
        n++;
        if (*p == 'x')
            p++;
        else if (*p)
            return usage_error("--neighbors: unexpected '%c' in the shape '%s'", *p, text);
    }
    long long prod = 1;
    for (int d = 0; d < n; d++)
        prod *= dims[d];
    if (prod != ranks)
        return usage_error("--neighbors: the shape %s holds %lld ranks; --ranks is %lld", text,
                           prod, ranks);
    return trl_nbhd_cart((int)ranks, n, dims, periods, g) ? -1 : 0;
}

static int edge_file(long long ranks, FILE *f, const char *name, trl_nbhd *g)
{
    int p = (int)ranks, cap = 64, ne = 0, line = 0, rc = 0;
    int *src = malloc((size_t)cap * sizeof *src), *dst = malloc((size_t)cap * sizeof *dst);
    char buf[256];
    while (src && dst && rc == 0 && fgets(buf, sizeof buf, f)) {
        line++;
        buf[strcspn(buf, "#\n")] = 0;
        int s, d;
        char extra;
        if (sscanf(buf, " %d %d %c", &s, &d, &extra) != 2) {
            if (sscanf(buf, " %c", &extra) == 1)
                rc = usage_error("--neighbors: %s:%d: expected 'SOURCE DEST'", name, line);
            continue;
        }
        if (s < 0 || s >= p || d < 0 || d >= p) {
            rc = usage_error("--neighbors: %s:%d: a rank outside 0..%d", name, line, p - 1);
            break;
        }
        if (ne == cap) {
            cap *= 2;
            int *s2 = realloc(src, (size_t)cap * sizeof *src);
            src = s2 ? s2 : src;
            int *d2 = s2 ? realloc(dst, (size_t)cap * sizeof *dst) : NULL;
            dst = d2 ? d2 : dst;
            if (!s2 || !d2)
                rc = -1;
        }
        if (rc == 0) {
            src[ne] = s;
            dst[ne] = d;
            ne++;
        }
    }
    int *indeg = calloc((size_t)p, sizeof *indeg), *outdeg = calloc((size_t)p, sizeof *outdeg);
    int *ins = malloc(((size_t)ne + 1) * sizeof *ins),
        *outs = malloc(((size_t)ne + 1) * sizeof *outs);
    int *at = calloc((size_t)p + 1, sizeof *at), *at2 = calloc((size_t)p + 1, sizeof *at2);
    if (rc == 0 && (!src || !dst || !indeg || !outdeg || !ins || !outs || !at || !at2))
        rc = -1;
    if (rc == 0) {
        for (int e = 0; e < ne; e++) {
            outdeg[src[e]]++;
            indeg[dst[e]]++;
        }
        for (int r = 0; r < p; r++) {
            at[r + 1] = at[r] + outdeg[r];
            at2[r + 1] = at2[r] + indeg[r];
        }
        for (int e = 0; e < ne; e++) {
            outs[at[src[e]]++] = dst[e];
            ins[at2[dst[e]]++] = src[e];
        }
        rc = trl_nbhd_graph(p, indeg, ins, outdeg, outs, g) ? -1 : 0;
    }
    free(src);
    free(dst);
    free(indeg);
    free(outdeg);
    free(ins);
    free(outs);
    free(at);
    free(at2);
    return rc;
}

int nbhd_call_make(const char *spec, long long ranks, size_t n, nbhd_call *nc)
{
    char ring[32];
    memset(nc, 0, sizeof *nc);
    if (!spec) {
        snprintf(ring, sizeof ring, "%lldp", ranks);
        spec = ring;
    }
    FILE *f = fopen(spec, "r");
    int rc = f ? edge_file(ranks, f, spec, &nc->g) : cart(ranks, spec, &nc->g);
    if (f)
        fclose(f);
    if (rc)
        return rc;
    const trl_nbhd *g = &nc->g;
    size_t edges = (size_t)g->out_off[g->size];
    /* Every out-edge's size, then every in-edge's: as the runtime lays out
     * what the v and w forms' locality reads (neighbor_blocks.h). */
    size_t sizes = trl_nb_edges(g);
    nc->counts = malloc((sizes + 1) * sizeof *nc->counts);
    nc->sdispls = malloc((edges + 1) * sizeof *nc->sdispls);
    nc->rdispls = malloc((edges + 1) * sizeof *nc->rdispls);
    if (!nc->counts || !nc->sdispls || !nc->rdispls)
        return -1;
    for (int r = 0; r < g->size; r++) {
        for (int j = g->out_off[r]; j < g->out_off[r + 1]; j++)
            nc->sdispls[j] = (size_t)(j - g->out_off[r]) * n;
        for (int i = g->in_off[r]; i < g->in_off[r + 1]; i++)
            nc->rdispls[i] = (size_t)(i - g->in_off[r]) * n;
    }
    for (size_t e = 0; e <= sizes; e++)
        nc->counts[e] = n;
    return 0;
}

void nbhd_call_free(nbhd_call *nc)
{
    trl_nbhd_free(&nc->g);
    free(nc->counts);
    free(nc->sdispls);
    free(nc->rdispls);
}

void nbhd_call_for_rank(const nbhd_call *nc, trl_coll coll, trl_coll_args *a, int r)
{
    const trl_nbhd *g = &nc->g;
    bool one = coll == TRL_COLL_NEIGHBOR_ALLGATHER || coll == TRL_COLL_NEIGHBOR_ALLGATHERV;
    a->nbhd = g;
    a->send_counts = nc->counts + (one ? 0 : g->out_off[r]);
    a->send_displs = one ? &nc->zero : nc->sdispls + g->out_off[r];
    a->recv_counts = nc->counts + g->in_off[r];
    a->counts = trl_nb_uniform(coll) ? NULL : nc->counts;
    a->recv_displs = nc->rdispls + g->in_off[r];
}
