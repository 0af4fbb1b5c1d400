/* TRELLIS_CHECK's watchdog (check_watch.h): a thread that wakes once a
 * second and, for each call a rank has been in for the timeout or longer,
 * says so once, on that rank. A rank that never made the call says
 * nothing: the ranks that report are the ones it holds up. The thread
 * calls nothing of MPI's; the job goes on. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi/engine/check_report.h"
#include "mpi/engine/check_watch.h"

enum { SLOTS = 64 };

static struct {
    pthread_mutex_t lock;
    double timeout;
    int world_rank;
    struct {
        bool used, told;
        double since;
        trl_check_call_info call; /* a copy */
        char comm_name[80];
    } slot[SLOTS];
} w = {.lock = PTHREAD_MUTEX_INITIALIZER};

double trl_check_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void tell(int i, double now)
{
    char name[64], site[400];
    trl_check_call_name(w.slot[i].call.row, name, sizeof name);
    trl_check_site_text(w.slot[i].call.row[TRL_CK_SITE], site, sizeof site);
    fprintf(stderr,
            "Trellis check (TRELLIS_CHECK): rank %d (MPI_COMM_WORLD) has waited %.0f s in "
            "call %lld on %s, %s, called from %s: a rank of that communicator that has not "
            "made this call holds it up\n",
            w.world_rank, now - w.slot[i].since, (long long)w.slot[i].call.row[TRL_CK_SEQ],
            w.slot[i].comm_name, name, site);
    fflush(stderr);
}

static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(1);
        double now = trl_check_now();
        pthread_mutex_lock(&w.lock);
        for (int i = 0; i < SLOTS; i++)
            if (w.slot[i].used && !w.slot[i].told && now - w.slot[i].since >= w.timeout) {
                w.slot[i].told = true;
                tell(i, now);
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

int trl_check_watch_enter(const trl_check_call_info *call)
{
    int found = -1;
    pthread_mutex_lock(&w.lock);
    for (int i = 0; i < SLOTS && found < 0; i++)
        if (!w.slot[i].used) {
            found = i;
            w.slot[i].used = true;
            w.slot[i].told = false;
            w.slot[i].since = trl_check_now();
            w.slot[i].call = *call;
            snprintf(w.slot[i].comm_name, sizeof w.slot[i].comm_name, "%s", call->cc->name);
            w.slot[i].call.cc = NULL; /* the communicator may go first */
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
