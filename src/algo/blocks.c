/* Rank blocks of the block collectives (see blocks.h). */
#include "algo/blocks.h"

#include <stdlib.h>

size_t *trl__blk_prefix(const trl_coll_args *a, int first, int n)
{
    size_t *pre = malloc(((size_t)n + 1) * sizeof *pre);
    if (!pre)
        return NULL;
    pre[0] = 0;
    for (int j = 0; j < n; j++)
        pre[j + 1] = pre[j] + trl__blk_count(a, (first + j) % a->size);
    return pre;
}

bool trl__next_run(const trl_coll_args *a, trl__runs *it)
{
    int p = a->size;
    while (it->next < it->n && trl__blk_count(a, (it->first + it->next) % p) == 0)
        it->next++;
    if (it->next == it->n)
        return false;
    it->lo = it->next;
    it->run_at = it->at;
    it->pos = trl__blk_displ(a, (it->first + it->next) % p);
    it->len = 0;
    for (; it->next < it->n; it->next++) {
        int b = (it->first + it->next) % p;
        size_t c = trl__blk_count(a, b);
        if (c == 0)
            continue;
        if (trl__blk_displ(a, b) != it->pos + it->len)
            break;
        it->len += c;
    }
    it->hi = it->next;
    it->at += it->len;
    return true;
}

bool trl__back_to_back(const trl_coll_args *a, int first, int n, size_t *start)
{
    trl__runs it = trl__runs_of(first, n);
    if (!trl__next_run(a, &it)) {
        *start = 0;
        return true;
    }
    *start = it.pos;
    return !trl__next_run(a, &it);
}

trl_ref trl__blk_image(const trl_coll_args *a, trl_sched *s, size_t total, bool *direct)
{
    size_t base;
    *direct = trl__back_to_back(a, 0, a->size, &base);
    if (*direct)
        return trl_ref_at(TRL_BUF_RECV, base);
    return trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(s, total));
}

void trl__blk_unpack(const trl_coll_args *a, trl_sched *s, trl_ref img, const size_t *pre, int lo,
                     int hi, int skip, const int *deps, int ndeps)
{
    for (int i = lo; i < hi; i++)
        if (i != skip && trl__blk_count(a, i) > 0)
            trl_sched_copy(s, trl_ref_at(img.buf, img.off + pre[i]),
                           trl_ref_at(TRL_BUF_RECV, trl__blk_displ(a, i)), trl__blk_count(a, i),
                           deps, ndeps);
}
