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

#include <string.h>

/* Branch-free, so the compiler vectorises the interleaved pairs. */
#define LOC_KERNEL(name, P, BETTER)                                         \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)     \
    {                                                                       \
        typedef P pu __attribute__((aligned(1)));                           \
        const pu *restrict a = in;                                          \
        pu *restrict b = inout;                                             \
        TRL_LOOP(n, sizeof(P), a, b, LOC_STEP(BETTER));                     \
    }
#define LOC_STEP(BETTER)                                                    \
    {                                                                       \
        int better = a[i].v BETTER b[i].v, tie = a[i].v == b[i].v;          \
        int lower = a[i].k < b[i].k ? a[i].k : b[i].k;                      \
        int k = better ? a[i].k : tie ? lower : b[i].k;                     \
        b[i].v = better ? a[i].v : b[i].v;                                  \
        b[i].k = k;                                                         \
    }
#define LOC_KERNELS(suffix, P)            \
    LOC_KERNEL(minloc_##suffix, P, <)     \
    LOC_KERNEL(maxloc_##suffix, P, >)

/* long double does not vectorise (x87), and loading and storing it there
 * is slow: compare, then copy the bytes only where the pair changes. */
#define LOC_KERNEL_SCALAR(name, P, BETTER)                                  \
    static void name(const void *in, void *inout, size_t n)                \
    {                                                                       \
        typedef P pu __attribute__((aligned(1)));                           \
        const pu *restrict a = in;                                          \
        pu *restrict b = inout;                                             \
        for (size_t i = 0; i < n; i++) {                                    \
            if (a[i].v BETTER b[i].v)                                       \
                memcpy(&b[i], &a[i], sizeof(P));                            \
            else if (a[i].v == b[i].v && a[i].k < b[i].k)                   \
                b[i].k = a[i].k;                                            \
        }                                                                   \
    }

LOC_KERNELS(float_int, trl_float_int)
LOC_KERNELS(double_int, trl_double_int)
LOC_KERNELS(long_int, trl_long_int)
LOC_KERNELS(2int, trl_2int)
LOC_KERNELS(short_int, trl_short_int)
LOC_KERNEL_SCALAR(minloc_long_double_int, trl_long_double_int, <)
LOC_KERNEL_SCALAR(maxloc_long_double_int, trl_long_double_int, >)

/* Per pair type: {MINLOC, MAXLOC}. */
static const trl_reduce_fn pairs[][2] = {
    [TRL_KIND_FLOAT_INT - TRL_KIND_FLOAT_INT] = {minloc_float_int, maxloc_float_int},
    [TRL_KIND_DOUBLE_INT - TRL_KIND_FLOAT_INT] = {minloc_double_int, maxloc_double_int},
    [TRL_KIND_LONG_INT - TRL_KIND_FLOAT_INT] = {minloc_long_int, maxloc_long_int},
    [TRL_KIND_2INT - TRL_KIND_FLOAT_INT] = {minloc_2int, maxloc_2int},
    [TRL_KIND_SHORT_INT - TRL_KIND_FLOAT_INT] = {minloc_short_int, maxloc_short_int},
    [TRL_KIND_LONG_DOUBLE_INT - TRL_KIND_FLOAT_INT] = {minloc_long_double_int,
                                                       maxloc_long_double_int},
};

trl_reduce_fn trl_reduce_kernel_loc(trl_reduce_op op, trl_reduce_kind kind)
{
    if ((op != TRL_OP_MINLOC && op != TRL_OP_MAXLOC) || kind < TRL_KIND_FLOAT_INT ||
        kind >= TRL_KIND_COUNT)
        return NULL;
    return pairs[kind - TRL_KIND_FLOAT_INT][op - TRL_OP_MINLOC];
}
