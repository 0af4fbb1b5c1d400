/* TRELLIS_CHECK's pre-exchange (check_pre.h): each rank's blocks, as
 * signatures, carried to the peers that receive them, and compared there. */
#include "mpi/engine/check_pre.h"

#include <stdlib.h>
#include <string.h>

#include "exec/complete.h"
#include "exec/mpi_impl.h"


/* One freed pre-exchange a thread keeps for its next call (most calls
 * repeat the last one's shape): its parts in one allocation. */
typedef struct {
    trl_check_pre p;
    size_t slots, nreqs; /* what its arrays hold */
} kept_pre;

static TRL_CHECK_TLS kept_pre *kept;

trl_check_pre *trl_check_pre_new(trl_pre_kind kind, int root, int n_out, int n_in)
{
    size_t slots = (size_t)(n_out + 2 * n_in + 2), nreqs = (size_t)(n_in + n_out + 1);
    kept_pre *k = kept;
    if (k && k->slots >= slots && k->nreqs >= nreqs) {
        kept = NULL;
    } else {
        k = malloc(sizeof *k + slots * sizeof(trl_sig) + nreqs * sizeof(MPI_Request));
        if (!k)
            return NULL;
        k->slots = slots;
        k->nreqs = nreqs;
    }
    /* out and in are the caller's to fill; got and the requests are set
     * when an exchange starts (most calls need none: check_words.h) */
    trl_sig *s = (trl_sig *)(k + 1);
    MPI_Request *reqs = (MPI_Request *)(s + k->slots);
    k->p = (trl_check_pre){kind, root, n_out, n_in, s,    s + n_out + 1, s + n_out + 1 + n_in,
                           NULL, NULL, reqs,  0,    false};
    return &k->p;
}

void trl_check_pre_free(trl_check_pre *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_reqs; i++)
        if (p->reqs[i] != MPI_REQUEST_NULL)
            return; /* abandoned in flight (an error): MPI may still write it */
    free(p->in_rank);
    free(p->out_rank);
    kept_pre *k = (kept_pre *)p; /* p is its first member */
    if (!kept) {
        kept = k;
    } else if (kept->slots < k->slots) {
        free(kept);
        kept = k;
    } else {
        free(k);
    }
}

/* Start the exchange of p over the check communicator (trl_sig is two
 * int64s), or with wait run it (a blocking call's: the library's blocking
 * collectives cost a fraction of its non-blocking ones); tag: the call's
 * number, for the neighbour form's messages. */
int trl_check_pre_start(trl_check_pre *p, MPI_Comm check, int64_t seq, bool wait)
{
    MPI_Datatype t = MPI_INT64_T;
    void *out = p->out, *got = p->got;
    memset(p->got, 0, (size_t)p->n_in * sizeof *p->got);
    for (int i = 0; i < p->n_in + p->n_out + 1; i++)
        p->reqs[i] = MPI_REQUEST_NULL;
    p->n_reqs = wait ? 0 : 1;
    MPI_Request *r = p->reqs;
    switch (p->kind) {
    case TRL_PRE_GATHER:
        return wait ? PMPI_Gather(out, 2, t, got, 2, t, p->root, check)
                    : PMPI_Igather(out, 2, t, got, 2, t, p->root, check, r);
    case TRL_PRE_SCATTER:
        return wait ? PMPI_Scatter(out, 2, t, got, 2, t, p->root, check)
                    : PMPI_Iscatter(out, 2, t, got, 2, t, p->root, check, r);
    case TRL_PRE_ALLGATHER:
        return wait ? PMPI_Allgather(out, 2, t, got, 2, t, check)
                    : PMPI_Iallgather(out, 2, t, got, 2, t, check, r);
    case TRL_PRE_ALLTOALL:
        return wait ? PMPI_Alltoall(out, 2, t, got, 2, t, check)
                    : PMPI_Ialltoall(out, 2, t, got, 2, t, check, r);
    case TRL_PRE_NEIGHBOR: {
        /* Edges between the same two ranks pair up in order on a graph; on
         * a Cartesian communicator by direction (a periodic dimension of
         * two has the same rank on both sides: what goes up arrives from
         * below), so there the tag names the direction. */
        int tag = (int)(seq % 1000) * 32, rc = MPI_SUCCESS;
        p->n_reqs = 0;
        for (int i = 0; i < p->n_in && rc == MPI_SUCCESS; i++)
            rc = PMPI_Irecv(&p->got[i], 2, t, p->in_rank[i], tag + (p->cart ? i ^ 1 : 0), check,
                            &p->reqs[p->n_reqs++]);
        for (int i = 0; i < p->n_out && rc == MPI_SUCCESS; i++)
            rc = PMPI_Isend(&p->out[i], 2, t, p->out_rank[i], tag + (p->cart ? i : 0), check,
                            &p->reqs[p->n_reqs++]);
        return rc == MPI_SUCCESS && wait ? trl_waitall_own(p->n_reqs, p->reqs) : rc;
    }
    default: p->n_reqs = 0; return MPI_SUCCESS;
    }
}

int trl_check_pre_test(trl_check_pre *p, int *done)
{
    *done = 1;
    return p ? trl_testall_own(p->n_reqs, p->reqs, done) : MPI_SUCCESS;
}

int trl_check_pre_wait(trl_check_pre *p)
{
    return p ? trl_waitall_own(p->n_reqs, p->reqs) : MPI_SUCCESS;
}

/* One block from rank i to rank j, as both sides see it when they agree. */
static uint64_t block_term(int i, int j, trl_sig s)
{
    uint64_t h = ((uint64_t)(uint32_t)i << 32 | (uint32_t)j) ^ 0x9e3779b97f4a7c15ULL;
    h = (h ^ (uint64_t)s.hash) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 29) ^ (uint64_t)s.bytes) * 0x94d049bb133111ebULL;
    return h ^ (h >> 32);
}

typedef struct {
    uint64_t sum;
    bool sure;
} digest;

/* A block this rank sends (+) to, or receives (-) from, another rank. */
static void add_block(digest *d, int from, int to, trl_sig s, bool sent)
{
    if (s.bytes < 0 || s.hash == TRL_SIG_PACKED)
        d->sure = false;
    uint64_t t = block_term(from, to, s);
    d->sum += sent ? t : (uint64_t)0 - t;
}

/* This rank's block to itself, compared here. */
static void own_block(digest *d, trl_sig out, trl_sig in)
{
    if (in.bytes >= 0 && !trl_sig_match(out, in))
        d->sure = false;
}

bool trl_check_pre_digest(const trl_check_pre *p, int rank, int size, uint64_t *sum)
{
    digest d = {0, true};
    switch (p->kind) {
    case TRL_PRE_GATHER:
        if (rank != p->root)
            add_block(&d, rank, p->root, p->out[0], true);
        for (int i = 0; i < p->n_in; i++)
            if (i != rank)
                add_block(&d, i, rank, p->in[i], false);
            else
                own_block(&d, p->out[0], p->in[i]);
        break;
    case TRL_PRE_SCATTER:
        for (int i = 0; i < p->n_out; i++)
            if (i != rank)
                add_block(&d, rank, i, p->out[i], true);
            else
                own_block(&d, p->out[i], p->in[0]);
        if (rank != p->root)
            add_block(&d, p->root, rank, p->in[0], false);
        break;
    case TRL_PRE_ALLGATHER:
    case TRL_PRE_ALLTOALL:
        for (int i = 0; i < size; i++) {
            trl_sig out = p->out[p->kind == TRL_PRE_ALLTOALL ? i : 0];
            if (i == rank) {
                own_block(&d, out, p->in[i]);
                continue;
            }
            add_block(&d, rank, i, out, true);
            add_block(&d, i, rank, p->in[i], false);
        }
        break;
    default: d.sure = false;
    }
    *sum = d.sum;
    return d.sure;
}

/* A rank of an intercommunicator's place in its blocks: its group (0 the
 * first) above its rank. */
enum { PLACE_RANK_BITS = 24 };

static int inter_place(int group, int rank)
{
    return group << PLACE_RANK_BITS | rank;
}

/* A TRL_PRE_INTER's blocks, each as (from, to) places, to fn: the ones
 * sent, then the ones expected. */
typedef void inter_block_fn(void *ctx, int from, int to, trl_sig s, bool sent);

static void each_inter_block(const trl_check_pre *p, int group, int rank, inter_block_fn *fn,
                             void *ctx)
{
    int me = inter_place(group, rank), them = inter_place(1 - group, 0);
    for (int j = 0; j < p->n_out; j++)
        if (p->out[j].bytes >= 0)
            fn(ctx, me, them | j, p->out[j], true);
    for (int i = 0; i < p->n_in; i++)
        if (p->in[i].bytes >= 0)
            fn(ctx, them | i, me, p->in[i], false);
}

static void digest_block(void *ctx, int from, int to, trl_sig s, bool sent)
{
    add_block(ctx, from, to, s, sent);
}

bool trl_check_pre_digest_inter(const trl_check_pre *p, int group, int rank, uint64_t *sum)
{
    digest d = {0, true};
    each_inter_block(p, group, rank, digest_block, &d);
    *sum = d.sum;
    return d.sure;
}

/* One block as trl_check_pre_name_inter all-gathers it. */
enum { T_TO, T_FROM, T_SENT, T_BYTES, T_HASH, T_WORDS };

static int by_pair(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    for (int f = T_TO; f <= T_SENT; f++)
        if (x[f] != y[f])
            return x[f] < y[f] ? -1 : 1;
    return 0;
}

static void put_block(void *ctx, int from, int to, trl_sig s, bool sent)
{
    int64_t **at = ctx, *t = *at;
    t[T_TO] = to;
    t[T_FROM] = from;
    t[T_SENT] = sent; /* the expectation (0) sorts before the block sent (1) */
    t[T_BYTES] = s.bytes;
    t[T_HASH] = s.hash;
    *at = t + T_WORDS;
}

void trl_check_pre_name_inter(const trl_check_pre *p, int group, int rank, MPI_Comm check,
                              int64_t *row)
{
    int me = inter_place(group, rank), n = 0, total = 0;
    int *counts = NULL, *displs = NULL;
    int64_t *mine = malloc(sizeof(int64_t) * T_WORDS * (size_t)(p->n_out + p->n_in + 1)),
            *all = NULL, *t = mine;
    if (mine)
        each_inter_block(p, group, rank, put_block, &t);
    int words = mine ? (int)(t - mine) : 0;
    PMPI_Comm_size(check, &n);
    counts = malloc(sizeof(int) * (size_t)n);
    displs = malloc(sizeof(int) * (size_t)n);
    bool ok = mine && counts && displs &&
              PMPI_Allgather(&words, 1, MPI_INT, counts, 1, MPI_INT, check) == MPI_SUCCESS;
    for (int i = 0; ok && i < n; i++) {
        displs[i] = total;
        total += counts[i];
    }
    all = ok ? malloc(sizeof(int64_t) * (size_t)(total + 1)) : NULL;
    ok = all && PMPI_Allgatherv(mine, words, MPI_INT64_T, all, counts, displs, MPI_INT64_T,
                                check) == MPI_SUCCESS;
    /* The same order on every rank: by receiver, sender, then the two
     * sides; the first pair whose sides differ is named by its receiver. */
    size_t blocks = ok ? (size_t)total / T_WORDS : 0;
    if (blocks > 0)
        qsort(all, blocks, sizeof(int64_t) * T_WORDS, by_pair);
    for (size_t b = 0; b + 1 < blocks; b++) {
        const int64_t *want = all + b * T_WORDS, *got = want + T_WORDS;
        if (want[T_SENT] || !got[T_SENT] || want[T_TO] != got[T_TO] || want[T_FROM] != got[T_FROM])
            continue;
        trl_sig w = {want[T_HASH], want[T_BYTES]}, g = {got[T_HASH], got[T_BYTES]};
        if (trl_sig_match(w, g))
            continue;
        if (want[T_TO] == me && row[TRL_CK_LOCAL] == TRL_CK_LOCAL_OK) {
            row[TRL_CK_LOCAL] = TRL_CK_LOCAL_PEER;
            row[TRL_CK_PEER] = want[T_FROM] & ((1 << PLACE_RANK_BITS) - 1);
            row[TRL_CK_WANT] = w.bytes;
            row[TRL_CK_GOT] = g.bytes;
        }
        break;
    }
    free(mine);
    free(all);
    free(counts);
    free(displs);
}

/* After the exchange: LOCAL from the first block that differs. */
void trl_check_pre_compare(const trl_check_pre *p, int64_t *row)
{
    if (!p || p->kind == TRL_PRE_NONE || row[TRL_CK_LOCAL] != TRL_CK_LOCAL_OK)
        return;
    for (int i = 0; i < p->n_in; i++) {
        trl_sig want = p->in[i], got = p->got[i];
        if (want.bytes < 0 || trl_sig_match(want, got))
            continue;
        row[TRL_CK_LOCAL] = TRL_CK_LOCAL_PEER;
        row[TRL_CK_PEER] = p->in_rank ? p->in_rank[i] : i;
        row[TRL_CK_WANT] = want.bytes;
        row[TRL_CK_GOT] = got.bytes;
        return;
    }
}
