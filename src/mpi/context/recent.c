/* The communicators this thread called collectives on last (recent.h). */
#include "mpi/context/recent.h"

#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

/* Eight: a program's world, node and leader communicators and a few more. */
enum { RECENT = 8 };

/* Moves whenever a communicator's state goes; a table of an older epoch is
 * empty. */
static atomic_uint epoch = 1;

/* One thread's table, laid out so that a lookup on a program's first three
 * communicators touches one cache line (the header and entries 0-2): after
 * a compute phase each line is a miss. Initial-exec, as engine.c's
 * `inside`: the library is loaded at start-up, so no TLS call either. */
static _Thread_local struct {
    unsigned epoch;
    unsigned char oldest;
    unsigned char kind[RECENT];
    struct {
        MPI_Comm comm;
        void *state; /* NULL: empty */
    } e[RECENT];
} table __attribute__((aligned(64), tls_model("initial-exec")));

void *trl_recent_find(MPI_Comm comm, trl_recent_kind kind, bool *other_kind)
{
    *other_kind = false;
    if (table.epoch != atomic_load_explicit(&epoch, memory_order_acquire))
        return NULL;
    for (int i = 0; i < RECENT; i++)
        if (table.e[i].state && table.e[i].comm == comm) {
            *other_kind = table.kind[i] != (unsigned char)kind;
            return *other_kind ? NULL : table.e[i].state;
        }
    return NULL;
}

void trl_recent_add(MPI_Comm comm, trl_recent_kind kind, void *state)
{
    unsigned now = atomic_load_explicit(&epoch, memory_order_acquire);
    if (table.epoch != now) {
        memset(table.e, 0, sizeof table.e);
        table.epoch = now;
        table.oldest = 0;
    }
    int at = -1;
    for (int i = 0; i < RECENT && at < 0; i++)
        if (!table.e[i].state || table.e[i].comm == comm)
            at = i;
    if (at < 0) {
        at = table.oldest;
        table.oldest = (unsigned char)((table.oldest + 1) % RECENT);
    }
    table.e[at].comm = comm;
    table.e[at].state = state;
    table.kind[at] = (unsigned char)kind;
}

void trl_recent_forget_all(void)
{
    atomic_fetch_add_explicit(&epoch, 1, memory_order_acq_rel);
}
