#include "exec/typeinfo.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Named (predefined) datatypes: an open-addressing table, written once per
 * slot and published by its state, read without a lock. About 70 named
 * types exist; past the bound a type is simply asked each time. */
enum { SLOTS = 256, MAX_USED = SLOTS / 2 };
enum { EMPTY, NAMED, WRITING }; /* WRITING: claimed, not yet readable */

typedef struct {
    _Atomic unsigned char state;
    MPI_Datatype type;
    trl_type_info info;
} slot;

static slot table[SLOTS];
static atomic_int used;

static size_t slot_of(MPI_Datatype type)
{
    uint64_t h = 0;
    memcpy(&h, &type, sizeof type < sizeof h ? sizeof type : sizeof h);
    return (size_t)((h * 0x9e3779b97f4a7c15ULL) >> 40) & (SLOTS - 1);
}

static void ask(MPI_Datatype type, trl_type_info *out)
{
    MPI_Aint lb;
    PMPI_Type_size(type, &out->size);
    PMPI_Type_get_extent(type, &lb, &out->extent);
    PMPI_Type_get_true_extent(type, &out->true_lb, &out->true_extent);
    out->contiguous = (MPI_Aint)out->size == out->extent && out->true_extent == out->extent &&
                      out->true_lb == 0;
    out->named = false;
}

/* A named type's slot, or NULL (not named, or not in the table yet). */
static const slot *find_named(MPI_Datatype type)
{
    size_t i = slot_of(type);
    for (size_t n = 0; n < SLOTS; n++, i = (i + 1) & (SLOTS - 1)) {
        int state = atomic_load_explicit(&table[i].state, memory_order_acquire);
        if (state == EMPTY)
            break;
        if (state == NAMED && table[i].type == type)
            return &table[i];
    }
    return NULL;
}

bool trl_type_named(MPI_Datatype type)
{
    if (find_named(type))
        return true;
    int ni, na, nd, combiner;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        return false;
    trl_type_info tmp;
    trl_type_info_of(type, &tmp); /* into the table, for the next time */
    return true;
}

const trl_type_info *trl_type_info_of(MPI_Datatype type, trl_type_info *out)
{
    const slot *known = find_named(type);
    if (known)
        return &known->info;
    size_t i;
    ask(type, out);
    int ni, na, nd, combiner;
    PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        return out;
    out->named = true;
    if (atomic_fetch_add(&used, 1) >= MAX_USED)
        return out;
    /* Claim an empty slot (another thread may race for the same one). */
    for (i = slot_of(type);; i = (i + 1) & (SLOTS - 1)) {
        unsigned char empty = EMPTY;
        if (atomic_compare_exchange_strong(&table[i].state, &empty, WRITING)) {
            table[i].type = type;
            table[i].info = *out;
            atomic_store_explicit(&table[i].state, NAMED, memory_order_release);
            return out;
        }
    }
}

/* MPI's predefined operations: the reductions', which commute, then
 * MPI_REPLACE and MPI_NO_OP (one-sided accumulates only). */
enum { COMMUTING = 12 };

static int predefined_index(MPI_Op op)
{
    static const MPI_Op predefined[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                        MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (int i = 0; i < (int)(sizeof predefined / sizeof *predefined); i++)
        if (op == predefined[i])
            return i;
    return -1;
}

bool trl_op_predefined(MPI_Op op)
{
    return predefined_index(op) >= 0;
}

bool trl_op_commutes(MPI_Op op)
{
    int i = predefined_index(op);
    if (i >= 0 && i < COMMUTING)
        return true;
    int commute = 0;
    PMPI_Op_commutative(op, &commute);
    return commute;
}
