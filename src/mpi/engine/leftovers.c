/* What ops leave to be freed later (leftovers.h). */
#include "mpi/engine/leftovers.h"

#include <stdlib.h>

static struct {
    MPI_Request requests[16];
    int nrequests;
    trl_comm **comms;
    int ncomms, cap;
} left;

/* On the thread freeing them only: another thread's free callback (a
 * progress thread completing a request the program freed first) is one
 * whose op must go. */
static _Thread_local bool freeing;

void trl_left_request(MPI_Request r)
{
    if (left.nrequests == (int)(sizeof left.requests / sizeof left.requests[0]))
        trl_left_free_requests();
    left.requests[left.nrequests++] = r;
}

void trl_left_free_requests(void)
{
    if (left.nrequests == 0)
        return;
    freeing = true;
    while (left.nrequests > 0) {
        MPI_Request r = left.requests[--left.nrequests];
        PMPI_Request_free(&r);
    }
    freeing = false;
}

bool trl_left_freeing(void)
{
    return freeing;
}

void trl_left_comm(trl_comm *c, bool in_free_fn)
{
    if (in_free_fn && c->refs == 1) {
        if (left.ncomms == left.cap) {
            int cap = left.cap ? 2 * left.cap : 8;
            trl_comm **h = realloc(left.comms, (size_t)cap * sizeof *h);
            if (h) {
                left.comms = h;
                left.cap = cap;
            }
        }
        if (left.ncomms < left.cap) {
            left.comms[left.ncomms++] = c;
            return;
        }
    }
    trl_comm_release(c);
}

void trl_left_free_comms(bool all)
{
    while (left.ncomms > 0)
        trl_comm_release(left.comms[--left.ncomms]);
    if (all) {
        free(left.comms);
        left.comms = NULL;
        left.cap = 0;
    }
}
