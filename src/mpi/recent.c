/* The communicators this thread called collectives on last (recent.h). */
#include "mpi/recent.h"

#include <stdatomic.h>
#include <stddef.h>

/* Eight: a program's world, node and leader communicators and a few more;
 * the entries fill three cache lines, and a lookup stops at its own. */
enum { RECENT = 8 };

/* Entries of an older epoch are empty. */
static atomic_uint epoch = 1;

/* Initial-exec, as engine.c's `inside`: the library is loaded at start-up,
 * so a lookup needs no TLS call. */
static _Thread_local struct entry {
    MPI_Comm comm;
    void *state;
    unsigned epoch;
    unsigned kind;
} recent[RECENT] __attribute__((tls_model("initial-exec")));
static _Thread_local unsigned oldest __attribute__((tls_model("initial-exec")));

void *trl_recent_find(MPI_Comm comm, trl_recent_kind kind, bool *other_kind)
{
    unsigned now = atomic_load_explicit(&epoch, memory_order_acquire);
    for (int i = 0; i < RECENT; i++) {
        const struct entry *e = &recent[i];
        if (e->comm == comm && e->state && e->epoch == now) {
            *other_kind = e->kind != (unsigned)kind;
            return *other_kind ? NULL : e->state;
        }
    }
    *other_kind = false;
    return NULL;
}

void trl_recent_add(MPI_Comm comm, trl_recent_kind kind, void *state)
{
    unsigned now = atomic_load_explicit(&epoch, memory_order_acquire);
    int at = -1;
    for (int i = 0; i < RECENT && at < 0; i++)
        if (recent[i].epoch != now || !recent[i].state || recent[i].comm == comm)
            at = i;
    if (at < 0) {
        at = (int)oldest;
        oldest = (oldest + 1) % RECENT;
    }
    recent[at] = (struct entry){comm, state, now, (unsigned)kind};
}

void trl_recent_forget_all(void)
{
    atomic_fetch_add_explicit(&epoch, 1, memory_order_acq_rel);
}
