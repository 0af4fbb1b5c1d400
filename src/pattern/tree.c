/* Tree math: parents, children and subtree sizes of binomial, k-nomial,
 * k-ary and chain trees. See tree.h for the labellings. */
#include "pattern/tree.h"

#include <stddef.h>

#include "core/status.h"

/* ---- k-nomial (binomial is radix 2) -------------------------------------
 *
 * A vrank written in base radix: its parent clears its lowest non-zero
 * digit, and its children set one digit below that (any digit for vrank
 * 0), nearest first. Radix 2, 8 ranks (LAM-MPI's tree, seed 000):
 *
 *            0
 *         /  |  \
 *        1   2   4
 *            |   | \
 *            3   5  6
 *                   |
 *                   7
 *
 * Radix 3, 9 ranks: 0 has 1 2 3 6; 3 has 4 5; 6 has 7 8.
 *
 * The subtree of a child at digit position i holds radix^i consecutive
 * vranks (fewer at the end), which is why the vranks are already in
 * pre-order.
 */

/* radix^i for the lowest non-zero digit position i of v > 0. */
static long long lowest_digit(const trl_tree *t, int v)
{
    long long m = 1;
    while ((v / m) % t->radix == 0)
        m *= t->radix;
    return m;
}

static int knomial_parent(const trl_tree *t, int v)
{
    if (v == 0)
        return -1;
    long long m = lowest_digit(t, v);
    return (int)(v - ((v / m) % t->radix) * m);
}

/* Children of v: masks radix^0, radix^1, ... up to v's lowest digit, and
 * at each mask the multiples 1..radix-1. They increase, so the ones past
 * the end of the tree are a suffix of the list. */
static int knomial_child(const trl_tree *t, int v, int i)
{
    int per = t->radix - 1;
    long long limit = v == 0 ? t->size : lowest_digit(t, v);
    long long m = 1;
    for (int pos = i / per; pos > 0 && m < limit; pos--)
        m *= t->radix;
    long long c = v + (long long)(i % per + 1) * m;
    return m < limit && c < t->size ? (int)c : -1;
}

static int knomial_nchildren(const trl_tree *t, int v)
{
    long long limit = v == 0 ? t->size : lowest_digit(t, v);
    int n = 0;
    for (long long m = 1; m < limit && v + m < t->size; m *= t->radix)
        for (int j = 1; j < t->radix && v + j * m < t->size; j++)
            n++;
    return n;
}

static int knomial_subtree(const trl_tree *t, int v)
{
    if (v == 0)
        return t->size;
    long long m = lowest_digit(t, v);
    return (int)(m < t->size - v ? m : t->size - v);
}

/* ---- k-ary (a chain is radix 1) ------------------------------------------
 *
 * Numbered level by level, like a heap. Radix 2, 7 ranks; radix 1, a
 * chain:
 *
 *            0                0 ── 1 ── 2 ── 3 ── ...
 *          /   \
 *         1     2
 *        / \   / \
 *       3   4 5   6
 *
 * A subtree is not a contiguous range of vranks here (1 holds 1 3 4 7 8
 * 9 10 ...), so the ordered labelling renumbers it in pre-order.
 */

static int kary_parent(const trl_tree *t, int v)
{
    return v == 0 ? -1 : (v - 1) / t->radix;
}

static int kary_child(const trl_tree *t, int v, int i)
{
    long long c = (long long)v * t->radix + 1 + i;
    return i < t->radix && c < t->size ? (int)c : -1;
}

static int kary_nchildren(const trl_tree *t, int v)
{
    long long first = (long long)v * t->radix + 1;
    long long n = t->size - first;
    return n <= 0 ? 0 : n < t->radix ? (int)n : t->radix;
}

/* Level by level: the descendants of v at each depth are one contiguous
 * run of vranks, [lo, hi], clipped to the tree. */
static int kary_subtree(const trl_tree *t, int v)
{
    if (t->radix == 1)
        return t->size - v;
    long long n = 0;
    for (long long lo = v, hi = v; lo < t->size; lo = lo * t->radix + 1) {
        n += (hi < t->size ? hi : t->size - 1) - lo + 1;
        hi = hi * t->radix + t->radix;
    }
    return (int)n;
}

/* ---- explicit ------------------------------------------------------------ */

static int explicit_subtree(const trl_tree *t, int v)
{
    int n = 1;
    for (int i = t->child_first[v]; i < t->child_first[v + 1]; i++)
        n += explicit_subtree(t, t->child[i]);
    return n;
}

int trl_tree_init_explicit(trl_tree *t, int size, int root, const int *parent,
                           const int *child_first, const int *child)
{
    if (size < 1 || root < 0 || root >= size || !parent || !child_first || !child)
        return TRL_ERR_INVALID;
    *t = (trl_tree){TRL_TREE_EXPLICIT, 0, size, root, false, parent, child_first, child};
    return TRL_OK;
}

/* ---- dispatch ------------------------------------------------------------ */

static bool is_knomial(const trl_tree *t)
{
    return t->kind == TRL_TREE_BINOMIAL || t->kind == TRL_TREE_KNOMIAL;
}

int trl_tree_init(trl_tree *t, trl_tree_kind kind, int radix, int size, int root)
{
    if (kind == TRL_TREE_BINOMIAL)
        radix = 2;
    else if (kind == TRL_TREE_CHAIN)
        radix = 1;
    int min_radix = kind == TRL_TREE_KNOMIAL ? 2 : 1;
    if (size < 1 || root < 0 || root >= size || radix < min_radix || kind < TRL_TREE_BINOMIAL ||
        kind > TRL_TREE_CHAIN)
        return TRL_ERR_INVALID;
    *t = (trl_tree){kind, radix, size, root, false, NULL, NULL, NULL};
    return TRL_OK;
}

int trl_tree_init_ordered(trl_tree *t, trl_tree_kind kind, int radix, int size)
{
    int rc = trl_tree_init(t, kind, radix, size, 0);
    if (rc == TRL_OK)
        t->ordered = true;
    return rc;
}

int trl_tree_vparent(const trl_tree *t, int v)
{
    if (t->kind == TRL_TREE_EXPLICIT)
        return t->parent[v];
    return is_knomial(t) ? knomial_parent(t, v) : kary_parent(t, v);
}

int trl_tree_vnchildren(const trl_tree *t, int v)
{
    if (t->kind == TRL_TREE_EXPLICIT)
        return t->child_first[v + 1] - t->child_first[v];
    return is_knomial(t) ? knomial_nchildren(t, v) : kary_nchildren(t, v);
}

int trl_tree_vchild(const trl_tree *t, int v, int i)
{
    if (i < 0)
        return -1;
    if (t->kind == TRL_TREE_EXPLICIT)
        return i < trl_tree_vnchildren(t, v) ? t->child[t->child_first[v] + i] : -1;
    return is_knomial(t) ? knomial_child(t, v, i) : kary_child(t, v, i);
}

int trl_tree_vsubtree(const trl_tree *t, int v)
{
    if (t->kind == TRL_TREE_EXPLICIT)
        return explicit_subtree(t, v);
    return is_knomial(t) ? knomial_subtree(t, v) : kary_subtree(t, v);
}

/* ---- pre-order ------------------------------------------------------------
 *
 * A node's position is its parent's plus one plus the sizes of the elder
 * siblings' subtrees. Radix-2 k-ary, 7 ranks, vrank (position):
 *
 *              0(0)
 *            /      \
 *         1(1)      2(4)
 *         /  \      /  \
 *      3(2) 4(3) 5(5) 6(6)
 *
 * Binomial, k-nomial and chain trees are already numbered in pre-order
 * (see above), so both directions are the identity there.
 */

/* Explicit trees: ranks are positions as given; an ordered one (the only
 * kind a non-commutative reduction runs over) is numbered in pre-order. */
static bool preorder_is_identity(const trl_tree *t)
{
    return is_knomial(t) || t->radix == 1 || t->kind == TRL_TREE_EXPLICIT;
}

int trl_tree_preorder(const trl_tree *t, int v)
{
    if (preorder_is_identity(t))
        return v;
    int pos = 0;
    while (v != 0) {
        int u = trl_tree_vparent(t, v);
        pos += 1;
        for (int i = 0, c; (c = trl_tree_vchild(t, u, i)) != v; i++)
            pos += trl_tree_vsubtree(t, c);
        v = u;
    }
    return pos;
}

/* Walk down from the top: at each node, skip the children whose subtrees
 * end before pos. */
int trl_tree_at_preorder(const trl_tree *t, int pos)
{
    if (preorder_is_identity(t))
        return pos;
    int v = 0, at = 0;
    while (at != pos) {
        int start = at + 1, c;
        for (int i = 0; (c = trl_tree_vchild(t, v, i)) >= 0; i++) {
            int n = trl_tree_vsubtree(t, c);
            if (pos < start + n)
                break;
            start += n;
        }
        if (c < 0)
            return -1; /* pos is outside the tree */
        v = c;
        at = start;
    }
    return v;
}

/* ---- real ranks ------------------------------------------------------------ */

int trl_tree_vrank(const trl_tree *t, int rank)
{
    if (t->kind == TRL_TREE_EXPLICIT)
        return rank;
    if (t->ordered)
        return trl_tree_at_preorder(t, rank);
    return (rank - t->root + t->size) % t->size;
}

int trl_tree_rank(const trl_tree *t, int v)
{
    if (v < 0 || t->kind == TRL_TREE_EXPLICIT)
        return v;
    if (t->ordered)
        return trl_tree_preorder(t, v);
    return (v + t->root) % t->size;
}

int trl_tree_parent(const trl_tree *t, int rank)
{
    return trl_tree_rank(t, trl_tree_vparent(t, trl_tree_vrank(t, rank)));
}

int trl_tree_nchildren(const trl_tree *t, int rank)
{
    return trl_tree_vnchildren(t, trl_tree_vrank(t, rank));
}

int trl_tree_child(const trl_tree *t, int rank, int i)
{
    return trl_tree_rank(t, trl_tree_vchild(t, trl_tree_vrank(t, rank), i));
}

int trl_tree_subtree_size(const trl_tree *t, int rank)
{
    return trl_tree_vsubtree(t, trl_tree_vrank(t, rank));
}

int trl_tree_children(const trl_tree *t, int rank, int *out, int cap)
{
    int v = trl_tree_vrank(t, rank), n = trl_tree_vnchildren(t, v);
    for (int i = 0; i < n && i < cap; i++)
        out[i] = trl_tree_rank(t, trl_tree_vchild(t, v, i));
    return n;
}
