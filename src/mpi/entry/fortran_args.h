/* How the tables of fortran_table.h become functions (fortran.c,
 * fortran_requests.c): what each kind of argument becomes, and DEFINE,
 * which makes one line of a table into a function taking the arguments as
 * Fortran passes them (by reference; handles as MPI_Fint), converting them,
 * calling Trellis' C entry point of the same name (which hands what it does
 * not serve to the MPI library), converting the results back and storing
 * the error code in ierror; and, as aliases of it, the symbols through
 * which the MPI library's bindings reach that function
 * (TRL_FORTRAN_NAMES_<class> of mpi_impl.h; none, where the bindings call
 * the C entry points themselves: the function is then left out). */
#ifndef TRL_FORTRAN_ARGS_H
#define TRL_FORTRAN_ARGS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdlib.h>

#include "exec/mpi_impl.h"
#include "mpi/engine/check.h"
#include "mpi/entry/coll_list.h"

/* Counts, displacements and indices are read and written as C ints. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int arrays");

/* A Fortran buffer argument as C's: the MPI_IN_PLACE and MPI_BOTTOM
 * sentinels become C's. */
void *trl_fortran_buffer(void *p);

/* alltoallw's datatypes, one per rank of comm (of its remote group for an
 * intercommunicator), as C handles in a malloc'd array; NULL if comm is
 * not valid or memory ran out: the MPI library then reports the call's
 * error. */
MPI_Datatype *trl_fortran_types(const MPI_Fint *types, MPI_Fint comm);

/* neighbor_alltoallw's datatypes, one per out-neighbour of this rank in
 * comm's topology (out) or per in-neighbour (!out), the same way; NULL
 * also where comm has no topology. */
MPI_Datatype *trl_fortran_neighbor_types(const MPI_Fint *types, MPI_Fint comm, bool out);

/* count requests as C handles in a malloc'd array (NULL if out of
 * memory); and back into the Fortran array, freeing the C one. */
MPI_Request *trl_fortran_requests(const MPI_Fint *requests, MPI_Fint count);
void trl_fortran_requests_back(MPI_Request *c, MPI_Fint *requests, MPI_Fint count);

void trl_fortran_set_ierror(MPI_Fint *ierror, int rc);

/* A Fortran weights argument as C's: the MPI_UNWEIGHTED and
 * MPI_WEIGHTS_EMPTY sentinels become C's. */
const int *trl_fortran_weights(const MPI_Fint *w);

/* What each argument kind becomes: its parameter, what runs before the call
 * (declaring c_NAME where a conversion needs a variable), its C argument,
 * and what runs after the call (rc is its result). The kinds:
 *   BUF, CBUF   a choice buffer (coll_list.h's buffers written and only
 *               read: alike in Fortran); the MPI_IN_PLACE and MPI_BOTTOM
 *               sentinels become C's
 *   INT         an INTEGER in (a count, a root)
 *   INTS        an INTEGER array in (counts, displacements)
 *   AINTS       an INTEGER(KIND=MPI_ADDRESS_KIND) array in (byte
 *               displacements: MPI_Aints)
 *   TYPE OP COMM INFO GROUP  a handle
 *   COMM_OUT    a communicator out (a constructor's)
 *   LOGICAL     a LOGICAL in; LOGICALS, an array of them (periods): any
 *               value but 0 is true, as in C
 *   WEIGHTS     an INTEGER array in, or the MPI_UNWEIGHTED or
 *               MPI_WEIGHTS_EMPTY sentinel, which become C's
 *   TYPE_INOUT, OP_INOUT  a handle in and out (MPI_Type_free, MPI_Op_free)
 *   SEND_TYPES  alltoallw's datatype per rank of comm, send side (not read
 *               when sendbuf is MPI_IN_PLACE); RECV_TYPES, receive side
 *   OUT_TYPES   neighbor_alltoallw's datatype per out-neighbour; IN_TYPES,
 *               per in-neighbour
 *   REQUEST     a request out (a non-blocking collective's)
 *   REQUEST_IN, REQUEST_INOUT  a request in; in and out (MPI_Start, MPI_Wait)
 *   REQUESTS    an array of `count` requests, in and out
 *   FLAG        a LOGICAL out (1 for .TRUE., as gfortran and MPICH have it)
 *   INDEX       an index out, 1-based in Fortran (MPI_UNDEFINED stays)
 *   OUTCOUNT    an INTEGER out; INDICES, `outcount` 1-based indices out
 *   STATUS_F08  a TYPE(MPI_Status) out of mpi_f08 (MPI_F08_STATUS_IGNORE
 *               allowed); STATUSES_F08, `count` of them; SOME_STATUSES_F08,
 *               `count` of which the first `outcount` are written
 * The table's names matter where kinds refer to other arguments: sendbuf,
 * comm, count, outcount. */
#define PARAM_BUF(n)               void *n
#define PARAM_CBUF(n)              void *n
#define PARAM_INT(n)               MPI_Fint *n
#define PARAM_INTS(n)              MPI_Fint *n
#define PARAM_AINTS(n)             MPI_Aint *n
#define PARAM_TYPE(n)              MPI_Fint *n
#define PARAM_OP(n)                MPI_Fint *n
#define PARAM_COMM(n)              MPI_Fint *n
#define PARAM_INFO(n)              MPI_Fint *n
#define PARAM_GROUP(n)             MPI_Fint *n
#define PARAM_COMM_OUT(n)          MPI_Fint *n
#define PARAM_LOGICAL(n)           MPI_Fint *n
#define PARAM_LOGICALS(n)          MPI_Fint *n
#define PARAM_WEIGHTS(n)           MPI_Fint *n
#define PARAM_TYPE_INOUT(n)        MPI_Fint *n
#define PARAM_OP_INOUT(n)          MPI_Fint *n
#define PARAM_SEND_TYPES(n)        MPI_Fint *n
#define PARAM_RECV_TYPES(n)        MPI_Fint *n
#define PARAM_OUT_TYPES(n)         MPI_Fint *n
#define PARAM_IN_TYPES(n)          MPI_Fint *n
#define PARAM_REQUEST(n)           MPI_Fint *n
#define PARAM_REQUEST_IN(n)        MPI_Fint *n
#define PARAM_REQUEST_INOUT(n)     MPI_Fint *n
#define PARAM_REQUESTS(n)          MPI_Fint *n
#define PARAM_FLAG(n)              MPI_Fint *n
#define PARAM_INDEX(n)             MPI_Fint *n
#define PARAM_OUTCOUNT(n)          MPI_Fint *n
#define PARAM_INDICES(n)           MPI_Fint *n
#define PARAM_STATUS_F08(n)        MPI_F08_status *n
#define PARAM_STATUSES_F08(n)      MPI_F08_status *n
#define PARAM_SOME_STATUSES_F08(n) MPI_F08_status *n

#define BEFORE_BUF(n)
#define BEFORE_CBUF(n)
#define BEFORE_INT(n)
#define BEFORE_INTS(n)
#define BEFORE_AINTS(n)
#define BEFORE_TYPE(n)
#define BEFORE_OP(n)
#define BEFORE_COMM(n)
#define BEFORE_INFO(n)
#define BEFORE_GROUP(n)
#define BEFORE_COMM_OUT(n) MPI_Comm c_##n = MPI_COMM_NULL;
#define BEFORE_LOGICAL(n)
#define BEFORE_LOGICALS(n)
#define BEFORE_WEIGHTS(n)
#define BEFORE_TYPE_INOUT(n) MPI_Datatype c_##n = PMPI_Type_f2c(*(n));
#define BEFORE_OP_INOUT(n)   MPI_Op c_##n = PMPI_Op_f2c(*(n));
#define BEFORE_SEND_TYPES(n)                                                                       \
    MPI_Datatype *c_##n = trl_fortran_in_place(sendbuf) ? NULL : trl_fortran_types(n, *comm);
#define BEFORE_RECV_TYPES(n) MPI_Datatype *c_##n = trl_fortran_types(n, *comm);
#define BEFORE_OUT_TYPES(n)  MPI_Datatype *c_##n = trl_fortran_neighbor_types(n, *comm, true);
#define BEFORE_IN_TYPES(n)   MPI_Datatype *c_##n = trl_fortran_neighbor_types(n, *comm, false);
#define BEFORE_REQUEST(n)    MPI_Request c_##n = MPI_REQUEST_NULL;
#define BEFORE_REQUEST_IN(n)
#define BEFORE_REQUEST_INOUT(n) MPI_Request c_##n = PMPI_Request_f2c(*(n));
#define BEFORE_REQUESTS(n)      MPI_Request *c_##n = trl_fortran_requests(n, *count);
#define BEFORE_FLAG(n)          int c_##n = 0;
#define BEFORE_INDEX(n)         int c_##n = MPI_UNDEFINED;
#define BEFORE_OUTCOUNT(n)      int c_##n = MPI_UNDEFINED;
#define BEFORE_INDICES(n)
#define BEFORE_STATUS_F08(n)                                                                       \
    MPI_Status s_##n, *c_##n = (n) == MPI_F08_STATUS_IGNORE ? MPI_STATUS_IGNORE : &s_##n;
#define BEFORE_STATUSES_F08(n)                                                                     \
    MPI_Status *c_##n = (n) == MPI_F08_STATUSES_IGNORE                                             \
                            ? TRL_STATUSES_IGNORE                                                  \
                            : malloc((size_t)(*count > 0 ? *count : 1) * sizeof(MPI_Status));
#define BEFORE_SOME_STATUSES_F08(n) BEFORE_STATUSES_F08(n)

#define ARG_BUF(n)               trl_fortran_buffer(n)
#define ARG_CBUF(n)              trl_fortran_buffer(n)
#define ARG_INT(n)               (int)*(n)
#define ARG_INTS(n)              (const int *)(n)
#define ARG_AINTS(n)             (const MPI_Aint *)(n)
#define ARG_TYPE(n)              PMPI_Type_f2c(*(n))
#define ARG_OP(n)                PMPI_Op_f2c(*(n))
#define ARG_COMM(n)              PMPI_Comm_f2c(*(n))
#define ARG_INFO(n)              PMPI_Info_f2c(*(n))
#define ARG_GROUP(n)             PMPI_Group_f2c(*(n))
#define ARG_COMM_OUT(n)          &c_##n
#define ARG_LOGICAL(n)           (*(n) != 0)
#define ARG_LOGICALS(n)          (const int *)(n)
#define ARG_WEIGHTS(n)           trl_fortran_weights(n)
#define ARG_TYPE_INOUT(n)        &c_##n
#define ARG_OP_INOUT(n)          &c_##n
#define ARG_SEND_TYPES(n)        c_##n
#define ARG_RECV_TYPES(n)        c_##n
#define ARG_OUT_TYPES(n)         c_##n
#define ARG_IN_TYPES(n)          c_##n
#define ARG_REQUEST(n)           &c_##n
#define ARG_REQUEST_IN(n)        PMPI_Request_f2c(*(n))
#define ARG_REQUEST_INOUT(n)     &c_##n
#define ARG_REQUESTS(n)          c_##n
#define ARG_FLAG(n)              &c_##n
#define ARG_INDEX(n)             &c_##n
#define ARG_OUTCOUNT(n)          &c_##n
#define ARG_INDICES(n)           (int *)(n)
#define ARG_STATUS_F08(n)        c_##n
#define ARG_STATUSES_F08(n)      c_##n
#define ARG_SOME_STATUSES_F08(n) c_##n

#define AFTER_BUF(n)
#define AFTER_CBUF(n)
#define AFTER_INT(n)
#define AFTER_INTS(n)
#define AFTER_AINTS(n)
#define AFTER_TYPE(n)
#define AFTER_OP(n)
#define AFTER_COMM(n)
#define AFTER_INFO(n)
#define AFTER_GROUP(n)
#define AFTER_COMM_OUT(n) *(n) = PMPI_Comm_c2f(c_##n);
#define AFTER_LOGICAL(n)
#define AFTER_LOGICALS(n)
#define AFTER_WEIGHTS(n)
#define AFTER_TYPE_INOUT(n) *(n) = PMPI_Type_c2f(c_##n);
#define AFTER_OP_INOUT(n)   *(n) = PMPI_Op_c2f(c_##n);
#define AFTER_SEND_TYPES(n) free(c_##n);
#define AFTER_RECV_TYPES(n) free(c_##n);
#define AFTER_OUT_TYPES(n)  free(c_##n);
#define AFTER_IN_TYPES(n)   free(c_##n);
#define AFTER_REQUEST(n)                                                                           \
    if (rc == MPI_SUCCESS)                                                                         \
        *(n) = PMPI_Request_c2f(c_##n);
#define AFTER_REQUEST_IN(n)
#define AFTER_REQUEST_INOUT(n) *(n) = PMPI_Request_c2f(c_##n);
#define AFTER_REQUESTS(n)      trl_fortran_requests_back(c_##n, n, *count);
#define AFTER_FLAG(n)          *(n) = c_##n ? 1 : 0;
#define AFTER_INDEX(n)         *(n) = c_##n >= 0 ? c_##n + 1 : c_##n;
#define AFTER_OUTCOUNT(n)      *(n) = c_##n;
#define AFTER_INDICES(n)                                                                           \
    for (int k_ = 0; c_outcount != MPI_UNDEFINED && k_ < c_outcount; k_++)                         \
        (n)[k_] += 1;
#define AFTER_STATUS_F08(n)                                                                        \
    if (c_##n != MPI_STATUS_IGNORE)                                                                \
        trl_status_c2f08(c_##n, n);
#define AFTER_STATUSES_F08_(n, written)                                                            \
    if ((n) != MPI_F08_STATUSES_IGNORE && c_##n) {                                                 \
        for (int k_ = 0; k_ < (written); k_++)                                                     \
            trl_status_c2f08(&c_##n[k_], &(n)[k_]);                                                \
        free(c_##n);                                                                               \
    }
#define AFTER_STATUSES_F08(n) AFTER_STATUSES_F08_(n, *count)
#define AFTER_SOME_STATUSES_F08(n)                                                                 \
    AFTER_STATUSES_F08_(n, c_outcount == MPI_UNDEFINED ? 0 : c_outcount)

/* An argument (KIND, name) through one of the tables above. */
#define PARAM(kind, n)  PARAM_##kind(n)
#define BEFORE(kind, n) BEFORE_##kind(n)
#define ARG(kind, n)    ARG_##kind(n)
#define AFTER(kind, n)  AFTER_##kind(n)

/* A function no symbol names under this MPI is left out of the library. */
#define KEPT_IF_NAMED __attribute__((unused))

/* One symbol of the MPI library's bindings, as an alias of Trellis' function. */
#define ALIAS(lower, symbol) fortran_##lower##_fn symbol __attribute__((alias("fortran_" #lower)));

/* One line of a table: the function's type, the function, its symbols. */
#define DEFINE(class, lower, Mixed, UPPER, ...)                                                    \
    typedef void fortran_##lower##_fn(TRL_EACH(PARAM, TRL_COMMA, __VA_ARGS__), MPI_Fint *ierror);  \
    KEPT_IF_NAMED static void fortran_##lower(TRL_EACH(PARAM, TRL_COMMA, __VA_ARGS__),             \
                                              MPI_Fint *ierror)                                    \
    {                                                                                              \
        TRL_EACH(BEFORE, TRL_NOTHING, __VA_ARGS__)                                                 \
        trl_check_caller = __builtin_return_address(0); /* the program's site, for the check */    \
        int rc = MPI_##Mixed(TRL_EACH(ARG, TRL_COMMA, __VA_ARGS__));                               \
        trl_check_caller = NULL;                                                                   \
        TRL_EACH(AFTER, TRL_NOTHING, __VA_ARGS__)                                                  \
        trl_fortran_set_ierror(ierror, rc);                                                        \
    }                                                                                              \
    TRL_FORTRAN_NAMES_##class(ALIAS, lower, Mixed, UPPER)

#endif
