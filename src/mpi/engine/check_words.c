/* TRELLIS_CHECK's words (check_words.h): what a blocking call's check on
 * an intracommunicator exchanges, 16 bytes a rank, and how two ranks'
 * words combine. */
#include "mpi/engine/check_words.h"

#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h *= 0xbf58476d1ce4e5b9ULL;
    return h ^ (h >> 31);
}

/* One word for the compared fields of an intracommunicator's row: equal
 * on every rank exactly when the rows agree (but for a collision of 62-bit
 * hashes), given that on an intracommunicator every rank cares for the
 * same fields. The call's number and form are left out: the words of a
 * blocking call meet only the same call's of the other ranks, so they
 * match there. -1: this rank found its own call wrong (LOCAL, or its send
 * and receive blocks differ), which must come out as a difference even
 * where every rank does. A program repeats its calls: the last row's
 * word is kept. */
static int64_t row_hash(const int64_t *row)
{
    uint32_t care = (uint32_t)row[TRL_CK_FIELDS];
    if (row[TRL_CK_LOCAL] != TRL_CK_LOCAL_OK)
        return -1;
    bool x = care >> TRL_CK_XB & 1, y = care >> TRL_CK_YB & 1;
    if (x && y &&
        (row[TRL_CK_XB] != row[TRL_CK_YB] || (care >> TRL_CK_XH & 1) != (care >> TRL_CK_YH & 1) ||
         row[TRL_CK_XH] != row[TRL_CK_YH]))
        return -1;
    care &= ~(1u << TRL_CK_SEQ | 1u << TRL_CK_MODE);
    int64_t key[TRL_CK_COMPARED + 1];
    for (int f = 0; f < TRL_CK_COMPARED; f++)
        key[f] = care >> f & 1 ? row[f] : 0;
    key[TRL_CK_COMPARED] = care;
    static TRL_CHECK_TLS struct {
        int64_t key[TRL_CK_COMPARED + 1], hash;
        bool set;
    } last;
    bool same = last.set;
    for (int f = 0; same && f <= TRL_CK_COMPARED; f++)
        same = key[f] == last.key[f];
    if (same)
        return last.hash;
    uint64_t h = care;
    for (int f = 0; f < TRL_CK_COMPARED; f++)
        h = mix(h, care >> f & 1 ? (uint64_t)row[f] : 0x5bd1e995u);
    memcpy(last.key, key, sizeof key);
    last.hash = (int64_t)(h >> 2);
    last.set = true;
    return last.hash;
}

void trl_check_words_combine(const int64_t *in, int64_t *inout)
{
    inout[0] = in[0] == inout[0] ? in[0] : HASH_DIFFERS;
    inout[1] = (int64_t)((uint64_t)inout[1] + (uint64_t)in[1]);
}

static void combine_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i + 1 < *len; i += 2)
        trl_check_words_combine((const int64_t *)in + i, (int64_t *)inout + i);
}

void trl_check_words_of(const trl_check_call_info *call, const trl_check_pre *pre, int64_t v[2])
{
    const trl_check_where *w = &call->cc->where;
    uint64_t digest = 0;
    bool sure = !pre || trl_check_pre_digest(pre, w->rank, w->size, &digest);
    int64_t h = row_hash(call->row);
    v[0] = sure && h >= 0 ? h : HASH_DIFFERS;
    v[1] = (int64_t)digest;
}

bool trl_check_words_agree(const int64_t all[2])
{
    return all[0] != HASH_DIFFERS && all[1] == 0;
}

MPI_Op trl_check_words_op;

void trl_check_words_start(void)
{
    PMPI_Op_create(combine_fn, 1, &trl_check_words_op);
}

void trl_check_words_end(void)
{
    PMPI_Op_free(&trl_check_words_op);
}
