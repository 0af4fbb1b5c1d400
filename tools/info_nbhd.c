/* --neighbors SPEC: a Cartesian shape, dimensions joined by 'x', each with
 * an optional 'p' for periodic ("4px4p" is a 4 x 4 torus, "2x2x4p" a
 * 2 x 2 x 4 box periodic in the last dimension), or the name of a file of
 * edges, one "SOURCE DEST" per line ('#' starts a comment), each rank's
 * destinations and sources in the file's order. */
#include "info_nbhd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info_common.h"

enum { MAX_DIMS = 16 };

static int cart(const explain_opts *o, const char *text, trl_nbhd *g)
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
    if (prod != o->ranks)
        return usage_error("--neighbors: the shape %s holds %lld ranks; --ranks is %lld", text,
                           prod, o->ranks);
    return trl_nbhd_cart((int)o->ranks, n, dims, periods, g) ? -1 : 0;
}

static int edge_file(const explain_opts *o, FILE *f, const char *name, trl_nbhd *g)
{
    int p = (int)o->ranks, cap = 64, ne = 0, line = 0, rc = 0;
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
    int *ins = malloc(((size_t)ne + 1) * sizeof *ins), *outs = malloc(((size_t)ne + 1) * sizeof *outs);
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

int nbhd_shape(const explain_opts *o, trl_coll_args *a, call_vectors *v)
{
    char ring[32];
    const char *spec = o->neighbors;
    if (!spec) {
        snprintf(ring, sizeof ring, "%lldp", o->ranks);
        spec = ring;
    }
    FILE *f = fopen(spec, "r");
    int rc = f ? edge_file(o, f, spec, &v->nbhd) : cart(o, spec, &v->nbhd);
    if (f)
        fclose(f);
    if (rc)
        return rc;
    const trl_nbhd *g = &v->nbhd;
    size_t edges = (size_t)g->out_off[g->size], n = (size_t)(o->bytes / o->elem_size);
    v->nb_counts = malloc((edges + 1) * sizeof *v->nb_counts);
    v->nb_sdispls = malloc((edges + 1) * sizeof *v->nb_sdispls);
    v->nb_rdispls = malloc((edges + 1) * sizeof *v->nb_rdispls);
    if (!v->nb_counts || !v->nb_sdispls || !v->nb_rdispls)
        return -1;
    for (int r = 0; r < g->size; r++) {
        for (int j = g->out_off[r]; j < g->out_off[r + 1]; j++)
            v->nb_sdispls[j] = (size_t)(j - g->out_off[r]) * n;
        for (int i = g->in_off[r]; i < g->in_off[r + 1]; i++)
            v->nb_rdispls[i] = (size_t)(i - g->in_off[r]) * n;
    }
    for (size_t e = 0; e <= edges; e++)
        v->nb_counts[e] = n;
    v->nb_zero = 0;
    a->nbhd = g;
    a->count = n;
    return 0;
}

void nbhd_for_rank(const explain_opts *o, const call_vectors *v, trl_coll_args *a, int r)
{
    const trl_nbhd *g = &v->nbhd;
    bool one = o->coll == TRL_COLL_NEIGHBOR_ALLGATHER || o->coll == TRL_COLL_NEIGHBOR_ALLGATHERV;
    a->nbhd = g;
    a->send_counts = v->nb_counts + (one ? 0 : g->out_off[r]);
    a->send_displs = one ? &v->nb_zero : v->nb_sdispls + g->out_off[r];
    a->recv_counts = v->nb_counts + g->in_off[r];
    a->recv_displs = v->nb_rdispls + g->in_off[r];
}
