/* Pure pattern math of src/pattern/rdouble.h, checked exhaustively for
 * every number of ranks up to a bound by simulating the exchanges:
 *
 *  - the fold maps the ranks that take part onto 0..pof2-1 in order, and
 *    every new rank stands for a contiguous range of old ranks;
 *  - recursive doubling over the folded ranks, combining the lower group on
 *    the left, yields the product of all ranks in rank order everywhere;
 *  - recursive halving then doubling over windows leaves new rank i with
 *    block i reduced over every rank, then every block everywhere;
 *  - dissemination lets every rank hear from every rank;
 *  - blocks split a count exactly, evenly, remainder first.
 *
 *   test_patterns_rd [max_ranks]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pattern/rdouble.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond) && failures++ < 20) {                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

static void check_pof2(int p)
{
    int pof2 = trl_rd_pof2(p), k = trl_rd_ceil_log2(p);
    CHECK((pof2 & (pof2 - 1)) == 0 && pof2 <= p && p < 2 * pof2, "pof2(%d) = %d", p, pof2);
    CHECK((1LL << k) >= p && (k == 0 || (1LL << (k - 1)) < p), "ceil_log2(%d) = %d", p, k);
}

/* Which old ranks each new rank stands for, as a range [lo, hi]. */
typedef struct {
    int lo, hi;
} range;

static void check_fold(int p)
{
    int pof2 = trl_rd_pof2(p), next = 0;
    for (int r = 0; r < p; r++) {
        int nr = trl_rd_fold_newrank(r, p), partner = trl_rd_fold_partner(r, p);
        bool out = trl_rd_fold_sits_out(r, p);
        CHECK(out == (nr < 0), "p=%d rank %d: sits out %d but new rank %d", p, r, out, nr);
        if (partner >= 0) {
            CHECK(trl_rd_fold_partner(partner, p) == r, "p=%d: fold partners of %d disagree", p, r);
            CHECK(trl_rd_fold_sits_out(partner, p) != out, "p=%d: both %d and %d sit out or stay",
                  p, r, partner);
        }
        if (out) {
            /* The partner stands for this rank too, so it must be next. */
            CHECK(partner == r + 1, "p=%d: rank %d hands over to %d, not the next rank", p, r,
                  partner);
            continue;
        }
        CHECK(nr == next, "p=%d rank %d: new rank %d, expected %d (in order)", p, r, nr, next);
        CHECK(trl_rd_fold_rank(nr, p) == r, "p=%d: fold_rank(%d) = %d, expected %d", p, nr,
              trl_rd_fold_rank(nr, p), r);
        next++;
    }
    CHECK(next == pof2, "p=%d: %d ranks take part, expected %d", p, next, pof2);
}

/* The range of old ranks that new rank nr stands for after the fold. */
static range folded_range(int nr, int p)
{
    int r = trl_rd_fold_rank(nr, p), partner = trl_rd_fold_partner(r, p);
    range g = {r, r};
    if (partner >= 0 && partner < r)
        g.lo = partner;
    return g;
}

/* Recursive doubling with the lower group on the left: every new rank must
 * end with [0, p-1], and every combine must join adjacent ranges. */
static void check_doubling(int p)
{
    int pof2 = trl_rd_pof2(p);
    range *have = malloc((size_t)pof2 * sizeof *have), *next = malloc((size_t)pof2 * sizeof *next);
    for (int nr = 0; nr < pof2; nr++)
        have[nr] = folded_range(nr, p);
    for (int m = 1; m < pof2; m <<= 1) {
        for (int nr = 0; nr < pof2; nr++) {
            int peer = nr ^ m;
            range lo = peer < nr ? have[peer] : have[nr], hi = peer < nr ? have[nr] : have[peer];
            CHECK(lo.hi + 1 == hi.lo, "p=%d m=%d new rank %d: combines [%d,%d] with [%d,%d]", p, m,
                  nr, lo.lo, lo.hi, hi.lo, hi.hi);
            next[nr] = (range){lo.lo, hi.hi};
        }
        range *t = have;
        have = next;
        next = t;
    }
    for (int nr = 0; nr < pof2; nr++)
        CHECK(have[nr].lo == 0 && have[nr].hi == p - 1, "p=%d new rank %d ends with [%d,%d]", p, nr,
              have[nr].lo, have[nr].hi);
    free(have);
    free(next);
}

/* Recursive halving then doubling over windows of blocks, tracking for
 * every (new rank, block) the set of new ranks whose contribution it holds
 * (a bitset: pof2 <= 64). */
static void check_halving(int p)
{
    int pof2 = trl_rd_pof2(p);
    if (pof2 > 64)
        return;
    uint64_t *hold = calloc((size_t)pof2 * (size_t)pof2, sizeof *hold);
    uint64_t *next = calloc((size_t)pof2 * (size_t)pof2, sizeof *next);
    uint64_t all = pof2 == 64 ? ~0ULL : (1ULL << pof2) - 1;
#define H(arr, nr, b) (arr)[(size_t)(nr) * (size_t)pof2 + (size_t)(b)]
    for (int nr = 0; nr < pof2; nr++)
        for (int b = 0; b < pof2; b++)
            H(hold, nr, b) = 1ULL << nr;

    /* Halving: keep window(nr, d), receive the partner's copy of it. */
    for (int d = pof2 / 2; d >= 1; d /= 2) {
        for (int i = 0; i < pof2 * pof2; i++)
            next[i] = hold[i];
        for (int nr = 0; nr < pof2; nr++) {
            int peer = nr ^ d, keep = trl_rd_window(nr, d), give = trl_rd_window(peer, d);
            CHECK(keep != give && (keep ^ give) == d, "p=%d d=%d: windows %d and %d", p, d, keep,
                  give);
            CHECK(keep <= nr && nr < keep + d, "p=%d d=%d: window %d misses new rank %d", p, d,
                  keep, nr);
            int whole = trl_rd_window(nr, 2 * d);
            bool halves = (keep == whole && give == whole + d) ||
                          (give == whole && keep == whole + d);
            CHECK(halves, "p=%d d=%d: %d and %d are not the halves of window %d", p, d, keep, give,
                  whole);
            for (int b = keep; b < keep + d; b++)
                H(next, nr, b) |= H(hold, peer, b);
        }
        uint64_t *t = hold;
        hold = next;
        next = t;
    }
    for (int nr = 0; nr < pof2; nr++)
        CHECK(H(hold, nr, nr) == all, "p=%d: new rank %d's block is not fully reduced", p, nr);

    /* Doubling: send window(nr, d), receive window(peer, d). Only fully
     * reduced blocks may travel. */
    for (int d = 1; d < pof2; d *= 2) {
        for (int i = 0; i < pof2 * pof2; i++)
            next[i] = hold[i];
        for (int nr = 0; nr < pof2; nr++) {
            int peer = nr ^ d, theirs = trl_rd_window(peer, d);
            for (int b = theirs; b < theirs + d; b++) {
                CHECK(H(hold, peer, b) == all, "p=%d d=%d: new rank %d sends unreduced block %d", p,
                      d, peer, b);
                H(next, nr, b) = H(hold, peer, b);
            }
        }
        uint64_t *t = hold;
        hold = next;
        next = t;
    }
    for (int nr = 0; nr < pof2; nr++)
        for (int b = 0; b < pof2; b++)
            CHECK(H(hold, nr, b) == all, "p=%d: new rank %d ends without block %d", p, nr, b);
#undef H
    free(hold);
    free(next);
}

static void check_dissemination(int p)
{
    if (p > 64)
        return;
    int rounds = trl_rd_ceil_log2(p);
    uint64_t *know = malloc((size_t)p * sizeof *know), *next = malloc((size_t)p * sizeof *next);
    uint64_t all = p == 64 ? ~0ULL : (1ULL << p) - 1;
    for (int r = 0; r < p; r++)
        know[r] = 1ULL << r;
    for (int k = 0; k < rounds; k++) {
        for (int r = 0; r < p; r++) {
            int to = trl_rd_dissem_to(r, p, k), from = trl_rd_dissem_from(r, p, k);
            CHECK(to >= 0 && to < p && to != r, "p=%d k=%d: rank %d signals %d", p, k, r, to);
            CHECK(trl_rd_dissem_from(to, p, k) == r, "p=%d k=%d: to and from disagree at %d", p, k,
                  r);
            next[r] = know[r] | know[from];
        }
        uint64_t *t = know;
        know = next;
        next = t;
    }
    for (int r = 0; r < p; r++)
        CHECK(know[r] == all, "p=%d: rank %d has not heard from everyone", p, r);
    free(know);
    free(next);
}

static void check_blocks(int nblocks)
{
    for (size_t count = 0; count <= 300; count++) {
        size_t sum = 0, first = trl_block_len(count, nblocks, 0);
        CHECK(trl_block_off(count, nblocks, 0) == 0, "blocks: first offset");
        for (int b = 0; b < nblocks; b++) {
            size_t off = trl_block_off(count, nblocks, b);
            size_t len = trl_block_len(count, nblocks, b);
            CHECK(off == sum, "count=%zu nblocks=%d block %d: offset %zu, expected %zu", count,
                  nblocks, b, off, sum);
            CHECK(len == first || len + 1 == first,
                  "count=%zu nblocks=%d: block %d has %zu, first %zu", count, nblocks, b, len,
                  first);
            if (b > 0)
                CHECK(len <= trl_block_len(count, nblocks, b - 1), "blocks not non-increasing");
            sum += len;
        }
        CHECK(sum == count && trl_block_off(count, nblocks, nblocks) == count,
              "count=%zu nblocks=%d: blocks add up to %zu", count, nblocks, sum);
    }
}

int main(int argc, char **argv)
{
    int max = argc > 1 ? atoi(argv[1]) : 130;
    for (int p = 1; p <= max; p++) {
        check_pof2(p);
        check_fold(p);
        check_doubling(p);
        check_halving(p);
        check_dissemination(p);
        check_blocks(p);
    }
    printf("patterns rdouble: ranks 1..%d, %d failed\n", max, failures);
    return failures ? 1 : 0;
}
