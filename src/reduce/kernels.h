/* Trellis' own reduction kernels, internal to src/reduce/: one function per
 * (operation, C representation), `inout[i] = in[i] op inout[i]`, the
 * argument order of MPI_Reduce_local. reduce.c maps MPI's predefined
 * datatypes onto the representations below and picks a kernel per call.
 *
 * Each kernel is a plain loop over `restrict` pointers that the compiler
 * vectorises (the files are built with -O3). Element types are declared
 * with alignment 1, so a buffer at any byte offset is safe: the vectoriser
 * then uses unaligned loads and never assumes an alignment the caller did
 * not give. On x86-64 each kernel is compiled for AVX-512, AVX2 and the
 * baseline, and the loader picks one for the CPU (target_clones).
 */
#ifndef TRL_REDUCE_KERNELS_H
#define TRL_REDUCE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

typedef void (*trl_reduce_fn)(const void *in, void *inout, size_t count);

/* The predefined operations collectives use (MPI_REPLACE and MPI_NO_OP
 * are one-sided only). */
typedef enum {
    TRL_OP_MAX,
    TRL_OP_MIN,
    TRL_OP_SUM,
    TRL_OP_PROD,
    TRL_OP_LAND,
    TRL_OP_LOR,
    TRL_OP_LXOR,
    TRL_OP_BAND,
    TRL_OP_BOR,
    TRL_OP_BXOR,
    TRL_OP_MINLOC,
    TRL_OP_MAXLOC,
    TRL_OP_COUNT
} trl_reduce_op;

/* C representations: which bits, not which MPI datatype (MPI_INT and
 * MPI_INT32_T are both I32; MPI_C_BOOL is U8 under logical operations). */
typedef enum {
    TRL_KIND_I8,
    TRL_KIND_U8,
    TRL_KIND_I16,
    TRL_KIND_U16,
    TRL_KIND_I32,
    TRL_KIND_U32,
    TRL_KIND_I64,
    TRL_KIND_U64,
    TRL_KIND_FLOAT,
    TRL_KIND_DOUBLE,
    TRL_KIND_LONG_DOUBLE,
    TRL_KIND_FLOAT_COMPLEX,
    TRL_KIND_DOUBLE_COMPLEX,
    TRL_KIND_LONG_DOUBLE_COMPLEX,
    TRL_KIND_FLOAT_INT, /* the MINLOC/MAXLOC pairs: struct { value; int index; } */
    TRL_KIND_DOUBLE_INT,
    TRL_KIND_LONG_INT,
    TRL_KIND_2INT,
    TRL_KIND_SHORT_INT,
    TRL_KIND_LONG_DOUBLE_INT,
    TRL_KIND_COUNT
} trl_reduce_kind;

/* The pair types' layouts, as MPI defines them: the C struct of the value
 * and an int, with the compiler's padding. */
typedef struct {
    float v;
    int k;
} trl_float_int;
typedef struct {
    double v;
    int k;
} trl_double_int;
typedef struct {
    long v;
    int k;
} trl_long_int;
typedef struct {
    int v;
    int k;
} trl_2int;
typedef struct {
    short v;
    int k;
} trl_short_int;
typedef struct {
    long double v;
    int k;
} trl_long_double_int;

/* One family each; NULL where the family has no kernel for the pair. */
trl_reduce_fn trl_reduce_kernel_arith(trl_reduce_op op,
                                      trl_reduce_kind kind); /* MAX MIN SUM PROD */
trl_reduce_fn trl_reduce_kernel_logic(trl_reduce_op op, trl_reduce_kind kind); /* LAND .. BXOR */
trl_reduce_fn trl_reduce_kernel_loc(trl_reduce_op op, trl_reduce_kind kind);   /* MINLOC MAXLOC */

/* Attributes every kernel carries: several instruction sets where the
 * compiler and loader support choosing at load time (GNU ifunc on x86-64). */
#if defined(__x86_64__) && defined(__ELF__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define TRL_KERNEL __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
/* The same for element types no vector unit has (x87 long double): a
 * plain loop; alignment and prefetching only cost there (0.5% measured). */
#define TRL_ELEMENTWISE_SCALAR(name, T, EXPR)                                                      \
    static void name(const void *in, void *inout, size_t n)                                        \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = a[i], y = b[i];                                                                  \
            b[i] = (EXPR);                                                                         \
        }                                                                                          \
    }

#endif
#endif
#ifndef TRL_KERNEL
#define TRL_KERNEL
/* The same for element types no vector unit has (x87 long double): a
 * plain loop; alignment and prefetching only cost there (0.5% measured). */
#define TRL_ELEMENTWISE_SCALAR(name, T, EXPR)                                                      \
    static void name(const void *in, void *inout, size_t n)                                        \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = a[i], y = b[i];                                                                  \
            b[i] = (EXPR);                                                                         \
        }                                                                                          \
    }

#endif

/* How many elements to do one at a time so that the rest of a large
 * inout buffer starts on a 64-byte boundary (none where its elements are
 * not naturally aligned). Measured on AMD Zen 5 (8-bit PROD, 512-bit
 * loop): beyond L2, accesses that straddle cache lines cost up to 40% of
 * the bandwidth; within L1 and L2 they cost nothing, and the scalar head
 * costs up to half the time of a 1 KiB call, so small buffers go as they
 * are. */
enum { TRL_ALIGN_FROM_BYTES = 64 * 1024 };
static inline size_t trl_head_to_line(const void *inout, size_t size, size_t n)
{
    size_t misalign = (uintptr_t)inout % 64;
    size_t head = misalign % size ? 0 : (64 - misalign) % 64 / size;
    return head < n ? head : n;
}
static inline size_t trl_align_head(const void *inout, size_t size, size_t n)
{
    return n * size < TRL_ALIGN_FROM_BYTES ? 0 : trl_head_to_line(inout, size, n);
}

/* The loop every kernel runs, STEP on element i of inout b: from
 * TRL_ALIGN_FROM_BYTES an alignment head first (trl_align_head). No software prefetch: prefetching 4 KiB ahead
 * of each 1 KiB chunk measured slower on this machine's AMD Zen 4 at every
 * size from 1 MiB (all pairs' median 1.03 against 1.21 at 1 MiB, 0.88
 * against 0.97 at 16 MiB, MINLOC at 16 MiB 0.82 against 1.11; it had
 * helped MINLOC beyond L3 on the machine of an earlier session:
 * docs/notebook/kernels.md, "Reduction kernels"). */
#define TRL_LOOP(n, size, b, STEP)                                                                 \
    do {                                                                                           \
        size_t i = 0;                                                                              \
        for (size_t head = trl_align_head(b, size, n); i < head; i++)                              \
            STEP for (; i < (n); i++) STEP                                                         \
    } while (0)

/* A kernel over elements of type T (an alignment-1 typedef): y is the
 * inout element, x the in element, EXPR the new inout element. */
#define TRL_ELEMENTWISE(name, T, EXPR)                                                             \
    static TRL_KERNEL void name(const void *in, void *inout, size_t n)                             \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        TRL_LOOP(n, sizeof(T), b, {                                                                \
            T x = a[i]; /* no comma: this is a macro argument */                                   \
            T y = b[i];                                                                            \
            b[i] = (EXPR);                                                                         \
        });                                                                                        \
    }

/* The same for element types no vector unit has (x87 long double): a
 * plain loop; alignment and prefetching only cost there (0.5% measured). */
#define TRL_ELEMENTWISE_SCALAR(name, T, EXPR)                                                      \
    static void name(const void *in, void *inout, size_t n)                                        \
    {                                                                                              \
        const T *restrict a = in;                                                                  \
        T *restrict b = inout;                                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = a[i], y = b[i];                                                                  \
            b[i] = (EXPR);                                                                         \
        }                                                                                          \
    }

#endif
