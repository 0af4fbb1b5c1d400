#include "mpi/entry/neighbor_sizes.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "algo/neighbor/neighbor_blocks.h"
#include "algo/params.h"
#include "core/status.h"
#include "exec/complete.h"
#include "exec/mpi_impl.h"
#include "mpi/context/schedule.h"
#include "mpi/engine/check.h"
#include "mpi/engine/run.h"

/* How many planned schedules a communicator keeps for non-blocking calls
 * (comm.h, planned): a program's distinct exchanges in flight or repeated
 * in turn; more are built for their call alone. */
enum { PLANNED_KEPT = 4 };

/* Rank r's edges: out-edges, then in-edges. */
static int edges_of(const trl_nbhd *g, int r)
{
    return trl_nbhd_outdegree(g, r) + trl_nbhd_indegree(g, r);
}

/* Rank r's entries of the table t (neighbor_blocks.h) from buf (out-edges,
 * then in-edges). */
static void edge_sizes(const trl_nbhd *g, int r, size_t *t, const size_t *buf)
{
    int nout = trl_nbhd_outdegree(g, r);
    for (int k = 0; k < edges_of(g, r); k++)
        t[k < nout ? trl_nb_out_at(g, r, k) : trl_nb_in_at(g, r, k - nout)] = buf[k];
}

/* One call's sizes on their way. */
typedef struct {
    size_t *table; /* trl_nb_edges + 1 entries: this rank's edges, then its host's */
    size_t *own;   /* this rank's edges' bytes, as sent; then room for in */
    size_t *in;    /* a lane's: its host's other ranks', back to back */
    int *from;     /* whose, in that order */
    int nfrom;
    int *to; /* the lanes of this host but this rank, sent own */
    int nto;
    MPI_Request *reqs; /* a non-blocking or persistent call's messages */
    int nreqs;
} sizes;

static void sizes_free(sizes *s)
{
    free(s->table);
    free(s->own); /* and in, which follows it */
    free(s->from);
    free(s->to);
    free(s->reqs);
    *s = (sizes){0};
}

/* a as algo runs it (a->params: its parameters), on c's hosts. */
static trl_coll_args as_chosen(const trl_comm *c, const trl_coll_args *a, const trl_algo *algo)
{
    trl_coll_args chosen = *a;
    chosen.algo = algo;
    chosen.topo = c->topo.host ? &c->topo : NULL;
    return chosen;
}

/* Lay out a's sizes under algo: this rank's own (sent to every lane of
 * its host but itself, s->to, where it has edges) and, on a lane, where
 * each of its host's other ranks with edges lands in s->in (s->from);
 * *lanes: lanes= as algo runs it. On failure what was allocated is in
 * *s. */
static int sizes_lay(trl_comm *c, const trl_coll_args *a, const trl_algo *algo, sizes *s,
                     int *lanes)
{
    const trl_nbhd *g = &c->nbhd;
    int me = c->rank;
    *s = (sizes){0};
    trl_coll_args chosen = as_chosen(c, a, algo);
    trl_nb_hosts h = {0};
    *lanes = (int)trl_param_int(&chosen, "lanes");
    if (trl_nb_hosts_make(&chosen, *lanes, &h))
        return MPI_ERR_NO_MEM;
    int H = h.hh.host_of[me], nh = trl_hier_host_size(&h.hh, H);
    bool lane = trl_nb_is_lane(&h, me);
    size_t nin = 0;
    for (int x = 0; lane && x < nh; x++) {
        int r = trl_hier_host_rank(&h.hh, H, x);
        nin += r == me ? 0 : (size_t)edges_of(g, r);
    }
    s->table = calloc(trl_nb_edges(g) + 1, sizeof *s->table);
    /* own and in as one block: a blocking call's exchange names it as one
     * buffer (TRL_BUF_AUX), beside the user's */
    s->own = malloc(((size_t)edges_of(g, me) + nin + 1) * sizeof *s->own);
    s->in = s->own ? s->own + edges_of(g, me) : NULL;
    s->from = malloc((size_t)nh * sizeof *s->from);
    s->to = malloc((size_t)nh * sizeof *s->to);
    if (!s->table || !s->own || !s->from || !s->to) {
        trl_hier_hosts_free(&h.hh);
        return MPI_ERR_NO_MEM;
    }
    int nout = trl_nbhd_outdegree(g, me);
    for (int k = 0; k < edges_of(g, me); k++)
        s->own[k] = k < nout ? trl_nb_send_len(a, k) : trl_nb_recv_len(a, k - nout);
    edge_sizes(g, me, s->table, s->own);
    for (int x = 0; x < nh; x++) {
        int r = trl_hier_host_rank(&h.hh, H, x);
        if (r == me)
            continue;
        if (lane && edges_of(g, r) > 0)
            s->from[s->nfrom++] = r;
        if (edges_of(g, me) > 0 && trl_nb_is_lane(&h, r))
            s->to[s->nto++] = r;
    }
    trl_hier_hosts_free(&h.hh);
    return MPI_SUCCESS;
}

/* A non-blocking or persistent call's: the messages of s posted on the
 * spare tag `which` (tags.h), on the communicator's duplicate (the
 * executor's rings may make a sender wait for a slot; these calls must
 * not wait). On failure what was posted is in s->reqs. */
static int sizes_post(trl_comm *c, int which, sizes *s)
{
    int tag = trl_tags_spare(&c->tags, which), n = edges_of(&c->nbhd, c->rank);
    s->reqs = malloc(((size_t)s->nfrom + (size_t)s->nto + 1) * sizeof *s->reqs);
    if (!s->reqs)
        return MPI_ERR_NO_MEM;
    size_t at = 0;
    for (int i = 0; i < s->nfrom; i++) {
        int rc = PMPI_Irecv(s->in + at, edges_of(&c->nbhd, s->from[i]), MPI_UINT64_T, s->from[i],
                            tag, c->dup, &s->reqs[s->nreqs]);
        if (rc != MPI_SUCCESS)
            return rc;
        s->nreqs++;
        at += (size_t)edges_of(&c->nbhd, s->from[i]);
    }
    for (int i = 0; i < s->nto; i++) {
        int rc = PMPI_Isend(s->own, n, MPI_UINT64_T, s->to[i], tag, c->dup, &s->reqs[s->nreqs]);
        if (rc != MPI_SUCCESS)
            return rc;
        s->nreqs++;
    }
    return MPI_SUCCESS;
}

/* Let go of the kept schedule of the sizes exchange. Under a progress
 * thread the last run's op may pin it still when its wait has returned
 * (the library can leave the request's free to the thread's completion:
 * free_fn, engine.c): it is then that op's to free, at its last unpin. */
static void sizes_entry_drop(trl_comm *c)
{
    trl_cache_entry *e = c->sizes_run.entry;
    c->sizes_run.entry = NULL;
    if (!e)
        return;
    trl_engine_lock();
    trl_cache_drop(e);
    trl_engine_unlock();
}

/* The entries of a's send arrays: one block to all for allgatherv. */
static size_t send_entries(const trl_coll_args *a)
{
    return a->coll == TRL_COLL_NEIGHBOR_ALLGATHERV ? 1
                                                   : (size_t)trl_nbhd_outdegree(a->nbhd, a->rank);
}

/* What a blocking call's kept exchange was made for (its entry's vec):
 * lanes=, combine= and whether it carries the messages that go straight;
 * with them, this rank's four arrays, which say what those are. write:
 * copy into k; else whether k (of nk entries) is that. */
enum { KEY_HEAD = 3 };

static size_t key_len(const trl_coll_args *a, bool carry)
{
    size_t nr = (size_t)trl_nbhd_indegree(a->nbhd, a->rank);
    return KEY_HEAD + (carry ? 2 * (send_entries(a) + nr) : 0);
}

static bool key_pass(size_t *k, size_t nk, bool write, const size_t head[KEY_HEAD],
                     const trl_coll_args *a, bool carry)
{
    size_t ns = send_entries(a), nr = (size_t)trl_nbhd_indegree(a->nbhd, a->rank);
    const size_t *part[5] = {head, a->send_counts, a->send_displs, a->recv_counts, a->recv_displs};
    size_t len[5] = {KEY_HEAD, ns, ns, nr, nr}, at = 0;
    if (nk != key_len(a, carry))
        return false;
    for (int i = 0; i < (carry ? 5 : 1); at += len[i++]) {
        if (len[i] == 0) /* an empty array may be NULL, which memcpy must not get */
            continue;
        if (write)
            memcpy(k + at, part[i], len[i] * sizeof *k);
        else if (memcmp(k + at, part[i], len[i] * sizeof *k))
            return false;
    }
    return true;
}

/* a's messages of more than big bytes (combine=), which go straight
 * (trl_nb_messages; a as chosen: as_chosen), added to out. */
static int direct_messages(const trl_coll_args *chosen, int lanes, size_t big, trl_sched *out)
{
    trl_nb_hosts h = {0};
    if (trl_nb_hosts_make(chosen, lanes, &h) != TRL_OK)
        return TRL_ERR_NOMEM;
    int rc = trl_nb_messages(chosen, out, h.hh.host_of, big, TRL_NB_ABOVE);
    trl_hier_hosts_free(&h.hh);
    return rc;
}

/* A blocking call's: the messages of s as a schedule (each rank's own
 * sizes to its host's lanes), which the executor runs as any other: the
 * rings where two ranks share a node, the MPI library otherwise, its waits
 * and tag ranges. The sizes lie in TRL_BUF_AUX (own, then in). Where
 * carry, with a's messages of more than big bytes (a as chosen:
 * as_chosen), which go straight for their size and need no other rank's:
 * they are on their way while the sizes are, not held back behind them,
 * from and into the user's buffers. Both ends of such a message see its
 * size, so both put it here. Kept
 * (c->sizes_run) for repeats of the same key (key_pass): building it every
 * call cost a blocking call more than the loop it replaced. */
static const trl_cache_entry *sizes_entry(trl_comm *c, const trl_coll_args *a, int lanes,
                                          size_t big, bool carry, const sizes *s, int *rc)
{
    *rc = MPI_SUCCESS;
    size_t head[KEY_HEAD] = {(size_t)lanes, big, carry};
    trl_cache_entry *kept = c->sizes_run.entry;
    if (kept && key_pass(kept->vec, kept->nvec, false, head, a, carry))
        return kept;
    sizes_entry_drop(c);
    trl_cache_entry *e = calloc(1, sizeof *e);
    trl_sched *out = e ? &e->sched : NULL;
    size_t nk = key_len(a, carry);
    if (e)
        e->vec = malloc(nk * sizeof *e->vec);
    if (!e || !e->vec || trl_sched_init(out, c->rank, c->size) != TRL_OK) {
        if (e)
            free(e->vec);
        free(e);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    e->call = TRL_CALL_BLOCKING;
    e->elem_size = 1; /* bytes, as a trace states them */
    size_t own = (size_t)edges_of(&c->nbhd, c->rank) * sizeof(size_t), at = own;
    trl_sched_phase(out, "sizes"); /* a trace's phases (trace.h) */
    for (int i = 0; i < s->nfrom; i++) {
        size_t n = (size_t)edges_of(&c->nbhd, s->from[i]) * sizeof(size_t);
        trl_sched_recv(out, s->from[i], trl_ref_at(TRL_BUF_AUX, at), n, TRL_NODEPS);
        at += n;
    }
    for (int i = 0; i < s->nto; i++)
        trl_sched_send(out, s->to[i], trl_ref_at(TRL_BUF_AUX, 0), own, TRL_NODEPS);
    /* After the sizes: between two ranks, messages keep the order added */
    trl_sched_phase(out, "direct");
    int direct = carry ? direct_messages(a, lanes, big, out) : TRL_OK;
    if (direct != TRL_OK || trl_sched_finish(out) != TRL_OK) { /* out of memory */
        trl_sched_free(out);
        free(e->vec);
        free(e);
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    key_pass(e->vec, nk, true, head, a, carry);
    e->nvec = nk;
    e->valid = true;
    c->sizes_run.entry = e;
    return e;
}

/* The host's sizes received, into the table. */
static void sizes_take(const trl_nbhd *g, sizes *s)
{
    size_t at = 0;
    for (int i = 0; i < s->nfrom; i++) {
        edge_sizes(g, s->from[i], s->table, s->in + at);
        at += (size_t)edges_of(g, s->from[i]);
    }
}

/* Sizes whose persistent request went before its first run ended: their
 * messages still complete in the library, in their order on each pair of
 * ranks, ahead of later inits' (a receive cancelled would leave its
 * message for the next init's receive), and their buffers stay until
 * then. Tested at the next init; the program's threads share them. */
static struct {
    pthread_mutex_t lock;
    sizes *left;
    int n, cap;
} orphans = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Keep s, whose messages are still out, until they complete. */
static void orphan_add(sizes *s)
{
    pthread_mutex_lock(&orphans.lock);
    if (orphans.n == orphans.cap) {
        int cap = orphans.cap ? 2 * orphans.cap : 8;
        sizes *grown = realloc(orphans.left, (size_t)cap * sizeof *grown);
        if (grown) {
            orphans.left = grown;
            orphans.cap = cap;
        }
    }
    if (orphans.n < orphans.cap)
        orphans.left[orphans.n++] = *s;
    /* else out of memory: the buffers stay, unreachable, as they must */
    pthread_mutex_unlock(&orphans.lock);
    *s = (sizes){0};
}

/* Whether s's messages are all done (or failed: nothing more comes). */
static bool sizes_done(sizes *s)
{
    int done = 0;
    return s->nreqs == 0 ||
           PMPI_Testall(s->nreqs, s->reqs, &done, TRL_STATUSES_IGNORE) != MPI_SUCCESS || done;
}

/* Free s now if its messages are done, else keep it until they are. */
static void sizes_leave(sizes *s)
{
    if (sizes_done(s))
        sizes_free(s);
    else
        orphan_add(s);
}

/* The orphans tested outside their lock: the library's test may run the
 * engine (its progress hook), whose ops' release may leave sizes here. */
static void orphans_test(void)
{
    pthread_mutex_lock(&orphans.lock);
    sizes *taken = orphans.left;
    int n = orphans.n;
    orphans.left = NULL;
    orphans.n = orphans.cap = 0;
    pthread_mutex_unlock(&orphans.lock);
    for (int i = 0; i < n; i++)
        sizes_leave(&taken[i]);
    free(taken);
}

int trl_nb_share_sizes(trl_comm *c, trl_coll_args *a, trl_move_side *send, void *recvbuf,
                       size_t **table)
{
    *table = NULL;
    const trl_algo *algo = trl_comm_choose(c, a);
    if (!algo || !algo->build || !(algo->needs & TRL_NEEDS_ALL_COUNTS))
        return MPI_SUCCESS;
    trl_before_library_collective(); /* this waits for other ranks as one does */
    sizes s;
    int lanes = 0;
    int rc = sizes_lay(c, a, algo, &s, &lanes);
    /* On every rank alike: each message's tag range depends on it. */
    a->direct_apart = true;
    trl_coll_args chosen = as_chosen(c, a, algo);
    size_t big = (size_t)trl_param_int(&chosen, "combine");
    bool carry = trl_nb_has_above(&chosen, big);
    if (carry && send->used && send->side.staging) /* once: the run packs no more */
        send->packed = trl_side_pack(&send->side, &send->b, send->displs, -1, c->dup) ==
                       MPI_SUCCESS;
    const trl_cache_entry *e = rc == MPI_SUCCESS
                                   ? sizes_entry(c, &chosen, lanes, big, carry, &s, &rc)
                                   : NULL;
    if (e)
        rc = trl_run_helper(e, c, send->used ? send->side.base : NULL, recvbuf, s.own);
    if (rc == MPI_SUCCESS) {
        sizes_take(&c->nbhd, &s);
        a->counts = *table = s.table;
        s.table = NULL;
    }
    sizes_free(&s);
    return rc;
}

/* ---- a persistent or non-blocking call's plan (engine.h) ---- */

typedef struct {
    sizes s;
    trl_comm *c; /* the op holds it */
    trl_coll_args a;
    const trl_algo *algo; /* chosen at the call (a.params: its parameters) */
    unsigned rules;       /* the rules it was chosen by */
    size_t *arrays;       /* a's send and receive arrays, copied */
} plan_state;

static int plan_arrived(void *state, bool *in)
{
    plan_state *p = state;
    int done = 0;
    int rc = trl_testall_own(p->s.nreqs, p->s.reqs, &done);
    *in = done;
    return rc;
}

/* Build p's schedule into e, a transient entry or one of the
 * communicator's planned ones (keyed by p's arguments, sizes included);
 * false when it cannot (e then invalid). */
static bool build_into(plan_state *p, trl_cache_entry *e, bool transient)
{
    trl_sched sched;
    size_t *vec = NULL, nvec = 0;
    if (!transient && !trl_cache_key_arrays(&p->a, p->c->size, &vec, &nvec))
        return false;
    if (trl_algo_build(p->algo, &p->a, &sched) != TRL_OK) {
        free(vec);
        return false;
    }
    trl_cache_fill(e, &p->a, p->rules, transient, vec, nvec, p->algo, sched);
    return true;
}

/* A planned schedule kept for this call's repeats (comm.h, planned): a
 * program repeats the same exchange, and building it anew every time cost
 * a non-blocking call more than the combining saved. NULL when out of
 * memory. */
static const trl_cache_entry *planned_kept(plan_state *p)
{
    trl_cache *k = &p->c->planned;
    if (!k->entries && !trl_cache_init(k, PLANNED_KEPT))
        return NULL;
    const trl_cache_entry *hit = trl_cache_find(k, &p->a, p->c->size, p->rules);
    if (hit)
        return hit;
    bool transient;
    trl_cache_entry *e = trl_cache_claim(k, &transient);
    if (!e)
        return NULL;
    if (!build_into(p, e, transient)) {
        if (transient)
            free(e);
        return NULL;
    }
    trl_cache_filled(k, transient);
    return e;
}

/* The planned schedule, built with the choice made at the call: rules
 * changed since must not change it, or the ranks' schedules would differ
 * (MPI fixes a persistent call at its init). Not in the communicator's
 * cache: the engine may take it in a turn run inside another call (a
 * blocking one running a cached schedule, whose entry a claim could
 * evict) or on the progress thread, where the cache must not change. A
 * persistent call's is its own (transient, freed with its op); a
 * non-blocking call's is kept for its repeats (planned_kept). */
static const trl_cache_entry *plan_planned(void *state)
{
    plan_state *p = state;
    sizes_take(&p->c->nbhd, &p->s);
    p->a.counts = p->s.table;
    p->a.counts_planned = true;
    if (p->a.call == TRL_CALL_NONBLOCKING)
        return planned_kept(p);
    trl_cache_entry *e = calloc(1, sizeof *e);
    if (e && !build_into(p, e, true)) {
        free(e);
        e = NULL;
    }
    return e;
}

static void plan_release(void *state)
{
    plan_state *p = state;
    sizes_leave(&p->s);
    free(p->arrays);
    free(p);
}

int trl_nb_plan_sizes(trl_comm *c, trl_coll_args *a, trl_op_plan *plan, bool *plan_needed)
{
    *plan_needed = false;
    a->counts_planned = true;
    const trl_algo *algo = trl_comm_choose(c, a);
    a->counts_planned = false;
    if (!algo || !algo->build || !(algo->needs & TRL_NEEDS_ALL_COUNTS))
        return MPI_SUCCESS;
    orphans_test();
    const trl_nbhd *g = &c->nbhd;
    size_t ns = send_entries(a);
    size_t nr = (size_t)trl_nbhd_indegree(g, c->rank);
    plan_state *p = calloc(1, sizeof *p);
    if (!p || !(p->arrays = malloc((2 * (ns + nr) + 1) * sizeof *p->arrays))) {
        free(p);
        return MPI_ERR_NO_MEM;
    }
    size_t *v = p->arrays;
    memcpy(v, a->send_counts, ns * sizeof *v);
    memcpy(v + ns, a->send_displs, ns * sizeof *v);
    memcpy(v + 2 * ns, a->recv_counts, nr * sizeof *v);
    memcpy(v + 2 * ns + nr, a->recv_displs, nr * sizeof *v);
    p->c = c;
    p->a = *a; /* with the communicator's ranks and hosts and the chosen parameters */
    p->algo = algo;
    p->rules = trl_rules_current;
    p->a.send_counts = v;
    p->a.send_displs = v + ns;
    p->a.recv_counts = v + 2 * ns;
    p->a.recv_displs = v + 2 * ns + nr;
    int which = a->call == TRL_CALL_PERSISTENT ? TRL_TAG_SIZES_INIT : TRL_TAG_SIZES_NONBLOCKING;
    int lanes;
    int rc = sizes_lay(c, a, algo, &p->s, &lanes);
    if (rc == MPI_SUCCESS)
        rc = sizes_post(c, which, &p->s);
    if (rc != MPI_SUCCESS) {
        plan_release(p);
        return rc;
    }
    *plan = (trl_op_plan){p, plan_arrived, plan_planned, plan_release};
    *plan_needed = true;
    return MPI_SUCCESS;
}
