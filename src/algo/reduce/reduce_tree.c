/* The emission every tree reduce shares (binomial, k-nomial, k-ary, the
 * pipelined chain). The order of combination:
 *  - commutative operations: the tree is rooted at the root over vranks
 *    relative to it. A node with two or more children combines their
 *    results in order of arrival (no ordering between the combining steps
 *    of different children) into an accumulator that starts as a copy of
 *    its own data: the root's receive buffer, or scratch elsewhere.
 *  - non-commutative operations: the ranks are laid on the tree in
 *    pre-order, rooted at rank 0 (trl_tree_init_ordered), so a subtree
 *    holds a contiguous run of ranks that starts with its top, and its
 *    children's runs follow in child order. A node computes
 *    own op c_1 op ... op c_k from right to left: the last child's result
 *    is received straight into the accumulator and each step folds the
 *    next lower operand in from the left (b = a op b), own data last, so
 *    no operand is out of rank order and no copy is needed. Rank 0 ends
 *    with the product in rank order; if the root is another rank, rank 0
 *    sends it there: one more message, as in MPICH's and Open MPI's
 *    in-order reduces, because a tree rotated to the root would wrap from
 *    rank p-1 to rank 0 inside a subtree. Nodes with at most one child
 *    use this scheme for commutative operations too: with one child there
 *    is no order to choose, and it saves the copy.
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
 * with two, a receive would wait for the send two segments back. Scratch
 * and the receives outstanding stay bounded whatever the count.
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
    int top;       /* the rank where the tree's result forms */
    int parent;    /* -1 at top */
    int n;         /* children */
    int *kids;     /* in tree order */
    int *joins;    /* step ids the send up waits for, n entries */
    size_t seg;    /* elements a segment (slot size) */
    int window;    /* slots per child: min(WINDOW, segments) */
    size_t slots;  /* scratch: slot w of child i at slots + (i*window + w)*seg */
    size_t acc;    /* scratch: accumulator slot w at acc + w*seg (commutative) */
    int *free_at;  /* per slot, (n+1)*window: the step after which it is free */
} reduce_ctx;

static trl_ref slot(const reduce_ctx *c, int child, int w)
{
    return trl_ref_at(TRL_BUF_SCRATCH, c->slots + ((size_t)child * c->window + w) * c->seg);
}

/* Commutative, two or more children: combine in order of arrival into a
 * copy of own data. */
static void segment_any_order(reduce_ctx *c, size_t off, size_t len, int w)
{
    const trl_coll_args *a = c->a;
    trl_sched *s = c->s;
    int *acc_free = &c->free_at[c->n * c->window + w];
    trl_ref own = trl_ref_at(TRL_BUF_SEND, off);
    trl_ref acc = a->rank == c->top ? trl_ref_at(TRL_BUF_RECV, off)
                                    : trl_ref_at(TRL_BUF_SCRATCH, c->acc + (size_t)w * c->seg);
    /* At the root with MPI_IN_PLACE this is a self-copy, which executors
     * skip. */
    int init = trl_sched_copy(s, own, acc, len, TRL_DEPS(*acc_free));
    for (int i = 0; i < c->n; i++) {
        int *slot_free = &c->free_at[i * c->window + w];
        int got = trl_sched_recv(s, c->kids[i], slot(c, i, w), len, TRL_DEPS(*slot_free));
        *slot_free = trl_sched_reduce(s, slot(c, i, w), acc, len, TRL_DEPS(init, got));
        c->joins[i] = *slot_free;
    }
    if (a->rank != c->top)
        *acc_free = trl_sched_send(s, c->parent, acc, len, c->joins, c->n);
}

/* Rank order: own op c_1 op ... op c_k, right to left, in the last
 * child's slot. */
static void segment_in_order(reduce_ctx *c, size_t off, size_t len, int w)
{
    const trl_coll_args *a = c->a;
    trl_sched *s = c->s;
    trl_ref own = trl_ref_at(TRL_BUF_SEND, off), acc = own;
    int last = -1, *acc_free = NULL;
    if (c->n > 0) {
        acc = slot(c, c->n - 1, w);
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
        done = trl_sched_copy(s, acc, result, len, TRL_DEPS(last));
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

/* Reduce over a tree of the given kind, in segments of `segment` elements
 * (segment >= count: the plain tree reduce). */
int trl__reduce_tree(const trl_coll_args *a, trl_sched *s, trl_tree_kind kind, int radix,
                     size_t segment)
{
    trl_tree t;
    int rc = a->commutative ? trl_tree_init(&t, kind, radix, a->size, a->root)
                            : trl_tree_init_ordered(&t, kind, radix, a->size);
    if (rc)
        return rc;
    if (segment > a->count && a->count > 0)
        segment = a->count; /* slots no bigger than the message */
    size_t nseg = (a->count + segment - 1) / segment;
    reduce_ctx c = {.a = a, .s = s, .top = a->commutative ? a->root : 0, .seg = segment};
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
    bool any_order = a->commutative && c.n >= 2;
    c.slots = trl_sched_scratch(s, (size_t)c.n * c.window * segment);
    if (any_order && a->rank != c.top)
        c.acc = trl_sched_scratch(s, (size_t)c.window * segment);
    for (size_t k = 0; k < nseg; k++) {
        size_t off = k * segment, len = a->count - off < segment ? a->count - off : segment;
        if (any_order)
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
