/* Bruck alltoall: ceil(log2 p) rounds; in round k every rank sends to rank
 * +2^k, in one message, all the blocks whose distance has bit k set.
 *
 * Number a block by its distance d = (destination - source) mod p. A block
 * travels from its source to its destination in hops of 2^k, one for each
 * bit k set in d, lowest bit first, always keeping its distance as its
 * index. So in round k rank r sends to r+2^k the blocks it holds with bit
 * k set in d (their next hop) and receives the same indices from r-2^k.
 * After the last round a rank holds, under index d, the block that rank
 * r-d sent it.
 *
 * Cost: ceil(log2 p) alpha + (n beta) * (sum over rounds of the blocks
 * with bit k set), about ceil(log2 p)(alpha + p n beta / 2): fewer
 * messages than linear or pairwise, more bytes (each block moves
 * popcount(d) times), so it suits small blocks.
 * From: Bruck, Ho, Kipnis, Upfal, Weathersby, "Efficient algorithms for
 * all-to-all communications in multiport message-passing systems" (1997);
 * the index algorithm MPICH uses for short alltoall messages.
 * Any number of ranks: the rounds are those of ceil(log2 p) bits and only
 * distances 1..p-1 exist; the last round simply carries fewer blocks.
 *
 * Where blocks live (the textbook rotates SEND into scratch first and
 * rotates back into RECV at the end; here both rotations are folded away):
 *  - until its first hop (the round of its lowest set bit) block d is
 *    still in the user's SEND at (r+d)*n, and is packed from there;
 *  - after a hop it lives in its final slot in RECV, (r-d)*n, so once its
 *    last hop is done it is already in place. In between, a later hop
 *    packs it from there.
 * Each round packs its blocks into one scratch area (one copy per block),
 * sends it, receives into a second area, and unpacks into RECV. A round
 * that moves a single block on its first hop (every round for p = 2 and 3,
 * the last one for p = 2^k + 1) sends it straight from SEND and receives
 * it straight into RECV.
 *
 * Dependencies, per block d: a pack waits for the unpack that brought d
 * (read after write); the next unpack of d waits for that pack (write
 * after read of its RECV slot). The pack area is rewritten only after the
 * previous round's send has completed, the receive area only after the
 * previous round's unpacks. Blocks on their first hop are packed with no
 * wait on received data.
 * count 0: nothing at all.
 */
#include <stdlib.h>

#include "algo/builders.h"
#include "core/status.h"
#include "pattern/rdouble.h"

int trl_alltoall_bruck(const trl_coll_args *a, trl_sched *s)
{
    int p = a->size, rank = a->rank, rounds = trl_rd_ceil_log2(p);
    size_t n = a->count;
    if (n == 0)
        return s->status;
    trl_sched_copy(s, trl_ref_at(TRL_BUF_SEND, (size_t)rank * n),
                   trl_ref_at(TRL_BUF_RECV, (size_t)rank * n), n, TRL_NODEPS);
    if (p == 1)
        return s->status;

    /* The largest number of blocks a round moves; scratch only where some
     * round packs (more than one block, or a block after its first hop). */
    int maxnb = 0;
    bool packs = false;
    for (int k = 0; k < rounds; k++) {
        int bit = 1 << k, nb = 0, first = 0;
        for (int d = 1; d < p; d++)
            if (d & bit) {
                nb++;
                first = d;
            }
        maxnb = nb > maxnb ? nb : maxnb;
        packs |= nb > 1 || (first & (bit - 1)) != 0;
    }
    size_t pack = 0, land = 0;
    if (packs) {
        pack = trl_sched_scratch(s, (size_t)maxnb * n);
        land = trl_sched_scratch(s, (size_t)maxnb * n);
    }

    /* Per distance: the step that last wrote its RECV slot (-1: the block
     * is still in SEND) and the step that last read it. Per receive-area
     * slot: the unpack that last read it. */
    int *written = malloc((size_t)p * sizeof *written);
    int *read = malloc((size_t)p * sizeof *read);
    int *unpacked = malloc((size_t)maxnb * sizeof *unpacked);
    int *packed = malloc((size_t)maxnb * sizeof *packed);
    if (!written || !read || !unpacked || !packed) {
        free(written);
        free(read);
        free(unpacked);
        free(packed);
        return TRL_ERR_NOMEM;
    }
    for (int d = 0; d < p; d++)
        written[d] = read[d] = -1;
    for (int j = 0; j < maxnb; j++)
        unpacked[j] = -1;
    int pack_sent = -1; /* the send that last read the pack area */

#define SRC_SLOT(d) trl_ref_at(TRL_BUF_SEND, (size_t)((rank + (d)) % p) * n)
#define DST_SLOT(d) trl_ref_at(TRL_BUF_RECV, (size_t)((rank - (d) + p) % p) * n)

    for (int k = 0; k < rounds; k++) {
        int bit = 1 << k, to = (rank + bit) % p, from = (rank - bit + p) % p;
        int nb = 0, only = 0;
        for (int d = 1; d < p; d++)
            if (d & bit) {
                nb++;
                only = d;
            }
        if (nb == 1 && written[only] < 0) {
            /* One block, on its first hop: no packing either side. Its
             * RECV slot is untouched so far (nothing reads it). */
            trl_sched_send(s, to, SRC_SLOT(only), n, TRL_NODEPS);
            written[only] = trl_sched_recv(s, from, DST_SLOT(only), n, TRL_NODEPS);
            continue;
        }

        int j = 0;
        for (int d = 1; d < p; d++) {
            if (!(d & bit))
                continue;
            trl_ref dst = trl_ref_at(TRL_BUF_SCRATCH, pack + (size_t)j * n);
            if (written[d] < 0) {
                packed[j] = trl_sched_copy(s, SRC_SLOT(d), dst, n, TRL_DEPS(pack_sent));
            } else {
                packed[j] = trl_sched_copy(s, DST_SLOT(d), dst, n, TRL_DEPS(pack_sent, written[d]));
                read[d] = packed[j];
            }
            j++;
        }
        pack_sent = trl_sched_send(s, to, trl_ref_at(TRL_BUF_SCRATCH, pack), (size_t)nb * n, packed,
                                   nb);
        int got = trl_sched_recv(s, from, trl_ref_at(TRL_BUF_SCRATCH, land), (size_t)nb * n,
                                 unpacked, maxnb);
        j = 0;
        for (int d = 1; d < p; d++) {
            if (!(d & bit))
                continue;
            trl_ref src = trl_ref_at(TRL_BUF_SCRATCH, land + (size_t)j * n);
            written[d] = unpacked[j] = trl_sched_copy(s, src, DST_SLOT(d), n,
                                                      TRL_DEPS(got, read[d]));
            j++;
        }
    }
#undef SRC_SLOT
#undef DST_SLOT

    free(written);
    free(read);
    free(unpacked);
    free(packed);
    return s->status;
}
