/* What the intercommunicator builders share (inter.h): the groups, one
 * rank's view of them, what the rules see, and running a table algorithm
 * over one group. */
#include "algo/inter/inter.h"
#include "algo/blocks.h"
#include "algo/params.h"
#include "algo/usable.h"

#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "topo/topo.h"

int trl_inter_init(trl_inter *in, const int *ranks0, int n0, const int *ranks1, int n1)
{
    memset(in, 0, sizeof *in);
    int size = n0 + n1;
    if (n0 < 1 || n1 < 1)
        return TRL_ERR_INVALID;
    /* members of both groups, then group and index per merged rank */
    int *st = malloc(3 * (size_t)size * sizeof *st);
    if (!st)
        return TRL_ERR_NOMEM;
    int *group = st + size, *index = st + 2 * size;
    for (int r = 0; r < size; r++)
        group[r] = -1;
    const int *src[2] = {ranks0, ranks1};
    int n[2] = {n0, n1}, rc = TRL_OK;
    for (int g = 0, at = 0; g < 2; g++) {
        for (int i = 0; i < n[g]; i++, at++) {
            int r = src[g][i];
            if (r < 0 || r >= size || group[r] >= 0) {
                rc = TRL_ERR_INVALID;
                break;
            }
            st[at] = r;
            group[r] = g;
            index[r] = i;
        }
    }
    if (rc == TRL_OK && group[0] != 0)
        rc = TRL_ERR_INVALID;
    if (rc) {
        free(st);
        return rc;
    }
    *in = (trl_inter){size, {n0, n1}, {st, st + n0}, group, index, st};
    return TRL_OK;
}

void trl_inter_free(trl_inter *in)
{
    free(in->storage);
    memset(in, 0, sizeof *in);
}

trl_inter_view trl_inter_view_of(const trl_coll_args *a)
{
    const trl_inter *in = a->inter;
    int g = in->group[a->rank];
    trl_inter_view v = {in->index[a->rank], in->n[g], in->n[1 - g], in->ranks[g], in->ranks[1 - g]};
    return v;
}

trl_inter_role trl_inter_role_of(const trl_coll_args *a)
{
    if (a->root < 0)
        return TRL_INTER_NONE;
    if (a->root == a->rank)
        return TRL_INTER_ROOT;
    return a->inter->group[a->root] != a->inter->group[a->rank] ? TRL_INTER_REMOTE : TRL_INTER_NONE;
}

void trl_inter_rule_sizes(const trl_coll_args *a, unsigned long long *ranks,
                          unsigned long long *remote)
{
    int n0 = a->inter->n[0], n1 = a->inter->n[1];
    *ranks = (unsigned long long)(n0 > n1 ? n0 : n1);
    *remote = (unsigned long long)(n0 > n1 ? n1 : n0);
}

static size_t larger(size_t x, size_t y)
{
    return x > y ? x : y;
}

size_t trl_inter_rule_bytes(const trl_coll_args *a)
{
    trl_inter_view v = trl_inter_view_of(a);
    size_t total = 0;
    switch (a->coll) {
    case TRL_COLL_BARRIER:
    case TRL_COLL_GATHERV:
    case TRL_COLL_SCATTERV:
    case TRL_COLL_ALLTOALLV:
    case TRL_COLL_ALLTOALLW:
    /* Each group knows only the other's blocks: nothing both share. */
    case TRL_COLL_ALLGATHERV: return 0;
    case TRL_COLL_ALLGATHER: /* the larger of the two groups' blocks */
        return larger(a->count, a->counts[0]);
    case TRL_COLL_ALLTOALL: return larger(a->send_counts[0], a->recv_counts[0]);
    case TRL_COLL_REDUCE_SCATTER: /* the whole vector, the same in both groups */
        for (int i = 0; i < v.nl; i++)
            total += a->counts[i];
        return total * a->elem_size;
    case TRL_COLL_REDUCE_SCATTER_BLOCK: return a->count * (size_t)v.nl * a->elem_size;
    default: /* the message, or one block */ return a->count * a->elem_size;
    }
}

/* The layout of the ranks `over` (merged ranks): a->topo's entries. */
static int part_topo(const trl_coll_args *a, const int *over, int n, trl_topo *out)
{
    if (!a->topo) {
        memset(out, 0, sizeof *out);
        return TRL_OK;
    }
    return trl_topo_subset(a->topo, over, n, out);
}

int trl_inter_run_part(const trl_coll_args *a, trl_sched *s, const trl_inter_part *part)
{
    trl_inter_view v = trl_inter_view_of(a);
    const int *over = part->over ? part->over : v.local;
    int n = part->over ? part->n_over : v.nl, me = -1;
    for (int i = 0; i < n && me < 0; i++)
        me = over[i] == a->rank ? i : -1;
    if (me < 0)
        return TRL_ERR_INVALID;
    const trl_params *given;
    const trl_algo *algo = trl_param_level(a, part->param, &given);
    if (!algo || !algo->build || algo->coll != part->coll)
        return TRL_ERR_UNSUPPORTED;
    trl_params view;
    int rc = trl_params_view(given, algo, &view);
    if (rc)
        return rc;
    trl_topo topo;
    rc = part_topo(a, over, n, &topo);
    if (rc) {
        trl_params_release(&view);
        return rc;
    }
    trl_coll_args args = {.coll = part->coll,
                          .rank = me,
                          .size = n,
                          .root = part->root,
                          .count = part->count,
                          .elem_size = a->elem_size,
                          .counts = part->counts,
                          .displs = part->displs,
                          .commutative = a->commutative,
                          .call = a->call,
                          .params = &view,
                          .algo = algo,
                          .topo = topo.host ? &topo : NULL};
    trl_sched sub;
    rc = trl_algo_unusable(algo, &args) ? TRL_ERR_UNSUPPORTED : trl_sched_init(&sub, me, n);
    if (rc == TRL_OK) {
        rc = algo->build(&args, &sub);
        trl_sched_fence(s);
        if (rc == TRL_OK) {
            trl_sched_map map = {over, part->send, part->recv};
            rc = trl_sched_append(s, &sub, &map);
        }
        trl_sched_free(&sub);
    }
    trl_topo_free(&topo);
    trl_params_release(&view);
    if (rc == TRL_OK)
        trl_sched_fence(s);
    return rc ? rc : s->status;
}

/* Whether `part` can serve the part of the call over the merged ranks
 * ranks[0..n-1] (a group, or a host's members in it), on their own layout
 * (the hierarchical forms of a non-commutative reduction need
 * placement=block there). */
static const char *part_unusable_on(const trl_coll_args *a, const trl_algo *part,
                                    const trl_params *given, trl_coll coll, const int *ranks, int n)
{
    trl_topo topo = {0};
    if (a->topo && trl_topo_subset(a->topo, ranks, n, &topo) != TRL_OK)
        return "the group's layout could not be made";
    trl_coll_args sub = {.coll = coll,
                         .size = n,
                         .commutative = a->commutative,
                         .call = a->call,
                         .params = given,
                         .algo = part,
                         .topo = topo.host ? &topo : NULL};
    const char *why = trl_algo_unusable(part, &sub);
    trl_topo_free(&topo);
    return why;
}

const char *trl__inter_parts_unusable_over(const trl_coll_args *a, const int *ranks, int n)
{
    for (const trl_param_spec *p = a->algo->params; p && p->name; p++) {
        if (p->kind != TRL_PARAM_LEVEL)
            continue;
        const trl_params *given;
        const trl_algo *part = trl_param_level(a, p->name, &given);
        if (!part)
            return "a part's algorithm is missing";
        /* The same operation and form of call, no intercommunicator. */
        const char *why = part_unusable_on(a, part, given, p->of, ranks, n);
        if (why)
            return why;
    }
    return NULL;
}

const char *trl_inter_parts_unusable(const trl_coll_args *a)
{
    /* A part runs on each group: both groups judge both, so every rank of
     * the call chooses alike. */
    const trl_inter *in = a->inter;
    for (int g = 0; g < 2; g++) {
        const char *why = trl__inter_parts_unusable_over(a, in->ranks[g], in->n[g]);
        if (why)
            return why;
    }
    return NULL;
}

int trl__inter_fold_remote(const trl_coll_args *a, trl_sched *s, trl_ref dst, size_t n)
{
    trl_inter_view v = trl_inter_view_of(a);
    return trl__inter_fold_from(a, s, dst, n, v.remote, v.nr);
}

int trl__inter_fold_from(const trl_coll_args *a, trl_sched *s, trl_ref dst, size_t n,
                         const int *from, int n_from)
{
    size_t slots = trl_sched_scratch(s, (size_t)n_from * n);
#define SLOT(i) trl_ref_at(TRL_BUF_SCRATCH, slots + (size_t)(i)*n)
    if (a->commutative) {
        int first = trl_sched_recv(s, from[0], dst, n, TRL_NODEPS);
        for (int i = 1; i < n_from; i++) {
            int got = trl_sched_recv(s, from[i], SLOT(i), n, TRL_NODEPS);
            trl_sched_reduce(s, SLOT(i), dst, n, TRL_DEPS(first, got));
        }
    } else {
        /* Right to left: dst takes x_{k-1}, then x_i op dst for each
         * lower i (b = a op b), ending as x_0 op x_1 op ... op x_{k-1}. */
        int last = trl_sched_recv(s, from[n_from - 1], dst, n, TRL_NODEPS);
        for (int i = n_from - 2; i >= 0; i--) {
            int got = trl_sched_recv(s, from[i], SLOT(i), n, TRL_NODEPS);
            last = trl_sched_reduce(s, SLOT(i), dst, n, TRL_DEPS(last, got));
        }
    }
#undef SLOT
    trl_sched_fence(s);
    return s->status;
}

int trl__inter_pairs(const trl_coll_args *a, trl_sched *s, trl_ref out, trl_ref in, size_t n)
{
    trl_inter_view v = trl_inter_view_of(a);
    for (int j = v.me; j < v.nr; j += v.nl)
        trl_sched_send(s, v.remote[j], out, n, TRL_NODEPS);
    trl_sched_recv(s, v.remote[v.me % v.nr], in, n, TRL_NODEPS);
    return s->status;
}

trl_coll_args trl__inter_blocks(const trl_coll_args *a, int n)
{
    trl_coll_args b = *a;
    b.size = n;
    return b;
}

int trl__inter_local_blocks(const trl_coll_args *a, size_t *total, size_t **packed)
{
    trl_inter_view v = trl_inter_view_of(a);
    *packed = NULL;
    if (!a->counts) {
        *total = a->count * (size_t)v.nl;
        return TRL_OK;
    }
    *packed = malloc((size_t)v.nl * sizeof **packed);
    if (!*packed)
        return TRL_ERR_NOMEM;
    *total = 0;
    for (int i = 0; i < v.nl; i++) {
        (*packed)[i] = *total;
        *total += a->counts[i];
    }
    return TRL_OK;
}

int trl__inter_linear_blocks(const trl_coll_args *a, trl_sched *s, bool to_root)
{
    trl_inter_view v = trl_inter_view_of(a);
    trl_inter_role role = trl_inter_role_of(a);
    trl_buf root_buf = to_root ? TRL_BUF_RECV : TRL_BUF_SEND;
    if (role == TRL_INTER_ROOT) {
        for (int i = 0; i < v.nr; i++) {
            size_t n = trl__blk_count(a, i);
            trl_ref block = trl_ref_at(root_buf, trl__blk_displ(a, i));
            if (n > 0 && to_root)
                trl_sched_recv(s, v.remote[i], block, n, TRL_NODEPS);
            else if (n > 0)
                trl_sched_send(s, v.remote[i], block, n, TRL_NODEPS);
        }
    } else if (role == TRL_INTER_REMOTE && a->count > 0) {
        if (to_root)
            trl_sched_send(s, a->root, trl_ref_at(TRL_BUF_SEND, 0), a->count, TRL_NODEPS);
        else
            trl_sched_recv(s, a->root, trl_ref_at(TRL_BUF_RECV, 0), a->count, TRL_NODEPS);
    }
    return s->status;
}
