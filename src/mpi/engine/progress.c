#define _GNU_SOURCE
#include "mpi/engine/progress.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "exec/mpi_impl.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/op_pool.h"

static struct {
    pthread_t thread;
    bool naps; /* the thread shares cores with the program: it naps */
    atomic_bool stop;
} th;

/* The progress thread's naps (th.naps) after turns that moved nothing:
 * from the shortest, doubling up to the longest, back to none as soon as a
 * step finishes. */
enum { NAP_MIN_NS = 2000, NAP_MAX_NS = 64000 };

static void *progress_thread(void *arg)
{
    (void)arg;
    long nap = 0;
    /* Naps as short as asked: the default slack, 50 us, would stretch
     * every one of them. */
    if (th.naps)
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
    trl_engine_lock();
    while (!atomic_load(&th.stop)) {
        if (!trl_engine_busy()) {
            /* Nothing runs: sleep until an op starts, taking no time from
             * the program's computation. */
            trl_engine_sleep();
            nap = 0;
            continue;
        }
        bool moved = trl_engine_turn();
        if (moved || !th.naps) {
            nap = 0;
            /* Let the program's threads take the lock between turns. */
            trl_engine_unlock();
            trl_engine_lock();
            continue;
        }
        /* Sharing the core with the program: a thread that polls without
         * pause takes half the core from the computation it should hide
         * behind, and gains nothing while the peers have not answered. */
        nap = nap ? (2 * nap < NAP_MAX_NS ? 2 * nap : NAP_MAX_NS) : NAP_MIN_NS;
        struct timespec ts = {0, nap};
        trl_engine_unlock();
        nanosleep(&ts, NULL);
        trl_engine_lock();
    }
    trl_engine_unlock();
    return NULL;
}

/* Whether the progress thread shares cores with the program's ranks: when
 * this node's ranks and their progress threads outnumber its cores, or when
 * Open MPI was told that ranks share cores (mpi_yield_when_idle, as the
 * executor's shared-memory wait reads it). The node's ranks come from the
 * launcher's environment (Open MPI's, then MPICH's), not a collective: not
 * every rank need get here. */
static bool thread_shares_cores(void)
{
    const char *mpi = getenv("OMPI_MCA_mpi_yield_when_idle");
    if (mpi && *mpi && strcmp(mpi, "0") != 0 && strcmp(mpi, "false") != 0)
        return true;
    const char *n = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    if (!n)
        n = getenv("MPI_LOCALNRANKS");
    long local = n ? atol(n) : 1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && 2L * local > cores;
}

/* Open MPI calls its progress callbacks from every call that waits or
 * tests (opal_progress), as it does for its own non-blocking collectives:
 * registering there lets a program blocked in MPI_Recv advance Trellis'
 * collectives too, as MPI's progress rule asks. */
static int hook(void)
{
    int before = trl_engine_running();
    if (before == 0)
        return 0;
    trl_engine_progress();
    return before - trl_engine_running();
}

static void engine_hook(bool on)
{
    typedef int (*register_fn)(int (*)(void));
    void *sym = dlsym(RTLD_DEFAULT, on ? "opal_progress_register" : "opal_progress_unregister");
    if (sym) {
        register_fn reg;
        memcpy(&reg, &sym, sizeof reg);
        reg(hook);
    }
}

void trl_engine_init(int provided)
{
    engine_hook(true);
    const char *want = getenv("TRELLIS_PROGRESS");
    if (!want || strcmp(want, "thread") != 0)
        return;
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (TRL_NO_PROGRESS_THREAD) {
        if (rank == 0)
            trl_log("TRELLIS_PROGRESS=thread is not available under %s (%s: docs/install.md); "
                    "progress stays in MPI calls",
                    TRL_MPI_NAME, TRL_NO_PROGRESS_THREAD);
        return;
    }
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            trl_log("TRELLIS_PROGRESS=thread needs MPI_THREAD_MULTIPLE (the program asked for "
                    "less); progress stays in MPI calls");
        return;
    }
    trl_engine_set_threaded(true);
    th.naps = thread_shares_cores();
    if (pthread_create(&th.thread, NULL, progress_thread, NULL) != 0) {
        trl_engine_set_threaded(false);
        if (rank == 0)
            trl_log("TRELLIS_PROGRESS=thread: could not start the thread; progress stays in "
                    "MPI calls");
    }
}

void trl_engine_finalize(void)
{
    trl_engine_flush();
    engine_hook(false);
    if (trl_engine_threaded()) {
        trl_engine_lock();
        atomic_store(&th.stop, true);
        trl_engine_wake();
        trl_engine_unlock();
        pthread_join(th.thread, NULL);
        trl_engine_set_threaded(false);
    }
    trl_op_pool_free();
}
