#include "check_layouts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const int sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16};
enum { NSIZES = sizeof sizes / sizeof *sizes, MAX_LAYOUTS = 12 };

/* ---- hier: parameter variants x described layouts ------------------------ */

static const char *const hier_common[] = {
    "",
    "levels=world",
    "levels=socket,host,world",
    "levels=numa,socket,host,world host=linear",
    "levels=group:2,host,world group=linear host=binomial",
    NULL,
};
static const char *const hier_bcast[] = {
    "levels=group:3,world group=linear world=linear",
    "host=knomial(radix=3) world=kary(radix=3)",
    "host=chain(segment=24) world=scatter_allgather",
    "host=linear world=linear",
    NULL,
};
static const char *const hier_reduce[] = {
    "levels=group:3,world group=linear world=linear",
    "host=knomial(radix=3) world=rabenseifner",
    "host=chain(segment=24) world=linear",
    "host=linear world=kary(radix=3)",
    NULL,
};
static const char *const hier_allreduce[] = {
    "levels=group:3,world group=linear world=recursive_doubling",
    "host=linear world=reduce_bcast(reduce=linear,bcast=linear)",
    "levels=group:4,world group=linear world=reduce_bcast(reduce=linear,bcast=linear)",
    "host=knomial(radix=3) world=ring",
    "host=chain(segment=24) world=rabenseifner",
    "world=knomial(radix=3)",
    NULL,
};
static const char *const hier_barrier[] = {
    "levels=group:3,world group=linear world=linear",
    "host=linear world=linear",
    "host=knomial(radix=3) world=recursive_doubling",
    "host=chain world=binomial",
    "levels=socket,host,world socket=kary(radix=3) host=kary world=dissemination",
    NULL,
};

/* The data movers' level algorithms are the v-variants' (ranges of blocks). */
static const char *const hier_gather[] = {
    "host=binomial world=binomial",
    "levels=group:3,world group=binomial world=linear",
    "levels=socket,host,world socket=binomial world=binomial",
    NULL,
};
static const char *const hier_scatter[] = {
    "host=binomial world=binomial",
    "levels=group:3,world group=binomial world=linear",
    "levels=socket,host,world socket=binomial world=binomial",
    NULL,
};
static const char *const hier_allgather[] = {
    "world=ring",
    "world=recursive_doubling gather=binomial",
    "host=knomial(radix=3) world=gather_bcast gather=binomial",
    "host=chain(segment=1000) world=bruck", /* the whole image: bigger segments */
    "levels=group:3,world group=scatter_allgather gather=binomial world=ring",
    "levels=socket,host,world socket=linear host=kary(radix=3) world=multileader",
    NULL,
};
/* Algorithms without levels=: their own variants only. */
static const char *const multileader[] = {
    "",
    "world=bruck host=recursive_doubling",
    "world=gather_bcast host=bruck",
    "world=recursive_doubling host=hier",
    NULL,
};
static const char *const no_params[] = {"", NULL};
/* The neighbourhood's locality: one leader per host, and lanes spreading a
 * host's traffic (fewer ranks than lanes included); combine= sending the
 * larger blocks between hosts straight (none combined, and some of a call's
 * blocks combined while others are not). */
static const char *const locality_lanes[] = {
    "", "lanes=2", "lanes=3", "lanes=64", "combine=0", "combine=5", "lanes=2 combine=7", NULL};
/* The two-level forms (issue 12): each step's algorithm varied, commutative
 * and not where they allow it. */
static const char *const sharded_bcast[] = {
    "",
    "scatter=binomial world=scatter_allgather allgather=recursive_doubling",
    "world=chain(segment=24) allgather=bruck",
    "world=linear allgather=gather_bcast",
    NULL,
};
static const char *const sharded_allreduce[] = {
    "",
    "reduce_scatter=reduce_scatterv world=recursive_doubling",
    "reduce_scatter=recursive_halving world=rabenseifner allgather=bruck",
    "reduce_scatter=reduce_scatterv world=reduce_bcast(reduce=linear,bcast=linear) "
    "allgather=gather_bcast",
    "world=direct allgather=recursive_doubling",
    /* Pipelined: more pieces than small vectors have elements, too. */
    "pipeline=3",
    "pipeline=64 reduce_scatter=reduce_scatterv world=recursive_doubling allgather=bruck",
    /* Pieces in segments of 4 bytes: hundreds of messages between a pair, past a
     * tag period (the chain of trl_sched_finish across the pipeline). */
    "pipeline=8 world=ring(segment=4)",
    NULL,
};
static const char *const hier_reduce_scatter[] = {
    "",
    "host=linear world=ring scatter=binomial",
    "host=knomial(radix=3) world=recursive_halving",
    "host=chain(segment=4000) world=hier", /* whole vectors: segments of a few hundred */
    NULL,
};
static const char *const hier_scan[] = {
    "",
    "host=recursive_doubling world=linear bcast=knomial(radix=3)",
    "host=linear world=recursive_doubling bcast=linear",
    NULL,
};

/* The layouts tried on p ranks: one host (no topology), two hosts, three
 * round-robin, one rank per host, sockets and NUMA domains, hosts that
 * interleave, the 4x4 and 4+3+2, three irregular hosts in block
 * placement, a host of one rank after a big one; with `lone`, also three
 * hosts of 1 (rank 0's), p-3 and 2 ranks. */
static int layouts_for(int p, bool lone, char out[][160])
{
    int n = 0, a = (p + 1) / 2, b = p / 2;
    out[n++][0] = '\0';
    if (p >= 2)
        snprintf(out[n++], 160, "hosts=2 ranks_per_host=%d,%d", a, b);
    if (p >= 3) {
        int q = p / 3, r = p % 3;
        snprintf(out[n++], 160, "hosts=3 ranks_per_host=%d,%d,%d placement=round-robin",
                 q + (r > 0), q + (r > 1), q);
    }
    if (p >= 2)
        snprintf(out[n++], 160, "hosts=%d ranks_per_host=1", p);
    if (p >= 8)
        snprintf(out[n++], 160, "hosts=2 ranks_per_host=%d,%d sockets_per_host=2 numa_per_socket=2",
                 a, b);
    if (p >= 3) { /* host 0 holds the odd ranks, host 1 the even ones */
        int at = snprintf(out[n], 160, "host=");
        for (int r = 1; r < p; r += 2)
            at += snprintf(out[n] + at, (size_t)(160 - at), "%s%d", r > 1 ? "," : "", r);
        at += snprintf(out[n] + at, (size_t)(160 - at), " host=");
        for (int r = 0; r < p; r += 2)
            at += snprintf(out[n] + at, (size_t)(160 - at), "%s%d", r > 0 ? "," : "", r);
        n++;
    }
    if (p == 16)
        snprintf(out[n++], 160, "hosts=4 ranks_per_host=4");
    if (p == 9)
        snprintf(out[n++], 160, "hosts=3 ranks_per_host=4,3,2");
    if (p >= 4) { /* irregular, block placement: 6+5+5 scaled down */
        int q = p / 3, r = p % 3;
        snprintf(out[n++], 160, "hosts=3 ranks_per_host=%d,%d,%d", q + (r > 0), q + (r > 1), q);
    }
    if (p >= 3) /* a host of one rank after a big one */
        snprintf(out[n++], 160, "hosts=2 ranks_per_host=%d,1", p - 1);
    if (lone && p >= 4)
        snprintf(out[n++], 160, "hosts=3 ranks_per_host=1,%d,2", p - 3);
    return n;
}

static int hier_variant(sweep *w, const char *text, bool lone)
{
    trl_params params;
    if (!with_params(w->algo, text, &params))
        return 2;
    /* Small segments make many messages: keep their counts small. */
    size_t max_count = strstr(text, "segment=") ? 1000 : (size_t)-1;
    for (int si = 0; si < NSIZES; si++) {
        int p = sizes[si];
        char layouts[MAX_LAYOUTS][160];
        int n = layouts_for(p, lone, layouts);
        for (int l = 0; l < n; l++) {
            trl_topo topo, *t = NULL;
            if (layouts[l][0]) {
                trl_topo_error err;
                if (trl_topo_parse(layouts[l], "test", true, &topo, &err)) {
                    char msg[900];
                    trl_topo_error_format(&err, msg, sizeof msg);
                    fprintf(stderr, "bad test layout '%s': %s\n", layouts[l], msg);
                    trl_params_free(&params);
                    return 2;
                }
                t = &topo;
            }
            /* The largest count on two layouts only (the two-host one only
             * for the two-level forms): the rest is shape. An allgather
             * moves p blocks to each of p ranks: the largest count up to 9
             * ranks only. */
            bool square = w->algo->coll == TRL_COLL_ALLGATHER ||
                          w->algo->coll == TRL_COLL_ALLGATHERV;
            size_t most = (l == 1 || (l == 0 && !lone)) && !(square && p > 9) ? max_count : 1000;
            sweep_size(w, text, &params, most, p, t ? layouts[l] : NULL, t);
            if (t)
                trl_topo_free(t);
        }
    }
    trl_params_free(&params);
    return 0;
}

/* The variants of each hierarchical algorithm; those with levels= also
 * take hier_common's. */
static const struct {
    trl_coll coll;
    const char *name;
    const char *const *variants;
} hier_variants[] = {
    {TRL_COLL_BCAST, "hier", hier_bcast},
    {TRL_COLL_REDUCE, "hier", hier_reduce},
    {TRL_COLL_ALLREDUCE, "hier", hier_allreduce},
    {TRL_COLL_BARRIER, "hier", hier_barrier},
    {TRL_COLL_BCAST, "hier_sharded", sharded_bcast},
    {TRL_COLL_ALLREDUCE, "hier_sharded", sharded_allreduce},
    {TRL_COLL_REDUCE_SCATTER, "hier", hier_reduce_scatter},
    {TRL_COLL_REDUCE_SCATTER_BLOCK, "hier", hier_reduce_scatter},
    {TRL_COLL_SCAN, "hier", hier_scan},
    {TRL_COLL_EXSCAN, "hier", hier_scan},
    {TRL_COLL_GATHER, "hier", hier_gather},
    {TRL_COLL_GATHERV, "hier", hier_gather},
    {TRL_COLL_SCATTER, "hier", hier_scatter},
    {TRL_COLL_SCATTERV, "hier", hier_scatter},
    {TRL_COLL_ALLGATHER, "hier", hier_allgather},
    {TRL_COLL_ALLGATHERV, "hier", hier_allgather},
    {TRL_COLL_ALLGATHER, "multileader", multileader},
    {TRL_COLL_ALLGATHERV, "multileader", multileader},
    {TRL_COLL_ALLTOALL, "hier", no_params},
    {TRL_COLL_ALLTOALLV, "hier", no_params},
    {TRL_COLL_ALLTOALLW, "hier", no_params},
    {TRL_COLL_NEIGHBOR_ALLGATHER, "locality", locality_lanes},
    {TRL_COLL_NEIGHBOR_ALLTOALL, "locality", locality_lanes},
    {TRL_COLL_NEIGHBOR_ALLGATHERV, "locality", locality_lanes},
    {TRL_COLL_NEIGHBOR_ALLTOALLV, "locality", locality_lanes},
    {TRL_COLL_NEIGHBOR_ALLTOALLW, "locality", locality_lanes},
};

int sweep_hier(sweep *w)
{
    bool levels = trl_algo_param(w->algo, "levels", 6) != NULL;
    for (const char *const *v = hier_common; levels && *v; v++)
        if (hier_variant(w, *v, false))
            return 2;
    for (size_t i = 0; i < sizeof hier_variants / sizeof *hier_variants; i++) {
        if (hier_variants[i].coll != w->algo->coll || strcmp(hier_variants[i].name, w->algo->name))
            continue;
        for (const char *const *v = hier_variants[i].variants; *v; v++)
            if (hier_variant(w, *v, !levels))
                return 2;
        return 0;
    }
    fprintf(stderr, "no test variants for %s %s (tests/unit/check_layouts.c)\n",
            trl_coll_name(w->algo->coll), w->algo->name);
    return 2;
}

/* ---- tree: generated tree and script files -------------------------------- */

/* parent[] of a few shapes over p ranks; children are taken in rank order
 * unless `shuffle`. */
typedef enum { LAM_REDUCE, LAM_BCAST, STAR, CHAIN, RANDOM, ROOTED_MID, NSHAPES } shape;

static int lowbit_parent(int r)
{
    return r == 0 ? -1 : r & (r - 1);
}

static int highbit_parent(int r)
{
    int h = 1;
    while (h * 2 <= r)
        h *= 2;
    return r == 0 ? -1 : r - h;
}

static void shape_parents(shape s, int p, unsigned *seed, int *parent)
{
    for (int r = 0; r < p; r++) {
        switch (s) {
        case LAM_REDUCE: parent[r] = lowbit_parent(r); break;
        case LAM_BCAST: parent[r] = highbit_parent(r); break;
        case STAR: parent[r] = r == 0 ? -1 : 0; break;
        case CHAIN: parent[r] = r - 1; break;
        case RANDOM: parent[r] = r == 0 ? -1 : (int)(rand_r(seed) % (unsigned)r); break;
        case ROOTED_MID: { /* a binomial tree rotated to root p/2 */
            int v = (r - p / 2 + p) % p;
            parent[r] = v == 0 ? -1 : (lowbit_parent(v) + p / 2) % p;
            break;
        }
        default: break;
        }
    }
}

/* One section: "rank R parent P children ..." lines, or a script's lines. */
static void write_section(FILE *f, const char *name, const int *parent, int p, bool script,
                          bool reduce, bool shuffle, unsigned *seed)
{
    fprintf(f, "%s\n", name);
    int *kids = malloc((size_t)p * sizeof *kids);
    for (int r = 0; r < p; r++) {
        int n = 0;
        for (int c = 0; c < p; c++)
            if (parent[c] == r)
                kids[n++] = c;
        for (int i = n - 1; shuffle && i > 0; i--) {
            int j = (int)(rand_r(seed) % (unsigned)(i + 1)), x = kids[i];
            kids[i] = kids[j];
            kids[j] = x;
        }
        if (script) {
            fprintf(f, "rank %d:", r);
            int cmds = 0;
            if (!reduce && parent[r] >= 0)
                fprintf(f, "%s recv %d", cmds++ ? "," : "", parent[r]);
            for (int i = 0; i < n; i++)
                fprintf(f, "%s %s %d", cmds++ ? "," : "", reduce ? "recv" : "send", kids[i]);
            if (reduce && parent[r] >= 0)
                fprintf(f, "%s send %d", cmds++ ? "," : "", parent[r]);
            fputc('\n', f);
            continue;
        }
        if (parent[r] < 0)
            fprintf(f, "rank %d parent none", r);
        else
            fprintf(f, "rank %d parent %d", r, parent[r]);
        if (n)
            fputs(" children", f);
        for (int i = 0; i < n; i++)
            fprintf(f, " %d", kids[i]);
        fputc('\n', f);
    }
    free(kids);
}

/* Write a file with the given reduce and bcast shapes; returns its path
 * (malloc'd) or NULL. */
static char *write_tree(int p, shape up, shape down, bool script, bool shuffle, unsigned *seed)
{
    char *path = strdup("/tmp/trellis-test-tree-XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        free(path);
        return NULL;
    }
    int *pu = malloc((size_t)p * sizeof *pu), *pd = malloc((size_t)p * sizeof *pd);
    shape_parents(up, p, seed, pu);
    shape_parents(down, p, seed, pd);
    int root = 0;
    for (int r = 0; r < p; r++)
        if (pu[r] < 0)
            root = r;
    fprintf(f, "trellis %s\nranks %d\nroot %d\n", script ? "script" : "tree", p, root);
    write_section(f, "reduce", pu, p, script, true, shuffle, seed);
    write_section(f, "bcast", pd, p, script, false, shuffle, seed);
    free(pu);
    free(pd);
    fclose(f);
    return path;
}

typedef struct {
    shape up, down;
    bool script, shuffle;
} tree_kind;

static const tree_kind tree_kinds[] = {
    {LAM_REDUCE, LAM_BCAST, false, false}, /* seed 000's LAM trees: ordered */
    {LAM_REDUCE, LAM_BCAST, true, false},  /* the same as a script */
    {STAR, STAR, false, false},            /* linear */
    {CHAIN, STAR, true, false},
    {RANDOM, RANDOM, false, true},        /* not in rank order */
    {ROOTED_MID, ROOTED_MID, true, true}, /* root p/2: one more hop */
};

int sweep_tree(sweep *w)
{
    bool reduces = w->algo->coll != TRL_COLL_BCAST;
    unsigned seed = 7;
    for (int si = 0; si < NSIZES; si++) {
        int p = sizes[si];
        for (size_t k = 0; k < sizeof tree_kinds / sizeof *tree_kinds; k++) {
            const tree_kind *tk = &tree_kinds[k];
            char *path = write_tree(p, tk->up, tk->down, tk->script, tk->shuffle, &seed);
            if (!path) {
                fprintf(stderr, "cannot write a test tree file\n");
                return 2;
            }
            for (int order = 0; order <= (reduces ? 1 : 0); order++) {
                char text[200];
                snprintf(text, sizeof text, "file=%s%s", path, order ? " order=arrival" : "");
                trl_params params;
                if (!with_params(w->algo, text, &params)) {
                    unlink(path);
                    free(path);
                    return 2;
                }
                sweep_size(w, text, &params, (size_t)-1, p, NULL, NULL);
                trl_params_free(&params);
            }
            unlink(path);
            free(path);
        }
    }
    return 0;
}
