#include "exec/pack.h"

#include <stdbool.h>

/* For a buffer at MPI_BOTTOM: *base, the first byte count elements of type
 * touch, and *shifted, those elements addressed from there (to be freed);
 * otherwise buf and type themselves. */
static int from_bottom(const void *buf, int count, MPI_Datatype type, void **base,
                       MPI_Datatype *shifted)
{
    *base = (void *)buf;
    *shifted = type;
    if (buf != MPI_BOTTOM || count == 0)
        return MPI_SUCCESS;
    MPI_Aint first, span;
    PMPI_Type_get_true_extent(type, &first, &span);
    MPI_Aint disp = -first;
    int rc = PMPI_Type_create_struct(1, &count, &disp, &type, shifted);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_commit(shifted);
    *base = (char *)MPI_BOTTOM + first;
    return rc;
}

/* Nothing to pack: MPICH refuses a NULL buffer even then. */
static bool empty(int count, MPI_Datatype type)
{
    int size;
    return count == 0 || (PMPI_Type_size(type, &size) == MPI_SUCCESS && size == 0);
}

static void from_bottom_done(MPI_Datatype type, MPI_Datatype shifted)
{
    if (shifted != type)
        PMPI_Type_free(&shifted);
}

int trl_pack(const void *buf, int count, MPI_Datatype type, void *out, int outsize, int *pos,
             MPI_Comm comm)
{
    if (empty(count, type))
        return MPI_SUCCESS;
    void *base;
    MPI_Datatype t;
    int rc = from_bottom(buf, count, type, &base, &t);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Pack(base, t == type ? count : 1, t, out, outsize, pos, comm);
    from_bottom_done(type, t);
    return rc;
}

int trl_unpack(const void *in, int insize, int *pos, void *buf, int count, MPI_Datatype type,
               MPI_Comm comm)
{
    if (empty(count, type))
        return MPI_SUCCESS;
    void *base;
    MPI_Datatype t;
    int rc = from_bottom(buf, count, type, &base, &t);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Unpack(in, insize, pos, base, t == type ? count : 1, t, comm);
    from_bottom_done(type, t);
    return rc;
}
