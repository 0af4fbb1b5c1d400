/* Rank blocks of the block collectives (gather, scatter, allgather and
 * their v-variants, reduce_scatter): block i has counts[i] elements at
 * displs[i], or count elements at i*count when counts is NULL. Shared so
 * that every builder reads counts and displacements the same way. */
#ifndef TRL_ALGO_BLOCKS_H
#define TRL_ALGO_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

#include "algo/algo.h"
#include "pattern/rdouble.h"

static inline size_t trl__blk_count(const trl_coll_args *a, int i)
{
    return a->counts ? a->counts[i] : a->count;
}

static inline size_t trl__blk_displ(const trl_coll_args *a, int i)
{
    return a->counts ? a->displs[i] : (size_t)i * a->count;
}

/* pre[j] for j = 0..n: the elements of blocks first, first+1, ... (j of
 * them, modulo p), i.e. where block first+j starts when the n blocks lie
 * back to back. Returns a malloc'ed array, or NULL when out of memory. */
size_t *trl__blk_prefix(const trl_coll_args *a, int first, int n);

/* Walks blocks first, first+1, ... (n of them, modulo p) in runs: the
 * maximal stretches of non-empty blocks that also lie end to end at their
 * displacements (empty blocks never break a run). */
typedef struct {
    int first, n, next; /* next: the index (0..n) the walk is at */
    size_t at;          /* elements of the blocks walked so far */
    /* The run trl__next_run found: indices [lo, hi) (hi is where the next
     * run starts looking), `len` elements at offset run_at of the blocks
     * back to back and at displacement pos. */
    int lo, hi;
    size_t run_at, pos, len;
} trl__runs;

static inline trl__runs trl__runs_of(int first, int n)
{
    trl__runs it = {.first = first, .n = n};
    return it;
}

/* Advance to the next run; false when none is left. */
bool trl__next_run(const trl_coll_args *a, trl__runs *it);

/* Whether the non-empty blocks first, first+1, ... (n of them, modulo p)
 * form at most one run; *start gets where the first non-empty one is (0 if
 * none is). */
bool trl__back_to_back(const trl_coll_args *a, int first, int n, size_t *start);

/* An image of all p blocks back to back in rank order (block i at
 * trl__blk_prefix(a, 0, p)[i], total elements in all): RECV itself when it
 * holds them that way (*direct), else scratch. The messages of a builder
 * that sends ranges of it never depend on which. */
trl_ref trl__blk_image(const trl_coll_args *a, trl_sched *s, size_t total, bool *direct);

/* Copy blocks lo..hi-1 but `skip` (-1: none) from an image that holds
 * them back to back (block i at img + pre[i]) to their places in RECV,
 * each after deps. */
void trl__blk_unpack(const trl_coll_args *a, trl_sched *s, trl_ref img, const size_t *pre, int lo,
                     int hi, int skip, const int *deps, int ndeps);

/* The first block (old rank) that new rank j stands for in the fold of
 * pattern/rdouble.h; j == pof2 gives p. So new ranks [j, k) stand for
 * blocks [trl__fold_first_old(j, p), trl__fold_first_old(k, p)). */
static inline int trl__fold_first_old(int j, int p)
{
    int rem = p - trl_rd_pof2(p);
    return j < rem ? 2 * j : j + rem;
}

#endif
