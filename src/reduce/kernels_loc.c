/* MINLOC and MAXLOC on MPI's pair types (a value and an int index):
 * `inout[i] = in[i] op inout[i]`.
 *
 * Cost: one pass over both buffers; vectorised, except long double.
 *
 * MPI's rule: the pair with the smaller (MINLOC) or larger (MAXLOC) value;
 * on equal values that value with the smaller of the two indices. Where
 * the values do not compare (a NaN) inout stays as it is, as in the MPI
 * libraries' kernels; on equal values inout's value is kept (+0 and -0
 * compare equal).
 */
#include "reduce/kernels.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Branch-free, so the compiler vectorises the interleaved pairs. */
#define LOC_KERNEL(name, P, BETTER)                                                                \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        typedef P pu __attribute__((aligned(1)));                                                  \
        const pu *restrict a = in;                                                                 \
        pu *restrict b = inout;                                                                    \
        TRL_LOOP(n, sizeof(P), b, LOC_STEP(BETTER));                                               \
    }
#define LOC_STEP(BETTER)                                                                           \
    {                                                                                              \
        int better = a[i].v BETTER b[i].v, tie = a[i].v == b[i].v;                                 \
        int lower = a[i].k < b[i].k ? a[i].k : b[i].k;                                             \
        int k = better ? a[i].k : tie ? lower : b[i].k;                                            \
        b[i].v = better ? a[i].v : b[i].v;                                                         \
        b[i].k = k;                                                                                \
    }
#define LOC_KERNELS(suffix, P)                                                                     \
    LOC_KERNEL(minloc_##suffix, P, <)                                                              \
    LOC_KERNEL(maxloc_##suffix, P, >)

/* long double does not vectorise (x87), and loading and storing it there
 * is slow: compare, then copy the bytes only where the pair changes. */
#define LOC_KERNEL_SCALAR(name, P, BETTER)                                                         \
    static void name(const void *in, void *inout, size_t n)                                        \
    {                                                                                              \
        typedef P pu __attribute__((aligned(1)));                                                  \
        const pu *restrict a = in;                                                                 \
        pu *restrict b = inout;                                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (a[i].v BETTER b[i].v) {                                                            \
                memcpy(&b[i].v, &a[i].v, sizeof a[i].v);                                           \
                b[i].k = a[i].k;                                                                   \
            } else if (a[i].v == b[i].v && a[i].k < b[i].k)                                        \
                b[i].k = a[i].k;                                                                   \
        }                                                                                          \
    }

LOC_KERNELS(float_int, trl_float_int)
LOC_KERNELS(double_int, trl_double_int)

/* Pairs with an integer value: equal values are equal bits, so on a tie
 * the whole element with the smaller index can be taken, and an element is
 * one or two 64-bit words selected whole (value and index in one word on a
 * little-endian machine for the 8-byte pairs). GCC vectorises the 8-byte
 * ones with far fewer shuffles than the struct loop above: MAXLOC on
 * MPI_SHORT_INT ran at 0.79-0.90 of Open MPI's speed from 1 KiB to 4 MiB
 * with the struct loop, on data whose branches Open MPI's scalar kernel
 * predicts, and 1.2-1.5x with this. Padding is a hole in MPI's type: the
 * selection covers the value's and the index's bytes only, so inout's
 * padding stays as it was (one AND per word). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint64_t word __attribute__((aligned(1)));
#define WORD_PAIR_KERNEL(name, P, VT, BETTER)                                                      \
    _Static_assert(sizeof(P) == 8 && offsetof(P, v) == 0 && offsetof(P, k) == 4,                   \
                   #P " is one word: value, then index in the upper half");                        \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        const word *restrict a = in;                                                               \
        word *restrict b = inout;                                                                  \
        const uint64_t data = ~(uint64_t)0 << 32 | (~(uint64_t)0 >> (64 - 8 * sizeof(VT)));        \
        TRL_LOOP(n, 8, b, {                                                                        \
            uint64_t x = a[i];                                                                     \
            uint64_t y = b[i];                                                                     \
            VT xv = (VT)x;                                                                         \
            VT yv = (VT)y;                                                                         \
            int take = xv BETTER yv;                                                               \
            take |= xv == yv && (int32_t)(x >> 32) < (int32_t)(y >> 32);                           \
            uint64_t from_x = take ? data : 0;                                                     \
            b[i] = (x & from_x) | (y & ~from_x);                                                   \
        });                                                                                        \
    }
/* The 16-byte pairs (MPI_LONG_INT): GNU C vectors of four elements, words
 * v0 k0 v1 k1 ..: the values compare in the even words, the indices in the
 * odd ones; one shuffle moves each index comparison next to its value, one
 * spreads the choice over both words. The compiler's own vectorisation of
 * the element loop needed 40 shuffles and ran at 0.8 of Open MPI's speed
 * on data whose branches its scalar kernel predicts. */
typedef int64_t four_pairs __attribute__((vector_size(64)));
typedef uint64_t four_pairs_bits __attribute__((vector_size(64)));
typedef struct {
    four_pairs w;
} four_pairs_u __attribute__((aligned(1)));
#define TWO_WORD_PAIR_STEP(BETTER, a, b, e)                                                        \
    {                                                                                              \
        int take = a[e].v BETTER b[e].v;                                                           \
        take |= a[e].v == b[e].v && a[e].k < b[e].k;                                               \
        b[e].v = take ? a[e].v : b[e].v;                                                           \
        b[e].k = take ? a[e].k : b[e].k;                                                           \
    }
#define TWO_WORD_PAIR_KERNEL(name, P, BETTER)                                                      \
    _Static_assert(sizeof(P) == 16 && offsetof(P, v) == 0 && offsetof(P, k) == 8,                  \
                   #P " is two words: value, then index in the low half");                         \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        typedef P pu __attribute__((aligned(1)));                                                  \
        const pu *restrict a = in;                                                                 \
        pu *restrict b = inout;                                                                    \
        const four_pairs to_value = {1, 0, 3, 2, 5, 4, 7, 6};                                      \
        const four_pairs to_both = {0, 0, 2, 2, 4, 4, 6, 6};                                       \
        /* the odd words' upper halves are padding: never taken from in */                         \
        const four_pairs data = {-1, 0xFFFFFFFF, -1, 0xFFFFFFFF, -1, 0xFFFFFFFF, -1, 0xFFFFFFFF};  \
        size_t e = 0;                                                                              \
        /* aligned at every size: 0.9 of the speed from L1 otherwise */                            \
        for (size_t head = trl_head_to_line(inout, sizeof(P), n); e < head; e++)                   \
            TWO_WORD_PAIR_STEP(BETTER, a, b, e)                                                    \
        const four_pairs_u *restrict ga = (const void *)&a[e];                                     \
        four_pairs_u *restrict gb = (void *)&b[e];                                                 \
        size_t groups = (n - e) / 4;                                                               \
        TRL_LOOP(groups, sizeof(four_pairs), gb, {                                                 \
            four_pairs x = ga[i].w;                                                                \
            four_pairs y = gb[i].w;                                                                \
            four_pairs lower_index = /* odd words: the int index, signed */                        \
                (four_pairs)((four_pairs_bits)x << 32) < (four_pairs)((four_pairs_bits)y << 32);   \
            four_pairs take = (x BETTER y) |                                                       \
                              ((x == y) & __builtin_shuffle(lower_index, to_value));               \
            take = __builtin_shuffle(take, to_both) & data;                                        \
            gb[i].w = (x & take) | (y & ~take);                                                    \
        });                                                                                        \
        for (e += 4 * groups; e < n; e++)                                                          \
            TWO_WORD_PAIR_STEP(BETTER, a, b, e)                                                    \
    }
WORD_PAIR_KERNEL(minloc_2int, trl_2int, int32_t, <)
WORD_PAIR_KERNEL(maxloc_2int, trl_2int, int32_t, >)
WORD_PAIR_KERNEL(minloc_short_int, trl_short_int, int16_t, <)
WORD_PAIR_KERNEL(maxloc_short_int, trl_short_int, int16_t, >)
#if __SIZEOF_LONG__ == 8
TWO_WORD_PAIR_KERNEL(minloc_long_int, trl_long_int, <)
TWO_WORD_PAIR_KERNEL(maxloc_long_int, trl_long_int, >)
#else
LOC_KERNELS(long_int, trl_long_int)
#endif
#else
LOC_KERNELS(long_int, trl_long_int)
LOC_KERNELS(2int, trl_2int)
LOC_KERNELS(short_int, trl_short_int)
#endif
LOC_KERNEL_SCALAR(minloc_long_double_int, trl_long_double_int, <)
LOC_KERNEL_SCALAR(maxloc_long_double_int, trl_long_double_int, >)

/* The last element ends at its index: its trailing padding (MPI_DOUBLE_INT,
 * MPI_LONG_INT, MPI_LONG_DOUBLE_INT) may lie past the end of a buffer sized
 * by the true extent, as the executor's scratch is. The kernels above load
 * and store whole elements, so they stop one short and the last element
 * goes field by field. */
#define LAST_BY_FIELDS(kernel, P, BETTER)                                                          \
    static void kernel##_tight(const void *in, void *inout, size_t n)                              \
    {                                                                                              \
        if (n == 0)                                                                                \
            return;                                                                                \
        kernel(in, inout, n - 1);                                                                  \
        const char *x = (const char *)in + (n - 1) * sizeof(P);                                    \
        char *y = (char *)inout + (n - 1) * sizeof(P);                                             \
        __typeof__(((P *)0)->v) xv, yv;                                                            \
        int xk, yk;                                                                                \
        memcpy(&xv, x + offsetof(P, v), sizeof xv);                                                \
        memcpy(&yv, y + offsetof(P, v), sizeof yv);                                                \
        memcpy(&xk, x + offsetof(P, k), sizeof xk);                                                \
        memcpy(&yk, y + offsetof(P, k), sizeof yk);                                                \
        if (xv BETTER yv) {                                                                        \
            memcpy(y + offsetof(P, v), &xv, sizeof xv);                                            \
            memcpy(y + offsetof(P, k), &xk, sizeof xk);                                            \
        } else if (xv == yv && xk < yk) {                                                          \
            memcpy(y + offsetof(P, k), &xk, sizeof xk);                                            \
        }                                                                                          \
    }
#define LAST_BY_FIELDS_BOTH(suffix, P)                                                             \
    LAST_BY_FIELDS(minloc_##suffix, P, <)                                                          \
    LAST_BY_FIELDS(maxloc_##suffix, P, >)
LAST_BY_FIELDS_BOTH(float_int, trl_float_int)
LAST_BY_FIELDS_BOTH(double_int, trl_double_int)
LAST_BY_FIELDS_BOTH(long_int, trl_long_int)
LAST_BY_FIELDS_BOTH(2int, trl_2int)
LAST_BY_FIELDS_BOTH(short_int, trl_short_int)
LAST_BY_FIELDS_BOTH(long_double_int, trl_long_double_int)

/* Per pair type: {MINLOC, MAXLOC}. */
static const trl_reduce_fn pairs[][2] = {
    [TRL_KIND_FLOAT_INT - TRL_KIND_FLOAT_INT] = {minloc_float_int_tight, maxloc_float_int_tight},
    [TRL_KIND_DOUBLE_INT - TRL_KIND_FLOAT_INT] = {minloc_double_int_tight, maxloc_double_int_tight},
    [TRL_KIND_LONG_INT - TRL_KIND_FLOAT_INT] = {minloc_long_int_tight, maxloc_long_int_tight},
    [TRL_KIND_2INT - TRL_KIND_FLOAT_INT] = {minloc_2int_tight, maxloc_2int_tight},
    [TRL_KIND_SHORT_INT - TRL_KIND_FLOAT_INT] = {minloc_short_int_tight, maxloc_short_int_tight},
    [TRL_KIND_LONG_DOUBLE_INT -
        TRL_KIND_FLOAT_INT] = {minloc_long_double_int_tight, maxloc_long_double_int_tight},
};

trl_reduce_fn trl_reduce_kernel_loc(trl_reduce_op op, trl_reduce_kind kind)
{
    if ((op != TRL_OP_MINLOC && op != TRL_OP_MAXLOC) || kind < TRL_KIND_FLOAT_INT ||
        kind >= TRL_KIND_COUNT)
        return NULL;
    return pairs[kind - TRL_KIND_FLOAT_INT][op - TRL_OP_MINLOC];
}
