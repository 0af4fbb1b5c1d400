#include "mpi/coll_common.h"

#include <limits.h>
#include <stdlib.h>

#include "exec/exec_mpi.h"

int trl_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, const void *sendbuf,
            void *recvbuf, MPI_Datatype dtype, MPI_Op op)
{
    trl_exec_call call = {sendbuf, recvbuf, dtype, op, c->dup, c->tag_ub, &c->shm};
    int rc = trl_exec_mpi(&e->sched, &call, &c->mem);
    return rc == MPI_SUCCESS ? rc : PMPI_Comm_call_errhandler(comm, rc);
}

bool trl_bad_reduction(int count, MPI_Datatype datatype, MPI_Op op)
{
    return count < 0 || datatype == MPI_DATATYPE_NULL || op == MPI_OP_NULL;
}

trl_coll_args trl_reduction_args(trl_coll coll, int root, const void *sendbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op)
{
    int size, commute;
    PMPI_Type_size(datatype, &size);
    PMPI_Op_commutative(op, &commute);
    trl_coll_args a = {.coll = coll, .root = root, .count = size ? (size_t)count : 0,
                       .elem_size = (size_t)size, .commutative = commute,
                       .in_place = sendbuf == MPI_IN_PLACE};
    return a;
}

bool trl_type_contiguous(MPI_Datatype t, int *size, MPI_Aint *extent)
{
    MPI_Aint lb, true_lb, true_extent;
    PMPI_Type_size(t, size);
    PMPI_Type_get_extent(t, &lb, extent);
    PMPI_Type_get_true_extent(t, &true_lb, &true_extent);
    return (MPI_Aint)*size == *extent && true_extent == *extent && true_lb == 0;
}

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

static void from_bottom_done(MPI_Datatype type, MPI_Datatype shifted)
{
    if (shifted != type)
        PMPI_Type_free(&shifted);
}

int trl_pack(const void *buf, int count, MPI_Datatype type, void *out, int outsize, int *pos,
             MPI_Comm comm)
{
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
    void *base;
    MPI_Datatype t;
    int rc = from_bottom(buf, count, type, &base, &t);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Unpack(in, insize, pos, base, t == type ? count : 1, t, comm);
    from_bottom_done(type, t);
    return rc;
}

static MPI_Datatype type_of(const trl_blocks *b, int i)
{
    return b->types ? b->types[i] : b->type;
}

static int count_of(const trl_blocks *b, int i)
{
    return b->counts ? b->counts[i] : b->count;
}

/* Block i's address offset in the user's buffer, in bytes. */
static MPI_Aint user_offset(const trl_blocks *b, int i, MPI_Aint extent)
{
    if (b->byte_disp_in)
        return b->byte_disp_in[i];
    if (b->displs)
        return (MPI_Aint)b->displs[i] * extent;
    return (MPI_Aint)i * b->count * extent;
}

int trl_side_open(trl_side *side, void *user, const trl_blocks *b, bool stage,
                  size_t *byte_counts, size_t *byte_displs)
{
    *side = (trl_side){user, user, NULL, 0};
    /* One datatype for every block (all but alltoallw): ask about it once. */
    int size = 0;
    MPI_Aint extent = 0;
    bool direct = !stage, contiguous = b->types || trl_type_contiguous(b->type, &size, &extent);
    size_t packed = 0;
    for (int i = 0; i < b->n; i++) {
        int count = count_of(b, i);
        if (count < 0)
            return MPI_ERR_COUNT;
        if (b->types)
            contiguous = trl_type_contiguous(b->types[i], &size, &extent);
        if (count > 0 && !contiguous)
            direct = false;
        byte_counts[i] = (size_t)count * (size_t)size;
        if (byte_counts[i] > INT_MAX)
            return MPI_ERR_COUNT; /* the executor's messages count in ints */
        packed += byte_counts[i];
    }
    if (direct) {
        /* Displacements may be negative (MPI allows it): the schedule's
         * base is the lowest block, so its offsets stay unsigned. */
        MPI_Aint low = 0;
        for (int i = 0; i < b->n; i++) {
            if (b->types)
                trl_type_contiguous(b->types[i], &size, &extent);
            MPI_Aint off = user_offset(b, i, extent);
            byte_displs[i] = (size_t)off; /* made relative below */
            if (i == 0 || off < low)
                low = off;
        }
        for (int i = 0; i < b->n; i++)
            byte_displs[i] = (size_t)((MPI_Aint)byte_displs[i] - low);
        side->base = (char *)user + low;
        return MPI_SUCCESS;
    }
    for (int i = 0; i < b->n; i++)
        byte_displs[i] = i == 0 ? 0 : byte_displs[i - 1] + byte_counts[i - 1];
    if (packed == 0)
        return MPI_SUCCESS;
    if (packed > INT_MAX)
        return MPI_ERR_COUNT;
    side->staging = malloc(packed);
    if (!side->staging)
        return MPI_ERR_NO_MEM;
    side->base = side->staging;
    side->bytes = packed;
    return MPI_SUCCESS;
}

static MPI_Aint block_extent(const trl_blocks *b, int i)
{
    MPI_Aint lb, extent;
    PMPI_Type_get_extent(type_of(b, i), &lb, &extent);
    return extent;
}

int trl_side_pack(trl_side *side, const trl_blocks *b, const size_t *byte_displs, int only,
                  MPI_Comm comm)
{
    if (!side->staging)
        return MPI_SUCCESS;
    for (int i = only < 0 ? 0 : only; i < (only < 0 ? b->n : only + 1); i++) {
        int pos = (int)byte_displs[i], count = count_of(b, i);
        if (count == 0)
            continue;
        const char *from = side->user + user_offset(b, i, block_extent(b, i));
        int rc = trl_pack(from, count, type_of(b, i), side->staging, (int)side->bytes, &pos, comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int trl_side_unpack(trl_side *side, const trl_blocks *b, const size_t *byte_displs, int skip,
                    MPI_Comm comm)
{
    if (!side->staging)
        return MPI_SUCCESS;
    for (int i = 0; i < b->n; i++) {
        int pos = (int)byte_displs[i], count = count_of(b, i);
        if (count == 0 || i == skip)
            continue;
        char *to = side->user + user_offset(b, i, block_extent(b, i));
        int rc = trl_unpack(side->staging, (int)side->bytes, &pos, to, count, type_of(b, i), comm);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

void trl_side_close(trl_side *side)
{
    free(side->staging);
    side->staging = NULL;
}

int trl_move_open(trl_move_side *m, void *user, const trl_blocks *b, bool stage, size_t *counts,
                  size_t *displs)
{
    m->b = *b;
    m->used = true;
    m->counts = counts;
    m->displs = displs;
    m->pack_only = -1;
    return trl_side_open(&m->side, user, b, stage, counts, displs);
}

void trl_move_abandon(trl_move_side *send, trl_move_side *recv)
{
    trl_side_close(&send->side);
    trl_side_close(&recv->side);
}

int trl_move_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, trl_move_side *send,
                 trl_move_side *recv)
{
    int pack_rc = MPI_SUCCESS;
    if (send->used)
        pack_rc = trl_side_pack(&send->side, &send->b, send->displs, -1, c->dup);
    if (recv->used && recv->pack_only >= 0 && pack_rc == MPI_SUCCESS)
        pack_rc = trl_side_pack(&recv->side, &recv->b, recv->displs, recv->pack_only, c->dup);
    int rc = trl_run(e, c, comm, send->used ? send->side.base : NULL,
                     recv->used ? recv->side.base : NULL, MPI_BYTE, MPI_OP_NULL);
    if (rc == MPI_SUCCESS && recv->used)
        rc = trl_side_unpack(&recv->side, &recv->b, recv->displs, recv->pack_only, c->dup);
    trl_move_abandon(send, recv);
    if (rc == MPI_SUCCESS && pack_rc != MPI_SUCCESS)
        rc = PMPI_Comm_call_errhandler(comm, pack_rc);
    return rc;
}

int trl_move_serve(trl_comm *c, MPI_Comm comm, trl_coll_args *a, trl_move_side *send,
                   trl_move_side *recv, bool *served)
{
    const trl_cache_entry *e = trl_comm_lookup(c, a);
    *served = e && e->algo->build;
    if (!*served) {
        trl_move_abandon(send, recv);
        return MPI_SUCCESS;
    }
    return trl_move_run(e, c, comm, send, recv);
}

bool trl_bad_counts(const int *counts, const int *displs, int p)
{
    if (!counts || !displs)
        return true;
    for (int i = 0; i < p; i++)
        if (counts[i] < 0)
            return true;
    return false;
}
