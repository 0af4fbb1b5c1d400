#include "algo/nbhd.h"

#include <stdlib.h>
#include <string.h>

void trl_nbhd_free(trl_nbhd *g)
{
    free(g->in_off);
    free(g->in_src);
    free(g->out_off);
    free(g->out_dst);
    free(g->out_slot);
    memset(g, 0, sizeof *g);
}

static int alloc_lists(trl_nbhd *g, int size, size_t nin, size_t nout)
{
    *g = (trl_nbhd){.size = size};
    g->in_off = malloc(((size_t)size + 1) * sizeof *g->in_off);
    g->out_off = malloc(((size_t)size + 1) * sizeof *g->out_off);
    g->in_src = malloc((nin ? nin : 1) * sizeof *g->in_src);
    g->out_dst = malloc((nout ? nout : 1) * sizeof *g->out_dst);
    g->out_slot = malloc((nout ? nout : 1) * sizeof *g->out_slot);
    if (!g->in_off || !g->out_off || !g->in_src || !g->out_dst || !g->out_slot) {
        trl_nbhd_free(g);
        return -1;
    }
    return 0;
}

int trl_nbhd_cart(int size, int ndims, const int *dims, const int *periods, trl_nbhd *out)
{
    long long prod = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 1)
            return -1;
        prod *= dims[d];
    }
    if (ndims < 0 || prod != size || size < 1)
        return -1;
    size_t per = 2 * (size_t)ndims;
    if (alloc_lists(out, size, per * (size_t)size, per * (size_t)size))
        return -1;
    out->cart = true;
    for (int r = 0; r <= size; r++)
        out->in_off[r] = out->out_off[r] = (int)(per * (size_t)r);
    for (int r = 0; r < size; r++) {
        /* Row-major coordinates (MPI's numbering): the last dimension
         * varies fastest; stride of dimension d is the product after it. */
        int stride = size;
        for (int d = 0; d < ndims; d++) {
            stride /= dims[d];
            int c = r / stride % dims[d];
            for (int dir = 0; dir < 2; dir++) {
                int to = c + (dir ? 1 : -1), peer = TRL_NBHD_NULL;
                if (to >= 0 && to < dims[d])
                    peer = r + (to - c) * stride;
                else if (periods[d])
                    peer = r + ((to + dims[d]) % dims[d] - c) * stride;
                size_t at = per * (size_t)r + 2 * (size_t)d + (size_t)dir;
                out->in_src[at] = out->out_dst[at] = peer;
                out->out_slot[at] = peer == TRL_NBHD_NULL ? -1 : (int)(2 * d + !dir);
            }
        }
    }
    return 0;
}

typedef struct {
    int from, to, index; /* index: the edge's block at its own end */
} edge;

static int by_pair(const void *x, const void *y)
{
    const edge *a = x, *b = y;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    if (a->to != b->to)
        return a->to < b->to ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

int trl_nbhd_graph(int size, const int *indeg, const int *sources, const int *outdeg,
                   const int *dests, trl_nbhd *out)
{
    size_t nin = 0, nout = 0;
    for (int r = 0; r < size; r++) {
        if (indeg[r] < 0 || outdeg[r] < 0)
            return -1;
        nin += (size_t)indeg[r];
        nout += (size_t)outdeg[r];
    }
    if (nin != nout || alloc_lists(out, size, nin, nout))
        return -1;
    edge *ins = malloc((nin ? nin : 1) * sizeof *ins),
         *outs = malloc((nout ? nout : 1) * sizeof *outs);
    int rc = ins && outs ? 0 : -1;
    out->in_off[0] = out->out_off[0] = 0;
    for (int r = 0; r < size; r++) {
        out->in_off[r + 1] = out->in_off[r] + indeg[r];
        out->out_off[r + 1] = out->out_off[r] + outdeg[r];
    }
    for (int r = 0; rc == 0 && r < size; r++) {
        for (int i = out->in_off[r]; i < out->in_off[r + 1]; i++) {
            int s = sources[i];
            rc |= s < 0 || s >= size ? -1 : 0;
            out->in_src[i] = s;
            ins[i] = (edge){s, r, i};
        }
        for (int j = out->out_off[r]; j < out->out_off[r + 1]; j++) {
            int q = dests[j];
            rc |= q < 0 || q >= size ? -1 : 0;
            out->out_dst[j] = q;
            outs[j] = (edge){r, q, j};
        }
    }
    /* The k-th edge s -> q of s's list meets the k-th of q's: both sorted
     * by (s, q, position), the two lists pair one for one. */
    if (rc == 0) {
        qsort(ins, nin, sizeof *ins, by_pair);
        qsort(outs, nout, sizeof *outs, by_pair);
        for (size_t e = 0; rc == 0 && e < nin; e++) {
            if (ins[e].from != outs[e].from || ins[e].to != outs[e].to)
                rc = -1;
            else
                out->out_slot[outs[e].index] = ins[e].index - out->in_off[ins[e].to];
        }
    }
    free(ins);
    free(outs);
    if (rc)
        trl_nbhd_free(out);
    return rc;
}
