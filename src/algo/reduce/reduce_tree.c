/* The emission every tree reduce shares (binomial, k-nomial, k-ary, the
 * pipelined chain). The order of combination:
 *  - commutative operations: the tree is rooted at the root over vranks
 *    relative to it. A node with children receives the result of the
 *    child expected first (the one with the smallest subtree: the nearest,
 *    a leaf, in a binomial or k-nomial tree) straight into its accumulator
 *    (scratch, or the root's receive buffer) and folds its own data in
 *    from the left (b = own op b); the other children arrive in slots of
 *    their own and are combined into the accumulator in order of arrival
 *    once that first one is there (no ordering between the combining steps
 *    of different children). The root with MPI_IN_PLACE already holds its
 *    own data in the receive buffer, so there every child lands in a slot
 *    and is combined into it in order of arrival.
 *  - non-commutative operations: the ranks are laid on the tree in
 *    pre-order, rooted at rank 0 (trl_tree_init_ordered), so a subtree
 *    holds a contiguous run of ranks that starts with its top, and its
 *    children's runs follow in child order. A node computes
 *    own op c_1 op ... op c_k from right to left: the last child's result
 *    is received straight into the accumulator and each step folds the
 *    next lower operand in from the left (b = a op b), own data last, so
 *    no operand is out of rank order. Rank 0 ends with the product in rank
 *    order; if the root is another rank, rank 0 sends it there: one more
 *    message, as in MPICH's and Open MPI's in-order reduces, because a
 *    tree rotated to the root would wrap from rank p-1 to rank 0 inside a
 *    subtree.
 * Where the accumulator lives: at the rank where the result forms (the
 * root; rank 0 for a non-commutative operation whose root is rank 0) it is
 * the receive buffer itself, so no copy is made, except in one case: a
 * non-commutative operation with MPI_IN_PLACE, where own data is in the
 * receive buffer but must be the left operand (b = a op b cannot put it
 * there), so the product forms in a slot and is copied over. Elsewhere it
 * is the slot of the child received first; a leaf sends its send buffer
 * as it is. in_place only chooses where data lands: every rank exchanges
 * the same messages either way.
 * The send buffer is only ever read, non-roots never touch the receive
 * buffer, and at the root the receive buffer is written only after the
 * last read of the send buffer it may alias (MPI_IN_PLACE).
 *
 * Segments (the chain's pipeline): each segment travels up the tree on its
 * own. A child has WINDOW = 3 segment-sized receive slots, used in turn:
 * segment k+3 is received into segment k's slot once that has been
 * combined and, where the slot holds the accumulator, passed on. Three
 * because a slot goes through three stages (arriving, being combined,
 * leaving) and consecutive segments can then occupy all three at once;
 * with two, a receive would wait for the send two segments back. A child
 * received straight into the receive buffer keeps the same window: its
 * segment k+3 is received once segment k has been combined, so the data
 * is still in cache when it is combined and scratch and the receives
 * outstanding stay bounded whatever the count.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"
#include "algo/tree_steps.h"
#include "pattern/tree.h"

enum { WINDOW = 3 }; /* arriving, being combined, leaving: see above */

typedef struct {
    const trl_coll_args *a;
    trl_sched *s;
    int top;      /* the rank where the tree's result forms */
    int parent;   /* -1 at top */
    int n;        /* children */
    int *kids;    /* in tree order */
    int *joins;   /* step ids the send up waits for, n entries */
    size_t seg;   /* elements a segment (slot size) */
    int window;   /* slots per child: min(WINDOW, segments) */
    int first;    /* commutative: the child that lands in the accumulator */
    bool chained; /* commutative: combine children one after another in
                      tree order instead of as they arrive */
    int direct;   /* the child received straight into RECV (no slot), or -1 */
    size_t slots; /* scratch: slot w of child i at slots + (i'*window + w)*seg,
                      i' = i less one past `direct` */
    int *free_at; /* per child and window position, n*window: the step
                      after which the slot (or the window position) is free */
} reduce_ctx;

static trl_ref slot(const reduce_ctx *c, int child, int w)
{
    size_t i = (size_t)child - (c->direct >= 0 && child > c->direct);
    return trl_ref_at(TRL_BUF_SCRATCH, c->slots + (i * c->window + w) * c->seg);
}

/* Where child i's segment at off lands: the receive buffer for `direct`,
 * else its slot. */
static trl_ref landing(const reduce_ctx *c, int child, size_t off, int w)
{
    return child == c->direct ? trl_ref_at(TRL_BUF_RECV, off) : slot(c, child, w);
}

/* Commutative: the first child lands in the accumulator and own data is
 * folded into it, then the others are combined in order of arrival; with
 * MPI_IN_PLACE at the root every child is combined into the receive
 * buffer, which holds own data already. */
static void segment_any_order(reduce_ctx *c, size_t off, size_t len, int w)
{
    const trl_coll_args *a = c->a;
    trl_sched *s = c->s;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, off);
    bool at_top = a->rank == c->top;
    if (c->n == 0) {
        if (at_top) { /* alone: a self-copy with MPI_IN_PLACE, which executors skip */
            trl_sched_copy(s, own, trl_ref_at(TRL_BUF_RECV, off), len, TRL_NODEPS);
            return;
        }
        int sent = trl_sched_send(s, c->parent, own, len, TRL_NODEPS);
        if (a->rank == a->root) /* a leaf root of an explicit tree */
            trl_sched_recv(s, c->top, trl_ref_at(TRL_BUF_RECV, off), len, TRL_DEPS(sent));
        return;
    }
    int first = c->first, got_first = -1, njoins = 0;
    trl_ref acc = trl_ref_at(TRL_BUF_RECV, off);
    if (at_top && a->in_place) {
        first = -1; /* own data is in RECV already */
    } else {
        int *first_free = &c->free_at[first * c->window + w];
        acc = landing(c, first, off, w);
        got_first = trl_sched_recv(s, c->kids[first], acc, len, TRL_DEPS(*first_free));
        c->joins[njoins++] = trl_sched_reduce(s, own, acc, len, TRL_DEPS(got_first));
        if (at_top) /* the window position is free once it is combined */
            *first_free = c->joins[0];
    }
    for (int i = 0; i < c->n; i++) {
        if (i == first)
            continue;
        int *slot_free = &c->free_at[i * c->window + w];
        int got = trl_sched_recv(s, c->kids[i], slot(c, i, w), len, TRL_DEPS(*slot_free));
        int prev = c->chained && njoins > 0 ? c->joins[njoins - 1] : -1;
        *slot_free = trl_sched_reduce(s, slot(c, i, w), acc, len, TRL_DEPS(got_first, got, prev));
        c->joins[njoins++] = *slot_free;
    }
    /* Where the tree's top is not the root (explicit trees), the result
     * takes one more message. */
    int up = at_top ? (a->root != c->top ? a->root : -1) : c->parent;
    if (up >= 0)
        c->free_at[first * c->window + w] = trl_sched_send(s, up, acc, len, c->joins, njoins);
    if (a->rank == a->root && !at_top) /* after the send: RECV may alias SEND */
        trl_sched_recv(s, c->top, trl_ref_at(TRL_BUF_RECV, off), len,
                       TRL_DEPS(c->free_at[first * c->window + w]));
}

/* Rank order: own op c_1 op ... op c_k, right to left, in the last
 * child's landing place. */
static void segment_in_order(reduce_ctx *c, size_t off, size_t len, int w)
{
    const trl_coll_args *a = c->a;
    trl_sched *s = c->s;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, off), acc = own;
    int last = -1, *acc_free = NULL;
    if (c->n > 0) {
        acc = landing(c, c->n - 1, off, w);
        acc_free = &c->free_at[(c->n - 1) * c->window + w];
        last = trl_sched_recv(s, c->kids[c->n - 1], acc, len, TRL_DEPS(*acc_free));
        for (int i = c->n - 2; i >= 0; i--) {
            int *slot_free = &c->free_at[i * c->window + w];
            int got = trl_sched_recv(s, c->kids[i], slot(c, i, w), len, TRL_DEPS(*slot_free));
            last = *slot_free = trl_sched_reduce(s, slot(c, i, w), acc, len, TRL_DEPS(last, got));
        }
        last = trl_sched_reduce(s, own, acc, len, TRL_DEPS(last));
    }
    trl_ref result = trl_ref_at(TRL_BUF_RECV, off);
    int done;
    if (a->rank == c->top && a->root == c->top) {
        /* Nothing to do when the product formed in RECV; a self-copy (p = 1
         * in place) is skipped by executors. */
        done = c->direct >= 0 ? last : trl_sched_copy(s, acc, result, len, TRL_DEPS(last));
    } else if (a->rank == c->top) {
        done = trl_sched_send(s, a->root, acc, len, TRL_DEPS(last));
    } else {
        done = trl_sched_send(s, c->parent, acc, len, TRL_DEPS(last));
        /* The receive buffer may alias the send buffer just read. */
        if (a->rank == a->root)
            trl_sched_recv(s, c->top, result, len, TRL_DEPS(done));
    }
    if (acc_free)
        *acc_free = done;
}

/* Reduce over tree t whose result forms at `top`, in segments of `segment`
 * elements (segment >= count: the plain tree reduce). */
static int reduce_over(const trl_coll_args *a, trl_sched *s, const trl_tree *tree, int top,
                       bool chained, size_t segment)
{
    const trl_tree t = *tree;
    int rc;
    if (segment > a->count && a->count > 0)
        segment = a->count; /* slots no bigger than the message */
    size_t nseg = (a->count + segment - 1) / segment;
    reduce_ctx c = {
        .a = a, .s = s, .top = top, .seg = segment, .first = 0, .chained = chained, .direct = -1};
    c.window = nseg < WINDOW ? (int)nseg : WINDOW;
    c.parent = trl_tree_parent(&t, a->rank);
    c.n = trl_tree_nchildren(&t, a->rank);
    c.kids = malloc((size_t)(c.n + 1) * sizeof *c.kids);
    c.joins = malloc((size_t)(c.n + 1) * sizeof *c.joins);
    c.free_at = malloc((size_t)(c.n + 1) * WINDOW * sizeof *c.free_at);
    if (!c.kids || !c.joins || !c.free_at) {
        rc = TRL_ERR_NOMEM;
        goto out;
    }
    for (int i = 0; i < (c.n + 1) * WINDOW; i++)
        c.free_at[i] = -1;
    trl_tree_children(&t, a->rank, c.kids, c.n);
    /* The child expected first: the one with the smallest subtree (the
     * nearest in a binomial or k-nomial tree, the last in a k-ary one). */
    for (int i = 1; i < c.n && !chained; i++)
        if (trl_tree_subtree_size(&t, c.kids[i]) < trl_tree_subtree_size(&t, c.kids[c.first]))
            c.first = i;
    /* At the root, unless own data already sits in RECV (MPI_IN_PLACE),
     * one child's result is received straight into RECV: the first child
     * for a commutative operation, the last for a non-commutative one. */
    if (a->rank == c.top && a->root == c.top && c.n > 0 && !a->in_place)
        c.direct = a->commutative ? c.first : c.n - 1;
    c.slots = trl_sched_scratch(s, (size_t)(c.n - (c.direct >= 0)) * c.window * segment);
    for (size_t k = 0; k < nseg; k++) {
        size_t off = k * segment, len = a->count - off < segment ? a->count - off : segment;
        if (a->commutative)
            segment_any_order(&c, off, len, (int)(k % (size_t)c.window));
        else
            segment_in_order(&c, off, len, (int)(k % (size_t)c.window));
    }
    rc = s->status;
out:
    free(c.kids);
    free(c.joins);
    free(c.free_at);
    return rc;
}

int trl__reduce_tree(const trl_coll_args *a, trl_sched *s, trl_tree_kind kind, int radix,
                     size_t segment)
{
    trl_tree t;
    int rc = a->commutative ? trl_tree_init(&t, kind, radix, a->size, a->root)
                            : trl_tree_init_ordered(&t, kind, radix, a->size);
    if (rc)
        return rc;
    return reduce_over(a, s, &t, a->commutative ? a->root : 0, false, segment);
}

int trl__reduce_explicit(const trl_coll_args *a, trl_sched *s, const trl_tree *t,
                         bool in_file_order)
{
    if (!a->commutative && (!in_file_order || t->root != 0))
        return TRL_ERR_UNSUPPORTED;
    return reduce_over(a, s, t, t->root, in_file_order, a->count > 0 ? a->count : 1);
}
