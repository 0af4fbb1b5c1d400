/* TRELLIS_CHECK (check.h): each communicator's private duplicates and call
 * counts, the pre-exchange, the comparison (the rows all-gathered: waited
 * for by a blocking call, followed up by trl_check_poll for a non-blocking
 * one), and what a mismatch starts (check_report.c). */
#include "mpi/engine/check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/settings.h"
#include "exec/mpi_impl.h"
#include "mpi/engine/check_report.h"
#include "mpi/engine/check_watch.h"

bool trl_check_on;

static int keyval = MPI_KEYVAL_INVALID;
static void settle(void);
static bool polling(void);
static int comms_made;

/* ---- per communicator ---- */

/* A non-blocking call that does not match runs alongside its check, and
 * may fail (a message truncated) before the check has its answer. So the
 * error handler of each communicator the check sees first finishes the
 * checks in flight, which report the mismatch, and only then does what the
 * program's handler does. */
static MPI_Errhandler settling;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    void *v = NULL;
    int flag = 0;
    if (!polling())
        settle();
    PMPI_Comm_get_attr(*comm, keyval, &v, &flag);
    MPI_Errhandler own = flag ? ((trl_check_comm *)v)->errhandler : MPI_ERRORS_ARE_FATAL;
    if (own == settling) /* inherited from a communicator the check wrapped */
        own = MPI_ERRORS_ARE_FATAL;
    PMPI_Comm_set_errhandler(*comm, own);
    PMPI_Comm_call_errhandler(*comm, *code);
    PMPI_Comm_set_errhandler(*comm, settling);
}

static void comm_unref(trl_check_comm *cc)
{
    if (--cc->refs > 0)
        return;
    for (int k = 0; k < 2; k++) {
        if (cc->check[k] != MPI_COMM_NULL)
            PMPI_Comm_free(&cc->check[k]);
        if (cc->pre[k] != MPI_COMM_NULL)
            PMPI_Comm_free(&cc->pre[k]);
    }
    free(cc);
}

static int on_free(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    comm_unref(value);
    return MPI_SUCCESS;
}

static void name_comm(MPI_Comm comm, trl_check_comm *cc)
{
    char name[MPI_MAX_OBJECT_NAME] = "";
    int len = 0;
    PMPI_Comm_get_name(comm, name, &len);
    int n = cc->where.size + cc->where.remote_size;
    if (comm == MPI_COMM_WORLD)
        snprintf(cc->name, sizeof cc->name, "MPI_COMM_WORLD");
    else if (comm == MPI_COMM_SELF)
        snprintf(cc->name, sizeof cc->name, "MPI_COMM_SELF");
    else if (len > 0)
        snprintf(cc->name, sizeof cc->name, "communicator \"%.40s\"", name);
    else
        snprintf(cc->name, sizeof cc->name, "%scommunicator #%d (%d ranks)",
                 cc->where.inter ? "inter" : "", comms_made, n);
}

static trl_check_comm *comm_find(MPI_Comm comm);

/* The check's state of comm, made now (collective over comm); parent: the
 * communicator it was made from, whose handler it inherited, or
 * MPI_COMM_NULL. */
static trl_check_comm *comm_make(MPI_Comm comm, MPI_Comm parent)
{
    trl_check_comm *cc = calloc(1, sizeof *cc);
    if (!cc)
        return NULL;
    int inter = 0;
    PMPI_Comm_test_inter(comm, &inter);
    cc->where.inter = inter;
    PMPI_Comm_rank(comm, &cc->where.rank);
    PMPI_Comm_size(comm, &cc->where.size);
    int rc;
    if (inter) {
        PMPI_Comm_remote_size(comm, &cc->where.remote_size);
        rc = PMPI_Intercomm_merge(comm, 0, &cc->check[0]);
        /* Which group is first: the one whose rank 0 comes first in the
         * merge (both groups passed the same high, so the order is the
         * library's). */
        MPI_Group local, merged;
        int zero = 0, at = 0, me = 0;
        PMPI_Comm_group(comm, &local);
        PMPI_Comm_group(cc->check[0], &merged);
        PMPI_Group_translate_ranks(local, 1, &zero, merged, &at);
        PMPI_Comm_rank(cc->check[0], &me);
        cc->where.low = at == 0;
        PMPI_Group_free(&local);
        PMPI_Group_free(&merged);
        (void)me;
    } else {
        rc = PMPI_Comm_dup(comm, &cc->check[0]);
        cc->where.low = true;
    }
    cc->check[1] = cc->pre[0] = cc->pre[1] = MPI_COMM_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_dup(cc->check[0], &cc->check[1]);
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
        rc = PMPI_Comm_dup(cc->check[0], &cc->pre[k]);
    if (rc != MPI_SUCCESS) {
        free(cc);
        return NULL;
    }
    for (int k = 0; k < 2; k++) {
        PMPI_Comm_set_errhandler(cc->check[k], MPI_ERRORS_RETURN);
        PMPI_Comm_set_errhandler(cc->pre[k], MPI_ERRORS_RETURN);
    }
    /* kept (not freed) for as long as the program runs: a handle copied
     * from a parent the check wrapped is shared */
    PMPI_Comm_get_errhandler(comm, &cc->errhandler);
    if (cc->errhandler == settling) {
        trl_check_comm *up = parent != MPI_COMM_NULL ? comm_find(parent) : NULL;
        cc->errhandler = up ? up->errhandler : MPI_ERRORS_ARE_FATAL;
    }
    PMPI_Comm_set_errhandler(comm, settling);
    comms_made++;
    name_comm(comm, cc);
    cc->refs = 1;
    PMPI_Comm_set_attr(comm, keyval, cc);
    return cc;
}

static trl_check_comm *comm_find(MPI_Comm comm)
{
    void *v = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS)
        return NULL;
    return flag ? v : NULL;
}

void trl_check_comm_new(MPI_Comm parent, MPI_Comm comm)
{
    if (trl_check_on && comm != MPI_COMM_NULL && !comm_find(comm))
        comm_make(comm, parent);
}

static trl_check_comm *comm_for(MPI_Comm comm, const trl_mode *mode)
{
    if (comm == MPI_COMM_NULL)
        return NULL;
    trl_check_comm *cc = comm_find(comm);
    int inter = 0;
    /* Made at a first blocking call where its constructor was not seen; not
     * an intercommunicator's, whose other side (MPI_Comm_spawn, connect)
     * may not run Trellis and would never join the merge. */
    if (!cc && mode->kind == TRL_MODE_BLOCKING &&
        PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && !inter)
        cc = comm_make(comm, MPI_COMM_NULL);
    return cc;
}

bool trl_check_where_of(MPI_Comm comm, const trl_mode *mode, trl_check_where *w)
{
    trl_check_comm *cc = comm_for(comm, mode);
    if (cc)
        *w = cc->where;
    return cc != NULL;
}

/* ---- the pre-exchange ---- */

trl_check_pre *trl_check_pre_new(trl_pre_kind kind, int root, int n_out, int n_in)
{
    trl_check_pre *p = calloc(1, sizeof *p);
    size_t slots = (size_t)(n_out + 2 * n_in + 2);
    trl_sig *s = calloc(slots, sizeof *s);
    MPI_Request *reqs = malloc(sizeof *reqs * (size_t)(n_in + n_out + 1));
    if (!p || !s || !reqs) {
        free(p);
        free(s);
        free(reqs);
        return NULL;
    }
    for (int i = 0; i < n_in + n_out + 1; i++)
        reqs[i] = MPI_REQUEST_NULL;
    *p = (trl_check_pre){kind, root, n_out, n_in, s,    s + n_out + 1, s + n_out + 1 + n_in,
                         NULL, NULL, reqs,  0,    false};
    return p;
}

static void pre_free(trl_check_pre *p)
{
    if (p) {
        for (int i = 0; i < p->n_reqs; i++)
            if (p->reqs[i] != MPI_REQUEST_NULL)
                return; /* abandoned in flight (an error): MPI may still write it */
        free(p->out);
        free(p->in_rank);
        free(p->out_rank);
        free(p->reqs);
    }
    free(p);
}

/* Start the exchange of p over the check communicator (trl_sig is two
 * int64s); tag: the call's number, for the neighbour form's messages. */
static int pre_start(trl_check_pre *p, MPI_Comm check, int64_t seq)
{
    MPI_Datatype t = MPI_INT64_T;
    void *out = p->out, *got = p->got;
    p->n_reqs = 1;
    switch (p->kind) {
    case TRL_PRE_GATHER: return PMPI_Igather(out, 2, t, got, 2, t, p->root, check, p->reqs);
    case TRL_PRE_SCATTER: return PMPI_Iscatter(out, 2, t, got, 2, t, p->root, check, p->reqs);
    case TRL_PRE_ALLGATHER: return PMPI_Iallgather(out, 2, t, got, 2, t, check, p->reqs);
    case TRL_PRE_ALLTOALL: return PMPI_Ialltoall(out, 2, t, got, 2, t, check, p->reqs);
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
        return rc;
    }
    default: p->n_reqs = 0; return MPI_SUCCESS;
    }
}

static int pre_test(trl_check_pre *p, int *done)
{
    *done = 1;
    return p ? PMPI_Testall(p->n_reqs, p->reqs, done, TRL_STATUSES_IGNORE) : MPI_SUCCESS;
}

static int pre_wait(trl_check_pre *p)
{
    return p ? PMPI_Waitall(p->n_reqs, p->reqs, TRL_STATUSES_IGNORE) : MPI_SUCCESS;
}

/* After the exchange: LOCAL from the first block that differs. */
static void pre_compare(const trl_check_pre *p, int64_t *row)
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

/* ---- rows ---- */

static void row_of(const trl_check_desc *d, const trl_check_comm *cc, int64_t *row)
{
    memcpy(row, d->v, sizeof d->v);
    row[TRL_CK_GROUP] = cc->where.low ? 0 : 1;
    row[TRL_CK_RANK] = cc->where.rank;
    row[TRL_CK_FIELDS] = d->care;
}

static void mismatch(const trl_check_call_info *call, const int64_t *rows)
{
    int n = 0;
    PMPI_Comm_size(call->cc->check[call->stream], &n);
    trl_check_report(call, rows, n);
}

/* ---- blocking calls ---- */

static __thread int blocking_slot = -1;

static int check_now(trl_check_call_info *call, trl_check_pre *pre)
{
    int rc = MPI_SUCCESS;
    if (pre && (rc = pre_start(pre, call->cc->pre[0], call->row[TRL_CK_SEQ])) == MPI_SUCCESS)
        rc = pre_wait(pre);
    if (rc == MPI_SUCCESS)
        pre_compare(pre, call->row);
    pre_free(pre);
    MPI_Comm check = call->cc->check[0];
    int n = 0;
    PMPI_Comm_size(check, &n);
    int64_t *rows = malloc(sizeof(int64_t) * TRL_CK_ROW * (size_t)n);
    if (rc == MPI_SUCCESS && rows &&
        PMPI_Allgather(call->row, TRL_CK_ROW, MPI_INT64_T, rows, TRL_CK_ROW, MPI_INT64_T, check) ==
            MPI_SUCCESS &&
        trl_check_rows_differ(rows, n, call->cc->where.inter))
        mismatch(call, rows);
    free(rows);
    return MPI_SUCCESS;
}

/* ---- non-blocking calls ---- */

typedef struct pending {
    struct pending *next;
    trl_check_call_info call;
    trl_check_pre *pre;
    int stage; /* 0: pre-exchange, 1: rows, 2: done */
    MPI_Request req;
    int64_t *rows;
    int slot;
} pending;

/* In the calls' order: a call's rows go out only after every earlier
 * call's did (the exchanges on a check communicator run in one order on
 * every rank). */
static struct {
    pending *head, **tail;
    atomic_int count;
    bool polling;
    /* the list is one for every thread (MPI_THREAD_MULTIPLE programs may
     * call collectives on several communicators at once) */
    pthread_mutex_t lock;
} pend = {NULL, &pend.head, 0, false, PTHREAD_MUTEX_INITIALIZER};

static bool polling(void)
{
    return pend.polling;
}

bool trl_check_pending(void)
{
    return atomic_load_explicit(&pend.count, memory_order_relaxed) > 0;
}

/* Start the next stage; false when the check failed to start (then it is
 * dropped: an unchecked call, not a stopped job). */
static bool advance(pending *p)
{
    MPI_Comm check = p->call.cc->check[1];
    if (p->stage == 0) {
        p->req = MPI_REQUEST_NULL;
        pre_compare(p->pre, p->call.row);
        int n = 0;
        PMPI_Comm_size(check, &n);
        p->rows = malloc(sizeof(int64_t) * TRL_CK_ROW * (size_t)n);
        p->stage = 1;
        return p->rows && PMPI_Iallgather(p->call.row, TRL_CK_ROW, MPI_INT64_T, p->rows, TRL_CK_ROW,
                                          MPI_INT64_T, check, &p->req) == MPI_SUCCESS;
    }
    int n = 0;
    PMPI_Comm_size(check, &n);
    if (trl_check_rows_differ(p->rows, n, p->call.cc->where.inter))
        mismatch(&p->call, p->rows);
    p->stage = 2;
    return true;
}

static void drop(pending **at)
{
    pending *p = *at;
    *at = p->next;
    if (pend.tail == &p->next)
        pend.tail = at;
    pend.count--;
    trl_check_watch_leave(p->slot);
    pre_free(p->pre);
    free(p->rows);
    comm_unref(p->call.cc);
    free(p);
}

/* Follow the checks up in order; a call whose pre-exchange is still out
 * holds back the later calls' rows. */
void trl_check_poll(void)
{
    /* never waits: the engine's turn and the library's progress call this */
    if (pthread_mutex_trylock(&pend.lock) != 0)
        return;
    if (pend.polling) {
        pthread_mutex_unlock(&pend.lock);
        return;
    }
    pend.polling = true;
    for (pending **at = &pend.head; *at;) {
        pending *p = *at;
        int done = 0;
        int rc = p->stage == 0 ? pre_test(p->pre, &done)
                               : PMPI_Test(&p->req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || (done && !advance(p)) || p->stage == 2) {
            drop(at);
            continue;
        }
        if (!done && p->stage == 0)
            break; /* its rows go out first */
        if (!done)
            at = &p->next;
        /* else its rows just went out: look again */
    }
    pend.polling = false;
    pthread_mutex_unlock(&pend.lock);
}

static int check_later(trl_check_call_info *call, trl_check_pre *pre)
{
    pending *p = calloc(1, sizeof *p);
    if (!p) {
        pre_free(pre);
        return MPI_SUCCESS;
    }
    p->call = *call;
    p->call.cc->refs++;
    p->pre = pre;
    p->req = MPI_REQUEST_NULL;
    p->slot = trl_check_watch_enter(call);
    pthread_mutex_lock(&pend.lock);
    bool started = !pre || pre_start(pre, call->cc->pre[1], call->row[TRL_CK_SEQ]) == MPI_SUCCESS;
    *pend.tail = p;
    pend.tail = &p->next;
    pend.count++;
    if (!started) {
        /* unchecked: a pre-exchange that cannot start says nothing */
        p->pre = NULL;
        pre_free(pre);
    }
    pthread_mutex_unlock(&pend.lock);
    trl_check_poll();
    return MPI_SUCCESS;
}

/* ---- the calls ---- */

int trl_check_call(MPI_Comm comm, trl_check_desc *d, trl_check_pre *pre,
                   const trl_check_labels *labels, const trl_mode *mode, const void *site)
{
    trl_check_comm *cc = comm_for(comm, mode);
    if (!cc) {
        pre_free(pre);
        return MPI_SUCCESS;
    }
    int stream = mode->kind == TRL_MODE_BLOCKING ? 0 : 1;
    trl_check_set(d, TRL_CK_SEQ, ++cc->calls[stream]);
    trl_check_set(d, TRL_CK_MODE, (int64_t)mode->kind + (cc->where.inter ? 8 : 0));
    d->v[TRL_CK_SITE] = trl_check_site_of(site);
    trl_check_call_info call = {cc, stream, labels, {0}};
    row_of(d, cc, call.row);
    if (mode->kind != TRL_MODE_BLOCKING)
        return check_later(&call, pre);
    blocking_slot = trl_check_watch_enter(&call);
    return check_now(&call, pre);
}

void trl_check_done(void)
{
    trl_check_watch_leave(blocking_slot);
    blocking_slot = -1;
}

int64_t trl_check_op_code(MPI_Op op)
{
    const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                          MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                          MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i])
            return (int64_t)i + 1;
    return 100;
}

/* ---- start and end ---- */

void trl_check_init(void)
{
    trl_check_on = trl_setting_on("TRELLIS_CHECK", false);
    if (!trl_check_on)
        return;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_free, &keyval, NULL);
    PMPI_Comm_create_errhandler(on_error, &settling);
    comm_make(MPI_COMM_WORLD, MPI_COMM_NULL);
    comm_make(MPI_COMM_SELF, MPI_COMM_NULL);
    trl_check_watch_start((double)trl_setting_count("TRELLIS_CHECK_TIMEOUT", 60));
}

/* Finish every check in flight, waiting (each rank of its call started
 * it before the call itself). */
static void settle(void)
{
    if (!trl_check_pending())
        return;
    pthread_mutex_lock(&pend.lock);
    while (pend.head) {
        pending *p = pend.head;
        int rc = p->stage == 0 ? pre_wait(p->pre) : PMPI_Wait(&p->req, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || !advance(p) || p->stage == 2)
            drop(&pend.head);
    }
    pthread_mutex_unlock(&pend.lock);
}

void trl_check_finalize(void)
{
    if (!trl_check_on)
        return;
    settle();
    PMPI_Comm_delete_attr(MPI_COMM_WORLD, keyval);
    PMPI_Comm_delete_attr(MPI_COMM_SELF, keyval);
    trl_check_on = false;
}
