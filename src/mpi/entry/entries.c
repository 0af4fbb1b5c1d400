/* The PMPI entry points of every collective in every form of call, made
 * from the list of collectives (coll_list.h): MPI_X (blocking), MPI_IX
 * (non-blocking: an op that runs in the background, engine/engine.h) and
 * the persistent MPI_X_init (an op that runs at every MPI_Start: the
 * schedule is chosen and built here, once) under the names of the MPI
 * library built against (Open MPI 4.1's MPIX_X_init of its pcollreq
 * extension, MPI-4's MPI_X_init: mpi_impl.h). The info argument of
 * MPI_X_init carries no hint Trellis uses.
 *
 * Each shares one opening, serve_<name>: the communicator's state for this
 * form of call (an intracommunicator's, or an intercommunicator's where
 * MPI defines the collective there), then the collective's form for it
 * (coll_forms.h); what that form does not serve goes to the MPI library's
 * own entry point of the same form, unless this rank ran out of memory
 * where the others may not have (no_memory). */
#include <mpi.h>
#include <stdbool.h>

#include "core/log.h"
#include "exec/mpi_impl.h"
#include "mpi/context/comm.h"
#include "mpi/context/inter.h"
#include "mpi/context/short.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/run.h"
#include "mpi/engine/check.h"
#include "mpi/entry/check_calls.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/coll_list.h"

/* The state of an intracommunicator for a call in this mode: created on
 * first use by a blocking call; a call that may not wait for other ranks
 * only finds it (comm_setup.c), and goes to the MPI library without it. */
static inline trl_comm *comm_for(MPI_Comm comm, const trl_mode *mode)
{
    if (mode->kind == TRL_MODE_BLOCKING)
        return trl_comm_get(comm);
    trl_comm *c = trl_comm_find(comm);
    if (!c)
        trl_not_set_up(comm);
    return c;
}

/* Out of memory on this rank where the others run Trellis' schedule
 * (context/short.h): the call fails with MPI_ERR_NO_MEM, through comm's
 * error handler, instead of going to the MPI library alone. */
static int no_memory(MPI_Comm comm, trl_coll coll, const trl_mode *mode)
{
    char name[64];
    trl_coll_call_name(coll, trl_call_of(mode), name, sizeof name);
    int rank = -1;
    PMPI_Comm_rank(comm, &rank);
    trl_log("rank %d: out of memory in %s (%s): the call fails with MPI_ERR_NO_MEM rather "
            "than go to the MPI library on this rank alone, where the other ranks, running "
            "Trellis' schedule, would wait for it",
            rank, name, trl_memory_short);
    trl_memory_short = NULL;
    if (mode->request)
        *mode->request = MPI_REQUEST_NULL; /* no request to wait for or free */
    return trl_error(comm, MPI_ERR_NO_MEM);
}

/* The opening: an intracommunicator's state goes to the collective's
 * intracommunicator form; otherwise an intercommunicator's, where it has
 * one, to its intercommunicator form; else the MPI library serves it. */
#define TRL_OPEN_INTER_both(name, ...)                                                             \
    trl_intercomm *ic = trl_inter_for(comm, trl_call_of(mode));                                    \
    return ic ? trl_inter_##name(ic, __VA_ARGS__, mode, served) : MPI_SUCCESS;
#define TRL_OPEN_INTER_intra(name, ...) return MPI_SUCCESS;
#define TRL_OPENING(ID, Name, name, forms, binding, ...)                                           \
    static int open_##name(TRL_C_PARAMS(__VA_ARGS__), const trl_mode *mode, bool *served)          \
    {                                                                                              \
        trl_comm *c = comm_for(comm, mode);                                                        \
        if (c)                                                                                     \
            return trl_intra_##name(c, TRL_C_ARGS(__VA_ARGS__), mode, served);                     \
        TRL_OPEN_INTER_##forms(name, TRL_C_ARGS(__VA_ARGS__))                                      \
    }                                                                                              \
    static int serve_##name(TRL_C_PARAMS(__VA_ARGS__), const trl_mode *mode, bool *served)         \
    {                                                                                              \
        *served = false;                                                                           \
        trl_memory_short = NULL;                                                                   \
        int rc = open_##name(TRL_C_ARGS(__VA_ARGS__), mode, served);                               \
        if (__builtin_expect(!*served && trl_memory_short != NULL, 0)) {                           \
            *served = true;                                                                        \
            rc = no_memory(comm, TRL_COLL_##ID, mode);                                             \
        }                                                                                          \
        return rc;                                                                                 \
    }
TRL_MPI_ALL_COLLECTIVES(TRL_OPENING)

/* TRELLIS_CHECK (engine/check.h): off, one test of a flag; on, the call is
 * compared across ranks first, its site being the caller's (a Fortran
 * program's, through its binding's wrapper: trl_check_caller). */
#define TRL_CHECKED(name, mode, ...)                                                               \
    if (trl_check_on) {                                                                            \
        const void *site = trl_check_caller ? trl_check_caller : __builtin_return_address(0);      \
        int crc = trl_check_##name(__VA_ARGS__, mode, site);                                       \
        if (crc != MPI_SUCCESS)                                                                    \
            return crc;                                                                            \
    }

/* MPI_X */
#define TRL_BLOCKING(ID, Name, name, forms, binding, ...)                                          \
    int MPI_##Name(TRL_C_PARAMS(__VA_ARGS__))                                                      \
    {                                                                                              \
        TRL_CHECKED(name, &trl_blocking, TRL_C_ARGS(__VA_ARGS__))                                  \
        bool served;                                                                               \
        int rc = serve_##name(TRL_C_ARGS(__VA_ARGS__), &trl_blocking, &served);                    \
        if (!served) {                                                                             \
            trl_before_library_collective();                                                       \
            rc = PMPI_##Name(TRL_C_ARGS(__VA_ARGS__));                                             \
        }                                                                                          \
        if (trl_check_on)                                                                          \
            trl_check_done();                                                                      \
        return rc;                                                                                 \
    }
TRL_MPI_ALL_COLLECTIVES(TRL_BLOCKING)

/* The allreduce of TRELLIS_CHECK's blocking checks (engine/check.h):
 * Trellis' own, unchecked (the check must not check itself). */
static int allreduce_unchecked(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm)
{
    bool served;
    int rc = serve_allreduce(sendbuf, recvbuf, count, datatype, op, comm, &trl_blocking, &served);
    return served ? rc : PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

/* ... and for two ranks its words one way and the other, through shared
 * memory (engine/run.h). */
static int words_post(MPI_Comm comm, const int64_t mine[2], trl_check_words *w, bool *served)
{
    trl_comm *c = trl_comm_find(comm);
    w->c = c;
    return trl_run_words_post(c, mine, served);
}

static int words_take(const trl_check_words *w, int64_t theirs[2], bool wait, bool *done)
{
    return trl_run_words_take(w->c, theirs, wait, done);
}

void trl_entries_check_start(void)
{
    trl_check_set_exchange(allreduce_unchecked, words_post, words_take);
}

/* MPI_IX */
#define TRL_NONBLOCKING(ID, Name, name, forms, binding, ...)                                       \
    int MPI_I##name(TRL_C_PARAMS(__VA_ARGS__), MPI_Request *request)                               \
    {                                                                                              \
        trl_mode mode = {TRL_MODE_NONBLOCKING, request, NULL};                                     \
        TRL_CHECKED(name, &mode, TRL_C_ARGS(__VA_ARGS__))                                          \
        bool served;                                                                               \
        int rc = serve_##name(TRL_C_ARGS(__VA_ARGS__), &mode, &served);                            \
        return served ? rc : PMPI_I##name(TRL_C_ARGS(__VA_ARGS__), request);                       \
    }
TRL_MPI_ALL_COLLECTIVES(TRL_NONBLOCKING)

/* MPI_X_init, where the MPI library has persistent collectives */
#ifdef TRL_PCOLL
#define TRL_INIT(Name)     TRL_PCOLL(Name##_init)
#define TRL_INIT_MPI(Name) TRL_PCOLL_PMPI(Name##_init)
#define TRL_PERSISTENT(ID, Name, name, forms, binding, ...)                                        \
    int TRL_INIT(Name)(TRL_C_PARAMS(__VA_ARGS__), MPI_Info info, MPI_Request * request)            \
    {                                                                                              \
        trl_mode mode = {TRL_MODE_PERSISTENT, request, NULL};                                      \
        TRL_CHECKED(name, &mode, TRL_C_ARGS(__VA_ARGS__))                                          \
        bool served;                                                                               \
        int rc = serve_##name(TRL_C_ARGS(__VA_ARGS__), &mode, &served);                            \
        return served ? rc : TRL_INIT_MPI(Name)(TRL_C_ARGS(__VA_ARGS__), info, request);           \
    }
TRL_MPI_ALL_COLLECTIVES(TRL_PERSISTENT)
#endif
