/* MAX, MIN, SUM and PROD on integers, floating point and (SUM, PROD)
 * complex numbers: `inout[i] = in[i] op inout[i]`.
 *
 * Cost: one pass over both buffers, memory-bound above the caches; the
 * compiler vectorises every kernel here except the long double ones (x87).
 *
 * Integers: SUM and PROD wrap modulo 2^bits, as the MPI libraries' do,
 * computed in unsigned arithmetic (signed overflow is undefined in C), so
 * signed and unsigned share one kernel per width. MAX and MIN compare
 * signed or unsigned.
 *
 * Floating point: each element is one IEEE operation, so results are exact
 * whatever the vector width. MAX and MIN are `inout > in ? inout : in` (and
 * `<`): where the comparison is false (a NaN, or +0 against -0) the result
 * is `in`. That is the generic kernel of Open MPI and MPICH; Open MPI 4.1's
 * AVX kernel answers `inout` there instead for counts it vectorises, so
 * MPI_Reduce_local itself disagrees with itself on NaNs and signed zeros.
 * It also compiles to maxps/minps as it stands.
 *
 * Complex PROD is C's `in * inout`: the textbook formula, vectorised, and
 * for an element whose real and imaginary parts both come out NaN C's full
 * Annex G product (inf and NaN recovery), as the compiler's own expansion
 * does. The files are built with -ffp-contract=off, so no multiply-add is
 * fused and the textbook formula rounds exactly as C's.
 */
#include "reduce/kernels.h"

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Alignment-1 element types: kernels.h. */
typedef int8_t i8u __attribute__((aligned(1)));
typedef uint8_t u8u __attribute__((aligned(1)));
typedef int16_t i16u __attribute__((aligned(1)));
typedef uint16_t u16u __attribute__((aligned(1)));
typedef int32_t i32u __attribute__((aligned(1)));
typedef uint32_t u32u __attribute__((aligned(1)));
typedef int64_t i64u __attribute__((aligned(1)));
typedef uint64_t u64u __attribute__((aligned(1)));
typedef float f32u __attribute__((aligned(1)));
typedef double f64u __attribute__((aligned(1)));
typedef long double fldu __attribute__((aligned(1)));
typedef float complex c32u __attribute__((aligned(1)));
typedef double complex c64u __attribute__((aligned(1)));
typedef long double complex cldu __attribute__((aligned(1)));

#define MAX_OF(x, y) ((y) > (x) ? (y) : (x))
#define MIN_OF(x, y) ((y) < (x) ? (y) : (x))

#define INTEGER_KERNELS(bits)                                                                      \
    TRL_ELEMENTWISE(sum_u##bits, u##bits##u, (uint##bits##_t)(x + y))                              \
    TRL_ELEMENTWISE(max_i##bits, i##bits##u, MAX_OF(x, y))                                         \
    TRL_ELEMENTWISE(min_i##bits, i##bits##u, MIN_OF(x, y))                                         \
    TRL_ELEMENTWISE(max_u##bits, u##bits##u, MAX_OF(x, y))                                         \
    TRL_ELEMENTWISE(min_u##bits, u##bits##u, MIN_OF(x, y))
INTEGER_KERNELS(8)
INTEGER_KERNELS(16)
INTEGER_KERNELS(32)
INTEGER_KERNELS(64)

/* 1u * x * y: the product in unsigned arithmetic even where the operands
 * would promote to int (8 and 16 bits), so it wraps instead of overflowing. */
#define INTEGER_PROD(bits) TRL_ELEMENTWISE(prod_u##bits, u##bits##u, (uint##bits##_t)(1u * x * y))
INTEGER_PROD(8)
INTEGER_PROD(16)
INTEGER_PROD(32)
INTEGER_PROD(64)

/* 8-bit PROD from 64 KiB: two bytes to a 16-bit lane. No vector unit
 * multiplies bytes, and the compiler's plain loop widens every byte to 16
 * bits and packs the products back (0.79-0.94 of Open MPI's AVX-512 kernel
 * at 64 KiB-1 MiB, three runs). Here the even byte's product is the low byte
 * of x * y, and the odd byte's the high byte of (x >> 8) * (y & 0xff00),
 * whose low byte is 0: two 16-bit multiplies a lane, no widening (1.04-1.16
 * there). Each byte keeps its own position, so the byte order does not
 * matter. Below 64 KiB the pairs measured 0.75-0.91 of Open MPI's at
 * 1-16 KiB: prod_u8_small serves those (docs/notebook/kernels.md,
 * "Reduction kernels"). */
typedef uint16_t u16a __attribute__((aligned(1), may_alias));
#define PROD_BYTE_PAIR(x, y) ((uint16_t)(((1u * (x) * (y)) & 0xffu) | (((x) >> 8) * ((y)&0xff00u))))
static TRL_KERNEL void prod_u8_pair_lanes(const void *in, void *inout, size_t pairs)
{
    const u16a *restrict a = in;
    u16a *restrict b = inout;
    TRL_LOOP(pairs, sizeof(uint16_t), b, {
        uint16_t x = a[i]; /* no comma: this is a macro argument */
        uint16_t y = b[i];
        b[i] = PROD_BYTE_PAIR(x, y);
    });
}

static void prod_u8_pairs(const void *in, void *inout, size_t n)
{
    const uint8_t *a8 = in;
    uint8_t *b8 = inout;
    /* One byte first where inout is odd, so the lanes fall on even addresses
     * (and large buffers can reach a line boundary); one last if n is odd. */
    size_t head = n && (uintptr_t)b8 % 2;
    if (head)
        b8[0] = (uint8_t)(1u * a8[0] * b8[0]);
    prod_u8_pair_lanes(a8 + head, b8 + head, (n - head) / 2);
    if ((n - head) % 2)
        b8[n - 1] = (uint8_t)(1u * a8[n - 1] * b8[n - 1]);
}

/* Below 64 KiB, with AVX-512BW: 32 bytes at a time widened to 16-bit lanes,
 * one 512-bit multiply, narrowed back (the method of Open MPI's AVX-512
 * kernel). GCC's loop takes 64 bytes a turn and needs six shuffles to
 * split and rejoin them: 0.69-0.78 of the library's speed at 1-16 KiB in
 * three runs, this one 0.93-1.01 (docs/notebook/kernels.md, "Reduction kernels"). */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
__attribute__((target("avx512f,avx512bw"))) static void prod_u8_widen32(const void *in, void *inout,
                                                                        size_t n)
{
    const uint8_t *a = in;
    uint8_t *b = inout;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i x = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(a + i)));
        __m512i y = _mm512_cvtepu8_epi16(_mm256_loadu_si256((const __m256i *)(b + i)));
        _mm256_storeu_si256((__m256i *)(b + i), _mm512_cvtepi16_epi8(_mm512_mullo_epi16(x, y)));
    }
    prod_u8(a + i, b + i, n - i); /* the last 0..31 bytes */
}
static trl_reduce_fn prod_u8_small(void)
{
    static trl_reduce_fn chosen; /* the same on every thread: a race is harmless */
    if (!chosen)
        chosen = __builtin_cpu_supports("avx512bw") ? prod_u8_widen32 : prod_u8;
    return chosen;
}
#else
static trl_reduce_fn prod_u8_small(void)
{
    return prod_u8;
}
#endif

static void prod_u8_by_size(const void *in, void *inout, size_t n)
{
    (n < TRL_ALIGN_FROM_BYTES ? prod_u8_small() : prod_u8_pairs)(in, inout, n);
}

#define REAL_KERNELS(KERNEL, suffix, T)                                                            \
    KERNEL(sum_##suffix, T, x + y)                                                                 \
    KERNEL(prod_##suffix, T, x *y)                                                                 \
    KERNEL(max_##suffix, T, MAX_OF(x, y))                                                          \
    KERNEL(min_##suffix, T, MIN_OF(x, y))
REAL_KERNELS(TRL_ELEMENTWISE, float, f32u)
REAL_KERNELS(TRL_ELEMENTWISE, double, f64u)
REAL_KERNELS(TRL_ELEMENTWISE_SCALAR, long_double, fldu)

TRL_ELEMENTWISE(sum_float_complex, c32u, x + y)
TRL_ELEMENTWISE(sum_double_complex, c64u, x + y)
TRL_ELEMENTWISE_SCALAR(sum_long_double_complex, cldu, x + y)
TRL_ELEMENTWISE_SCALAR(prod_long_double_complex, cldu, x *y)

/* Complex PROD for float and double, a block at a time: the textbook
 * formula's real parts into one local array and imaginary parts into
 * another (vectorised loops), noting whether any element came out NaN in
 * both parts; only then are those recomputed with C's `*` from the
 * buffers, untouched so far; then one loop stores the block. Separate
 * loops because GCC 12 fuses the interleaved formula into vfmaddsub (a
 * fused multiply-add, rounded differently) even under -ffp-contract=off;
 * no copy of inout, because its start-up made calls of a few elements
 * slower than Open MPI's scalar loop (0.56-0.8 of its speed). */
enum { COMPLEX_BLOCK = 256 };
#define COMPLEX_PROD(name, R, C)                                                                   \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        typedef R ru __attribute__((aligned(1)));                                                  \
        const ru *restrict a = in;                                                                 \
        ru *restrict b = inout;                                                                    \
        R re[COMPLEX_BLOCK], im[COMPLEX_BLOCK];                                                    \
        size_t len = trl_align_head(inout, sizeof(C), n); /* the first block */                    \
        if (len == 0)                                                                              \
            len = n < COMPLEX_BLOCK ? n : COMPLEX_BLOCK;                                           \
        for (size_t start = 0; start < n;                                                          \
             start += len, len = n - start < COMPLEX_BLOCK ? n - start : COMPLEX_BLOCK) {          \
            const ru *x = a + 2 * start;                                                           \
            ru *y = b + 2 * start;                                                                 \
            int unsure = 0;                                                                        \
            for (size_t i = 0; i < len; i++)                                                       \
                re[i] = x[2 * i] * y[2 * i] - x[2 * i + 1] * y[2 * i + 1];                         \
            for (size_t i = 0; i < len; i++) {                                                     \
                im[i] = x[2 * i] * y[2 * i + 1] + x[2 * i + 1] * y[2 * i];                         \
                unsure |= (re[i] != re[i]) & (im[i] != im[i]);                                     \
            }                                                                                      \
            for (size_t i = 0; unsure && i < len; i++) {                                           \
                if (isnan(re[i]) && isnan(im[i])) {                                                \
                    C r = __builtin_complex((R)x[2 * i], (R)x[2 * i + 1]) *                        \
                          __builtin_complex((R)y[2 * i], (R)y[2 * i + 1]);                         \
                    re[i] = __real__ r;                                                            \
                    im[i] = __imag__ r;                                                            \
                }                                                                                  \
            }                                                                                      \
            for (size_t i = 0; i < len; i++) {                                                     \
                y[2 * i] = re[i];                                                                  \
                y[2 * i + 1] = im[i];                                                              \
            }                                                                                      \
        }                                                                                          \
    }
COMPLEX_PROD(prod_float_complex, float, float complex)
COMPLEX_PROD(prod_double_complex, double, double complex)

/* Per representation: {MAX, MIN, SUM, PROD}. */
static const trl_reduce_fn kernels[TRL_KIND_COUNT][4] = {
    [TRL_KIND_I8] = {max_i8, min_i8, sum_u8, prod_u8_by_size},
    [TRL_KIND_U8] = {max_u8, min_u8, sum_u8, prod_u8_by_size},
    [TRL_KIND_I16] = {max_i16, min_i16, sum_u16, prod_u16},
    [TRL_KIND_U16] = {max_u16, min_u16, sum_u16, prod_u16},
    [TRL_KIND_I32] = {max_i32, min_i32, sum_u32, prod_u32},
    [TRL_KIND_U32] = {max_u32, min_u32, sum_u32, prod_u32},
    [TRL_KIND_I64] = {max_i64, min_i64, sum_u64, prod_u64},
    [TRL_KIND_U64] = {max_u64, min_u64, sum_u64, prod_u64},
    [TRL_KIND_FLOAT] = {max_float, min_float, sum_float, prod_float},
    [TRL_KIND_DOUBLE] = {max_double, min_double, sum_double, prod_double},
    [TRL_KIND_LONG_DOUBLE] = {max_long_double, min_long_double, sum_long_double, prod_long_double},
    [TRL_KIND_FLOAT_COMPLEX] = {NULL, NULL, sum_float_complex, prod_float_complex},
    [TRL_KIND_DOUBLE_COMPLEX] = {NULL, NULL, sum_double_complex, prod_double_complex},
    [TRL_KIND_LONG_DOUBLE_COMPLEX] = {NULL, NULL, sum_long_double_complex,
                                      prod_long_double_complex},
};

trl_reduce_fn trl_reduce_kernel_arith(trl_reduce_op op, trl_reduce_kind kind)
{
    if (op > TRL_OP_PROD || kind >= TRL_KIND_COUNT)
        return NULL;
    return kernels[kind][op - TRL_OP_MAX];
}
