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
#include "mpi/engine/check_pre.h"
#include "mpi/engine/check_report.h"
#include "mpi/engine/check_inflight.h"
#include "mpi/engine/check_watch.h"
#include "mpi/engine/check_words.h"

bool trl_check_on;
TRL_CHECK_TLS const void *trl_check_caller;

static int keyval = MPI_KEYVAL_INVALID;
static void settle(void);
static bool polling(void);
static void take_verdict(bool wait);
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
    take_verdict(true); /* this call's own, if its words went out first */
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

static void comm_release(trl_check_comm *cc)
{
    for (int k = 0; k < 2; k++) {
        if (cc->check[k] != MPI_COMM_NULL)
            PMPI_Comm_free(&cc->check[k]);
        if (cc->pre[k] != MPI_COMM_NULL)
            PMPI_Comm_free(&cc->pre[k]);
    }
    free(cc);
}

static void comm_unref(trl_check_comm *cc)
{
    if (--cc->refs == 0)
        comm_release(cc);
}

/* The communicator found last, per thread: asking the library for an
 * attribute costs a good part of a small collective. Any communicator
 * freed (a handle may come back as another) makes every thread ask again. */
static atomic_long freed;
static TRL_CHECK_TLS struct {
    MPI_Comm comm;
    trl_check_comm *cc;
    long freed;
} last = {MPI_COMM_NULL, NULL, -1};

static int on_free(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm, (void)key, (void)extra;
    atomic_fetch_add(&freed, 1);
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
    cc->check[0] = cc->check[1] = cc->pre[0] = cc->pre[1] = MPI_COMM_NULL;
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
        int zero = 0, at = 0;
        PMPI_Comm_group(comm, &local);
        PMPI_Comm_group(cc->check[0], &merged);
        PMPI_Group_translate_ranks(local, 1, &zero, merged, &at);
        cc->where.low = at == 0;
        PMPI_Group_free(&local);
        PMPI_Group_free(&merged);
    } else {
        rc = PMPI_Comm_dup(comm, &cc->check[0]);
        cc->where.low = true;
    }
    if (rc == MPI_SUCCESS)
        rc = PMPI_Comm_dup(cc->check[0], &cc->check[1]);
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++)
        rc = PMPI_Comm_dup(cc->check[0], &cc->pre[k]);
    if (rc != MPI_SUCCESS) {
        comm_release(cc);
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
    atomic_fetch_add(&freed, 1); /* a lookup may have found none a moment ago */
    return cc;
}

static trl_check_comm *comm_find(MPI_Comm comm)
{
    long now = atomic_load_explicit(&freed, memory_order_acquire);
    if (comm == last.comm && now == last.freed)
        return last.cc;
    void *v = NULL;
    int flag = 0;
    if (keyval == MPI_KEYVAL_INVALID || PMPI_Comm_get_attr(comm, keyval, &v, &flag) != MPI_SUCCESS)
        return NULL;
    last.comm = comm;
    last.cc = flag ? v : NULL;
    last.freed = now;
    return last.cc;
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
    if (cc) {
        *w = cc->where;
        w->state = cc;
        w->comm = comm;
    }
    return cc != NULL;
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

/* How a blocking call's words travel (trl_check_set_exchange): Trellis'
 * own once the entry layer hands them over; the library's until then. */
static trl_check_allreduce_fn fast_allreduce = PMPI_Allreduce;
static trl_check_post_fn fast_post;
static trl_check_take_fn fast_take;

void trl_check_set_exchange(trl_check_allreduce_fn allreduce, trl_check_post_fn post,
                            trl_check_take_fn take)
{
    fast_allreduce = allreduce;
    fast_post = post;
    fast_take = take;
}

/* A blocking call's pre-exchange, now: LOCAL from a block that differs. */
static int exchange_now(trl_check_call_info *call, trl_check_pre *pre)
{
    int rc = trl_check_pre_start(pre, call->cc->pre[0], call->row[TRL_CK_SEQ], true);
    if (rc == MPI_SUCCESS)
        trl_check_pre_compare(pre, call->row);
    trl_check_pre_free(pre);
    return rc;
}

/* Where the words do not agree (or cannot be had: an intercommunicator):
 * the pre-exchange, which finds the block that differs, then the rows,
 * which tell the rest, twice where they differ: first to tell, then with
 * each rank's site from its stack, still in the call, for the report.
 * Every rank takes the same turns. An intercommunicator's blocks
 * (TRL_PRE_INTER) are not exchanged: all-gathered only where the rows'
 * digests show a pair that differs, to name it. */
static void check_rows(trl_check_call_info *call, trl_check_pre *pre)
{
    int rc = MPI_SUCCESS;
    trl_check_pre *inter_pre = NULL;
    if (pre && pre->kind == TRL_PRE_INTER)
        inter_pre = pre;
    else if (pre)
        rc = exchange_now(call, pre);
    MPI_Comm check = call->cc->check[0];
    int n = 0;
    PMPI_Comm_size(check, &n);
    int64_t *rows = rc == MPI_SUCCESS ? malloc(sizeof(int64_t) * TRL_CK_ROW * (size_t)n) : NULL;
    bool inter = call->cc->where.inter;
    if (rows &&
        PMPI_Allgather(call->row, TRL_CK_ROW, MPI_INT64_T, rows, TRL_CK_ROW, MPI_INT64_T, check) ==
            MPI_SUCCESS &&
        trl_check_rows_differ(rows, n, inter)) {
        if (inter_pre && trl_check_digests_differ(rows, n))
            trl_check_pre_name_inter(inter_pre, call->cc->where.low ? 0 : 1, call->cc->where.rank,
                                     check, call->row);
        call->row[TRL_CK_SITE] = trl_check_site_deep(call->row[TRL_CK_SITE]);
        if (PMPI_Allgather(call->row, TRL_CK_ROW, MPI_INT64_T, rows, TRL_CK_ROW, MPI_INT64_T,
                           check) == MPI_SUCCESS &&
            trl_check_rows_differ(rows, n, inter))
            mismatch(call, rows);
    }
    free(rows);
    trl_check_pre_free(inter_pre);
}

/* The words combined over the ranks (all; rc: how the exchange went):
 * where they agree the call passes, else the rows tell (check_rows). */
static void verdict(trl_check_call_info *call, trl_check_pre *pre, const int64_t all[2], int rc)
{
    if (rc == MPI_SUCCESS && !trl_check_words_agree(all))
        check_rows(call, pre);
    else
        trl_check_pre_free(pre);
}

/* This thread's blocking call: described here (the watchdog reads it
 * here too), and with two ranks, whose words go out before the call and
 * are taken after it (check.h), its verdict still to come while on. */
static TRL_CHECK_TLS struct {
    trl_check_call_info call;
    bool on;
    trl_check_pre *pre;
    trl_check_words words;
    int64_t mine[2];
} deferred;

bool trl_check_deferred(void)
{
    return deferred.on;
}

/* The verdict, once the peer's words are there (with wait: once they
 * arrive). A words that cannot be taken leaves the call unchecked. */
static void take_verdict(bool wait)
{
    if (!deferred.on)
        return;
    int64_t all[2];
    bool done = false;
    int rc = fast_take(&deferred.words, all, wait, &done);
    if (rc == MPI_SUCCESS && !done)
        return;
    deferred.on = false; /* before check_rows, whose collectives may fail */
    trl_check_words_combine(deferred.mine, all);
    verdict(&deferred.call, deferred.pre, all, rc);
}

void trl_check_idle(void)
{
    take_verdict(false);
}

void trl_check_settle_call(void)
{
    take_verdict(true);
}

/* A blocking call's check: two ranks post their words and leave the
 * verdict for later; more allreduce them through Trellis on the program's
 * communicator before the call (no Trellis state on the check's duplicates,
 * which would go collectively inside the library's attribute deletion,
 * whose order differs from rank to rank: a hang seen in tests/check).
 * Blocking calls come in one order on every rank, so these always meet. */
static int check_now(trl_check_call_info *call, MPI_Comm comm, trl_check_pre *pre)
{
    const trl_check_where *w = &call->cc->where;
    if (w->inter) { /* no words: the rows' fields differ by group */
        check_rows(call, pre);
        return MPI_SUCCESS;
    }
    if (pre && pre->kind == TRL_PRE_NEIGHBOR) {
        /* the edges' blocks cannot be summed (check_pre.h): compared now */
        exchange_now(call, pre);
        pre = NULL;
    }
    int64_t v[2], all[2] = {0, 0};
    trl_check_words_of(call, pre, v);
    int rc = MPI_SUCCESS;
    if (w->size == 1) {
        memcpy(all, v, sizeof v);
    } else {
        bool posted = false;
        if (w->size == 2 && fast_post)
            rc = fast_post(comm, v, &deferred.words, &posted);
        if (posted && rc == MPI_SUCCESS) {
            deferred.on = true; /* call is deferred.call */
            deferred.pre = pre;
            memcpy(deferred.mine, v, sizeof v);
            return MPI_SUCCESS;
        }
        if (rc == MPI_SUCCESS)
            rc = fast_allreduce(v, all, 2, MPI_INT64_T, trl_check_words_op, comm);
    }
    verdict(call, pre, all, rc);
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
    int n; /* ranks of the rows */
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
        trl_check_pre_compare(p->pre, p->call.row);
        PMPI_Comm_size(check, &p->n);
        p->rows = malloc(sizeof(int64_t) * TRL_CK_ROW * (size_t)p->n);
        p->stage = 1;
        return p->rows && PMPI_Iallgather(p->call.row, TRL_CK_ROW, MPI_INT64_T, p->rows, TRL_CK_ROW,
                                          MPI_INT64_T, check, &p->req) == MPI_SUCCESS;
    }
    if (trl_check_rows_differ(p->rows, p->n, p->call.cc->where.inter))
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
    trl_check_pre_free(p->pre);
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
        int rc = p->stage == 0 ? trl_check_pre_test(p->pre, &done)
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
        trl_check_pre_free(pre);
        return MPI_SUCCESS;
    }
    p->call = *call;
    p->call.cc->refs++;
    p->pre = pre;
    p->req = MPI_REQUEST_NULL;
    p->slot = trl_check_watch_enter(call, call->cc->name, false);
    pthread_mutex_lock(&pend.lock);
    bool started = !pre || trl_check_pre_start(pre, call->cc->pre[1], call->row[TRL_CK_SEQ],
                                               false) == MPI_SUCCESS;
    *pend.tail = p;
    pend.tail = &p->next;
    pend.count++;
    if (!started) {
        /* unchecked: a pre-exchange that cannot start says nothing */
        p->pre = NULL;
        trl_check_pre_free(pre);
    }
    pthread_mutex_unlock(&pend.lock);
    trl_check_poll();
    return MPI_SUCCESS;
}

/* ---- the calls ---- */

int trl_check_call(const trl_check_where *w, trl_check_desc *d, trl_check_pre *pre,
                   const trl_check_labels *labels, const trl_mode *mode, const void *site)
{
    trl_check_comm *cc = w->state;
    int stream = mode->kind == TRL_MODE_BLOCKING ? 0 : 1;
    trl_check_set(d, TRL_CK_SEQ, ++cc->calls[stream]);
    trl_check_set(d, TRL_CK_MODE, (int64_t)mode->kind + (cc->where.inter ? 8 : 0));
    d->v[TRL_CK_SITE] = trl_check_site_of(site);
    if (pre && pre->kind == TRL_PRE_INTER) {
        /* summed in the rows (check_report.c), never exchanged */
        uint64_t digest = 0;
        bool sure = trl_check_pre_digest_inter(pre, cc->where.low ? 0 : 1, cc->where.rank, &digest);
        d->v[TRL_CK_DIGEST] = (int64_t)digest;
        d->v[TRL_CK_DIGESTED] = sure;
        if (mode->kind != TRL_MODE_BLOCKING) { /* the blocks are named by blocking calls only */
            trl_check_pre_free(pre);
            pre = NULL;
        }
    }
    if (mode->kind != TRL_MODE_BLOCKING) {
        trl_check_call_info call = {cc, stream, labels, {0}};
        row_of(d, cc, call.row);
        trl_check_inflight_note(&call, w->comm);
        return check_later(&call, pre);
    }
    trl_check_call_info *call = &deferred.call;
    call->cc = cc;
    call->stream = stream;
    call->labels = labels;
    row_of(d, cc, call->row);
    trl_check_watch_blocking(call);
    return check_now(call, w->comm, pre);
}

void trl_check_done(void)
{
    take_verdict(true);
    trl_check_watch_blocking_done();
}

/* ---- start and end ---- */

void trl_check_init(void)
{
    trl_check_on = trl_setting_on("TRELLIS_CHECK", false);
    if (!trl_check_on)
        return;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_free, &keyval, NULL);
    PMPI_Comm_create_errhandler(on_error, &settling);
    trl_check_words_start();
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
        int rc = p->stage == 0 ? trl_check_pre_wait(p->pre) : PMPI_Wait(&p->req, MPI_STATUS_IGNORE);
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
    trl_check_words_end();
    trl_check_on = false;
}
