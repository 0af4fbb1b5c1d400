/* TRELLIS_CHECK's operations (check_ops.h). */
#include "mpi/engine/check_ops.h"

#include <stddef.h>

enum { USER_OP = 100 };

/* The predefined operations in code order: code i + 1 is ops[i]. */
static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {
    {MPI_MAX, "MPI_MAX"},         {MPI_MIN, "MPI_MIN"},       {MPI_SUM, "MPI_SUM"},
    {MPI_PROD, "MPI_PROD"},       {MPI_LAND, "MPI_LAND"},     {MPI_BAND, "MPI_BAND"},
    {MPI_LOR, "MPI_LOR"},         {MPI_BOR, "MPI_BOR"},       {MPI_LXOR, "MPI_LXOR"},
    {MPI_BXOR, "MPI_BXOR"},       {MPI_MAXLOC, "MPI_MAXLOC"}, {MPI_MINLOC, "MPI_MINLOC"},
    {MPI_REPLACE, "MPI_REPLACE"}, {MPI_NO_OP, "MPI_NO_OP"},
};
enum { NOPS = sizeof ops / sizeof ops[0] };

int64_t trl_check_op_code(MPI_Op op)
{
    for (size_t i = 0; i < NOPS; i++)
        if (op == ops[i].op)
            return (int64_t)i + 1;
    return USER_OP;
}

const char *trl_check_op_name(int64_t code)
{
    return code >= 1 && code <= NOPS ? ops[code - 1].name : "a user-defined operation";
}
