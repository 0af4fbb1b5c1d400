#include "mpi/entry/coll_common.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "exec/pack.h"
#include "exec/typeinfo.h"
#include "mpi/engine/holds.h"

int trl_done(MPI_Comm comm, const trl_mode *mode, bool *served)
{
    *served = true;
    return trl_nothing(comm, mode);
}

trl_coll_args trl_reduction_args(trl_coll coll, int root, const void *sendbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op)
{
    trl_type_info tmp;
    int size = trl_type_info_of(datatype, &tmp)->size;
    trl_coll_args a = {.coll = coll,
                       .root = root,
                       .count = size ? (size_t)count : 0,
                       .elem_size = (size_t)size,
                       .commutative = trl_op_commutes(op),
                       .in_place = sendbuf == MPI_IN_PLACE};
    return a;
}

bool trl_type_contiguous(MPI_Datatype t, int *size, MPI_Aint *extent)
{
    trl_type_info tmp;
    const trl_type_info *info = trl_type_info_of(t, &tmp);
    *size = info->size;
    *extent = info->extent;
    return info->contiguous;
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
    if (b->aint_disp_in)
        return b->aint_disp_in[i];
    if (b->displs)
        return (MPI_Aint)b->displs[i] * extent;
    return (MPI_Aint)i * b->count * extent;
}

int trl_side_open(trl_side *side, void *user, const trl_blocks *b, bool stage, size_t *byte_counts,
                  size_t *byte_displs)
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

int trl_side_unpack(trl_side *side, const trl_blocks *b, const size_t *byte_counts,
                    const size_t *byte_displs, int skip, MPI_Comm comm)
{
    if (!side->staging)
        return MPI_SUCCESS;
    for (int i = 0; i < b->n; i++) {
        int pos = (int)byte_displs[i], count = count_of(b, i);
        if (count == 0 || byte_counts[i] == 0 || i == skip)
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
    m->packed = false;
    return trl_side_open(&m->side, user, b, stage, counts, displs);
}

void trl_move_abandon(trl_move_side *send, trl_move_side *recv)
{
    trl_side_close(&send->side);
    trl_side_close(&recv->side);
}

/* A data-movement call's two sides, as its hooks see them. A blocking
 * call's sides stay where the entry point opened them; an op's are copied
 * here with their byte arrays (the communicator's own are the next call's). */
typedef struct {
    trl_move_side *send, *recv;
    trl_move_side own[2];
    size_t arrays[]; /* send counts, displs, recv counts, displs */
} move_data;

static int move_before(trl_op *op)
{
    move_data *d = op->data;
    int rc = MPI_SUCCESS;
    if (d->send->used && !d->send->packed)
        rc = trl_side_pack(&d->send->side, &d->send->b, d->send->displs, -1, op->c->dup);
    if (d->recv->used && d->recv->pack_only >= 0 && rc == MPI_SUCCESS)
        rc = trl_side_pack(&d->recv->side, &d->recv->b, d->recv->displs, d->recv->pack_only,
                           op->c->dup);
    return rc;
}

/* Packing's and unpacking's errors are this rank's: reported after the
 * schedule ran (it runs whatever packing did, so no rank is left waiting). */
static int move_after(trl_op *op, int rc)
{
    move_data *d = op->data;
    int local = op->rc;
    if (rc == MPI_SUCCESS && local == MPI_SUCCESS && d->recv->used)
        local = trl_side_unpack(&d->recv->side, &d->recv->b, d->recv->counts, d->recv->displs,
                                d->recv->pack_only, op->c->dup);
    return rc != MPI_SUCCESS ? rc : local;
}

/* The datatypes a staged side packs or unpacks with after its call
 * returned, held while its op lives (holds.h); a direct side's are not
 * used again. */
static void hold_side(trl_move_side *m)
{
    if (m->used && m->side.staging && m->b.types)
        m->held = trl_hold_types(m->b.types, m->b.n);
    else if (m->used && m->side.staging)
        m->held = trl_hold_type(m->b.type);
}

static void let_side(const trl_move_side *m)
{
    if (m->held && m->b.types)
        trl_let_types(m->b.types, m->b.n);
    else if (m->held)
        trl_let_type(m->b.type);
}

static void move_release(trl_op *op)
{
    move_data *d = op->data;
    bool own = d->send == &d->own[0];
    if (own) {
        let_side(d->send);
        let_side(d->recv);
    }
    trl_move_abandon(d->send, d->recv);
    if (own)
        free(d);
}

static const trl_op_hooks move_hooks = {move_before, move_after, move_release};

/* An op's own copy of side m into *to, its byte arrays at arrays, its
 * datatypes (alltoallw's) at types: the program may free a datatype
 * through its own array's entry once the call returned. */
static void keep_side(trl_move_side *to, const trl_move_side *m, size_t *arrays,
                      MPI_Datatype *types)
{
    *to = *m;
    if (!m->used)
        return;
    size_t n = (size_t)m->b.n;
    memcpy(arrays, m->counts, n * sizeof *arrays);
    memcpy(arrays + n, m->displs, n * sizeof *arrays);
    to->counts = arrays;
    to->displs = arrays + n;
    if (m->b.types) {
        memcpy(types, m->b.types, n * sizeof *types);
        to->b.types = types;
    }
    hold_side(to);
}

int trl_move_run(const trl_cache_entry *e, trl_comm *c, MPI_Comm comm, trl_move_side *send,
                 trl_move_side *recv, const trl_mode *mode)
{
    move_data local = {.send = send, .recv = recv}, *d = &local;
    if (mode->kind != TRL_MODE_BLOCKING) {
        size_t ns = send->used ? (size_t)send->b.n : 0, nr = recv->used ? (size_t)recv->b.n : 0;
        size_t ts = send->used && send->b.types ? ns : 0, tr = recv->used && recv->b.types ? nr : 0;
        d = malloc(sizeof *d + 2 * (ns + nr) * sizeof(size_t) + (ts + tr) * sizeof(MPI_Datatype));
        if (!d) {
            trl_op_plan_drop(mode);
            trl_move_abandon(send, recv);
            return trl_error(comm, MPI_ERR_NO_MEM);
        }
        MPI_Datatype *types = (MPI_Datatype *)(d->arrays + 2 * (ns + nr));
        keep_side(&d->own[0], send, d->arrays, types);
        keep_side(&d->own[1], recv, d->arrays + 2 * ns, types + ts);
        d->send = &d->own[0];
        d->recv = &d->own[1];
    }
    return trl_run_hooked(e, c, comm, d->send->used ? d->send->side.base : NULL,
                          d->recv->used ? d->recv->side.base : NULL, MPI_BYTE, MPI_OP_NULL,
                          &move_hooks, d, mode);
}

static bool same_move_key(const trl_move_key *x, const trl_move_key *y)
{
    return x->root == y->root && x->send_count == y->send_count && x->recv_count == y->recv_count &&
           x->send_type == y->send_type && x->recv_type == y->recv_type &&
           x->send_in_place == y->send_in_place && x->recv_in_place == y->recv_in_place &&
           x->call == y->call;
}

/* A side the schedule addresses as the user's buffer itself, whose
 * datatype handle cannot come to mean another type. */
static bool side_plain(const trl_move_side *m, MPI_Datatype type)
{
    trl_type_info tmp;
    return !m->used || (!m->side.staging && m->side.base == m->side.user &&
                        trl_type_info_of(type, &tmp)->named);
}

/* What a repeat of this call may skip to (trl_move_repeat). A transient
 * entry is freed after its run, so it is never remembered. */
static void remember(trl_comm *c, trl_coll coll, const trl_move_key *key, const trl_cache_entry *e,
                     const trl_move_side *send, const trl_move_side *recv)
{
    if (!key || e->transient || !side_plain(send, key->send_type) ||
        !side_plain(recv, key->recv_type))
        return;
    c->move_memo[coll] = (trl_move_memo){*key, e, c->cache.gen, send->used, recv->used};
}

bool trl_move_repeat(trl_comm *c, MPI_Comm comm, trl_coll coll, int root, const void *sendbuf,
                     int send_count, MPI_Datatype send_type, void *recvbuf, int recv_count,
                     MPI_Datatype recv_type, const trl_mode *mode, trl_move_key *key, int *rc)
{
    *key = (trl_move_key){root,
                          send_count,
                          recv_count,
                          send_type,
                          recv_type,
                          sendbuf == MPI_IN_PLACE,
                          recvbuf == MPI_IN_PLACE,
                          trl_call_of(mode)};
    trl_comm_sync_rules(c);
    const trl_move_memo *m = &c->move_memo[coll];
    if (!m->e || m->gen != c->cache.gen || !same_move_key(&m->key, key))
        return false;
    /* Direct sides need no hooks: nothing to pack, unpack or free. */
    *rc = trl_run(m->e, c, comm, m->send_used ? sendbuf : NULL, m->recv_used ? recvbuf : NULL,
                  MPI_BYTE, MPI_OP_NULL, mode);
    return true;
}

int trl_move_serve(trl_comm *c, MPI_Comm comm, trl_coll_args *a, trl_move_side *send,
                   trl_move_side *recv, bool *served, const trl_mode *mode, const trl_move_key *key)
{
    const trl_cache_entry *e = trl_comm_lookup(c, a);
    *served = e && e->algo->build;
    if (!*served) {
        trl_op_plan_drop(mode);
        trl_move_abandon(send, recv);
        return MPI_SUCCESS;
    }
    remember(c, a->coll, key, e, send, recv);
    return trl_move_run(e, c, comm, send, recv, mode);
}
