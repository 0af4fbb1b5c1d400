#include "mpi/entry/validate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(MPI_Datatype) <= sizeof(uint64_t) && sizeof(MPI_Op) <= sizeof(uint64_t),
               "handles hash as 64-bit words");
_Static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "an attribute value holds 64 bits");

/* A derived datatype's attribute: bit OP_BIT(i) says the library accepts
 * predefined operation i on it (USER_OP_BIT: any user-defined one, which
 * MPI lets apply to any datatype, so only the type itself is judged);
 * MOVE_BIT(coll, side) that it accepts the type on that side of that
 * data-movement collective. */
static const MPI_Op predefined_ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                                        MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                                        MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
enum { NOPS = sizeof predefined_ops / sizeof *predefined_ops, USER_OP_BIT = NOPS };
#define OP_BIT(i)            (i)
#define MOVE_BIT(coll, side) (NOPS + 1 + 2 * (int)(coll) + (int)(side))
_Static_assert(NOPS + 1 + 2 * TRL_COLL_COUNT <= 64, "the bits fit one attribute value");

/* Predefined datatypes, which are never freed: (type, op) -> verdict,
 * with op MPI_OP_NULL marking "type is predefined". Open addressing,
 * filled to at most 3/4: the predefined pairs number about 70 types x 14
 * operations, so the table never fills in practice; past the bound,
 * verdicts are asked again each time rather than kept. Slots are written
 * once, under the lock, and published by their state. */
enum { EMPTY, YES, NO };
enum { SLOTS = 4096 };
typedef struct {
    _Atomic unsigned char state;
    MPI_Datatype type;
    MPI_Op op;
} slot;

static struct {
    slot table[SLOTS];
    int used;
    pthread_mutex_t lock; /* inserts, and the probe communicator */
    pthread_once_t once;
    MPI_Comm probe; /* MPI_COMM_SELF's duplicate, errors returned */
    int keyval;     /* the derived datatypes' attribute */
} v = {.lock = PTHREAD_MUTEX_INITIALIZER,
       .once = PTHREAD_ONCE_INIT,
       .probe = MPI_COMM_NULL,
       .keyval = MPI_KEYVAL_INVALID};

static size_t slot_of(MPI_Datatype type, MPI_Op op)
{
    uint64_t t = 0, o = 0;
    memcpy(&t, &type, sizeof type);
    memcpy(&o, &op, sizeof op);
    uint64_t h = (t ^ (o * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
    return (size_t)(h >> 32) & (SLOTS - 1);
}

static int lookup(MPI_Datatype type, MPI_Op op)
{
    for (size_t i = slot_of(type, op), n = 0; n < SLOTS; i = (i + 1) & (SLOTS - 1), n++) {
        const slot *s = &v.table[i];
        int state = atomic_load_explicit(&s->state, memory_order_acquire);
        if (state == EMPTY)
            return EMPTY;
        if (s->type == type && s->op == op)
            return state;
    }
    return EMPTY;
}

/* Called with the lock held. */
static void insert(MPI_Datatype type, MPI_Op op, int state)
{
    if (lookup(type, op) != EMPTY || v.used >= SLOTS / 4 * 3)
        return;
    size_t i = slot_of(type, op);
    while (atomic_load_explicit(&v.table[i].state, memory_order_relaxed) != EMPTY)
        i = (i + 1) & (SLOTS - 1);
    v.table[i].type = type;
    v.table[i].op = op;
    atomic_store_explicit(&v.table[i].state, (unsigned char)state, memory_order_release);
    v.used++;
}

static void set_up(void)
{
    if (PMPI_Comm_dup(MPI_COMM_SELF, &v.probe) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(v.probe, MPI_ERRORS_RETURN);
    PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &v.keyval, NULL);
}

void trl_validate_finalize(void)
{
    if (v.probe != MPI_COMM_NULL)
        PMPI_Comm_free(&v.probe);
    if (v.keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_free_keyval(&v.keyval);
}

/* The probes: count 0 on the one-rank communicator, so nothing is read
 * or written; what fails is what the library refuses. Lock held. */
static bool probe_reduction(MPI_Datatype type, MPI_Op op)
{
    static char in[16], out[16];
    return PMPI_Allreduce(in, out, 0, type, op, v.probe) == MPI_SUCCESS;
}

static bool probe_move(trl_coll coll, trl_side_kind side, MPI_Datatype type)
{
    static char a[16], b[16];
    int zero[1] = {0};
    MPI_Datatype s = side == TRL_SIDE_SEND ? type : MPI_BYTE;
    MPI_Datatype r = side == TRL_SIDE_SEND ? MPI_BYTE : type;
    MPI_Datatype ss[1] = {s}, rr[1] = {r};
    MPI_Comm c = v.probe;
    int rc = MPI_SUCCESS;
    switch (coll) {
    case TRL_COLL_BCAST: rc = PMPI_Bcast(a, 0, type, 0, c); break;
    case TRL_COLL_GATHER: rc = PMPI_Gather(a, 0, s, b, 0, r, 0, c); break;
    case TRL_COLL_GATHERV: rc = PMPI_Gatherv(a, 0, s, b, zero, zero, r, 0, c); break;
    case TRL_COLL_SCATTER: rc = PMPI_Scatter(a, 0, s, b, 0, r, 0, c); break;
    case TRL_COLL_SCATTERV: rc = PMPI_Scatterv(a, zero, zero, s, b, 0, r, 0, c); break;
    case TRL_COLL_ALLGATHER: rc = PMPI_Allgather(a, 0, s, b, 0, r, c); break;
    case TRL_COLL_ALLGATHERV: rc = PMPI_Allgatherv(a, 0, s, b, zero, zero, r, c); break;
    case TRL_COLL_ALLTOALL: rc = PMPI_Alltoall(a, 0, s, b, 0, r, c); break;
    case TRL_COLL_ALLTOALLV: rc = PMPI_Alltoallv(a, zero, zero, s, b, zero, zero, r, c); break;
    case TRL_COLL_ALLTOALLW: rc = PMPI_Alltoallw(a, zero, zero, ss, b, zero, zero, rr, c); break;
    default: break;
    }
    return rc == MPI_SUCCESS;
}

static bool is_predefined_op(MPI_Op op, int *index)
{
    for (int i = 0; i < NOPS; i++) {
        if (op == predefined_ops[i]) {
            *index = i;
            return true;
        }
    }
    return false;
}

/* What the library answers about type: a predefined type is accepted
 * wherever a predefined op is not involved (op MPI_OP_NULL); otherwise
 * the pair is looked up, or probed and kept. A derived type keeps
 * acceptances in its attribute, bit `bit`. */
typedef struct {
    MPI_Op op; /* reductions: the operation; data movement: MPI_OP_NULL */
    trl_coll coll;
    trl_side_kind side;
    int bit;
} question;

static bool probe(const question *q, MPI_Datatype type)
{
    pthread_mutex_lock(&v.lock);
    /* Without a probe communicator, nothing can be asked: accept, and let
     * the library report what it finds while running. */
    bool ok = v.probe == MPI_COMM_NULL ||
              (q->op != MPI_OP_NULL ? probe_reduction(type, q->op)
                                    : probe_move(q->coll, q->side, type));
    pthread_mutex_unlock(&v.lock);
    return ok;
}

static bool ask(const question *q, MPI_Datatype type)
{
    pthread_once(&v.once, set_up);
    void *value = NULL;
    int found = 0;
    if (v.keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_get_attr(type, v.keyval, &value, &found);
    uintptr_t bits = found ? (uintptr_t)value : 0;
    if (bits >> q->bit & 1)
        return true;
    if (!found) {
        int ni, na, nd, combiner;
        PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
        if (combiner == MPI_COMBINER_NAMED) {
            int op_index;
            bool probed = q->op != MPI_OP_NULL && is_predefined_op(q->op, &op_index);
            bool ok = !probed || probe(q, type);
            pthread_mutex_lock(&v.lock);
            insert(type, MPI_OP_NULL, YES);
            if (probed)
                insert(type, q->op, ok ? YES : NO);
            pthread_mutex_unlock(&v.lock);
            return ok;
        }
    }
    bool ok = probe(q, type);
    if (ok && v.keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(type, v.keyval, (void *)(bits | (uintptr_t)1 << q->bit));
    return ok;
}

bool trl_reduction_ok(MPI_Datatype type, MPI_Op op)
{
    if (type == MPI_DATATYPE_NULL || op == MPI_OP_NULL)
        return false;
    int state = lookup(type, op);
    if (state != EMPTY)
        return state == YES;
    int op_index;
    bool predefined_op = is_predefined_op(op, &op_index);
    /* A user-defined operation on a predefined type: MPI allows any. */
    if (!predefined_op && lookup(type, MPI_OP_NULL) == YES)
        return true;
    question q = {op, TRL_COLL_ALLREDUCE, TRL_SIDE_SEND,
                  predefined_op ? OP_BIT(op_index) : USER_OP_BIT};
    return ask(&q, type);
}

bool trl_move_type_ok(trl_coll coll, trl_side_kind side, MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL)
        return false;
    if (lookup(type, MPI_OP_NULL) == YES)
        return true;
    question q = {MPI_OP_NULL, coll, side, MOVE_BIT(coll, side)};
    return ask(&q, type);
}

bool trl_reduction_refused(const void *sendbuf, const void *recvbuf, int count, MPI_Datatype type,
                           MPI_Op op, bool recv_significant)
{
    if (count < 0 || !trl_reduction_ok(type, op))
        return true;
    if (!recv_significant)
        return sendbuf == MPI_IN_PLACE;
    /* Aliasing whatever the count, MPI_BOTTOM (NULL) included: libraries
     * differ on which aliased calls they refuse (Open MPI's reduce does
     * all, its allreduce those of count 2 or more), and a call every rank
     * hands over is served as the library alone serves it. */
    return recvbuf == MPI_IN_PLACE || sendbuf == recvbuf;
}

bool trl_side_refused(trl_coll coll, trl_side_kind side, const void *buf, int count,
                      MPI_Datatype type)
{
    return buf == MPI_IN_PLACE || count < 0 || !trl_move_type_ok(coll, side, type);
}

bool trl_vside_refused(trl_coll coll, trl_side_kind side, const void *buf, const int *counts,
                       const int *displs, MPI_Datatype type, int p)
{
    if (buf == MPI_IN_PLACE || !counts || !displs || !trl_move_type_ok(coll, side, type))
        return true;
    for (int i = 0; i < p; i++)
        if (counts[i] < 0)
            return true;
    return false;
}

bool trl_wside_refused(trl_side_kind side, const void *buf, const int *counts, const int *displs,
                       const MPI_Datatype *types, int p)
{
    if (!types || trl_vside_refused(TRL_COLL_ALLTOALLW, side, buf, counts, displs, MPI_BYTE, p))
        return true;
    for (int i = 0; i < p; i++)
        if (!trl_move_type_ok(TRL_COLL_ALLTOALLW, side, types[i]))
            return true;
    return false;
}
