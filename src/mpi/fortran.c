/* Trellis' collectives for Fortran programs, where the MPI library's
 * Fortran bindings would bypass the C entry points (mpi_impl.h: Open MPI's
 * call PMPI_* directly; so do MPICH's `use mpi_f08` functions without a
 * buffer). For every line of fortran_table.h this defines one function
 * taking the arguments as Fortran passes them (by reference; handles as
 * MPI_Fint), converting them (handles with PMPI_*_f2c, the MPI_IN_PLACE and
 * MPI_BOTTOM sentinels into C's) and calling Trellis' C entry point
 * (MPI_Allreduce etc., which hands what it does not serve to the MPI
 * library), then storing the error code in ierror; and, as aliases of it,
 * the symbols through which the MPI library's bindings reach that function
 * (TRL_FORTRAN_NAMES_buffers or _handles: none, where the bindings call the
 * C entry points themselves; the function is then dropped). Likewise
 * MPI_Init, MPI_Init_thread and MPI_Finalize, where Trellis starts and
 * stops. Preloaded, or linked ahead of the MPI library, these come first. */
#include <mpi.h>
#include <stdlib.h>

#include "mpi/fortran_table.h"
#include "mpi/mpi_impl.h"

/* A function no symbol names under this MPI is left out of the library. */
#define KEPT_IF_NAMED __attribute__((unused))

/* One symbol of the MPI library's bindings, as an alias of Trellis' function. */
#define ALIAS(lower, symbol) fortran_##lower##_fn symbol __attribute__((alias("fortran_" #lower)));

static void set_ierror(MPI_Fint *ierror, int rc)
{
    if (ierror) /* optional in mpi_f08 */
        *ierror = (MPI_Fint)rc;
}

/* Counts and displacements are passed on as the C arrays they are. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

KEPT_IF_NAMED static void *buffer_f2c(void *p)
{
    if (trl_fortran_in_place(p))
        return MPI_IN_PLACE;
    if (trl_fortran_bottom(p))
        return MPI_BOTTOM;
    return p;
}

/* alltoallw's datatypes, one per rank of comm (of its remote group for an
 * intercommunicator), as C handles in a malloc'd array; NULL if comm is
 * not valid or memory ran out: the MPI library then reports the call's
 * error. */
KEPT_IF_NAMED static MPI_Datatype *types_f2c(const MPI_Fint *types, MPI_Fint comm)
{
    MPI_Comm c = PMPI_Comm_f2c(comm);
    int inter, n;
    if (c == MPI_COMM_NULL || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS ||
        (inter ? PMPI_Comm_remote_size(c, &n) : PMPI_Comm_size(c, &n)) != MPI_SUCCESS)
        return NULL;
    MPI_Datatype *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    for (int i = 0; out && i < n; i++)
        out[i] = PMPI_Type_f2c(types[i]);
    return out;
}

/* What each argument kind of the table becomes: its parameter, what runs
 * before the call (declaring c_NAME where a conversion needs a variable),
 * its C argument, and what runs after the call (rc is its result). */
#define PARAM_BUF(n) void *n
#define PARAM_INT(n) MPI_Fint *n
#define PARAM_INTS(n) MPI_Fint *n
#define PARAM_TYPE(n) MPI_Fint *n
#define PARAM_OP(n) MPI_Fint *n
#define PARAM_COMM(n) MPI_Fint *n
#define PARAM_SEND_TYPES(n) MPI_Fint *n
#define PARAM_RECV_TYPES(n) MPI_Fint *n
#define PARAM_REQUEST(n) MPI_Fint *n

#define BEFORE_BUF(n)
#define BEFORE_INT(n)
#define BEFORE_INTS(n)
#define BEFORE_TYPE(n)
#define BEFORE_OP(n)
#define BEFORE_COMM(n)
#define BEFORE_SEND_TYPES(n)                                                                   \
    MPI_Datatype *c_##n = trl_fortran_in_place(sendbuf) ? NULL : types_f2c(n, *comm);
#define BEFORE_RECV_TYPES(n) MPI_Datatype *c_##n = types_f2c(n, *comm);
#define BEFORE_REQUEST(n) MPI_Request c_##n = MPI_REQUEST_NULL;

#define ARG_BUF(n) buffer_f2c(n)
#define ARG_INT(n) (int)*(n)
#define ARG_INTS(n) (const int *)(n)
#define ARG_TYPE(n) PMPI_Type_f2c(*(n))
#define ARG_OP(n) PMPI_Op_f2c(*(n))
#define ARG_COMM(n) PMPI_Comm_f2c(*(n))
#define ARG_SEND_TYPES(n) c_##n
#define ARG_RECV_TYPES(n) c_##n
#define ARG_REQUEST(n) &c_##n

#define AFTER_BUF(n)
#define AFTER_INT(n)
#define AFTER_INTS(n)
#define AFTER_TYPE(n)
#define AFTER_OP(n)
#define AFTER_COMM(n)
#define AFTER_SEND_TYPES(n) free(c_##n);
#define AFTER_RECV_TYPES(n) free(c_##n);
#define AFTER_REQUEST(n)                                                                       \
    if (rc == MPI_SUCCESS)                                                                     \
        *(n) = PMPI_Request_c2f(c_##n);

/* An argument (KIND, name) through one of the tables above. */
#define PARAM(kind, n) PARAM_##kind(n)
#define BEFORE(kind, n) BEFORE_##kind(n)
#define ARG(kind, n) ARG_##kind(n)
#define AFTER(kind, n) AFTER_##kind(n)

/* EACH(m, sep, a1, a2, ...): m a1 sep() m a2 ..., for up to 12 arguments. */
#define COMMA() ,
#define NOTHING()
#define EACH(m, sep, ...) EACH_(COUNT(__VA_ARGS__), m, sep, __VA_ARGS__)
#define EACH_(n, m, sep, ...) EACH__(n, m, sep, __VA_ARGS__)
#define EACH__(n, m, sep, ...) EACH_##n(m, sep, __VA_ARGS__)
#define COUNT(...) COUNT_(__VA_ARGS__, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, n, ...) n
#define EACH_1(m, sep, a) m a
#define EACH_2(m, sep, a, ...) m a sep() EACH_1(m, sep, __VA_ARGS__)
#define EACH_3(m, sep, a, ...) m a sep() EACH_2(m, sep, __VA_ARGS__)
#define EACH_4(m, sep, a, ...) m a sep() EACH_3(m, sep, __VA_ARGS__)
#define EACH_5(m, sep, a, ...) m a sep() EACH_4(m, sep, __VA_ARGS__)
#define EACH_6(m, sep, a, ...) m a sep() EACH_5(m, sep, __VA_ARGS__)
#define EACH_7(m, sep, a, ...) m a sep() EACH_6(m, sep, __VA_ARGS__)
#define EACH_8(m, sep, a, ...) m a sep() EACH_7(m, sep, __VA_ARGS__)
#define EACH_9(m, sep, a, ...) m a sep() EACH_8(m, sep, __VA_ARGS__)
#define EACH_10(m, sep, a, ...) m a sep() EACH_9(m, sep, __VA_ARGS__)
#define EACH_11(m, sep, a, ...) m a sep() EACH_10(m, sep, __VA_ARGS__)
#define EACH_12(m, sep, a, ...) m a sep() EACH_11(m, sep, __VA_ARGS__)

/* One line of the table: the function's type, the function, its symbols. */
#define DEFINE(class, lower, Mixed, UPPER, ...)                                                \
    typedef void fortran_##lower##_fn(EACH(PARAM, COMMA, __VA_ARGS__), MPI_Fint *ierror);      \
    KEPT_IF_NAMED static void fortran_##lower(EACH(PARAM, COMMA, __VA_ARGS__),                \
                                              MPI_Fint *ierror)                                \
    {                                                                                          \
        EACH(BEFORE, NOTHING, __VA_ARGS__)                                                     \
        int rc = MPI_##Mixed(EACH(ARG, COMMA, __VA_ARGS__));                                   \
        EACH(AFTER, NOTHING, __VA_ARGS__)                                                      \
        set_ierror(ierror, rc);                                                                \
    }                                                                                          \
    TRL_FORTRAN_NAMES_##class(ALIAS, lower, Mixed, UPPER)

TRL_FORTRAN_COLLECTIVES(DEFINE)

/* Starting and stopping: Trellis starts in MPI_Init (init.c), which the
 * Fortran bindings would bypass too. Fortran has no argc and argv. */
typedef void fortran_init_fn(MPI_Fint *ierror);
typedef void fortran_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror);
typedef void fortran_finalize_fn(MPI_Fint *ierror);

KEPT_IF_NAMED static void fortran_init(MPI_Fint *ierror)
{
    int rc = MPI_Init(NULL, NULL);
    set_ierror(ierror, rc);
}

KEPT_IF_NAMED static void fortran_init_thread(MPI_Fint *required, MPI_Fint *provided,
                                             MPI_Fint *ierror)
{
    int got = MPI_THREAD_SINGLE;
    int rc = MPI_Init_thread(NULL, NULL, (int)*required, &got);
    *provided = (MPI_Fint)got;
    set_ierror(ierror, rc);
}

KEPT_IF_NAMED static void fortran_finalize(MPI_Fint *ierror)
{
    int rc = MPI_Finalize();
    set_ierror(ierror, rc);
}

TRL_FORTRAN_NAMES_handles(ALIAS, init, Init, INIT)
TRL_FORTRAN_NAMES_handles(ALIAS, init_thread, Init_thread, INIT_THREAD)
TRL_FORTRAN_NAMES_handles(ALIAS, finalize, Finalize, FINALIZE)
