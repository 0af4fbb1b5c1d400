/* Ring allreduce: a ring reduce-scatter, then a ring allgather.
 *
 * The vector is cut into p blocks (sizes differ by at most one element,
 * the remainder spread over the first blocks). In step k of the
 * reduce-scatter rank r sends block r-k to its right neighbour and
 * receives block r-k-1 from its left one, combining it into its own copy;
 * after p-1 steps it holds block r+1 fully reduced. In step k of the
 * allgather it sends block r+1-k to the right and receives block r-k from
 * the left, so after p-1 more steps every rank has every block.
 *
 *     reduce-scatter, p = 4, step 0        allgather, step 0
 *     r0 -b0-> r1 -b1-> r2 -b2-> r3 -b3-> r0   (r sends block r+1)
 *
 * A block larger than the `segment` parameter (bytes, rounded down to
 * whole elements, at least one) travels as several pieces of at most that
 * size. Each piece depends only on the same piece of the step before, so
 * while one piece is being combined the next is already on the wire and
 * the pipeline keeps flowing.
 *
 * Cost: 2(p-1) alpha + 2n beta (p-1)/p + n gamma (p-1)/p, plus
 * (pieces per block - 1) alpha per step when blocks are cut into pieces.
 * Bandwidth-optimal for any p, but latency grows linearly with p.
 * From: Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for
 * clusters of workstations" (2009); Gloo's ring allreduce; the ring
 * allgather of seed 001's SAG broadcast.
 * Non-power-of-two ranks: nothing depends on p being a power of two.
 * count < p: some blocks are empty and their messages are left out (both
 * ends compute the same sizes, so they agree on which).
 *
 * Commutative operations only: a block is combined in ring order starting
 * at its owner, not in rank order.
 *
 * Buffers: the result is built in place in RECV; each block is copied from
 * SEND just before it is first combined. Received pieces land in one of two
 * scratch slots of one block each, alternating by step, so memory stays at
 * two blocks while a piece of step k can arrive before step k-1 is combined.
 */
#include <stdlib.h>

#include "algo/allreduce/allreduce_steps.h"
#include "algo/builders.h"
#include "core/status.h"
#include "pattern/rdouble.h"

static int ring_mod(int x, int p)
{
    return ((x % p) + p) % p;
}

/* Blocks rank r sends and receives in step k of each phase. */
static int rs_send_block(int r, int k, int p)
{
    return ring_mod(r - k, p);
}
static int rs_recv_block(int r, int k, int p)
{
    return ring_mod(r - k - 1, p);
}
static int ag_send_block(int r, int k, int p)
{
    return ring_mod(r + 1 - k, p);
}
static int ag_recv_block(int r, int k, int p)
{
    return ring_mod(r - k, p);
}

static size_t pieces_of(size_t len, size_t seg)
{
    return (len + seg - 1) / seg;
}

static size_t piece_len(size_t len, size_t seg, size_t j)
{
    size_t rest = len - j * seg;
    return rest < seg ? rest : seg;
}

int trl_allreduce_ring(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank;
    size_t n = a->count;

    if (trl__allreduce_trivial(a, s))
        return s->status;

    long long seg_bytes = trl_param_int(a, "segment");
    size_t seg = seg_bytes > 0 ? (size_t)seg_bytes / a->elem_size : 1;
    if (seg == 0)
        seg = 1;
    int right = ring_mod(rank + 1, p), left = ring_mod(rank - 1, p), steps = p - 1;
    size_t max_block = trl_block_len(n, p, 0), np = pieces_of(max_block, seg);
    size_t slots = steps < 2 ? 1 : 2;
    size_t scratch = trl_sched_scratch(s, slots * max_block);

    /* Step ids per (step, piece): the reduce-scatter's sends and combines
     * for all steps, the allgather's receives of the step before. -1 where
     * a block has fewer pieces. */
    size_t cells = (size_t)steps * np;
    int *rs_sent = malloc(cells * sizeof *rs_sent);
    int *combined = malloc(cells * sizeof *combined);
    int *ag_got = malloc(2 * np * sizeof *ag_got);
    int *slot_read = malloc(2 * np * sizeof *slot_read);
    if (!rs_sent || !combined || !ag_got || !slot_read) {
        free(rs_sent);
        free(combined);
        free(ag_got);
        free(slot_read);
        return TRL_ERR_NOMEM;
    }
    for (size_t i = 0; i < cells; i++)
        rs_sent[i] = combined[i] = -1;
    for (size_t i = 0; i < 2 * np; i++)
        ag_got[i] = slot_read[i] = -1;
#define AT(arr, k, j) (arr)[(size_t)(k)*np + (j)]

    /* Reduce-scatter. */
    trl_sched_phase(s, "reduce-scatter");
    for (int k = 0; k < steps; k++) {
        int sb = rs_send_block(rank, k, p), rb = rs_recv_block(rank, k, p);
        size_t soff = trl_block_off(n, p, sb), slen = trl_block_len(n, p, sb);
        size_t roff = trl_block_off(n, p, rb), rlen = trl_block_len(n, p, rb);

        /* Step 0 sends the rank's own block straight from SEND. */
        for (size_t j = 0; j < pieces_of(slen, seg); j++) {
            trl_ref src = trl_ref_at(k == 0 ? TRL_BUF_SEND : TRL_BUF_RECV, soff + j * seg);
            int dep = k == 0 ? -1 : AT(combined, k - 1, j);
            AT(rs_sent, k, j) = trl_sched_send(s, right, src, piece_len(slen, seg, j),
                                               TRL_DEPS(dep));
        }

        int copied = -1;
        if (rlen > 0)
            copied = trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, roff),
                                    trl_ref_at(TRL_BUF_RECV, roff), rlen, TRL_NODEPS);
        size_t slot = scratch + (size_t)(k % 2) * max_block;
        int *last_read = slot_read + (size_t)(k % 2) * np;
        for (size_t j = 0; j < pieces_of(rlen, seg); j++) {
            size_t len = piece_len(rlen, seg, j);
            trl_ref tmp = trl_ref_at(TRL_BUF_SCRATCH, slot + j * seg);
            /* Wait for the last combine that read this piece of the slot:
             * usually two steps ago, earlier where a block in between was
             * empty or shorter. Pieces start at multiples of the segment,
             * so piece j overlaps only piece j of another step. */
            int got = trl_sched_recv(s, left, tmp, len, TRL_DEPS(last_read[j]));
            AT(combined, k, j) = trl_sched_reduce(s, tmp, trl_ref_at(TRL_BUF_RECV, roff + j * seg),
                                                  len, TRL_DEPS(got, copied));
            last_read[j] = AT(combined, k, j);
        }
    }

    /* Allgather. */
    trl_sched_phase(s, "allgather");
    for (int k = 0; k < steps; k++) {
        int sb = ag_send_block(rank, k, p), rb = ag_recv_block(rank, k, p);
        size_t soff = trl_block_off(n, p, sb), slen = trl_block_len(n, p, sb);
        size_t roff = trl_block_off(n, p, rb), rlen = trl_block_len(n, p, rb);
        int *prev = ag_got + (size_t)((k + 1) % 2) * np, *cur = ag_got + (size_t)(k % 2) * np;

        /* Step 0 sends the block this rank finished reducing; later steps
         * pass on what arrived in the step before. */
        for (size_t j = 0; j < pieces_of(slen, seg); j++) {
            int dep = k == 0 ? AT(combined, steps - 1, j) : prev[j];
            trl_sched_send(s, right, trl_ref_at(TRL_BUF_RECV, soff + j * seg),
                           piece_len(slen, seg, j), TRL_DEPS(dep));
        }
        for (size_t j = 0; j < np; j++)
            cur[j] = -1;
        /* The block arriving was sent on in the same step of the
         * reduce-scatter (in place, at step 0, straight from the user's
         * vector): the piece must have left before it is overwritten. */
        for (size_t j = 0; j < pieces_of(rlen, seg); j++)
            cur[j] = trl_sched_recv(s, left, trl_ref_at(TRL_BUF_RECV, roff + j * seg),
                                    piece_len(rlen, seg, j), TRL_DEPS(AT(rs_sent, k, j)));
    }
#undef AT

    free(rs_sent);
    free(combined);
    free(ag_got);
    free(slot_read);
    return s->status;
}
