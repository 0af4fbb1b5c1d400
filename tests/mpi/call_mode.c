/* The forms of a collective call for the checker programs (call_mode.h).
 * This file sees the real MPI names: it calls MPI_X, MPI_IX or the
 * persistent MPIX_X_init / MPI_X_init, and completes the request with a
 * completion call that changes from call to call (Wait, Test until done,
 * Waitall, Waitany, Testsome), so all of them serve Trellis' requests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include "call_mode_list.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define INIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define INIT(Name) MPI_##Name##_init
#endif

enum { BLOCKING, NONBLOCKING, PERSISTENT, MIXED };

static int mode_of_env(void)
{
    static int mode = -1;
    if (mode < 0) {
        const char *m = getenv("TRELLIS_TEST_MODE");
        mode = !m || !*m || !strcmp(m, "blocking") ? BLOCKING
               : !strcmp(m, "nonblocking")         ? NONBLOCKING
               : !strcmp(m, "persistent")          ? PERSISTENT
               : !strcmp(m, "mixed")               ? MIXED
                                                   : -2;
        if (mode == -2) {
            fprintf(stderr,
                    "call_mode: TRELLIS_TEST_MODE=%s is not blocking, nonblocking, "
                    "persistent or mixed\n",
                    m);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
#ifndef INIT
        if (mode == PERSISTENT)
            mode = NONBLOCKING; /* this MPI has no persistent collectives */
#endif
    }
    return mode;
}

/* The form of this call: mixed turns per communicator (a counter in an
 * attribute), so every rank of one call picks the same. */
static int form(MPI_Comm c)
{
    int mode = mode_of_env();
    if (mode != MIXED)
        return mode;
    static int key = MPI_KEYVAL_INVALID;
    if (key == MPI_KEYVAL_INVALID)
        MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    void *v;
    int found;
    MPI_Comm_get_attr(c, key, &v, &found);
    long n = found ? (long)(intptr_t)v : 0;
    MPI_Comm_set_attr(c, key, (void *)(intptr_t)(n + 1));
#ifdef INIT
    return (int)(n % 3);
#else
    return (int)(n % 2);
#endif
}

/* Complete one request, by a different completion call each time. */
static int complete(MPI_Request *req, int persistent)
{
    static unsigned turn;
    int rc, flag = 0, idx, out;
    MPI_Request arr[2] = {*req, MPI_REQUEST_NULL};
    switch (turn++ % 5) {
    case 0: rc = MPI_Wait(req, MPI_STATUS_IGNORE); break;
    case 1:
        do
            rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
        while (rc == MPI_SUCCESS && !flag);
        break;
    case 2:
        rc = MPI_Waitall(2, arr, MPI_STATUSES_IGNORE);
        *req = arr[0];
        break;
    case 3:
        rc = MPI_Waitany(2, arr, &idx, MPI_STATUS_IGNORE);
        *req = arr[0];
        break;
    default:
        do
            rc = MPI_Testsome(2, arr, &out, &idx, MPI_STATUSES_IGNORE);
        while (rc == MPI_SUCCESS && out == 0);
        *req = arr[0];
        break;
    }
    if (rc == MPI_SUCCESS && !persistent && *req != MPI_REQUEST_NULL) {
        fprintf(stderr, "call_mode: a completed non-blocking request was not freed\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return rc;
}

#ifdef INIT
#define PERSISTENT_CASE(Name, params, args)                                                        \
    case PERSISTENT: {                                                                             \
        MPI_Request req = MPI_REQUEST_NULL; /* an init that fails leaves it */                     \
        int rc = INIT(Name)(CM_UNPAREN args, MPI_INFO_NULL, &req);                                 \
        if (rc == MPI_SUCCESS)                                                                     \
            rc = MPI_Start(&req);                                                                  \
        if (rc == MPI_SUCCESS)                                                                     \
            rc = complete(&req, 1);                                                                \
        if (req != MPI_REQUEST_NULL)                                                               \
            MPI_Request_free(&req);                                                                \
        return rc;                                                                                 \
    }
#else
#define PERSISTENT_CASE(Name, params, args)
#endif

/* The function cm_Name: the call in the form this call takes. The last
 * argument of every collective is its communicator. */
#define CALL_MODE_DEFINE(Name, name, params, args)                                                 \
    int cm_##Name params                                                                           \
    {                                                                                              \
        switch (form(c)) {                                                                         \
        case NONBLOCKING: {                                                                        \
            MPI_Request req;                                                                       \
            int rc = MPI_I##name(CM_UNPAREN args, &req);                                           \
            return rc == MPI_SUCCESS ? complete(&req, 0) : rc;                                     \
        }                                                                                          \
            PERSISTENT_CASE(Name, params, args)                                                    \
        default: return MPI_##Name args;                                                           \
        }                                                                                          \
    }

CALL_MODE_LIST(CALL_MODE_DEFINE)
