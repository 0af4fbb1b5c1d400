/* Scan and exclusive scan by recursive doubling; this builder serves both
 * (exscan_recursive_doubling.c calls it with a->coll == TRL_COLL_EXSCAN).
 *
 * Each rank keeps two values: its result, and the partial reduction over
 * its aligned block of ranks, whose size doubles each round. In the round
 * at distance d = 1, 2, 4, ... rank r pairs with r ^ d (if that is below
 * p): the lower of the two sends its partial up, where it is folded into
 * both the result and the partial from the left; the upper sends its
 * partial down, where it is folded into the partial from the right.
 *
 *     p = 4, d = 1: 0<->1, 2<->3    d = 2: 0->2, 1->3 (and back if needed)
 *
 * The partial sent up always covers a whole block below the receiver, so
 * results are in rank order; a block cut short by p is only ever sent
 * down or not at all, and what is sent down is folded only into partials,
 * which is why any p works without a fold.
 *
 * Cost: ceil(log2 p)(alpha + n beta + 2 n gamma). A partial sent down is
 * left out when the receiver has no later round that needs it (the upper
 * half of the last round, for instance), so half the messages of the last
 * round disappear.
 * From: MPICH's recursive-doubling scan and exscan (the partial/result
 * pair), Thakur, Rabenseifner and Gropp (2005).
 *
 * Order of combination: a partial from below is the left operand, one from
 * above the right one, so non-commutative operations are served.
 * Exclusive scan: the first partial from below becomes the result as it
 * is; rank 0 never gets one and its receive buffer is left untouched.
 *
 * Buffers: the result is RECV (for scan, a copy of own data first: already
 * there in place). The partial starts as the send buffer itself and moves
 * only when it changes: a partial from above is received into a scratch
 * slot and the partial folded into it from the left, so the slot becomes
 * the partial (no copy); while the scan's partial equals its result (the
 * rounds before its first partial from above), the result is the partial.
 * An exclusive scan's first partial from below is received straight into
 * RECV; if the partial must then change while still the send buffer, own
 * data is copied to a slot first (the one copy). Two scratch slots are
 * used in turn, so memory stays at 2n. Every buffer's last write and the
 * reads since are tracked, so a receive waits only for the reads of the
 * slot it reuses and, with MPI_IN_PLACE, for the reads of own data it
 * overwrites.
 */
#include "algo/builders.h"
#include "core/status.h"

enum { MAX_READS = 8 }; /* reads of one buffer between writes: at most 4 */

typedef struct {
    trl_ref ref;
    bool allocated; /* scratch slots get their scratch on first use */
    int write;      /* the last step that wrote the buffer, or -1 */
    int reads[MAX_READS];
    int nreads; /* steps that read it since */
} buf_state;

typedef struct {
    trl_sched *s;
    size_t n;
    bool overflow;
} ctx;

static void read_by(ctx *c, buf_state *b, int id)
{
    if (b->nreads == MAX_READS)
        c->overflow = true;
    else
        b->reads[b->nreads++] = id;
}

/* Dependencies of writing b: its last write and every read since. */
static int write_deps(const buf_state *b, int *deps)
{
    int nd = 0;
    if (b->write >= 0)
        deps[nd++] = b->write;
    for (int i = 0; i < b->nreads; i++)
        deps[nd++] = b->reads[i];
    return nd;
}

static trl_ref ref_of(ctx *c, buf_state *b)
{
    if (!b->allocated) {
        b->ref = trl_ref_at(TRL_BUF_SCRATCH, trl_sched_scratch(c->s, c->n));
        b->allocated = true;
    }
    return b->ref;
}

static void send_from(ctx *c, int peer, buf_state *b)
{
    int id = trl_sched_send(c->s, peer, ref_of(c, b), c->n, TRL_DEPS(b->write));
    read_by(c, b, id);
}

static void recv_into(ctx *c, int peer, buf_state *b)
{
    int deps[MAX_READS + 1], nd = write_deps(b, deps);
    b->write = trl_sched_recv(c->s, peer, ref_of(c, b), c->n, deps, nd);
    b->nreads = 0;
}

/* y = x op y (reduce) or y = x (copy). */
static void combine(ctx *c, bool reduce, buf_state *x, buf_state *y)
{
    int deps[MAX_READS + 2], nd = write_deps(y, deps);
    if (x->write >= 0)
        deps[nd++] = x->write;
    trl_ref from = ref_of(c, x), to = ref_of(c, y);
    int id = reduce ? trl_sched_reduce(c->s, from, to, c->n, deps, nd)
                    : trl_sched_copy(c->s, from, to, c->n, deps, nd);
    read_by(c, x, id);
    y->write = id;
    y->nreads = 0;
}

/* Whether rank r still exchanges after the round at distance d, and so
 * needs its partial then. */
static bool partial_needed_after(int r, int d, int p)
{
    for (long long m = 2LL * d; m < p; m *= 2)
        if ((r ^ m) < p)
            return true;
    return false;
}

int trl_scan_recursive_doubling(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    bool exclusive = a->coll == TRL_COLL_EXSCAN;
    ctx c = {s, a->count, false};
    if (c.n == 0 || (exclusive && p == 1))
        return s->status;

    buf_state send = {trl_ref_at(TRL_BUF_SEND, 0), true, -1, {0}, 0};
    buf_state recv = {trl_ref_at(TRL_BUF_RECV, 0), true, -1, {0}, 0};
    buf_state slot[2] = {{.write = -1}, {.write = -1}};
    /* In place own data is RECV: writing it then waits for its reads. */
    buf_state *own = a->in_place ? &recv : &send, *partial = own;
    bool have_result = !exclusive, partial_is_result = !exclusive;
    if (!exclusive && !a->in_place)
        combine(&c, false, &send, &recv);

    for (long long d = 1; d < p; d *= 2) {
        int peer = rank ^ (int)d;
        if (peer >= p)
            continue;
        bool later = partial_needed_after(rank, (int)d, p);
        buf_state *spare = partial == &slot[0] ? &slot[1] : &slot[0];
        if (rank < peer) {
            /* The lower one: send the partial up; the partial from above
             * is folded in from the right, into the slot it lands in. */
            send_from(&c, peer, partial);
            if (later) {
                recv_into(&c, peer, spare);
                combine(&c, true, partial, spare);
                partial = spare;
                partial_is_result = false;
            }
            continue;
        }
        /* The upper one: the partial from below (the block just under this
         * one's) is folded into the result and the partial from the left.
         * It is sent down only if the lower one needs it later. */
        if (partial_needed_after(peer, (int)d, p))
            send_from(&c, peer, partial);
        if (!have_result) {
            /* Exscan's first: it lands in RECV, which is the result. The
             * partial must be writable before RECV (own data in place) is
             * overwritten. */
            if (later && partial == own) {
                combine(&c, false, own, spare);
                partial = spare;
            }
            recv_into(&c, peer, &recv);
            have_result = true;
            if (later)
                combine(&c, true, &recv, partial);
            continue;
        }
        recv_into(&c, peer, spare);
        combine(&c, true, spare, &recv);
        if (!later)
            continue;
        if (partial_is_result)
            partial = &recv; /* the same value, there already */
        else
            combine(&c, true, spare, partial);
    }
    if (c.overflow)
        return TRL_ERR_INVALID;
    return s->status;
}
