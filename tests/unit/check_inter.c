/* The intercommunicator algorithms (src/algo/inter/) in the threads tier:
 * every algorithm over splits of the ranks into two groups (1+1, 1+4, 4+1,
 * 2+3, 3+3, 4+5, 5+4, 1+7, 7+2, 8+8; the groups' members contiguous or
 * interleaved in the merged communicator, as MPI_Intercomm_merge may order
 * them), counts 0, 1, 7, 1000 and 100003 (data movers with the two groups'
 * blocks of different sizes; v-variants with irregular counts, zeros among
 * them, and blocks laid out in reverse order with gaps), roots at either
 * end of either group, the three element types (non-commutative matrix
 * products included), and every intracommunicator algorithm as each part
 * of the leader algorithms, on several layouts (make_layout: hosts with
 * one rank, irregular hosts, all on one host); checked against values
 * computed by plain loops
 * as the MPI standard defines them (allreduce: the reduction of the OTHER
 * group's data; reduce_scatter: the other group's reduction scattered by
 * this group's counts; ...).
 *
 * Every receive buffer is compared whole: garbage outside the blocks must
 * survive. A rank gets only the buffers MPI makes significant there (the
 * executor fails any access to a missing one): the root's group's other
 * ranks (MPI_PROC_NULL) get none, and their schedules must be empty. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/inter/inter.h"
#include "algo/params.h"
#include "algo/usable.h"
#include "algo_check.h"
#include "topo/topo.h"

typedef struct {
    int n0, n1;
    bool interleave;
} split;

static const split splits[] = {
    {1, 1, false}, {1, 4, false}, {4, 1, true}, {2, 3, true}, {3, 3, false}, {3, 3, true},
    {4, 5, true},  {5, 4, false}, {1, 7, true}, {7, 2, true}, {8, 8, true},
};

static const size_t counts_swept[] = {0, 1, 7, 1000, 100003};

static int make_groups(const split *sp, trl_inter *in)
{
    int r0[64], r1[64], a = 0, b = 0;
    for (int r = 0; r < sp->n0 + sp->n1; r++) {
        bool to0 = sp->interleave ? a < sp->n0 && (b >= sp->n1 || r % 2 == 0) : r < sp->n0;
        if (to0)
            r0[a++] = r;
        else
            r1[b++] = r;
    }
    return trl_inter_init(in, r0, sp->n0, r1, sp->n1);
}

/* One case: the split, the root (rooted collectives) and what every rank
 * holds. Buffers are per rank: what the rank sends (its image), the
 * receive buffer's garbage before, and what it must hold after. */
typedef struct {
    check_case c;
    const trl_inter *in;
    int root_group, root_index, root; /* root: merged rank, or -1 */
    size_t esize;
    trl_coll_args *args;
    void **send_img;
    size_t *send_n, *recv_n;
    char **expect;
    size_t **arrays; /* per-rank arrays (counts, displacements), freed at the end */
    int narrays;
} plan;

static size_t *array(plan *pl, size_t n)
{
    size_t *v = calloc(n ? n : 1, sizeof *v);
    pl->arrays[pl->narrays++] = v;
    return v;
}

static void *elems(const plan *pl, size_t n)
{
    return calloc(n ? n : 1, pl->esize);
}

static char *at(const plan *pl, void *buf, size_t off)
{
    return (char *)buf + off * pl->esize;
}

/* Rank r's own data (its send image): values unique per rank and index. */
static void own(const plan *pl, int r, size_t n)
{
    pl->send_n[r] = n;
    pl->send_img[r] = elems(pl, n);
    pl->c.ty->fill(pl->send_img[r], r, n, pl->c.seed);
}

/* Rank r's receive buffer of n elements: garbage that must stay where no
 * block lands, which the expected image starts from. */
static void recv_buf(const plan *pl, int r, size_t n)
{
    pl->recv_n[r] = n;
    pl->expect[r] = elems(pl, n);
    pl->c.ty->fill(pl->expect[r], 5000 + r, n, pl->c.seed + 3);
}

static int group_of(const plan *pl, int r)
{
    return pl->in->group[r];
}

/* x_0 op x_1 op ... over group g's members in rank order, elements
 * [off, off+n) of each one's send image, into out. */
static void fold_group(const plan *pl, int g, size_t off, size_t n, void *out)
{
    const int *m = pl->in->ranks[g];
    memcpy(out, at(pl, pl->send_img[m[0]], off), n * pl->esize);
    for (int i = 1; i < pl->in->n[g]; i++)
        pl->c.ty->fold_expected(out, at(pl, pl->send_img[m[i]], off), n);
}

/* ---- the collectives: each rank's args, data and expected result ---- */

static void plan_rooted_args(plan *pl, int r, trl_coll_args *a)
{
    bool root_group = group_of(pl, r) == pl->root_group;
    a->root = root_group && r != pl->root ? -1 : pl->root;
}

static void plan_bcast(plan *pl)
{
    size_t n = pl->c.count;
    for (int r = 0; r < pl->c.p; r++) {
        plan_rooted_args(pl, r, &pl->args[r]);
        pl->args[r].count = n;
        if (r == pl->root)
            own(pl, r, n);
    }
    for (int r = 0; r < pl->c.p; r++)
        if (group_of(pl, r) != pl->root_group) {
            recv_buf(pl, r, n);
            memcpy(pl->expect[r], pl->send_img[pl->root], n * pl->esize);
        }
}

static void plan_reduce(plan *pl, bool all)
{
    size_t n = pl->c.count;
    for (int r = 0; r < pl->c.p; r++) {
        pl->args[r].count = n;
        if (all) {
            own(pl, r, n);
            continue;
        }
        plan_rooted_args(pl, r, &pl->args[r]);
        if (group_of(pl, r) != pl->root_group)
            own(pl, r, n);
    }
    for (int r = 0; r < pl->c.p; r++) {
        if (all || r == pl->root) {
            recv_buf(pl, r, n);
            if (n)
                fold_group(pl, 1 - group_of(pl, r), 0, n, pl->expect[r]);
        }
    }
}

/* Block sizes of the v-variants: irregular, zeros among them; a group's
 * uniform block otherwise (group 1's three larger, so the two differ). */
static size_t block_of(const plan *pl, bool vec, int g, int i)
{
    size_t n = pl->c.count;
    if (!vec)
        return n == 0 ? 0 : n + (size_t)(3 * g);
    return n == 0 || (i + g) % 3 == 2 ? 0 : n + (size_t)(i * 3 + g);
}

/* counts[i] = block_of(group g, i), displacements scattered (reverse
 * order, gaps) for the v-variants, i*count otherwise. Returns the buffer
 * length. */
static size_t layout(plan *pl, bool vec, int g, size_t **counts, size_t **displs)
{
    int n = pl->in->n[g];
    *counts = array(pl, (size_t)pl->c.p);
    *displs = array(pl, (size_t)pl->c.p);
    for (int i = 0; i < n; i++)
        (*counts)[i] = block_of(pl, vec, g, i);
    if (vec)
        return check_scattered_displs(n, *counts, *displs);
    for (int i = 0; i < n; i++)
        (*displs)[i] = (size_t)i * (*counts)[0];
    return (size_t)n * (*counts)[0];
}

static void plan_gather(plan *pl, bool gather, bool vec)
{
    int leaf = 1 - pl->root_group;
    size_t *counts, *displs, len = layout(pl, vec, leaf, &counts, &displs);
    bool all_counts = pl->c.algo->needs & TRL_NEEDS_ALL_COUNTS;
    for (int r = 0; r < pl->c.p; r++) {
        trl_coll_args *a = &pl->args[r];
        plan_rooted_args(pl, r, a);
        if (r == pl->root) {
            a->count = counts[0];
            if (vec) {
                a->counts = counts;
                a->displs = displs;
            }
            if (gather)
                recv_buf(pl, r, len);
            else
                own(pl, r, len);
        } else if (group_of(pl, r) == leaf) {
            size_t mine = counts[pl->in->index[r]];
            a->count = mine;
            if (vec && all_counts) { /* exchanged by the runtime */
                a->counts = counts;
                a->displs = NULL;
            }
            if (gather)
                own(pl, r, mine);
            else
                recv_buf(pl, r, mine);
        }
    }
    for (int i = 0; i < pl->in->n[leaf]; i++) {
        int r = pl->in->ranks[leaf][i];
        size_t n = counts[i] * pl->esize;
        if (gather)
            memcpy(at(pl, pl->expect[pl->root], displs[i]), pl->send_img[r], n);
        else
            memcpy(pl->expect[r], at(pl, pl->send_img[pl->root], displs[i]), n);
    }
}

static void plan_allgather(plan *pl, bool vec)
{
    size_t *counts[2], *displs[2], len[2];
    for (int g = 0; g < 2; g++)
        len[g] = layout(pl, vec, g, &counts[g], &displs[g]);
    for (int r = 0; r < pl->c.p; r++) {
        int g = group_of(pl, r), h = 1 - g;
        trl_coll_args *a = &pl->args[r];
        a->count = counts[g][pl->in->index[r]];
        a->counts = counts[h];
        a->displs = displs[h];
        own(pl, r, a->count);
        recv_buf(pl, r, len[h]);
    }
    for (int r = 0; r < pl->c.p; r++) {
        int h = 1 - group_of(pl, r);
        for (int j = 0; j < pl->in->n[h]; j++)
            memcpy(at(pl, pl->expect[r], displs[h][j]), pl->send_img[pl->in->ranks[h][j]],
                   counts[h][j] * pl->esize);
    }
}

/* alltoall: the block rank i of group g sends to rank j of the other. */
static size_t pair_block(const plan *pl, bool vec, int g, int i, int j)
{
    size_t n = pl->c.count;
    if (!vec)
        return n == 0 ? 0 : n + (size_t)(2 * g);
    return n == 0 || (i + j + g) % 3 == 2 ? 0 : n + (size_t)((i * 3 + j * 5 + g) % 7);
}

static void plan_alltoall(plan *pl, bool vec)
{
    int p = pl->c.p;
    for (int r = 0; r < p; r++) {
        int g = group_of(pl, r), h = 1 - g, i = pl->in->index[r], nr = pl->in->n[h];
        trl_coll_args *a = &pl->args[r];
        size_t *sc = array(pl, (size_t)p), *sd = array(pl, (size_t)p);
        size_t *rc = array(pl, (size_t)p), *rd = array(pl, (size_t)p), total = 0;
        for (int j = 0; j < nr; j++) {
            sc[j] = pair_block(pl, vec, g, i, j);
            sd[j] = total;
            total += sc[j];
            rc[j] = pair_block(pl, vec, h, j, i);
        }
        size_t len = vec ? check_scattered_displs(nr, rc, rd) : 0;
        for (int j = 0; !vec && j < nr; j++)
            rd[j] = len, len += rc[j];
        a->send_counts = sc;
        a->send_displs = sd;
        a->recv_counts = rc;
        a->recv_displs = rd;
        own(pl, r, total);
        recv_buf(pl, r, len);
    }
    for (int r = 0; r < p; r++) {
        int h = 1 - group_of(pl, r), i = pl->in->index[r];
        for (int j = 0; j < pl->in->n[h]; j++) {
            int from = pl->in->ranks[h][j];
            const trl_coll_args *f = &pl->args[from];
            memcpy(at(pl, pl->expect[r], pl->args[r].recv_displs[j]),
                   at(pl, pl->send_img[from], f->send_displs[i]), f->send_counts[i] * pl->esize);
        }
    }
}

static void plan_reduce_scatter(plan *pl, bool block)
{
    /* The whole vector is the same length in both groups; for the block
     * variant a multiple of both sizes: count rounded up to one. */
    int n[2] = {pl->in->n[0], pl->in->n[1]};
    size_t lcm = (size_t)n[0];
    while (lcm % (size_t)n[1])
        lcm += (size_t)n[0];
    size_t total = (pl->c.count + lcm - 1) / lcm * lcm;
    size_t *counts[2], *pre[2];
    for (int g = 0; g < 2; g++) {
        counts[g] = array(pl, (size_t)pl->c.p);
        pre[g] = array(pl, (size_t)n[g] + 1);
        size_t left = total;
        for (int i = 0; i < n[g]; i++) {
            /* Uneven and some empty, summing to total. */
            size_t even = total / (size_t)n[g];
            size_t want = block ? even : (i % 3 == 1 ? 0 : even + even / 2);
            counts[g][i] = i == n[g] - 1 ? left : (want < left ? want : left);
            left -= counts[g][i];
            pre[g][i + 1] = pre[g][i] + counts[g][i];
        }
    }
    for (int r = 0; r < pl->c.p; r++) {
        int g = group_of(pl, r), i = pl->in->index[r];
        trl_coll_args *a = &pl->args[r];
        if (block)
            a->count = total / (size_t)n[g];
        else
            a->counts = counts[g];
        own(pl, r, total);
        recv_buf(pl, r, counts[g][i]);
    }
    void *sum = elems(pl, total);
    for (int g = 0; g < 2; g++) {
        if (total)
            fold_group(pl, 1 - g, 0, total, sum);
        for (int i = 0; i < n[g]; i++)
            memcpy(pl->expect[pl->in->ranks[g][i]], at(pl, sum, pre[g][i]),
                   counts[g][i] * pl->esize);
    }
    free(sum);
}

/* ---- running one case ---- */

static bool plan_case(plan *pl)
{
    switch (pl->c.algo->coll) {
    case TRL_COLL_BCAST: plan_bcast(pl); break;
    case TRL_COLL_REDUCE: plan_reduce(pl, false); break;
    case TRL_COLL_ALLREDUCE: plan_reduce(pl, true); break;
    case TRL_COLL_BARRIER: break;
    case TRL_COLL_GATHER: plan_gather(pl, true, false); break;
    case TRL_COLL_GATHERV: plan_gather(pl, true, true); break;
    case TRL_COLL_SCATTER: plan_gather(pl, false, false); break;
    case TRL_COLL_SCATTERV: plan_gather(pl, false, true); break;
    case TRL_COLL_ALLGATHER: plan_allgather(pl, false); break;
    case TRL_COLL_ALLGATHERV: plan_allgather(pl, true); break;
    case TRL_COLL_ALLTOALL: plan_alltoall(pl, false); break;
    case TRL_COLL_ALLTOALLV:
    case TRL_COLL_ALLTOALLW: plan_alltoall(pl, true); break;
    case TRL_COLL_REDUCE_SCATTER: plan_reduce_scatter(pl, false); break;
    case TRL_COLL_REDUCE_SCATTER_BLOCK: plan_reduce_scatter(pl, true); break;
    default: return false;
    }
    return true;
}

/* A barrier: every rank hears, before it finishes, from every rank of the
 * other group. */
static void check_barrier(tally *t, const plan *pl, trl_sched *s)
{
    uint64_t want[64];
    for (int r = 0; r < pl->c.p; r++) {
        want[r] = 0;
        int h = 1 - group_of(pl, r);
        for (int j = 0; j < pl->in->n[h]; j++)
            want[r] |= 1ULL << pl->in->ranks[h][j];
    }
    char why[256];
    if (!check_barrier_informs(s, pl->c.p, want, why, sizeof why))
        check_fail(t, &pl->c, "%s", why);
}

static void run_case(tally *t, plan *pl)
{
    int p = pl->c.p;
    check_bufs b;
    check_bufs_init(&b, p);
    if (!plan_case(pl)) {
        check_fail(t, &pl->c, "no plan for this collective");
        goto out;
    }
    for (b.built = 0; b.built < p; b.built++) {
        int r = b.built, rc = trl_algo_build(pl->c.algo, &pl->args[r], &b.s[r]);
        if (rc) {
            check_fail(t, &pl->c, "builder failed on rank %d: %d", r, rc);
            goto out;
        }
        /* MPI_PROC_NULL ranks take no part. */
        if (pl->args[r].root < 0 && trl_coll_is_rooted(pl->c.algo->coll) && b.s[r].nsteps) {
            check_fail(t, &pl->c, "rank %d (MPI_PROC_NULL) has %zu steps", r, b.s[r].nsteps);
            goto out;
        }
    }
    if (pl->c.algo->coll == TRL_COLL_BARRIER)
        check_barrier(t, pl, b.s);
    for (int r = 0; r < p; r++) {
        if (pl->send_img[r]) {
            b.send[r] = elems(pl, pl->send_n[r]);
            memcpy(b.send[r], pl->send_img[r], pl->send_n[r] * pl->esize);
            b.send_n[r] = pl->send_n[r];
        }
        if (pl->expect[r]) {
            b.recv[r] = elems(pl, pl->recv_n[r]);
            pl->c.ty->fill(b.recv[r], 5000 + r, pl->recv_n[r], pl->c.seed + 3);
            b.recv_n[r] = pl->recv_n[r];
        }
    }
    if (!check_run(t, &pl->c, &b, pl->esize))
        goto out;
    for (int r = 0; r < p; r++) {
        size_t bad;
        if (pl->expect[r] && !pl->c.ty->close(b.recv[r], pl->expect[r], pl->recv_n[r], p, &bad)) {
            check_fail(t, &pl->c, "rank %d (group %d): element %zu of %zu is wrong", r,
                       group_of(pl, r), bad, pl->recv_n[r]);
            break;
        }
        if (pl->send_img[r] &&
            !check_exact(b.send[r], pl->send_img[r], pl->send_n[r], pl->esize, &bad)) {
            check_fail(t, &pl->c, "rank %d's send buffer was modified (element %zu)", r, bad);
            break;
        }
    }
out:
    check_bufs_free(&b);
}

static void one_case(tally *t, const check_case *base, const char *layout, const trl_inter *in,
                     const split *sp, int root_group, int root_index)
{
    int p = base->p;
    plan pl = {.c = *base,
               .in = in,
               .root_group = root_group,
               .root_index = root_index,
               .root = -1,
               .esize = base->ty->size};
    bool rooted = trl_coll_is_rooted(base->algo->coll);
    if (rooted)
        pl.root = in->ranks[root_group][root_index];
    char where[200];
    snprintf(where, sizeof where, "%s, groups %d+%d%s%s", layout, sp->n0, sp->n1,
             sp->interleave ? " interleaved" : "", rooted ? ", root in group " : "");
    if (rooted)
        snprintf(where + strlen(where), sizeof where - strlen(where), "%d rank %d", root_group,
                 root_index);
    pl.c.layout_text = where;
    pl.c.root = pl.root;
    pl.args = calloc((size_t)p, sizeof *pl.args);
    pl.send_img = calloc((size_t)p, sizeof *pl.send_img);
    pl.expect = calloc((size_t)p, sizeof *pl.expect);
    pl.send_n = calloc((size_t)p, sizeof *pl.send_n);
    pl.recv_n = calloc((size_t)p, sizeof *pl.recv_n);
    pl.arrays = calloc(6 * (size_t)p + 8, sizeof *pl.arrays);
    for (int r = 0; r < p; r++) {
        pl.args[r] = check_args(base);
        pl.args[r].rank = r;
        pl.args[r].inter = in;
        pl.args[r].root = -1;
        pl.args[r].count = 0;
    }
    t->cases++;
    run_case(t, &pl);
    for (int r = 0; r < p; r++) {
        free(pl.send_img[r]);
        free(pl.expect[r]);
    }
    for (int i = 0; i < pl.narrays; i++)
        free(pl.arrays[i]);
    free(pl.args);
    free(pl.send_img);
    free(pl.expect);
    free(pl.send_n);
    free(pl.recv_n);
    free(pl.arrays);
}

/* Where the merged ranks sit: the layouts each split runs on. Alternating
 * between two hosts (the groups' parts then span hosts, so a hier part has
 * levels to work with) with every count; then, small counts only, hosts of
 * three consecutive ranks (the last one smaller where p is not a multiple:
 * irregular), the same numbered from the last, one rank per host, and all
 * on one host. */
typedef enum { ALTERNATE, THREES, THREES_BACKWARDS, EACH_ALONE, ONE_HOST, NLAYOUTS } layout_kind;
static const char *const layout_names[NLAYOUTS] = {
    "two hosts alternating", "hosts of 3 consecutive ranks",
    "hosts of 3 consecutive ranks numbered from the last", "a host per rank", "one host"};

static void make_layout(layout_kind k, int p, trl_topo *t)
{
    trl_topo_single_host(p, t);
    if (k == ONE_HOST)
        return;
    bool threes = k == THREES || k == THREES_BACKWARDS;
    int hosts = k == ALTERNATE ? (p > 1 ? 2 : 1) : threes ? (p + 2) / 3 : p;
    t->nhosts = hosts;
    /* Backwards: host ids run against rank order, so a group's hosts are
     * not numbered as they first appear in it. */
    for (int r = 0; r < p; r++)
        t->host[r] = k == ALTERNATE ? r % hosts
                     : threes       ? (k == THREES ? r / 3 : hosts - 1 - r / 3)
                                    : r;
    trl_topo_summarize(t);
}

/* Cases run per element type in the sweep of the default parameters: a hook
 * that refused every case of a type would otherwise pass unseen. */
static int type_cases[16];

static void sweep_layout(tally *t, const trl_algo *algo, const char *text, const trl_params *params,
                         unsigned *seed, const split *sp, const trl_inter *in, const trl_topo *topo,
                         layout_kind lk)
{
    trl_coll coll = algo->coll;
    bool rooted = trl_coll_is_rooted(coll), reduction = trl_coll_is_reduction(coll);
    int p = sp->n0 + sp->n1;
    for (size_t ci = 0; ci < sizeof counts_swept / sizeof *counts_swept; ci++) {
        size_t count = counts_swept[ci];
        bool big = count > 1000;
        if ((coll == TRL_COLL_BARRIER && count > 0) || (t->quick && big) ||
            (lk != ALTERNATE && count > 7) || (big && p > 9))
            continue;
        size_t ntypes = reduction ? check_ntypes : 1;
        for (size_t ti = 0; ti < ntypes; ti++) {
            const elem_type *ty = &check_types[ti];
            check_case c = {algo,      text, params,          ty, p, count, 0, false,
                            (*seed)++, NULL, (trl_topo *)topo};
            trl_coll_args probe = check_args(&c);
            probe.inter = in;
            probe.algo = algo;
            if (trl_algo_unusable(algo, &probe) || (big && ti == 1))
                continue;
            type_cases[ti]++;
            /* The core (check_picked): the layout with every count, the first
             * root, the int64 sum and (not the big count) the non-commutative
             * product. */
            bool core = lk == ALTERNATE && (ti == 0 || (ti + 1 == ntypes && !big));
            unsigned key = c.seed * 4u;
            if (!rooted) {
                if (check_picked(t, core, key))
                    one_case(t, &c, layout_names[lk], in, sp, 0, 0);
                continue;
            }
            for (int g = 0; g < 2; g++) {
                int n = g ? sp->n1 : sp->n0;
                if (check_picked(t, core && g == 0, key + 2u * (unsigned)g))
                    one_case(t, &c, layout_names[lk], in, sp, g, 0);
                if (n > 1 && !big && check_picked(t, false, key + 2u * (unsigned)g + 1u))
                    one_case(t, &c, layout_names[lk], in, sp, g, n - 1);
            }
        }
    }
}

static void sweep_variant(tally *t, const trl_algo *algo, const char *text,
                          const trl_params *params, unsigned *seed)
{
    for (size_t si = 0; si < sizeof splits / sizeof *splits; si++) {
        const split *sp = &splits[si];
        trl_inter in;
        if (make_groups(sp, &in)) {
            printf("FATAL: groups %d+%d\n", sp->n0, sp->n1);
            exit(2);
        }
        int p = sp->n0 + sp->n1;
        for (layout_kind lk = ALTERNATE; lk < NLAYOUTS; lk++) {
            trl_topo topo;
            make_layout(lk, p, &topo);
            sweep_layout(t, algo, text, params, seed, sp, &in, &topo, lk);
            trl_topo_free(&topo);
        }
        trl_inter_free(&in);
    }
}

/* The default parameters, then each part's parameter naming every
 * intracommunicator algorithm that can run there, one at a time. */
int check_inter_sweep(tally *t, const trl_algo *algo)
{
    unsigned seed = 1;
    trl_params none = {NULL, 0};
    memset(type_cases, 0, sizeof type_cases);
    sweep_variant(t, algo, "", &none, &seed);
    size_t ntypes = trl_coll_is_reduction(algo->coll) ? check_ntypes : 1;
    for (size_t ti = 0; ti < ntypes; ti++) {
        if (type_cases[ti] > 0)
            continue;
        t->failures++;
        fprintf(stderr, "FAIL %s %s: no case ran with type %s (its unusable hook refused all)\n",
                trl_coll_name(algo->coll), algo->name, check_types[ti].name);
    }
    for (const trl_param_spec *p = algo->params; p && p->name; p++) {
        if (p->kind != TRL_PARAM_LEVEL)
            continue;
        for (const trl_algo *part = trl_algorithms; part->name; part++) {
            if (part->coll != p->of || !trl_algo_nestable(part))
                continue;
            char text[96];
            snprintf(text, sizeof text, "%s=%s", p->name, part->name);
            trl_params params;
            const char *why;
            if (trl_params_from_string(algo, text, &params, &why)) {
                printf("bad test parameters '%s': %s\n", text, why);
                return 2;
            }
            sweep_variant(t, algo, text, &params, &seed);
            trl_params_free(&params);
        }
    }
    return 0;
}
