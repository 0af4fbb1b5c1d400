#include "mpi/engine/holds.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/typeinfo.h"

enum { TYPE, OP };

/* One held handle: how many holds, and whether the program freed it. */
typedef struct {
    uint64_t bits; /* the handle's bits; 0: empty slot */
    int kind;
    int holds;
    bool freed;
} hold;

/* A library free that came due inside one of the library's own calls. */
typedef struct {
    uint64_t bits;
    int kind;
} due;

static struct {
    pthread_mutex_t lock;
    hold *slot;
    size_t cap, n;
    atomic_int any; /* n, read without the lock by the free calls */
    due *due;       /* trl_holds_flush frees these */
    size_t ndue, cap_due;
} h = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Set while this thread is inside the MPI library's own call. */
static _Thread_local bool in_library;

/* A handle's bits, never 0 (a null handle is never held). */
static uint64_t bits_of(const void *handle, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, handle, size < sizeof b ? size : sizeof b);
    return b;
}

static size_t home(uint64_t bits, int kind, size_t cap)
{
    return (size_t)(((bits ^ (uint64_t)kind) * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

static hold *find(uint64_t bits, int kind)
{
    if (!h.cap)
        return NULL;
    for (size_t k = home(bits, kind, h.cap); h.slot[k].bits; k = (k + 1) & (h.cap - 1))
        if (h.slot[k].bits == bits && h.slot[k].kind == kind)
            return &h.slot[k];
    return NULL;
}

static void put(hold e)
{
    size_t k = home(e.bits, e.kind, h.cap);
    while (h.slot[k].bits)
        k = (k + 1) & (h.cap - 1);
    h.slot[k] = e;
}

/* Room for one more; false if out of memory. */
static bool reserve(void)
{
    if (2 * (h.n + 1) <= h.cap)
        return true;
    size_t old = h.cap, cap = old ? 2 * old : 64;
    hold *was = h.slot;
    hold *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    h.slot = t;
    h.cap = cap;
    for (size_t i = 0; i < old; i++)
        if (was[i].bits)
            put(was[i]);
    free(was);
    return true;
}

/* Empty slot e, then put back the entries after it that it displaced. */
static void remove_at(hold *e)
{
    size_t k = (size_t)(e - h.slot);
    h.slot[k].bits = 0;
    h.n--;
    atomic_store_explicit(&h.any, (int)h.n, memory_order_relaxed);
    for (size_t j = (k + 1) & (h.cap - 1); h.slot[j].bits; j = (j + 1) & (h.cap - 1)) {
        hold moved = h.slot[j];
        h.slot[j].bits = 0;
        put(moved);
    }
}

/* false when out of memory: not held (the program is then not to free it
 * early), and the caller must not let it go, or it would drop another
 * user's hold. */
static bool take(uint64_t bits, int kind)
{
    pthread_mutex_lock(&h.lock);
    hold *e = find(bits, kind);
    bool held = true;
    if (e) {
        e->holds++;
    } else if (reserve()) {
        put((hold){bits, kind, 1, false});
        h.n++;
        atomic_store_explicit(&h.any, (int)h.n, memory_order_relaxed);
    } else {
        held = false;
    }
    pthread_mutex_unlock(&h.lock);
    return held;
}

/* Let go of one hold; true when the program freed the handle and this was
 * the last hold, so the caller frees it in the library now. Inside the
 * library's own call the free waits for trl_holds_flush instead (true is
 * not returned then): MPI calls from there are not allowed everywhere
 * (MPICH asserts with MPI_THREAD_MULTIPLE). */
static bool let(uint64_t bits, int kind)
{
    pthread_mutex_lock(&h.lock);
    hold *e = find(bits, kind);
    bool free_now = false;
    if (e && --e->holds == 0) {
        free_now = e->freed;
        remove_at(e);
    }
    if (free_now && in_library) {
        free_now = false;
        if (h.ndue == h.cap_due) {
            size_t cap = h.cap_due ? 2 * h.cap_due : 16;
            due *d = realloc(h.due, cap * sizeof *d);
            if (d) {
                h.due = d;
                h.cap_due = cap;
            }
        }
        if (h.ndue < h.cap_due) /* else out of memory: the handle is never freed */
            h.due[h.ndue++] = (due){bits, kind};
    }
    pthread_mutex_unlock(&h.lock);
    return free_now;
}

static void free_in_library(uint64_t bits, int kind)
{
    if (kind == TYPE) {
        MPI_Datatype t;
        memcpy(&t, &bits, sizeof t);
        PMPI_Type_free(&t);
    } else {
        MPI_Op op;
        memcpy(&op, &bits, sizeof op);
        PMPI_Op_free(&op);
    }
}

void trl_holds_inside_library(bool inside)
{
    in_library = inside;
}

void trl_holds_flush(void)
{
    for (;;) {
        pthread_mutex_lock(&h.lock);
        bool any = h.ndue > 0;
        due d = any ? h.due[--h.ndue] : (due){0, 0};
        pthread_mutex_unlock(&h.lock);
        if (!any)
            return;
        free_in_library(d.bits, d.kind);
    }
}

/* The program frees a handle: true when it is held (then it is freed at
 * its last hold's end). */
static bool defer(uint64_t bits, int kind)
{
    if (atomic_load_explicit(&h.any, memory_order_relaxed) == 0)
        return false;
    pthread_mutex_lock(&h.lock);
    hold *e = find(bits, kind);
    if (e)
        e->freed = true;
    pthread_mutex_unlock(&h.lock);
    return e != NULL;
}

static bool predefined_type(MPI_Datatype type)
{
    return type == MPI_DATATYPE_NULL || trl_type_named(type);
}

bool trl_hold_type(MPI_Datatype type)
{
    return !predefined_type(type) && take(bits_of(&type, sizeof type), TYPE);
}

/* No MPI call to tell a predefined type (trl_type_named may make one):
 * this may run inside the library's free callback, where MPICH asserts on
 * one under MPI_THREAD_MULTIPLE. A handle never held, as predefined ones
 * never are, is not found. */
void trl_let_type(MPI_Datatype type)
{
    if (type == MPI_DATATYPE_NULL || atomic_load_explicit(&h.any, memory_order_relaxed) == 0)
        return;
    uint64_t bits = bits_of(&type, sizeof type);
    if (let(bits, TYPE))
        free_in_library(bits, TYPE);
}

bool trl_hold_types(const MPI_Datatype *types, int n)
{
    for (int i = 0; i < n; i++) {
        if (predefined_type(types[i]) || take(bits_of(&types[i], sizeof types[i]), TYPE))
            continue;
        trl_let_types(types, i); /* out of memory: none held */
        return false;
    }
    return true;
}

void trl_let_types(const MPI_Datatype *types, int n)
{
    for (int i = 0; i < n; i++)
        trl_let_type(types[i]);
}

bool trl_hold_op(MPI_Op op)
{
    return op != MPI_OP_NULL && !trl_op_predefined(op) && take(bits_of(&op, sizeof op), OP);
}

void trl_let_op(MPI_Op op)
{
    uint64_t bits = bits_of(&op, sizeof op);
    if (op != MPI_OP_NULL && !trl_op_predefined(op) && let(bits, OP))
        free_in_library(bits, OP);
}

int MPI_Type_free(MPI_Datatype *type)
{
    if (type && *type != MPI_DATATYPE_NULL && defer(bits_of(type, sizeof *type), TYPE)) {
        *type = MPI_DATATYPE_NULL;
        return MPI_SUCCESS;
    }
    return PMPI_Type_free(type);
}

int MPI_Op_free(MPI_Op *op)
{
    if (op && *op != MPI_OP_NULL && defer(bits_of(op, sizeof *op), OP)) {
        *op = MPI_OP_NULL;
        return MPI_SUCCESS;
    }
    return PMPI_Op_free(op);
}

void trl_holds_finalize(void)
{
    trl_holds_flush();
    pthread_mutex_lock(&h.lock);
    free(h.slot);
    h.slot = NULL;
    h.cap = h.n = 0;
    free(h.due);
    h.due = NULL;
    h.ndue = h.cap_due = 0;
    atomic_store_explicit(&h.any, 0, memory_order_relaxed);
    pthread_mutex_unlock(&h.lock);
}
