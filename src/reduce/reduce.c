/* trl_reduce_local: which kernel serves a (datatype, operation) pair.
 *
 * On first use a table is built from MPI's list of which operations apply
 * to which groups of datatypes (MPI 4.1, section 6.9.2): every predefined
 * datatype Trellis covers gets one row, the kernel per operation or NULL
 * where MPI does not define the pair. Handles are looked up in two small
 * open-addressing hash tables keyed by the handle's bits (a pointer in
 * Open MPI, an integer in MPICH), so a call costs two hashed probes.
 *
 * Derived datatypes go to the MPI library, even a contiguous run of one
 * covered type: MPI defines the predefined operations on the basic types
 * only, and Open MPI 4.1 rejects them on any derived type (MPI_ERR_OP), a
 * verdict Trellis must give alike.
 */
#include "reduce/reduce.h"
#include "reduce/kernels.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Which operations MPI defines on each group of datatypes. */
typedef enum {
    GROUP_C_INTEGER,     /* all but MINLOC/MAXLOC */
    GROUP_OTHER_INTEGER, /* Fortran integers, MPI_AINT/OFFSET/COUNT: no logical operations */
    GROUP_FLOATING,      /* MAX MIN SUM PROD */
    GROUP_COMPLEX,       /* SUM PROD */
    GROUP_LOGICAL,       /* LAND LOR LXOR */
    GROUP_BYTE,          /* BAND BOR BXOR */
    GROUP_PAIR,          /* MINLOC MAXLOC */
} type_group;

#define ARITHMETIC (1u << TRL_OP_MAX | 1u << TRL_OP_MIN | 1u << TRL_OP_SUM | 1u << TRL_OP_PROD)
#define LOGICAL    (1u << TRL_OP_LAND | 1u << TRL_OP_LOR | 1u << TRL_OP_LXOR)
#define BITWISE    (1u << TRL_OP_BAND | 1u << TRL_OP_BOR | 1u << TRL_OP_BXOR)
static const unsigned group_ops[] = {
    [GROUP_C_INTEGER] = ARITHMETIC | LOGICAL | BITWISE,
    [GROUP_OTHER_INTEGER] = ARITHMETIC | BITWISE,
    [GROUP_FLOATING] = ARITHMETIC,
    [GROUP_COMPLEX] = 1u << TRL_OP_SUM | 1u << TRL_OP_PROD,
    [GROUP_LOGICAL] = LOGICAL,
    [GROUP_BYTE] = BITWISE,
    [GROUP_PAIR] = 1u << TRL_OP_MINLOC | 1u << TRL_OP_MAXLOC,
};

enum {
    MAX_TYPES = 64,     /* rows: the predefined datatypes covered, plus row 0 (none) */
    TYPE_SLOT_BITS = 8, /* 256 hash slots, 4 per row: probes stay short */
    OP_SLOT_BITS = 6,   /* 64 slots for 12 operations */
};

typedef struct {
    trl_reduce_fn fn[TRL_OP_COUNT];
} type_row;

typedef struct {
    uintptr_t key;
    unsigned char value; /* 0: empty */
} slot;

static type_row rows[MAX_TYPES];
static unsigned nrows = 1;
static slot type_slots[1 << TYPE_SLOT_BITS], op_slots[1 << OP_SLOT_BITS];
static _Atomic int ready; /* 0: not built, 1: being built, 2: built */

_Static_assert(sizeof(MPI_Datatype) <= sizeof(uintptr_t) && sizeof(MPI_Op) <= sizeof(uintptr_t),
               "handles must fit a hash key");

static inline uintptr_t key_of(const void *handle, size_t size)
{
    uintptr_t k = 0;
    memcpy(&k, handle, size);
    return k;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi; linear probing. */
static inline size_t home_slot(uintptr_t key, unsigned bits)
{
    return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - bits));
}

static inline unsigned find(const slot *t, unsigned bits, uintptr_t key)
{
    size_t mask = ((size_t)1 << bits) - 1;
    for (size_t i = home_slot(key, bits);; i = (i + 1) & mask) {
        if (t[i].value == 0 || t[i].key == key)
            return t[i].value;
    }
}

/* First come first kept: MPI_LONG_LONG may be MPI_LONG_LONG_INT's handle. */
static void put(slot *t, unsigned bits, uintptr_t key, unsigned char value)
{
    size_t mask = ((size_t)1 << bits) - 1, i = home_slot(key, bits);
    while (t[i].value != 0 && t[i].key != key)
        i = (i + 1) & mask;
    if (t[i].value == 0) {
        t[i].key = key;
        t[i].value = value;
    }
}

/* Bytes per element of each representation. */
static size_t kind_size(trl_reduce_kind kind)
{
    static const size_t size[TRL_KIND_COUNT] = {
        [TRL_KIND_I8] = 1,
        [TRL_KIND_U8] = 1,
        [TRL_KIND_I16] = 2,
        [TRL_KIND_U16] = 2,
        [TRL_KIND_I32] = 4,
        [TRL_KIND_U32] = 4,
        [TRL_KIND_I64] = 8,
        [TRL_KIND_U64] = 8,
        [TRL_KIND_FLOAT] = sizeof(float),
        [TRL_KIND_DOUBLE] = sizeof(double),
        [TRL_KIND_LONG_DOUBLE] = sizeof(long double),
        [TRL_KIND_FLOAT_COMPLEX] = 2 * sizeof(float),
        [TRL_KIND_DOUBLE_COMPLEX] = 2 * sizeof(double),
        [TRL_KIND_LONG_DOUBLE_COMPLEX] = 2 * sizeof(long double),
        [TRL_KIND_FLOAT_INT] = sizeof(trl_float_int),
        [TRL_KIND_DOUBLE_INT] = sizeof(trl_double_int),
        [TRL_KIND_LONG_INT] = sizeof(trl_long_int),
        [TRL_KIND_2INT] = sizeof(trl_2int),
        [TRL_KIND_SHORT_INT] = sizeof(trl_short_int),
        [TRL_KIND_LONG_DOUBLE_INT] = sizeof(trl_long_double_int),
    };
    return kind < TRL_KIND_COUNT ? size[kind] : 0;
}

/* The integer representation of `size` bytes; -1 where there is none. */
static int integer_kind(size_t size, int is_signed)
{
    int base = size == 1   ? TRL_KIND_I8
               : size == 2 ? TRL_KIND_I16
               : size == 4 ? TRL_KIND_I32
               : size == 8 ? TRL_KIND_I64
                           : -1;
    return base < 0 ? -1 : base + !is_signed;
}
#define SIGNED_OF(ctype)   integer_kind(sizeof(ctype), 1)
#define UNSIGNED_OF(ctype) integer_kind(sizeof(ctype), 0)

/* Fortran REAL and COMPLEX of the sizes C has (IEEE single and double). */
static int real_kind(size_t size)
{
    return size == sizeof(float) ? TRL_KIND_FLOAT : size == sizeof(double) ? TRL_KIND_DOUBLE : -1;
}
static int complex_kind(size_t size)
{
    return size == 2 * sizeof(float)    ? TRL_KIND_FLOAT_COMPLEX
           : size == 2 * sizeof(double) ? TRL_KIND_DOUBLE_COMPLEX
                                        : -1;
}

/* The MPI library's size of a datatype whose size only it knows (Fortran
 * types, MPI_AINT); 0 where it has none (Fortran not built). */
static size_t library_size(MPI_Datatype type)
{
    int size = 0;
    if (type == MPI_DATATYPE_NULL || PMPI_Type_size(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (size_t)size;
}

/* One row: kept only where the MPI library lays the type out as the
 * representation does (same extent, no lower bound, and for all but the
 * pairs, whose padding MPI does not count, the same size). */
static void add_type(MPI_Datatype type, type_group group, int kind)
{
    if (kind < 0 || type == MPI_DATATYPE_NULL || nrows >= MAX_TYPES)
        return;
    size_t want = kind_size((trl_reduce_kind)kind);
    MPI_Aint lb, extent;
    if (PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS || lb != 0 ||
        (size_t)extent != want || (group != GROUP_PAIR && library_size(type) != want))
        return;
    if (find(type_slots, TYPE_SLOT_BITS, key_of(&type, sizeof type)))
        return;
    type_row *row = &rows[nrows];
    for (int op = 0; op < TRL_OP_COUNT; op++) {
        if (!(group_ops[group] & (1u << op)))
            continue;
        trl_reduce_fn fn = trl_reduce_kernel_arith((trl_reduce_op)op, (trl_reduce_kind)kind);
        if (!fn)
            fn = trl_reduce_kernel_logic((trl_reduce_op)op, (trl_reduce_kind)kind);
        if (!fn)
            fn = trl_reduce_kernel_loc((trl_reduce_op)op, (trl_reduce_kind)kind);
        row->fn[op] = fn;
    }
    put(type_slots, TYPE_SLOT_BITS, key_of(&type, sizeof type), (unsigned char)nrows++);
}

static void add_op(MPI_Op op, trl_reduce_op which)
{
    put(op_slots, OP_SLOT_BITS, key_of(&op, sizeof op), (unsigned char)(which + 1));
}

static void build_tables(void)
{
    const MPI_Op ops[TRL_OP_COUNT] = {
        [TRL_OP_MAX] = MPI_MAX,   [TRL_OP_MIN] = MPI_MIN,       [TRL_OP_SUM] = MPI_SUM,
        [TRL_OP_PROD] = MPI_PROD, [TRL_OP_LAND] = MPI_LAND,     [TRL_OP_LOR] = MPI_LOR,
        [TRL_OP_LXOR] = MPI_LXOR, [TRL_OP_BAND] = MPI_BAND,     [TRL_OP_BOR] = MPI_BOR,
        [TRL_OP_BXOR] = MPI_BXOR, [TRL_OP_MINLOC] = MPI_MINLOC, [TRL_OP_MAXLOC] = MPI_MAXLOC,
    };
    for (int op = 0; op < TRL_OP_COUNT; op++)
        add_op(ops[op], (trl_reduce_op)op);

    /* C integers (MPI_CHAR and MPI_WCHAR are characters, not integers). */
    add_type(MPI_SIGNED_CHAR, GROUP_C_INTEGER, SIGNED_OF(signed char));
    add_type(MPI_UNSIGNED_CHAR, GROUP_C_INTEGER, UNSIGNED_OF(unsigned char));
    add_type(MPI_SHORT, GROUP_C_INTEGER, SIGNED_OF(short));
    add_type(MPI_UNSIGNED_SHORT, GROUP_C_INTEGER, UNSIGNED_OF(unsigned short));
    add_type(MPI_INT, GROUP_C_INTEGER, SIGNED_OF(int));
    add_type(MPI_UNSIGNED, GROUP_C_INTEGER, UNSIGNED_OF(unsigned));
    add_type(MPI_LONG, GROUP_C_INTEGER, SIGNED_OF(long));
    add_type(MPI_UNSIGNED_LONG, GROUP_C_INTEGER, UNSIGNED_OF(unsigned long));
    add_type(MPI_LONG_LONG_INT, GROUP_C_INTEGER, SIGNED_OF(long long));
    add_type(MPI_LONG_LONG, GROUP_C_INTEGER, SIGNED_OF(long long));
    add_type(MPI_UNSIGNED_LONG_LONG, GROUP_C_INTEGER, UNSIGNED_OF(unsigned long long));
    add_type(MPI_INT8_T, GROUP_C_INTEGER, TRL_KIND_I8);
    add_type(MPI_INT16_T, GROUP_C_INTEGER, TRL_KIND_I16);
    add_type(MPI_INT32_T, GROUP_C_INTEGER, TRL_KIND_I32);
    add_type(MPI_INT64_T, GROUP_C_INTEGER, TRL_KIND_I64);
    add_type(MPI_UINT8_T, GROUP_C_INTEGER, TRL_KIND_U8);
    add_type(MPI_UINT16_T, GROUP_C_INTEGER, TRL_KIND_U16);
    add_type(MPI_UINT32_T, GROUP_C_INTEGER, TRL_KIND_U32);
    add_type(MPI_UINT64_T, GROUP_C_INTEGER, TRL_KIND_U64);
    /* Multi-language types: signed integers of the library's size. */
    add_type(MPI_AINT, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_AINT), 1));
    add_type(MPI_OFFSET, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_OFFSET), 1));
    add_type(MPI_COUNT, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_COUNT), 1));
    /* Fortran integers, reals and complexes a C program may pass. */
    add_type(MPI_INTEGER, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_INTEGER), 1));
#ifdef MPI_INTEGER1
    add_type(MPI_INTEGER1, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_INTEGER1), 1));
#endif
#ifdef MPI_INTEGER2
    add_type(MPI_INTEGER2, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_INTEGER2), 1));
#endif
#ifdef MPI_INTEGER4
    add_type(MPI_INTEGER4, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_INTEGER4), 1));
#endif
#ifdef MPI_INTEGER8
    add_type(MPI_INTEGER8, GROUP_OTHER_INTEGER, integer_kind(library_size(MPI_INTEGER8), 1));
#endif
    add_type(MPI_REAL, GROUP_FLOATING, real_kind(library_size(MPI_REAL)));
    add_type(MPI_DOUBLE_PRECISION, GROUP_FLOATING, real_kind(library_size(MPI_DOUBLE_PRECISION)));
#ifdef MPI_REAL4
    add_type(MPI_REAL4, GROUP_FLOATING, real_kind(library_size(MPI_REAL4)));
#endif
#ifdef MPI_REAL8
    add_type(MPI_REAL8, GROUP_FLOATING, real_kind(library_size(MPI_REAL8)));
#endif
    add_type(MPI_COMPLEX, GROUP_COMPLEX, complex_kind(library_size(MPI_COMPLEX)));
    add_type(MPI_DOUBLE_COMPLEX, GROUP_COMPLEX, complex_kind(library_size(MPI_DOUBLE_COMPLEX)));
#ifdef MPI_COMPLEX8
    add_type(MPI_COMPLEX8, GROUP_COMPLEX, complex_kind(library_size(MPI_COMPLEX8)));
#endif
#ifdef MPI_COMPLEX16
    add_type(MPI_COMPLEX16, GROUP_COMPLEX, complex_kind(library_size(MPI_COMPLEX16)));
#endif
    /* Floating point and complex. */
    add_type(MPI_FLOAT, GROUP_FLOATING, TRL_KIND_FLOAT);
    add_type(MPI_DOUBLE, GROUP_FLOATING, TRL_KIND_DOUBLE);
    add_type(MPI_LONG_DOUBLE, GROUP_FLOATING, TRL_KIND_LONG_DOUBLE);
    add_type(MPI_C_COMPLEX, GROUP_COMPLEX, TRL_KIND_FLOAT_COMPLEX);
    add_type(MPI_C_FLOAT_COMPLEX, GROUP_COMPLEX, TRL_KIND_FLOAT_COMPLEX);
    add_type(MPI_C_DOUBLE_COMPLEX, GROUP_COMPLEX, TRL_KIND_DOUBLE_COMPLEX);
    add_type(MPI_C_LONG_DOUBLE_COMPLEX, GROUP_COMPLEX, TRL_KIND_LONG_DOUBLE_COMPLEX);
#ifdef MPI_CXX_FLOAT_COMPLEX
    add_type(MPI_CXX_FLOAT_COMPLEX, GROUP_COMPLEX, TRL_KIND_FLOAT_COMPLEX);
    add_type(MPI_CXX_DOUBLE_COMPLEX, GROUP_COMPLEX, TRL_KIND_DOUBLE_COMPLEX);
    add_type(MPI_CXX_LONG_DOUBLE_COMPLEX, GROUP_COMPLEX, TRL_KIND_LONG_DOUBLE_COMPLEX);
#endif
    /* Logical: C's _Bool (C++'s bool, one byte here too, where the header
     * has it); Fortran LOGICAL's true is compiler-specific, so not it. */
    add_type(MPI_C_BOOL, GROUP_LOGICAL, UNSIGNED_OF(_Bool));
#ifdef MPI_CXX_BOOL
    add_type(MPI_CXX_BOOL, GROUP_LOGICAL, integer_kind(library_size(MPI_CXX_BOOL), 0));
#endif
    add_type(MPI_BYTE, GROUP_BYTE, TRL_KIND_U8);
    /* MINLOC/MAXLOC pairs. */
    add_type(MPI_FLOAT_INT, GROUP_PAIR, TRL_KIND_FLOAT_INT);
    add_type(MPI_DOUBLE_INT, GROUP_PAIR, TRL_KIND_DOUBLE_INT);
    add_type(MPI_LONG_INT, GROUP_PAIR, TRL_KIND_LONG_INT);
    add_type(MPI_2INT, GROUP_PAIR, TRL_KIND_2INT);
    add_type(MPI_SHORT_INT, GROUP_PAIR, TRL_KIND_SHORT_INT);
    add_type(MPI_LONG_DOUBLE_INT, GROUP_PAIR, TRL_KIND_LONG_DOUBLE_INT);
}

/* Built on first use, by whichever thread comes first (the MPI library is
 * initialised by then); the others wait for it. */
static inline void ensure_tables(void)
{
    if (atomic_load_explicit(&ready, memory_order_acquire) == 2)
        return;
    int expected = 0;
    if (atomic_compare_exchange_strong(&ready, &expected, 1)) {
        build_tables();
        atomic_store_explicit(&ready, 2, memory_order_release);
        return;
    }
    while (atomic_load_explicit(&ready, memory_order_acquire) != 2)
        sched_yield();
}

/* The kernel for a predefined (type, op) pair MPI defines; NULL for any
 * other (row 0 has none). */
static inline trl_reduce_fn kernel_for(MPI_Datatype type, MPI_Op op)
{
    ensure_tables();
    unsigned which = find(op_slots, OP_SLOT_BITS, key_of(&op, sizeof op));
    if (which == 0)
        return NULL; /* a user operation */
    return rows[find(type_slots, TYPE_SLOT_BITS, key_of(&type, sizeof type))].fn[which - 1];
}

/* The MPI library's PMPI_Reduce_local, in pieces of at most INT_MAX. */
static int library_reduce(const void *in, void *inout, size_t count, MPI_Datatype type, MPI_Op op)
{
    if (count <= INT_MAX)
        return PMPI_Reduce_local(in, inout, (int)count, type, op);
    MPI_Aint lb, extent;
    int rc = PMPI_Type_get_extent(type, &lb, &extent);
    while (rc == MPI_SUCCESS && count > 0) {
        int n = count > INT_MAX ? INT_MAX : (int)count;
        rc = PMPI_Reduce_local(in, inout, n, type, op);
        in = (const char *)in + (MPI_Aint)n * extent;
        inout = (char *)inout + (MPI_Aint)n * extent;
        count -= (size_t)n;
    }
    return rc;
}

int trl_reduce_local(const void *in, void *inout, size_t count, MPI_Datatype type, MPI_Op op)
{
    trl_reduce_fn fn = kernel_for(type, op);
    if (!fn)
        return library_reduce(in, inout, count, type, op);
    fn(in, inout, count);
    return MPI_SUCCESS;
}

int trl_reduce_into(const void *in, const void *other, void *out, size_t count, size_t size,
                    MPI_Datatype type, MPI_Op op)
{
    /* 8 KiB of out and of in stay in the first-level cache of any x86 core
     * we know, with room for the kernel's streams. */
    enum { CHUNK_BYTES = 8192 };
    const char *a = in, *c = other;
    char *b = out;
    size_t bytes = count * size;
    uintptr_t from = (uintptr_t)c, to = (uintptr_t)b;
    if (from != to && from < to + bytes && to < from + bytes) {
        memmove(b, c, bytes);
        c = b;
    }
    if (c == b || size == 0)
        return trl_reduce_local(a, b, count, type, op);
    size_t step = size < CHUNK_BYTES ? CHUNK_BYTES / size : 1;
    for (size_t i = 0; i < count; i += step) {
        size_t n = count - i < step ? count - i : step;
        memcpy(b + i * size, c + i * size, n * size);
        int rc = trl_reduce_local(a + i * size, b + i * size, n, type, op);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int trl_reduce_covers(MPI_Datatype type, MPI_Op op)
{
    return kernel_for(type, op) != NULL;
}
