/* The intracommunicator forms (coll_forms.h) of bcast and barrier.
 *
 * A broadcast moves bytes, and MPI lets ranks describe the same bytes with
 * different (count, datatype) pairs. So Trellis broadcasts bytes: a
 * contiguous buffer as it is, any other packed into a temporary one, by
 * the hooks below (around every run, for a persistent request). Arguments
 * are checked before anything else, a count of 0 included; a broadcast of
 * nothing, or on one rank, has nothing to move. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

#include "mpi/context/short.h"
#include "mpi/engine/holds.h"
#include "mpi/entry/coll_common.h"
#include "mpi/entry/coll_forms.h"
#include "mpi/entry/validate.h"

/* A non-contiguous broadcast's packed bytes, as its hooks see them. */
typedef struct {
    void *buffer;
    int count;
    MPI_Datatype datatype;
    bool root;
    bool held; /* datatype held for an op (holds.h) */
    size_t bytes;
    char packed[];
} bcast_packing;

static int bcast_pack(trl_op *op)
{
    bcast_packing *p = op->data;
    int pos = 0;
    return p->root ? trl_pack(p->buffer, p->count, p->datatype, p->packed, (int)p->bytes, &pos,
                              op->c->dup)
                   : MPI_SUCCESS;
}

static int bcast_unpack(trl_op *op, int rc)
{
    bcast_packing *p = op->data;
    int pos = 0;
    if (rc == MPI_SUCCESS && op->rc == MPI_SUCCESS && !p->root)
        rc = trl_unpack(p->packed, (int)p->bytes, &pos, p->buffer, p->count, p->datatype,
                        op->c->dup);
    return rc != MPI_SUCCESS ? rc : op->rc;
}

static void bcast_free(trl_op *op)
{
    bcast_packing *p = op->data;
    if (p->held)
        trl_let_type(p->datatype);
    free(p);
}

static const trl_op_hooks bcast_hooks = {bcast_pack, bcast_unpack, bcast_free};

int trl_intra_bcast(trl_comm *c, void *buffer, int count, MPI_Datatype datatype, int root,
                    MPI_Comm comm, const trl_mode *mode, bool *served)
{
    if (root < 0 || root >= c->size ||
        trl_side_refused(TRL_COLL_BCAST, TRL_SIDE_SEND, buffer, count, datatype))
        return MPI_SUCCESS;
    int size;
    MPI_Aint extent;
    bool contiguous = trl_type_contiguous(datatype, &size, &extent);
    size_t bytes = (size_t)count * (size_t)size;
    if (bytes == 0 || c->size == 1)
        return trl_done(comm, mode, served);
    trl_coll_args a = {.coll = TRL_COLL_BCAST,
                       .root = root,
                       .count = bytes,
                       .elem_size = 1,
                       .commutative = true,
                       .call = trl_call_of(mode)};
    const trl_cache_entry *e = trl_comm_lookup(c, &a);
    if (!e || !e->algo->build || bytes > (size_t)INT32_MAX)
        return MPI_SUCCESS;
    if (contiguous) {
        *served = true;
        return trl_run(e, c, comm, NULL, buffer, MPI_BYTE, MPI_OP_NULL, mode);
    }
    bcast_packing *p = malloc(sizeof *p + bytes);
    if (!p) {
        trl_short_of_memory("packing the buffer");
        return MPI_SUCCESS;
    }
    /* An op packs or unpacks after the call returned, when the program
     * may have freed the datatype already. */
    bool held = mode->kind != TRL_MODE_BLOCKING && trl_hold_type(datatype);
    *p = (bcast_packing){buffer, count, datatype, c->rank == root, held, bytes};
    *served = true;
    return trl_run_hooked(e, c, comm, NULL, p->packed, MPI_BYTE, MPI_OP_NULL, &bcast_hooks, p,
                          mode);
}

int trl_intra_barrier(trl_comm *c, MPI_Comm comm, const trl_mode *mode, bool *served)
{
    trl_coll_args a = {.coll = TRL_COLL_BARRIER, .elem_size = 1, .commutative = true};
    return trl_serve(c, comm, &a, c->size == 1, NULL, NULL, MPI_BYTE, MPI_OP_NULL, mode, served);
}
