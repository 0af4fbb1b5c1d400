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
 *   trl_fortran_in_place(p), trl_fortran_bottom(p)
 *                            whether a Fortran buffer argument that reaches
 *                            those symbols is the MPI_IN_PLACE or MPI_BOTTOM
 *                            sentinel
 *   TRL_PCOLL(Name_init)     the C name of a persistent collective: MPI-4's
 *                            MPI_Name_init, or Open MPI 4's MPIX_ one
 *                            (<mpi-ext.h>, the pcollreq extension) */
#ifndef TRL_MPI_IMPL_H
#define TRL_MPI_IMPL_H

#include <mpi.h>
#include <stdbool.h>

#if defined(OPEN_MPI) && OPEN_MPI

#define TRL_MPI_NAME "Open MPI"
/* mpirun --mca mpi_yield_when_idle 1 reaches the ranks as this. */
#define TRL_MPI_YIELD_ENV "OMPI_MCA_mpi_yield_when_idle"

/* Open MPI's mpif.h and `use mpi` bindings are the functions mpi_allreduce_
 * etc. of libmpi_mpifh (weak aliases of ompi_allreduce_f), which call
 * PMPI_Allreduce; its `use mpi_f08` binding (libmpi_usempif08) calls
 * ompi_allreduce_f. The names are those libmpi_mpifh exports for every
 * compiler's mangling (nm -D), the PMPI ones aside: those stay the
 * library's, for tools layered under Trellis. */
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)                                  \
    X(lower, mpi_##lower) X(lower, mpi_##lower##_) X(lower, mpi_##lower##__)               \
    X(lower, MPI_##UPPER) X(lower, ompi_##lower##_f) X(lower, MPI_##Mixed##_f)             \
    X(lower, MPI_##Mixed##_f08)
#define TRL_FORTRAN_NAMES_handles TRL_FORTRAN_NAMES_buffers

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

static inline bool trl_fortran_is(const void *p, const int *a, const int *b, const int *c,
                                  const int *d)
{
    return p && (p == a || p == b || p == c || p == d);
}

#define TRL_FORTRAN_SENTINELS 1

static inline bool trl_fortran_in_place(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_in_place_, &mpi_fortran_in_place,
                          &mpi_fortran_in_place__, &MPI_FORTRAN_IN_PLACE);
}

static inline bool trl_fortran_bottom(const void *p)
{
    return trl_fortran_is(p, &mpi_fortran_bottom_, &mpi_fortran_bottom, &mpi_fortran_bottom__,
                          &MPI_FORTRAN_BOTTOM);
}

/* Open MPI 4 has persistent collectives as an extension, MPIX_*. */
#define TRL_PCOLL(name) MPIX_##name

#elif defined(MPICH) || defined(MPICH_VERSION)

#define TRL_MPI_NAME "MPICH"
/* MPICH has no setting that says ranks share cores (its ch4 device polls
 * without yielding): Trellis counts the node's ranks against its cores. */
#define TRL_MPI_YIELD_ENV NULL

/* MPICH's bindings (libmpichfort: mpif.h and `use mpi` through
 * mpi_allreduce_, `use mpi_f08` through mpi_allreduce_f08ts_) convert
 * handles and sentinels and call the C MPI_Allreduce etc., so Trellis' C
 * entry points serve Fortran programs as they are; all but `use mpi_f08`'s
 * functions without a buffer (mpi_barrier_f08_, mpi_init_f08_, ...), which
 * call PMPI_* (nm -D libmpichfort.so, objdump). */
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER) X(lower, mpi_##lower##_f08_)

#define TRL_PCOLL(name) MPI_##name

#else

/* Another MPI: C programs are served; whether its Fortran bindings reach
 * the C entry points is unknown (add a section here once checked). */
#define TRL_MPI_NAME "MPI"
#define TRL_MPI_YIELD_ENV NULL
#define TRL_FORTRAN_NAMES_buffers(X, lower, Mixed, UPPER)
#define TRL_FORTRAN_NAMES_handles(X, lower, Mixed, UPPER)

#define TRL_PCOLL(name) MPI_##name

#endif

#ifndef TRL_FORTRAN_SENTINELS
/* Buffers reach Trellis' Fortran symbols only from functions without any
 * (the `handles` ones), or already converted. */
static inline bool trl_fortran_in_place(const void *p)
{
    (void)p;
    return false;
}

static inline bool trl_fortran_bottom(const void *p)
{
    (void)p;
    return false;
}
#endif

#endif
