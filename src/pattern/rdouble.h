/* Peer math for the exchange patterns that double or halve a distance each
 * round: recursive doubling, recursive halving and dissemination, plus the
 * split of a vector into nearly equal blocks that the halving and ring
 * algorithms share. Pure functions of (rank, size, round): no buffers, no
 * steps.
 *
 * Folding a non-power-of-two number of ranks (MPICH's scheme). With p ranks,
 * pof2 the largest power of two not above p and rem = p - pof2, the first
 * 2*rem ranks pair up: each even rank 2i hands its data to the odd rank
 * 2i+1 and sits out, so 2i+1 stands for both. The remaining ranks keep
 * their order. The pof2 ranks that take part get new ranks 0..pof2-1 in
 * the same order as their old ranks, and each stands for a contiguous range
 * of old ranks, so a non-commutative reduction over new ranks in order is
 * the reduction over the old ranks in order. For p = 7: pof2 = 4, rem = 3,
 * ranks 0..5 pair up and rank 6 keeps its place:
 *
 *     old:  0 1   2 3   4 5   6
 *     new:  - 0   - 1   - 2   3
 *
 * At the end the odd rank hands the result back to its even partner.
 */
#ifndef TRL_PATTERN_RDOUBLE_H
#define TRL_PATTERN_RDOUBLE_H

#include <stdbool.h>
#include <stddef.h>

/* The largest power of two not above p (p >= 1). */
int trl_rd_pof2(int p);

/* The number of rounds of a dissemination over p ranks: ceil(log2 p). */
int trl_rd_ceil_log2(int p);

/* The rank's new rank after folding p ranks onto pof2, or -1 if it sits
 * out (an even rank below 2*rem). */
int trl_rd_fold_newrank(int rank, int p);

/* The old rank that holds new rank `newrank` after folding. */
int trl_rd_fold_rank(int newrank, int p);

/* The rank's partner in the fold (it hands its data to, or takes data
 * from, this rank), or -1 if it is not folded. */
int trl_rd_fold_partner(int rank, int p);

/* True if the rank sits out and hands its data over (even, below 2*rem). */
bool trl_rd_fold_sits_out(int rank, int p);

/* The first block of the aligned window of `width` blocks (a power of two)
 * that holds block `newrank`. Recursive halving keeps the window of its own
 * new rank and sends the partner's (newrank ^ width) at each width from
 * pof2/2 down to 1; recursive doubling sends its own window and receives the
 * partner's at each width from 1 up to pof2/2. */
int trl_rd_window(int newrank, int width);

/* Dissemination round k (0 <= k < ceil(log2 p)): signal (rank + 2^k) mod p
 * and hear from (rank - 2^k) mod p. */
int trl_rd_dissem_to(int rank, int p, int k);
int trl_rd_dissem_from(int rank, int p, int k);

/* Split count elements into nblocks blocks as evenly as possible, the
 * remainder spread one element each over the first blocks: the offset of
 * block b (0 <= b <= nblocks; b == nblocks gives count) and its length. */
size_t trl_block_off(size_t count, int nblocks, int b);
size_t trl_block_len(size_t count, int nblocks, int b);

#endif
