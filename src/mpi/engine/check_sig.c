/* Type signatures as polynomial hashes modulo the prime 2^61 - 1: the
 * sequence t_0 t_1 ... t_{n-1} of basic types hashes to
 * sum t_i * B^i. A signature is kept with B^n, so that two can be joined
 * (h(a b) = h(a) + B^|a| h(b)) and one repeated n times in log n joins:
 * every constructor (contiguous, vector, indexed, struct, ...) is a
 * repetition or a join of its parts' signatures, whatever the
 * displacements. */
#include "mpi/engine/check_sig.h"

#include <stdlib.h>

#include "exec/typeinfo.h"

#define P ((uint64_t)0x1fffffffffffffffULL) /* 2^61 - 1 */
#define B ((uint64_t)0x5bd1e9955bd1e995ULL % P)

typedef struct {
    uint64_t h, pw; /* hash; B^length */
    bool packed;
} seq;

static uint64_t mulmod(uint64_t a, uint64_t b)
{
    unsigned __int128 x = (unsigned __int128)a * b;
    uint64_t lo = (uint64_t)(x & P), hi = (uint64_t)(x >> 61);
    uint64_t r = lo + hi;
    return r >= P ? r - P : r;
}

static uint64_t addmod(uint64_t a, uint64_t b)
{
    uint64_t r = a + b;
    return r >= P ? r - P : r;
}

static const seq EMPTY = {0, 1, false};

static seq join(seq a, seq b)
{
    return (seq){addmod(a.h, mulmod(a.pw, b.h)), mulmod(a.pw, b.pw), a.packed || b.packed};
}

static seq repeat(seq a, int64_t n)
{
    seq r = EMPTY;
    while (n > 0) {
        if (n & 1)
            r = join(r, a);
        a = join(a, a);
        n >>= 1;
    }
    return r;
}

/* A predefined type's place in this list is its code in the hash: the
 * same on every rank. Types the list lacks are coded by their size. */
static int named_code_lookup(MPI_Datatype t);

/* The call path's: most programs use a type or two over and over. */
static int named_code(MPI_Datatype t)
{
    static TRL_CHECK_TLS MPI_Datatype last = MPI_DATATYPE_NULL;
    static TRL_CHECK_TLS int last_code;
    if (t != last) {
        last_code = named_code_lookup(t);
        last = t;
    }
    return last_code;
}

static int named_code_lookup(MPI_Datatype t)
{
    static const MPI_Datatype known[] = {
        MPI_CHAR,
        MPI_SIGNED_CHAR,
        MPI_UNSIGNED_CHAR,
        MPI_BYTE,
        MPI_WCHAR,
        MPI_SHORT,
        MPI_UNSIGNED_SHORT,
        MPI_INT,
        MPI_UNSIGNED,
        MPI_LONG,
        MPI_UNSIGNED_LONG,
        MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG,
        MPI_FLOAT,
        MPI_DOUBLE,
        MPI_LONG_DOUBLE,
        MPI_INT8_T,
        MPI_INT16_T,
        MPI_INT32_T,
        MPI_INT64_T,
        MPI_UINT8_T,
        MPI_UINT16_T,
        MPI_UINT32_T,
        MPI_UINT64_T,
        MPI_C_BOOL,
        MPI_C_FLOAT_COMPLEX,
        MPI_C_DOUBLE_COMPLEX,
        MPI_C_LONG_DOUBLE_COMPLEX,
        MPI_AINT,
        MPI_OFFSET,
        MPI_COUNT,
        MPI_INTEGER,
        MPI_REAL,
        MPI_DOUBLE_PRECISION,
        MPI_COMPLEX,
        MPI_DOUBLE_COMPLEX,
        MPI_LOGICAL,
        MPI_CHARACTER,
    };
    /* MPI_LONG_LONG_INT is MPI_LONG_LONG; the C types of equal size are
     * still distinct basic types to MPI. */
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (t == known[i])
            return (int)i + 1;
    int size = 0;
    PMPI_Type_size(t, &size);
    return 1000 + size;
}

static seq sig_seq(MPI_Datatype t, int depth);

/* The predefined pair types are structs to MPI: MPI_2INT's signature is
 * (int, int), MPI_FLOAT_INT's (float, int). */
static bool pair_seq(MPI_Datatype t, seq *out)
{
    const MPI_Datatype pairs[][3] = {
        {MPI_2INT, MPI_INT, MPI_INT},
        {MPI_FLOAT_INT, MPI_FLOAT, MPI_INT},
        {MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT},
        {MPI_LONG_INT, MPI_LONG, MPI_INT},
        {MPI_SHORT_INT, MPI_SHORT, MPI_INT},
        {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT},
        {MPI_2REAL, MPI_REAL, MPI_REAL},
        {MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION},
        {MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (t == pairs[i][0]) {
            *out = join((seq){(uint64_t)named_code(pairs[i][1]), B, false},
                        (seq){(uint64_t)named_code(pairs[i][2]), B, false});
            return true;
        }
    return false;
}

/* The parts of a derived type, as MPI_Type_get_contents gives them; the
 * derived part types it returns are freed by parts_free. */
typedef struct {
    int ni, na, nd, combiner;
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
} parts;

static bool parts_get(MPI_Datatype t, parts *p)
{
    PMPI_Type_get_envelope(t, &p->ni, &p->na, &p->nd, &p->combiner);
    p->ints = malloc(sizeof(int) * (size_t)(p->ni + 1));
    p->aints = malloc(sizeof(MPI_Aint) * (size_t)(p->na + 1));
    p->types = malloc(sizeof(MPI_Datatype) * (size_t)(p->nd + 1));
    if (!p->ints || !p->aints || !p->types)
        return false;
    if (p->combiner == MPI_COMBINER_NAMED)
        return true;
    return PMPI_Type_get_contents(t, p->ni, p->na, p->nd, p->ints, p->aints, p->types) ==
           MPI_SUCCESS;
}

static void parts_free(parts *p)
{
    if (p->combiner != MPI_COMBINER_NAMED && p->types)
        for (int i = 0; i < p->nd; i++) {
            int ni, na, nd, comb;
            PMPI_Type_get_envelope(p->types[i], &ni, &na, &nd, &comb);
            if (comb != MPI_COMBINER_NAMED)
                PMPI_Type_free(&p->types[i]);
        }
    free(p->ints);
    free(p->aints);
    free(p->types);
}

/* Data the signature cannot be read from (a darray, a type nested past
 * any sane depth): its bytes, coded as bytes. */
static seq opaque(MPI_Datatype t)
{
    int size = 0;
    PMPI_Type_size(t, &size);
    return repeat((seq){(uint64_t)named_code(MPI_BYTE), B, false}, size);
}

static int64_t sum_ints(const int *v, int n)
{
    int64_t s = 0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static seq derived_seq(const parts *p, MPI_Datatype t, int depth)
{
    const int *in = p->ints;
    switch (p->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: return sig_seq(p->types[0], depth);
    case MPI_COMBINER_CONTIGUOUS: return repeat(sig_seq(p->types[0], depth), in[0]);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        return repeat(sig_seq(p->types[0], depth), (int64_t)in[0] * in[1]);
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: return repeat(sig_seq(p->types[0], depth), sum_ints(in + 1, in[0]));
    case MPI_COMBINER_STRUCT: {
        seq s = EMPTY;
        for (int i = 0; i < in[0]; i++)
            s = join(s, repeat(sig_seq(p->types[i], depth), in[1 + i]));
        return s;
    }
    case MPI_COMBINER_SUBARRAY: {
        int64_t n = 1;
        for (int i = 0; i < in[0]; i++)
            n *= in[1 + in[0] + i]; /* subsizes */
        return repeat(sig_seq(p->types[0], depth), n);
    }
    default: return opaque(t);
    }
}

static seq sig_seq(MPI_Datatype t, int depth)
{
    if (t == MPI_PACKED)
        return (seq){(uint64_t)named_code(MPI_BYTE), B, true};
    seq s;
    if (pair_seq(t, &s))
        return s;
    if (trl_type_named(t))
        return (seq){(uint64_t)named_code(t), B, false};
    parts p = {0};
    if (depth > 32 || !parts_get(t, &p))
        s = opaque(t);
    else if (p.combiner == MPI_COMBINER_NAMED)
        s = (seq){(uint64_t)named_code(t), B, false};
    else
        s = derived_seq(&p, t, depth + 1);
    parts_free(&p);
    return s;
}

static bool is_predefined(MPI_Datatype type)
{
    seq pair;
    return type == MPI_PACKED || pair_seq(type, &pair) || trl_type_named(type);
}

/* count elements of a type whose own signature is base, of size bytes */
static trl_sig sig_of_count(seq base, int count, int size)
{
    seq s = repeat(base, count);
    return (trl_sig){s.packed ? TRL_SIG_PACKED : (int64_t)s.h, (int64_t)count * size};
}

trl_sig trl_sig_of(int count, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL || count <= 0)
        return (trl_sig){0, 0};
    /* The call path's: most programs pass a predefined type or two over and
     * over, a v call one count a peer. The last predefined type is kept,
     * with its last few counts' signatures (a derived type's handle may
     * come back as another type once freed: those are never kept). */
    enum { COUNTS = 4 };
    static TRL_CHECK_TLS struct {
        MPI_Datatype type;
        int size;
        seq base;
        int count[COUNTS], next;
        trl_sig sig[COUNTS];
    } memo = {.type = MPI_DATATYPE_NULL};
    if (type == memo.type) {
        for (int i = 0; i < COUNTS; i++)
            if (memo.count[i] == count)
                return memo.sig[i];
    } else {
        int size = 0;
        PMPI_Type_size(type, &size);
        seq base = sig_seq(type, 0);
        if (!is_predefined(type))
            return sig_of_count(base, count, size);
        memo.type = type;
        memo.size = size;
        memo.base = base;
        for (int i = 0; i < COUNTS; i++)
            memo.count[i] = 0;
    }
    trl_sig sig = sig_of_count(memo.base, count, memo.size);
    memo.count[memo.next] = count;
    memo.sig[memo.next] = sig;
    memo.next = (memo.next + 1) % COUNTS;
    return sig;
}
