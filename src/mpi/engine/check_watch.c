/* TRELLIS_CHECK's watchdog (check_watch.h): a thread that wakes once a
 * second and, for each call a rank has been in for the timeout or longer,
 * says so once, on that rank. A rank that never made the call says
 * nothing: the ranks that report are the ones it holds up. The thread
 * calls nothing of MPI's; the job goes on.
 *
 * Two kinds of record. A blocking call, on the path of every call, costs
 * two stores: each thread registers one record once, pointing at where
 * that thread describes its blocking calls (which stays put), and the
 * watchdog dates a call itself, from the first second it sees it in, and
 * copies it only to tell, checking that the call did not end meanwhile. A
 * non-blocking call's check, which lasts until the engine has followed it
 * up, takes a slot of a table under a lock. */
#include "mpi/engine/check_watch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "mpi/engine/check_report.h"
#include "mpi/engine/mode.h"

enum { SLOTS = 256, THREADS = 64 };

typedef struct {
    trl_check_call_info call; /* a copy; its cc is not kept (the communicator may go) */
    char comm_name[80];
    bool op; /* a collective in flight (its check passed), not a call or a check */
} watched;

/* A thread's blocking calls: token is the call's (non-zero) while the
 * thread is in it, described at *call. */
typedef struct {
    atomic_long token;
    const trl_check_call_info *call;
    long seen;    /* the watchdog's: the token it saw last, */
    double since; /* since when, */
    bool told;    /* and whether it said so */
} thread_record;

static struct {
    pthread_mutex_t lock;
    double timeout;
    int world_rank;
    struct {
        bool used, told;
        double since;
        watched what;
    } slot[SLOTS];
    thread_record *threads[THREADS];
    atomic_int n_threads;
    atomic_long tokens;
} w = {.lock = PTHREAD_MUTEX_INITIALIZER};

static TRL_CHECK_TLS thread_record *mine;
static TRL_CHECK_TLS thread_record own;

static void tell(const watched *what, double waited)
{
    char name[64], site[400];
    trl_check_call_name(what->call.row, name, sizeof name);
    trl_check_site_text(what->call.row[TRL_CK_SITE], site, sizeof site);
    long long seq = (long long)what->call.row[TRL_CK_SEQ];
    if (what->op) {
        bool persistent = what->call.row[TRL_CK_MODE] % 8 == TRL_MODE_PERSISTENT;
        fprintf(stderr,
                "Trellis check (TRELLIS_CHECK): rank %d (MPI_COMM_WORLD): call %lld on %s, %s, "
                "called from %s, has run %.0f s %s without finishing: a rank of that "
                "communicator that has not %s holds it up\n",
                w.world_rank, seq, what->comm_name, name, site, waited,
                persistent ? "since its last start" : "since it began",
                persistent ? "started it as often" : "made this call");
    } else {
        fprintf(stderr,
                "Trellis check (TRELLIS_CHECK): rank %d (MPI_COMM_WORLD) has waited %.0f s in "
                "call %lld on %s, %s, called from %s: a rank of that communicator that has "
                "not made this call holds it up\n",
                w.world_rank, waited, seq, what->comm_name, name, site);
    }
    fflush(stderr);
}

static void look_at_threads(double now)
{
    int n = atomic_load(&w.n_threads);
    for (int i = 0; i < n && i < THREADS; i++) {
        thread_record *t = w.threads[i];
        long token = t ? atomic_load(&t->token) : 0;
        if (token == 0 || token != t->seen) {
            if (t) {
                t->seen = token;
                t->since = now;
                t->told = false;
            }
            continue;
        }
        if (!t->told && now - t->since >= w.timeout) {
            /* the call and its communicator's name: both stay while the
             * call does, which the token tells after the copy */
            watched copy = {.op = false};
            memcpy(&copy.call, t->call, sizeof copy.call);
            memcpy(copy.comm_name, copy.call.cc->name, sizeof copy.comm_name);
            copy.comm_name[sizeof copy.comm_name - 1] = 0;
            if (atomic_load(&t->token) == token) { /* still the same call */
                t->told = true;
                tell(&copy, now - t->since);
            }
        }
    }
}

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(1);
        double now = trl_now_s();
        look_at_threads(now);
        pthread_mutex_lock(&w.lock);
        for (int i = 0; i < SLOTS; i++)
            if (w.slot[i].used && !w.slot[i].told && now - w.slot[i].since >= w.timeout) {
                w.slot[i].told = true;
                tell(&w.slot[i].what, now - w.slot[i].since);
            }
        pthread_mutex_unlock(&w.lock);
    }
    return NULL;
}

void trl_check_watch_start(double timeout_s)
{
    w.timeout = timeout_s;
    PMPI_Comm_rank(MPI_COMM_WORLD, &w.world_rank);
    pthread_t t;
    if (pthread_create(&t, NULL, watch, NULL) == 0)
        pthread_detach(t);
}

static void keep(watched *to, const trl_check_call_info *call, const char *comm_name, bool op)
{
    to->call = *call;
    snprintf(to->comm_name, sizeof to->comm_name, "%s", comm_name);
    to->call.cc = NULL;
    to->op = op;
}

void trl_check_watch_blocking(const trl_check_call_info *call)
{
    if (!mine) {
        int i = atomic_fetch_add(&w.n_threads, 1);
        if (i >= THREADS)
            return; /* watched no more: more threads than records */
        mine = &own;
        w.threads[i] = mine;
    }
    mine->call = call; /* the thread's own place, the same each call */
    atomic_store_explicit(&mine->token, atomic_fetch_add(&w.tokens, 1) + 1, memory_order_release);
}

void trl_check_watch_blocking_done(void)
{
    if (mine)
        atomic_store_explicit(&mine->token, 0, memory_order_release);
}

int trl_check_watch_enter(const trl_check_call_info *call, const char *comm_name, bool op)
{
    int found = -1;
    pthread_mutex_lock(&w.lock);
    for (int i = 0; i < SLOTS && found < 0; i++)
        if (!w.slot[i].used) {
            found = i;
            w.slot[i].used = true;
            w.slot[i].told = false;
            w.slot[i].since = trl_now_s();
            keep(&w.slot[i].what, call, comm_name, op);
        }
    pthread_mutex_unlock(&w.lock);
    return found;
}

void trl_check_watch_leave(int slot)
{
    if (slot < 0)
        return;
    pthread_mutex_lock(&w.lock);
    w.slot[slot].used = false;
    pthread_mutex_unlock(&w.lock);
}
