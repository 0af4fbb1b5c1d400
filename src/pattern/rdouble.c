#include "pattern/rdouble.h"

int trl_rd_pof2(int p)
{
    int pof2 = 1;
    while (pof2 <= p / 2)
        pof2 *= 2;
    return pof2;
}

int trl_rd_ceil_log2(int p)
{
    int k = 0;
    while ((1LL << k) < p)
        k++;
    return k;
}

static int fold_rem(int p)
{
    return p - trl_rd_pof2(p);
}

bool trl_rd_fold_sits_out(int rank, int p)
{
    return rank < 2 * fold_rem(p) && rank % 2 == 0;
}

int trl_rd_fold_newrank(int rank, int p)
{
    int rem = fold_rem(p);
    if (rank < 2 * rem)
        return rank % 2 ? rank / 2 : -1;
    return rank - rem;
}

int trl_rd_fold_rank(int newrank, int p)
{
    int rem = fold_rem(p);
    return newrank < rem ? 2 * newrank + 1 : newrank + rem;
}

int trl_rd_fold_partner(int rank, int p)
{
    if (rank >= 2 * fold_rem(p))
        return -1;
    return rank ^ 1;
}

int trl_rd_window(int newrank, int width)
{
    return newrank & ~(width - 1);
}

int trl_rd_dissem_to(int rank, int p, int k)
{
    return (int)(((long long)rank + (1LL << k)) % p);
}

int trl_rd_dissem_from(int rank, int p, int k)
{
    long long d = (1LL << k) % p;
    return (int)(((long long)rank - d + p) % p);
}

size_t trl_block_off(size_t count, int nblocks, int b)
{
    size_t n = (size_t)nblocks, i = (size_t)b;
    size_t base = count / n, extra = count % n;
    return i * base + (i < extra ? i : extra);
}

size_t trl_block_len(size_t count, int nblocks, int b)
{
    size_t n = (size_t)nblocks;
    return count / n + ((size_t)b < count % n ? 1 : 0);
}
