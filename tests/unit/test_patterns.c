/* Pure pattern math, checked exhaustively: every tree kind and radix, every
 * size 1..64, every root, rotated and ordered labellings.
 *
 * For each tree: the root has no parent; every other rank is reached
 * exactly once going down from the root, and going up from it reaches the
 * root (so there is no cycle); parents and children agree; subtree sizes
 * match what the walk counts; the height is what the shape promises
 * (exactly, and within ceil(log_radix p) for k-nomial trees), and a
 * binomial broadcast that serves the last child first takes exactly
 * ceil(log2 p) rounds; the children arrays agree with the one-at-a-time
 * accessor and never write past the capacity given. For ordered trees,
 * every subtree is a contiguous run of ranks starting at its top, with the
 * children's runs following one another in child order. Plus the shapes
 * themselves (binomial and k-ary children formulas) and LAM-MPI's example
 * from seed 000.
 *
 * Prints "pattern: N passed, M failed" and exits non-zero on a failure.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "pattern/tree.h"

enum { MAX_SIZE = 64 };

static int passed, failed;

static void check(bool ok, const trl_tree *t, const char *fmt, int a, int b)
{
    if (ok) {
        passed++;
        return;
    }
    failed++;
    if (failed <= 20) {
        static const char *kinds[] = {"binomial", "knomial", "kary", "chain"};
        fprintf(stderr, "FAIL %s radix=%d size=%d root=%d%s: ", kinds[t->kind], t->radix, t->size,
                t->root, t->ordered ? " ordered" : "");
        fprintf(stderr, fmt, a, b);
        fputc('\n', stderr);
    }
}

/* Smallest d with radix^d >= p (for radix 2 this is ceil(log2 p)). */
static int ceil_log(int radix, int p)
{
    int d = 0;
    for (long long m = 1; m < p; m *= radix)
        d++;
    return d;
}

/* Height of a k-nomial tree: a vrank sits as deep as it has non-zero
 * digits in base radix, so the deepest holds the most (floor(log2 p) for
 * a binomial tree). */
static int knomial_height(int radix, int p)
{
    int best = 0;
    for (int v = 0; v < p; v++) {
        int digits = 0;
        for (int x = v; x > 0; x /= radix)
            digits += x % radix != 0;
        best = digits > best ? digits : best;
    }
    return best;
}

/* Height of a k-ary tree of p nodes: the smallest d with
 * 1 + k + ... + k^d >= p. */
static int kary_height(int radix, int p)
{
    if (radix == 1)
        return p - 1;
    int d = 0;
    for (long long level = 1, total = 1; total < p; d++) {
        level *= radix;
        total += level;
    }
    return d;
}

static int expected_height(const trl_tree *t)
{
    switch (t->kind) {
    case TRL_TREE_BINOMIAL:
    case TRL_TREE_KNOMIAL: return knomial_height(t->radix, t->size);
    case TRL_TREE_KARY: return kary_height(t->radix, t->size);
    case TRL_TREE_CHAIN: return t->size - 1;
    case TRL_TREE_EXPLICIT: /* no formula: tested with its files */ break;
    }
    return -1;
}

/* Rounds a broadcast over the tree takes when a node sends one message a
 * round, to its last child first (the largest subtree of a binomial
 * tree): rank r is served at rounds[r]. */
static int bcast_rounds(const trl_tree *t, int r, int at)
{
    int last = at, n = trl_tree_nchildren(t, r);
    for (int j = 0; j < n; j++) {
        int done = bcast_rounds(t, trl_tree_child(t, r, n - 1 - j), at + j + 1);
        last = done > last ? done : last;
    }
    return last;
}

/* Depth-first from rank r: marks what it reaches, returns how many nodes
 * its subtree holds, and records each rank's depth. Stops at a rank seen
 * twice (a cycle or a shared child), which the caller reports. */
static int walk(const trl_tree *t, int r, int depth, int *seen, int *depth_of, bool *twice)
{
    if (r < 0 || r >= t->size || seen[r]) {
        *twice = true;
        return 0;
    }
    seen[r] = 1;
    depth_of[r] = depth;
    int n = 1;
    for (int i = 0, c; (c = trl_tree_child(t, r, i)) >= 0; i++)
        n += walk(t, c, depth + 1, seen, depth_of, twice);
    return n;
}

static void check_tree(const trl_tree *t)
{
    int p = t->size, root = t->ordered ? 0 : t->root;
    int seen[MAX_SIZE] = {0}, depth_of[MAX_SIZE] = {0};
    bool twice = false;

    check(trl_tree_parent(t, root) == -1, t, "the root %d has parent %d", root,
          trl_tree_parent(t, root));
    int reached = walk(t, root, 0, seen, depth_of, &twice);
    check(reached == p && !twice, t, "the walk from the root reaches %d of %d ranks once", reached,
          p);

    int depth = 0;
    for (int r = 0; r < p; r++) {
        depth = depth_of[r] > depth ? depth_of[r] : depth;
        /* Going up reaches the root within p steps. */
        int up = r, steps = 0;
        while (up != root && up >= 0 && steps <= p) {
            up = trl_tree_parent(t, up);
            steps++;
        }
        check(up == root && steps == depth_of[r], t, "rank %d climbs to the root in %d steps", r,
              steps);

        /* Children point back, and the array form agrees with child(i). */
        int n = trl_tree_nchildren(t, r), sum = 1;
        int kids[MAX_SIZE + 1];
        kids[n < 1 ? 0 : n - 1] = -7;
        int filled = trl_tree_children(t, r, kids, n > 0 ? n - 1 : 0);
        check(filled == n, t, "rank %d: children() counts %d", r, filled);
        check(n == 0 || kids[n - 1] == -7, t, "rank %d: children() wrote past cap %d", r, n - 1);
        trl_tree_children(t, r, kids, n);
        for (int i = 0; i < n; i++) {
            int c = trl_tree_child(t, r, i);
            check(c == kids[i] && trl_tree_parent(t, c) == r, t, "rank %d: child %d disagrees", r,
                  c);
            sum += trl_tree_subtree_size(t, c);
        }
        check(trl_tree_child(t, r, n) == -1, t, "rank %d: a child past the last (%d)", r, n);
        check(trl_tree_subtree_size(t, r) == sum, t, "rank %d: subtree size %d", r,
              trl_tree_subtree_size(t, r));

        /* The subtree size is what a walk from r counts. */
        int seen2[MAX_SIZE] = {0}, depth2[MAX_SIZE];
        bool twice2 = false;
        int below = walk(t, r, 0, seen2, depth2, &twice2);
        check(below == trl_tree_subtree_size(t, r), t, "rank %d: walk counts %d below", r, below);

        if (t->ordered) {
            /* Contiguous runs, in child order, starting at the top. */
            int next = r + 1;
            for (int i = 0; i < n; i++) {
                check(kids[i] == next, t, "rank %d: ordered child starts at %d", r, kids[i]);
                next = kids[i] + trl_tree_subtree_size(t, kids[i]);
            }
            check(next == r + trl_tree_subtree_size(t, r), t, "rank %d: run ends at %d", r, next);
        }

        /* vrank and rank are inverses; pre-order and back too. */
        int v = trl_tree_vrank(t, r);
        check(trl_tree_rank(t, v) == r, t, "rank %d -> vrank %d -> back", r, v);
        check(trl_tree_at_preorder(t, trl_tree_preorder(t, v)) == v, t,
              "vrank %d: pre-order %d does not invert", v, trl_tree_preorder(t, v));
    }
    check(depth == expected_height(t), t, "height %d, expected %d", depth, expected_height(t));
    if (t->kind == TRL_TREE_KNOMIAL || t->kind == TRL_TREE_BINOMIAL)
        check(depth <= ceil_log(t->radix, p), t, "height %d above ceil(log_radix p) = %d", depth,
              ceil_log(t->radix, p));
    if (t->kind == TRL_TREE_BINOMIAL) {
        int rounds = bcast_rounds(t, root, 0);
        check(rounds == ceil_log(2, p), t, "a broadcast takes %d rounds, not ceil(log2 p) = %d",
              rounds, ceil_log(2, p));
    }
}

/* The shapes themselves, over vranks (root 0, rotated). */
static void check_shape(const trl_tree *t)
{
    int p = t->size;
    for (int v = 0; v < p; v++) {
        if (t->kind == TRL_TREE_BINOMIAL) {
            /* Children v+1, v+2, v+4, ... below v's lowest set bit. */
            int i = 0;
            for (int mask = 1; (v == 0 || mask < (v & -v)) && v + mask < p; mask <<= 1, i++)
                check(trl_tree_vchild(t, v, i) == v + mask, t, "vrank %d child %d", v, v + mask);
            check(trl_tree_vchild(t, v, i) == -1, t, "vrank %d has extra child %d", v,
                  trl_tree_vchild(t, v, i));
            check(trl_tree_vparent(t, v) == (v ? v & (v - 1) : -1), t, "vrank %d parent %d", v,
                  trl_tree_vparent(t, v));
        } else if (t->kind == TRL_TREE_KARY || t->kind == TRL_TREE_CHAIN) {
            int i = 0;
            for (; i < t->radix && v * t->radix + 1 + i < p; i++)
                check(trl_tree_vchild(t, v, i) == v * t->radix + 1 + i, t, "vrank %d child %d", v,
                      i);
            check(trl_tree_vchild(t, v, i) == -1, t, "vrank %d has extra child %d", v,
                  trl_tree_vchild(t, v, i));
        }
    }
}

static void check_lam_example(void)
{
    /* Seed 000: in LAM-MPI's 32-rank tree, rank 12 receives from 13, then
     * 14, then sends to 8. */
    trl_tree t;
    trl_tree_init(&t, TRL_TREE_BINOMIAL, 0, 32, 0);
    int kids[8];
    int n = trl_tree_children(&t, 12, kids, 8);
    check(n == 2 && kids[0] == 13 && kids[1] == 14, &t, "rank 12's children are %d, %d", kids[0],
          kids[1]);
    check(trl_tree_parent(&t, 12) == 8, &t, "rank 12's parent is %d", trl_tree_parent(&t, 12), 0);
    /* The same tree rooted at 5 is shifted by 5. */
    trl_tree_init(&t, TRL_TREE_BINOMIAL, 0, 32, 5);
    n = trl_tree_children(&t, 17, kids, 8);
    check(n == 2 && kids[0] == 18 && kids[1] == 19 && trl_tree_parent(&t, 17) == 13, &t,
          "rooted at 5, rank 17's children are %d, %d", kids[0], kids[1]);
}

static void check_invalid(void)
{
    trl_tree t = {0};
    check(trl_tree_init(&t, TRL_TREE_KNOMIAL, 1, 4, 0) == TRL_ERR_INVALID, &t, "knomial radix 1", 0,
          0);
    check(trl_tree_init(&t, TRL_TREE_KARY, 0, 4, 0) == TRL_ERR_INVALID, &t, "kary radix 0", 0, 0);
    check(trl_tree_init(&t, TRL_TREE_CHAIN, 0, 0, 0) == TRL_ERR_INVALID, &t, "size 0", 0, 0);
    check(trl_tree_init(&t, TRL_TREE_CHAIN, 0, 4, 4) == TRL_ERR_INVALID, &t, "root 4 of 4", 0, 0);
}

static void check_kind(trl_tree_kind kind, int radix)
{
    for (int p = 1; p <= MAX_SIZE; p++) {
        trl_tree t;
        for (int root = 0; root < p; root++) {
            if (trl_tree_init(&t, kind, radix, p, root)) {
                check(false, &t, "init failed for radix %d size %d", radix, p);
                continue;
            }
            check_tree(&t);
            if (root == 0)
                check_shape(&t);
        }
        if (trl_tree_init_ordered(&t, kind, radix, p) == TRL_OK)
            check_tree(&t);
    }
}

int main(void)
{
    check_kind(TRL_TREE_BINOMIAL, 0);
    for (int radix = 2; radix <= 8; radix++)
        check_kind(TRL_TREE_KNOMIAL, radix);
    for (int radix = 1; radix <= 8; radix++)
        check_kind(TRL_TREE_KARY, radix);
    check_kind(TRL_TREE_CHAIN, 0);
    check_lam_example();
    check_invalid();
    printf("pattern: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
