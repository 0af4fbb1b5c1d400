/* The logical (LAND, LOR, LXOR) and bitwise (BAND, BOR, BXOR) operations
 * on integers of 8 to 64 bits: `inout[i] = in[i] op inout[i]`.
 *
 * Cost: one pass over both buffers, vectorised; memory-bound above the
 * caches.
 *
 * Logical operations treat any non-zero value as true and store 1 or 0 in
 * the element's type, as C's && does; they see only zero and non-zero, so
 * signed and unsigned share a kernel, and so does MPI_C_BOOL (as 8 bits).
 * Bitwise operations see only bits.
 */
#include "reduce/kernels.h"

#include <stdint.h>

typedef uint8_t u8u __attribute__((aligned(1)));
typedef uint16_t u16u __attribute__((aligned(1)));
typedef uint32_t u32u __attribute__((aligned(1)));
typedef uint64_t u64u __attribute__((aligned(1)));

/* LAND and LOR on large buffers: where a 4 KiB block of inout already
 * decides the result (all zero for LAND, all non-zero for LOR), in's block
 * is not read at all. Open MPI's scalar kernel short-circuits element by
 * element and so reads a third less memory on such data (a flag array all
 * true, or a reduction repeated into the same buffer); without this it
 * was up to 1.5x faster at 16 MiB. A whole page, because the check must be
 * a loop the compiler vectorises and the prefetcher stays off a page never
 * touched. Below TRL_ALIGN_FROM_BYTES the plain loop serves. */
#define SHORT_CIRCUIT(name, bits, DECIDES, DECIDED, EXPR)                                          \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        enum { BLOCK = 4096 / (bits / 8) };                                                        \
        const u##bits##u *restrict a = in;                                                         \
        u##bits##u *restrict b = inout;                                                            \
        size_t i = 0, head = trl_align_head(inout, bits / 8, n);                                   \
        if (n * (bits / 8) >= TRL_ALIGN_FROM_BYTES) {                                              \
            for (; i < head; i++) {                                                                \
                uint##bits##_t x = a[i], y = b[i];                                                 \
                b[i] = (uint##bits##_t)(EXPR);                                                     \
            }                                                                                      \
            for (; i + BLOCK <= n; i += BLOCK) {                                                   \
                int decided = 1;                                                                   \
                for (size_t j = i; j < i + BLOCK; j++)                                             \
                    decided &= b[j] DECIDES;                                                       \
                if (decided) {                                                                     \
                    for (size_t j = i; j < i + BLOCK; j++)                                         \
                        b[j] = DECIDED;                                                            \
                    continue;                                                                      \
                }                                                                                  \
                for (size_t j = i; j < i + BLOCK; j++) {                                           \
                    uint##bits##_t x = a[j], y = b[j];                                             \
                    b[j] = (uint##bits##_t)(EXPR);                                                 \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        for (; i < n; i++) {                                                                       \
            uint##bits##_t x = a[i], y = b[i];                                                     \
            b[i] = (uint##bits##_t)(EXPR);                                                         \
        }                                                                                          \
    }

#define LOGIC_KERNELS(bits)                                                                        \
    SHORT_CIRCUIT(land_##bits, bits, == 0, 0, (x != 0) & (y != 0))                                 \
    SHORT_CIRCUIT(lor_##bits, bits, != 0, 1, (x != 0) | (y != 0))                                  \
    TRL_ELEMENTWISE(lxor_##bits, u##bits##u, (uint##bits##_t)((x != 0) ^ (y != 0)))                \
    TRL_ELEMENTWISE(band_##bits, u##bits##u, (uint##bits##_t)(x & y))                              \
    TRL_ELEMENTWISE(bor_##bits, u##bits##u, (uint##bits##_t)(x | y))                               \
    TRL_ELEMENTWISE(bxor_##bits, u##bits##u, (uint##bits##_t)(x ^ y))
LOGIC_KERNELS(8)
LOGIC_KERNELS(16)
LOGIC_KERNELS(32)
LOGIC_KERNELS(64)

/* Per width: {LAND, LOR, LXOR, BAND, BOR, BXOR}. */
static const trl_reduce_fn by_width[4][6] = {
    {land_8, lor_8, lxor_8, band_8, bor_8, bxor_8},
    {land_16, lor_16, lxor_16, band_16, bor_16, bxor_16},
    {land_32, lor_32, lxor_32, band_32, bor_32, bxor_32},
    {land_64, lor_64, lxor_64, band_64, bor_64, bxor_64},
};

trl_reduce_fn trl_reduce_kernel_logic(trl_reduce_op op, trl_reduce_kind kind)
{
    if (op < TRL_OP_LAND || op > TRL_OP_BXOR || kind > TRL_KIND_U64)
        return NULL;
    /* I8, U8 -> 0; I16, U16 -> 1; ... (kernels.h lists them in pairs). */
    return by_width[(kind - TRL_KIND_I8) / 2][op - TRL_OP_LAND];
}
