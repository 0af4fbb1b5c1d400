/* What differs between the MPI libraries Trellis builds against, known at
 * compile time from their mpi.h: one section per MPI. (What differs at run
 * time, in how jobs are launched and configured, is the trellis command's
 * python/trellis/mpi_impl.py.)
 *
 *   TRL_MPI_NAME             the library, for messages
 *   TRL_MPI_YIELD_ENV        the variable through which the launcher tells the
 *                            ranks that they share cores, or NULL
 *   TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)
 *   TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER)
 *                            the symbols of the MPI library's Fortran bindings
 *                            that Trellis must define itself (fortran.c)
 *                            because those bindings would not reach its C
 *                            entry points: X(lower, symbol) for each, for one
 *                            function named e.g. allreduce, Allreduce,
 *                            ALLREDUCE. `buffers`: the collectives with
 *                            choice buffers; `handles`: the functions with
 *                            only handles and integers (barrier, init,
 *                            finalize), which bindings may call differently
 *   TRL_FORTRAN_NAMES_logicals(X, lower, Mixed, UPPER)
 *                            the same for the functions with a LOGICAL
 *                            argument (MPI_Cart_create, ...)
 *   TRL_FORTRAN_NAMES_requests(X, lower, Mixed, UPPER)
 *                            the same for the request calls (MPI_Wait,
 *                            MPI_Start, ...; fortran_requests.c), with
 *                            TRL_FORTRAN_F08_STATUS where they are mpi_f08's
 *                            (statuses as MPI_F08_status)
 *   trl_fortran_in_place(p), trl_fortran_bottom(p)
 *                            whether a Fortran buffer argument that reaches
 *                            those symbols is the MPI_IN_PLACE or MPI_BOTTOM
 *                            sentinel
 *   trl_fortran_unweighted(p), trl_fortran_weights_empty(p)
 *                            the same for a weights argument and the
 *                            MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY sentinels
 *   TRL_PCOLL(Name_init), TRL_PCOLL_PMPI(Name_init)
 *                            the C names of a persistent collective and of the
 *                            MPI library's own: MPI-4's MPI_Name_init, or Open
 *                            MPI 4's MPIX_ ones (<mpi-ext.h>, its pcollreq
 *                            extension); undefined where the MPI has neither
 *   TRL_STATUSES_IGNORE      MPI_STATUSES_IGNORE, for passing to the MPI
 *                            library's functions taking an array of statuses
 *   trl_testall(n, reqs, flag, statuses)
 *                            the MPI library's MPI_Testall, or what stands in
 *                            for it where it is wrong
 *
 * It lies in src/exec, the lowest layer that talks to MPI (the executor and
 * its shared memory read it), so that no layer includes one above it
 * (docs/design.md, "Layers"). */
#ifndef TRL_MPI_IMPL_H
#define TRL_MPI_IMPL_H

#include <mpi.h>
#include <stdbool.h>

#if defined(OPEN_MPI) && OPEN_MPI

#define TRL_MPI_NAME "Open MPI"
/* Why TRELLIS_PROGRESS=thread cannot run under this MPI; NULL: it can. */
#define TRL_NO_PROGRESS_THREAD ((const char *)0)
/* mpirun --mca mpi_yield_when_idle 1 reaches the ranks as this. */
#define TRL_MPI_YIELD_ENV "OMPI_MCA_mpi_yield_when_idle"

/* Open MPI's mpif.h and `use mpi` bindings are the functions mpi_allreduce_
 * etc. of libmpi_mpifh (weak aliases of ompi_allreduce_f), which call
 * PMPI_Allreduce; its `use mpi_f08` binding (libmpi_usempif08) calls
 * ompi_allreduce_f. The names are those libmpi_mpifh exports for every
 * compiler's mangling (nm -D), the PMPI ones aside: those stay the
 * library's, for tools layered under Trellis. */
/* clang-format off */
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)                                  \
    X(lower, mpi_##lower) X(lower, mpi_##lower##_) X(lower, mpi_##lower##__)               \
    X(lower, MPI_##UPPER) X(lower, ompi_##lower##_f) X(lower, MPI_##Mixed##_f)             \
    X(lower, MPI_##Mixed##_f08)
#define TRL_FORTRAN_NAMES_handles TRL_FORTRAN_NAMES_buffers
/* Its `use mpi_f08` functions with a LOGICAL (mpi_cart_create_f08_, ...)
 * call libmpi_mpifh's pmpi_cart_create_ etc., not ompi_cart_create_f. */
#define TRL_FORTRAN_NAMES_logicals(X, lower, Mixed, UPPER)                                 \
    TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER) X(lower, mpi_##lower##_f08_)
/* clang-format on */
/* Its Fortran non-blocking collectives Trellis serves complete through its
 * progress hook (engine.c), so its own completion calls do; its Fortran
 * persistent collectives (mpix_*_init_) stay the library's. */
#define TRL_FORTRAN_NAMES_requests(X, lower, Mixed, UPPER)

/* The Fortran MPI_IN_PLACE and MPI_BOTTOM are common blocks (the mpi_f08
 * module binds its constants to the same names). libmpi.so defines the one
 * its Fortran compiler's mangling gives, and the dynamic linker resolves a
 * program's copy and every library's reference to one address. The other
 * manglings are weak: absent, their address is NULL. */
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_in_place __attribute__((weak));
extern int mpi_fortran_in_place__ __attribute__((weak));
extern int MPI_FORTRAN_IN_PLACE __attribute__((weak));
extern int mpi_fortran_bottom_ __attribute__((weak));
extern int mpi_fortran_bottom __attribute__((weak));
extern int mpi_fortran_bottom__ __attribute__((weak));
extern int MPI_FORTRAN_BOTTOM __attribute__((weak));
extern int mpi_fortran_unweighted_ __attribute__((weak));
extern int mpi_fortran_unweighted __attribute__((weak));
extern int mpi_fortran_unweighted__ __attribute__((weak));
extern int MPI_FORTRAN_UNWEIGHTED __attribute__((weak));
extern int mpi_fortran_weights_empty_ __attribute__((weak));
extern int mpi_fortran_weights_empty __attribute__((weak));
extern int mpi_fortran_weights_empty__ __attribute__((weak));
extern int MPI_FORTRAN_WEIGHTS_EMPTY __attribute__((weak));

static inline bool trl_fortran_is(const void *p, const int *a, const int *b, const int *c,
                                  const int *d)
{
    return p && (p == a || p == b || p == c || p == d);
}

#define TRL_FORTRAN_SENTINELS 1

static inline bool trl_fortran_in_place(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_in_place_, &mpi_fortran_in_place, &mpi_fortran_in_place__,
                          &MPI_FORTRAN_IN_PLACE);
}

static inline bool trl_fortran_bottom(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__,
                          &MPI_FORTRAN_BOTTOM);
}

#define TRL_FORTRAN_WEIGHT_SENTINELS 1

static inline bool trl_fortran_unweighted(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_unweighted_, &mpi_fortran_unweighted,
                          &mpi_fortran_unweighted__, &MPI_FORTRAN_UNWEIGHTED);
}

static inline bool trl_fortran_weights_empty(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_weights_empty_, &mpi_fortran_weights_empty,
                          &mpi_fortran_weights_empty__, &MPI_FORTRAN_WEIGHTS_EMPTY);
}

/* Open MPI 4 has persistent collectives as an extension, MPIX_*. */
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define TRL_PCOLL(name)      MPIX_##name
#define TRL_PCOLL_PMPI(name) PMPIX_##name
#endif

#define TRL_STATUSES_IGNORE MPI_STATUSES_IGNORE
#define trl_testall         PMPI_Testall

#elif defined(MPICH) || defined(MPICH_VERSION)

#define TRL_MPI_NAME           "MPICH"
/* The progress thread would hold Trellis' engine lock while it calls MPICH
 * (its global lock), and MPICH calls a finished request's free callback
 * (the engine lock) from inside MPI_Test holding its global lock: a
 * deadlock (docs/install.md). */
#define TRL_NO_PROGRESS_THREAD "MPICH 4.0 calls a request's free callback under its global lock"

/* MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which GCC 12 takes for an
 * array of size 0 passed where the prototype declares MPI_Status[]
 * (-Wstringop-overflow): it is passed through a barrier the optimizer does
 * not see into. */
static inline MPI_Status *trl_statuses_ignore(void)
{
    MPI_Status *p = MPI_STATUSES_IGNORE;
    __asm__("" : "+r"(p));
    return p;
}
#define TRL_STATUSES_IGNORE    trl_statuses_ignore()

/* MPICH 4.0.2's MPI_Testall fails with MPI_ERR_IN_STATUS, no status saying
 * why, once a persistent collective request in the array completes (its
 * Test, Testany, Testsome, Wait and Waitall are right). So: whether every
 * request is complete, without completing any (MPI_Request_get_status),
 * and then MPI_Waitall, which returns at once. */
static inline int trl_testall(int n, MPI_Request *reqs, int *flag, MPI_Status *statuses)
{
    *flag = 0;
    for (int i = 0; i < n; i++) {
        int done;
        int rc = PMPI_Request_get_status(reqs[i], &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || !done)
            return rc;
    }
    *flag = 1;
    return PMPI_Waitall(n, reqs, statuses);
}
/* MPICH has no setting that says ranks share cores (its ch4 device polls
 * without yielding): Trellis counts the node's ranks against its cores. */
#define TRL_MPI_YIELD_ENV      NULL

/* MPICH's bindings (libmpichfort: mpif.h and `use mpi` through
 * mpi_allreduce_, `use mpi_f08` through mpi_allreduce_f08ts_) convert
 * handles and sentinels and call the C MPI_Allreduce etc., so Trellis' C
 * entry points serve Fortran programs as they are; all but `use mpi_f08`'s
 * functions without a buffer (mpi_barrier_f08_, mpi_init_f08_, ...), which
 * call PMPI_* (nm -D libmpichfort.so, objdump). */
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER)  X(lower, mpi_##lower##_f08_)
#define TRL_FORTRAN_NAMES_logicals                         TRL_FORTRAN_NAMES_handles
/* Its `use mpi_f08` completion calls, MPI_Start(all), MPI_Request_free and
 * MPI_Cancel call PMPI_*: without Trellis' own a Trellis non-blocking
 * collective would never finish (MPICH offers no progress hook) and a
 * persistent one never start. mpif.h's and `use mpi`'s call MPI_*. */
#define TRL_FORTRAN_NAMES_requests(X, lower, Mixed, UPPER) X(lower, mpi_##lower##_f08_)
#define TRL_FORTRAN_F08_STATUS                             1

/* mpi_f08's MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are variables of a module
 * of libmpichfort (its mpi_dist_graph_create_f08_ compares the weights'
 * address with them). Weak: absent, their address is NULL. */
extern int __mpi_f08_link_constants_MOD_mpi_unweighted __attribute__((weak));
extern int __mpi_f08_link_constants_MOD_mpi_weights_empty __attribute__((weak));
#define TRL_FORTRAN_WEIGHT_SENTINELS                       1

static inline bool trl_fortran_unweighted(const void *p)
{
    return p && p == &__mpi_f08_link_constants_MOD_mpi_unweighted;
}

static inline bool trl_fortran_weights_empty(const void *p)
{
    return p && p == &__mpi_f08_link_constants_MOD_mpi_weights_empty;
}

/* mpi_f08's TYPE(MPI_Status) as C has it (MPI_F08_status, the fields of
 * MPI_Status). MPICH's MPI_Status_c2f08 lives in its Fortran library, which
 * C programs do not load. */
static inline void trl_status_c2f08(const MPI_Status *c, MPI_F08_status *f)
{
    f->count_lo = c->count_lo;
    f->count_hi_and_cancelled = c->count_hi_and_cancelled;
    f->MPI_SOURCE = c->MPI_SOURCE;
    f->MPI_TAG = c->MPI_TAG;
    f->MPI_ERROR = c->MPI_ERROR;
}

#define TRL_PCOLL(name)      MPI_##name
#define TRL_PCOLL_PMPI(name) PMPI_##name

#else

/* Another MPI: C programs are served; whether its Fortran bindings reach
 * the C entry points is unknown (add a section here once checked). */
#define TRL_MPI_NAME           "MPI"
#define TRL_NO_PROGRESS_THREAD ((const char *)0)
#define TRL_MPI_YIELD_ENV      NULL
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_logicals(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_requests(X, lower, Mixed, UPPER)
#if MPI_VERSION >= 4
#define TRL_PCOLL(name)      MPI_##name
#define TRL_PCOLL_PMPI(name) PMPI_##name
#endif
#define TRL_STATUSES_IGNORE MPI_STATUSES_IGNORE
#define trl_testall         PMPI_Testall

#endif

/* A sentinel no Fortran argument that reaches Trellis can be. */
#define TRL_FORTRAN_NO_SENTINEL(name)                                                              \
    static inline bool name(const void *p)                                                         \
    {                                                                                              \
        (void)p;                                                                                   \
        return false;                                                                              \
    }

#ifndef TRL_FORTRAN_SENTINELS
/* Buffers reach Trellis' Fortran symbols only from functions without any
 * (the `handles` ones), or already converted. */
TRL_FORTRAN_NO_SENTINEL(trl_fortran_in_place)
TRL_FORTRAN_NO_SENTINEL(trl_fortran_bottom)
#endif

#ifndef TRL_FORTRAN_WEIGHT_SENTINELS
/* No weights reach Trellis' Fortran symbols (no `logicals` names). */
TRL_FORTRAN_NO_SENTINEL(trl_fortran_unweighted)
TRL_FORTRAN_NO_SENTINEL(trl_fortran_weights_empty)
#endif

#endif
