#include "mpi/context/runtime.h"
#include "trellis.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/inter/inter.h"
#include "core/log.h"
#include "core/settings.h"
#include "core/status.h"
#include "exec/mpi_impl.h"
#include "mpi/context/recent.h"
#include "mpi/context/topo_mpi.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/trace.h"
#include "mpi/entry/validate.h"

/* Forms of call (blocking, non-blocking, persistent): each counts its tag
 * ranges apart (trl_comm_tags). */
enum { CALL_KINDS = TRL_CALL_PERSISTENT + 1 };

static void count_groups(trl_comm *c);

/* The user's rules in force or once in force: TRELLIS_RULES' (the first,
 * id 0), then every distinct text trellis_set_rules installed. All are kept
 * until MPI_Finalize, since cache entries (persistent requests among them)
 * and the tracer's records point at their rules; a text installed again
 * takes its earlier version back, so a program switching among a few sets
 * of rules keeps a few. */
typedef struct {
    trl_ruleset rules;
    char *text;    /* trellis_set_rules' text; NULL for TRELLIS_RULES' */
    uint64_t hash; /* of the text */
    unsigned id;   /* its index in rt.versions */
} rules_version;

unsigned trl_rules_gen;

static struct {
    bool ready;          /* rules loaded; Trellis serves collectives */
    trl_ruleset *user;   /* the rules in force: versions[current]'s */
    trl_ruleset builtin; /* trl_builtin_rules_text */
    rules_version **versions;
    unsigned nversions, cap_versions, current;
    trl_topo world;      /* MPI_COMM_WORLD's layout: described or discovered */
    int keyval;
    int cache_cap;
    int world_rank;
    pthread_mutex_t lock; /* the verbose "already said" set */
    uint64_t *said;
    size_t nsaid, cap_said;
    bool said_full;
    uint64_t rules_hash; /* of TRELLIS_RULES' text */
} rt = {.keyval = MPI_KEYVAL_INVALID, .lock = PTHREAD_MUTEX_INITIALIZER};

const char *trellis_version(void)
{
    return "trellis 0.1.0 (" TRL_MPI_NAME ")";
}

static uint64_t fnv1a(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void free_comm(trl_comm *c)
{
    for (int i = 0; c->cache && i < c->cache_cap; i++) {
        if (c->cache[i].valid)
            trl_sched_free(&c->cache[i].sched);
        free(c->cache[i].vec);
    }
    free(c->cache);
    free(c->vec);
    free(c->class_seq);
    trl_topo_free(&c->topo);
    trl_exec_mem_free(&c->mem);
    trl_shm_detach(&c->shm);
    if (c->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&c->dup);
    free(c);
}

void trl_comm_hold(trl_comm *c)
{
    c->refs++;
}

void trl_comm_release(trl_comm *c)
{
    if (--c->refs == 0)
        free_comm(c);
}

/* The intracommunicator state of comm if this thread looked it up lately
 * (recent.h); *inter true when comm is a known intercommunicator. */
static inline trl_comm *cached(MPI_Comm comm, bool *inter)
{
    return trl_recent_find(comm, TRL_RECENT_INTRA, inter);
}

static inline trl_comm *remember(MPI_Comm comm, trl_comm *c)
{
    trl_recent_add(comm, TRL_RECENT_INTRA, c);
    return c;
}

static int delete_attr(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    trl_recent_forget_all();
    /* Freeing the shared-memory window is collective: do it here, where
     * every rank is, even if an op lives on (a request not yet completed, a
     * persistent one): its last release comes at different calls on
     * different ranks. Later runs of a persistent op then go by
     * point-to-point on every rank alike. */
    trl_comm *c = value;
    trl_engine_settle(c);
    trl_shm_detach(&c->shm);
    trl_engine_lock(); /* a progress thread may release c's ops meanwhile */
    trl_comm_release(c);
    trl_engine_unlock();
    return MPI_SUCCESS;
}

/* A new version of the user's rules, taking over rs; NULL when out of
 * memory (rs is then freed). */
static rules_version *add_version(trl_ruleset *rs, const char *text, uint64_t hash)
{
    rules_version *v = calloc(1, sizeof *v);
    char *copy = text ? strdup(text) : NULL;
    if (v && rt.nversions == rt.cap_versions) {
        unsigned cap = rt.cap_versions ? 2 * rt.cap_versions : 8;
        rules_version **grown = realloc(rt.versions, cap * sizeof *grown);
        if (grown) {
            rt.versions = grown;
            rt.cap_versions = cap;
        }
    }
    if (!v || (text && !copy) || rt.nversions == rt.cap_versions) {
        free(v);
        free(copy);
        trl_rules_free(rs);
        return NULL;
    }
    *v = (rules_version){.rules = *rs, .text = copy, .hash = hash, .id = rt.nversions};
    rt.versions[rt.nversions++] = v;
    return v;
}

static void free_versions(void)
{
    for (unsigned i = 0; i < rt.nversions; i++) {
        trl_rules_free(&rt.versions[i]->rules);
        free(rt.versions[i]->text);
        free(rt.versions[i]);
    }
    free(rt.versions);
    rt.versions = NULL;
    rt.nversions = rt.cap_versions = rt.current = 0;
    rt.user = NULL;
}

/* Stop the job over a rules problem: every rank calls this together. */
static void stop_job(void)
{
    PMPI_Barrier(MPI_COMM_WORLD); /* let rank 0's message out first */
    PMPI_Finalize();
    exit(1);
}

/* The other TRELLIS_* settings (core/settings.h): a value that means
 * nothing stops the job as a bad rule does, or with TRELLIS_ON_ERROR=warn
 * is reported and its default used. Collective over WORLD. */
static void check_settings(int rank, int warn)
{
    char msg[400];
    int local[2] = {trl_settings_check(msg, sizeof msg) ? INT_MAX : rank, warn}, first[2];
    PMPI_Allreduce(local, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first[0] == INT_MAX)
        return;
    if (rank == first[0]) {
        if (rank > 0)
            trl_log("%s (on rank %d)", msg, rank);
        else
            trl_log("%s", msg);
        trl_log(first[1] ? "TRELLIS_ON_ERROR=warn: going on with its default"
                         : "stopping (set TRELLIS_ON_ERROR=warn to go on with its default)");
    }
    if (!first[1])
        stop_job();
}

/* WORLD's layout: TRELLIS_TOPOLOGY where set (checked on every rank, and
 * the same on all), else discovered. Collective over WORLD. */
static int load_topology(int rank, int warn)
{
    int size;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    trl_topo_error err = {0};
    bool set = false;
    int rc = trl_topo_load_env(&rt.world, &set, &err);
    if (rc == TRL_OK && set && rt.world.size != size) {
        snprintf(err.source, sizeof err.source, "TRELLIS_TOPOLOGY");
        err.line = err.column = 0;
        snprintf(err.message, sizeof err.message,
                 "the layout describes %d ranks; MPI_COMM_WORLD has %d", rt.world.size, size);
        trl_topo_free(&rt.world);
        rc = TRL_ERR_INVALID;
    }
    /* Every rank must see the same layout: compare a hash of the ranks'
     * hosts, sockets and NUMA domains (set or not). */
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, &set, sizeof set);
    if (rc == TRL_OK && set) {
        h = fnv1a(h, rt.world.host, (size_t)size * sizeof(int));
        h = fnv1a(h, rt.world.socket, (size_t)size * sizeof(int));
        h = fnv1a(h, rt.world.numa, (size_t)size * sizeof(int));
    }
    uint64_t h0 = h;
    PMPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int local[2] = {rc != TRL_OK ? rank : INT_MAX, h0 != h ? rank : INT_MAX}, first[2];
    PMPI_Allreduce(local, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first[0] != INT_MAX) {
        if (rank == first[0]) {
            char msg[900];
            trl_topo_error_format(&err, msg, sizeof msg);
            trl_log("%s%s", msg, warn ? "; TRELLIS_ON_ERROR=warn: using the discovered topology"
                                      : "; stopping (set TRELLIS_ON_ERROR=warn to go on with "
                                        "the discovered topology)");
        }
        if (!warn)
            stop_job();
        trl_topo_free(&rt.world);
        set = false;
    } else if (first[1] != INT_MAX) {
        if (rank == first[1])
            trl_log("rank %d sees a different TRELLIS_TOPOLOGY from rank 0: every rank must see "
                    "the same layout; stopping", rank);
        stop_job();
    }
    if (set)
        return TRL_OK;
    rc = trl_topo_discover(MPI_COMM_WORLD, &rt.world);
    if (rc != TRL_OK && rank == 0)
        trl_log("could not discover the topology (%s); Trellis is off", trl_status_str(rc));
    return rc;
}

void trl_runtime_init(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rt.world_rank = rank;

    /* Entries per communicator (1..4096: a bound keeps a value from asking
     * for gigabytes on every communicator; settings.c). */
    rt.cache_cap = (int)trl_setting_count("TRELLIS_CACHE_SIZE", 64);

    trl_rules_error err;
    if (trl_rules_parse(trl_builtin_rules_text, "built-in", &rt.builtin, &err)) {
        /* The unit tests parse the built-in rules; this cannot happen in a
         * tested build, but never run on rules we could not read. */
        char msg[900];
        trl_rules_error_format(&err, msg, sizeof msg);
        if (rank == 0)
            trl_log("%s (built-in rules; Trellis is off)", msg);
        return;
    }

    char *text = NULL;
    trl_ruleset env_rules = {0};
    int rc = trl_rules_load_env(&env_rules, &text, &err);

    int warn = trl_setting_warn();
    check_settings(rank, warn);

    /* Every rank must choose alike, or the ranks of one collective would
     * run different schedules and hang: compare a hash of the rules text.
     * One reduction finds the first rank with a rules error, the first
     * whose rules differ from rank 0's, and whether all ranks say warn. */
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, text ? text : "", text ? strlen(text) : 0);
    uint64_t h0 = h;
    rt.rules_hash = h;
    PMPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    free(text);
    int local[3] = {rc != TRL_OK ? rank : INT_MAX, h0 != h ? rank : INT_MAX, warn}, first[3];
    PMPI_Allreduce(local, first, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int error_rank = first[0], differ_rank = first[1], all_warn = first[2];

    if (error_rank != INT_MAX) {
        /* Usually rank 0 reports, but a file that only some ranks cannot
         * read must not stop the job silently. */
        if (rank == error_rank) {
            char msg[900];
            trl_rules_error_format(&err, msg, sizeof msg);
            if (rank > 0)
                trl_log("%s (on rank %d)", msg, rank);
            else
                trl_log("%s", msg);
            trl_log(all_warn ? "TRELLIS_ON_ERROR=warn: running on the built-in rules"
                             : "stopping (set TRELLIS_ON_ERROR=warn to run on the built-in rules)");
        }
        if (!all_warn)
            stop_job();
        trl_rules_free(&env_rules); /* on every rank, so all run on the same rules */
    } else if (differ_rank != INT_MAX) {
        if (rank == differ_rank)
            trl_log("rank %d sees different TRELLIS_RULES from rank 0: every rank must see the "
                    "same rules (same variable, same file contents); stopping", rank);
        stop_job();
    }
    rules_version *v = add_version(&env_rules, NULL, rt.rules_hash);
    if (!v) {
        if (rank == 0)
            trl_log("out of memory for the rules; Trellis is off");
        return;
    }
    rt.user = &v->rules;
    if (load_topology(rank, all_warn) != TRL_OK)
        return;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &rt.keyval, NULL) != MPI_SUCCESS)
        return;
    rt.ready = true;
    /* Set up now (collective over WORLD, as every rank is here): a first
     * collective that is non-blocking cannot (comm_setup.c). */
    trl_comm_get(MPI_COMM_WORLD);
    trl_trace_init(&rt.world);
}

void trl_runtime_finalize(void)
{
    trl_validate_finalize();
    if (!rt.ready)
        return;
    trl_trace_finalize(); /* before the rules its records name are freed */
    /* Free our duplicates while the MPI library still runs, not from its own
     * attribute clean-up during finalize. */
    MPI_Comm predefined[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        void *value;
        int found;
        PMPI_Comm_get_attr(predefined[i], rt.keyval, &value, &found);
        if (found)
            PMPI_Comm_delete_attr(predefined[i], rt.keyval);
    }
    PMPI_Comm_free_keyval(&rt.keyval);
    /* Whatever was deleted above: no thread may find a state after this,
     * with the rules gone (a communicator whose attribute outlives us). */
    trl_recent_forget_all();
    free_versions();
    trl_rules_free(&rt.builtin);
    trl_topo_free(&rt.world);
    free(rt.said);
    rt.said = NULL;
    rt.ready = false;
}

/* The message of a refused trellis_set_rules, as trl_rules_error_format
 * writes one without a position. */
static int set_rules_refused(char *err, size_t errlen, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, "trellis_set_rules: %s", what);
    return 1;
}

int trellis_set_rules(const char *text, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (finalized)
        return set_rules_refused(err, errlen, "called after MPI_Finalize: Trellis has stopped");
    if (!initialized)
        return set_rules_refused(err, errlen,
                                 "called before MPI_Init: rules can be replaced between "
                                 "MPI_Init and MPI_Finalize");
    if (!rt.ready)
        return set_rules_refused(err, errlen,
                                 "Trellis is off in this process (see its messages at "
                                 "MPI_Init): the MPI library serves every collective");
    if (!text)
        text = "";
    /* The same text again: its version back, whose cache entries are still
     * good (a tuning program switches among a few candidates). */
    uint64_t h = fnv1a(0xcbf29ce484222325ULL, text, strlen(text));
    const rules_version *v = NULL;
    for (unsigned i = 0; i < rt.nversions && !v; i++) {
        const rules_version *w = rt.versions[i];
        if (w->text && w->hash == h && strcmp(w->text, text) == 0)
            v = w;
    }
    if (!v) {
        trl_ruleset rs;
        trl_rules_error perr;
        if (trl_rules_parse_inline_as(text, "trellis_set_rules", &rs, &perr) != TRL_OK) {
            if (err && errlen)
                trl_rules_error_format(&perr, err, errlen);
            return 1;
        }
        v = add_version(&rs, text, h);
        if (!v)
            return set_rules_refused(err, errlen, "out of memory");
    }
    if (v->id != rt.current) {
        rt.current = v->id;
        rt.user = &rt.versions[v->id]->rules;
        rt.rules_hash = v->hash;
        trl_rules_gen++;
    }
    return 0;
}

bool trl_runtime_ready(void)
{
    return rt.ready;
}

unsigned long long trl_rules_hash(void)
{
    return rt.rules_hash;
}

trl_comm *trl_comm_find(MPI_Comm comm)
{
    bool inter;
    trl_comm *hit = cached(comm, &inter);
    if (hit || inter)
        return hit;
    void *value;
    int found;
    if (!rt.ready || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, rt.keyval, &value, &found) != MPI_SUCCESS || !found)
        return NULL;
    return remember(comm, value);
}

void trl_not_set_up(MPI_Comm comm)
{
    static bool said;
    int inter = 1, rank = 0;
    if (said || !rt.ready || trl_verbose_level() == 0 || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    said = true;
    trl_log("a non-blocking or persistent collective on a communicator that Trellis has not set "
            "up (made by a constructor it does not intercept) goes to the MPI library; a "
            "blocking collective on it sets it up (said once)");
}

trl_comm *trl_comm_get(MPI_Comm comm)
{
    bool known_inter;
    trl_comm *hit = cached(comm, &known_inter);
    if (hit || known_inter)
        return hit;
    if (!rt.ready || comm == MPI_COMM_NULL)
        return NULL;
    void *value;
    int found, inter;
    if (PMPI_Comm_get_attr(comm, rt.keyval, &value, &found) != MPI_SUCCESS)
        return NULL;
    if (found)
        return remember(comm, value);
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return NULL;

    trl_comm *c = calloc(1, sizeof *c);
    if (c)
        c->cache = calloc((size_t)rt.cache_cap, sizeof *c->cache);
    /* Dup is collective: every rank takes part whatever happened here, and
     * all agree on the outcome. */
    MPI_Comm dup = MPI_COMM_NULL;
    int me;
    PMPI_Comm_rank(comm, &me);
    /* With the outcome, rank 0's name for the communicator: {ok, id}. */
    static int64_t set_up;
    int64_t mine[2] = {c && c->cache, me == 0 ? (int64_t)rt.world_rank << 24 | set_up++ : INT64_MAX},
            all[2];
    if (PMPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        mine[0] = 0;
    PMPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MIN, comm);
    int all_ok = (int)all[0];
    if (all_ok)
        trl_shm_attach(&c->shm, dup); /* collective over dup */
    if (c) {
        c->dup = dup;
        c->refs = 1;
        c->trace_id = all[1];
        c->cache_cap = rt.cache_cap;
        c->last_hit = -1;
        PMPI_Comm_rank(comm, &c->rank);
        PMPI_Comm_size(comm, &c->size);
        /* MPI_TAG_UB is an attribute of MPI_COMM_WORLD only (a split
         * communicator may lack it), and holds for every communicator. */
        int *ub, has_ub;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
        c->tag_ub = has_ub && *ub > 0 ? *ub : 32767; /* MPI guarantees 32767 */
        /* Ranges of 64K tags, as many as fit (32768 with Open MPI's and
         * MPICH's 2^31 - 1); a library with fewer tags gets one range. With
         * the 32767 tags MPI guarantees a span is 32768, a multiple of the
         * schedules' tag period, as the order of messages that share a tag
         * needs (TRL_SCHED_TAG_PERIOD). A library with fewer (against the
         * standard) still gets a range that fits, never an empty one. */
        _Static_assert(32768 % TRL_SCHED_TAG_PERIOD == 0, "spans are multiples of the period");
        c->tag_span = 1 << 16;
        while (c->tag_span > 1 && (long)c->tag_span - 1 > (long)c->tag_ub)
            c->tag_span >>= 1;
        c->tag_slots = (int)(((long)c->tag_ub + 1) / c->tag_span);
        /* At least 16 ranges for each form of call (trl_comm_tags) where
         * spans of a tag period allow it: 21 each with 32767 tags. */
        while (c->tag_span > TRL_SCHED_TAG_PERIOD && c->tag_slots < 16 * CALL_KINDS) {
            c->tag_span >>= 1;
            c->tag_slots = (int)(((long)c->tag_ub + 1) / c->tag_span);
        }
        count_groups(c);
        if (trl_topo_for_comm(&rt.world, comm, &c->topo) != TRL_OK)
            trl_topo_single_host(c->size, &c->topo);
    }
    if (!all_ok || PMPI_Comm_set_attr(comm, rt.keyval, c) != MPI_SUCCESS) {
        /* The MPI library serves this call; the next one tries again. */
        if (c)
            free_comm(c);
        else if (dup != MPI_COMM_NULL)
            PMPI_Comm_free(&dup);
        return NULL;
    }
    if (trl_verbose_level() > 0 && c->rank == 0) {
        char line[1024];
        trl_topo_format(&c->topo, line, sizeof line);
        char shm[96] = "; shared memory: off";
        if (c->shm.n > 0)
            snprintf(shm, sizeof shm, "; shared memory: %d ranks on rank 0's node, up to %d bytes",
                     c->shm.n, (int)c->shm.max_bytes);
        trl_log("communicator of %d ranks: %s%s", c->size, line, shm);
    }
    return c;
}

/* Has this exact choice been reported already? The set is bounded: a
 * program sweeping message sizes could otherwise grow it without end, and
 * it is scanned on every cache miss. Past the bound, new choices are no
 * longer reported, and verbose mode says so once. */
enum { SAID_MAX = 4096 };

static bool first_time(uint64_t key)
{
    bool first = true;
    pthread_mutex_lock(&rt.lock);
    for (size_t i = 0; i < rt.nsaid && first; i++)
        first = rt.said[i] != key;
    if (first && rt.nsaid == rt.cap_said && rt.cap_said < SAID_MAX) {
        size_t cap = rt.cap_said ? 2 * rt.cap_said : 32;
        uint64_t *p = realloc(rt.said, cap * sizeof *p);
        if (p) {
            rt.said = p;
            rt.cap_said = cap;
        }
    }
    if (first && rt.nsaid < rt.cap_said) {
        rt.said[rt.nsaid++] = key;
    } else if (first) {
        if (!rt.said_full)
            trl_log("verbose: %d distinct choices reported; further ones are not", SAID_MAX);
        rt.said_full = true;
        first = false;
    }
    pthread_mutex_unlock(&rt.lock);
    return first;
}

/* The rules passed over, appended to a verbose line as far as it goes. */
typedef struct {
    char text[768];
    size_t used;
} passed_list;

static void add_passed(const trl_rule *r, const char *why, void *ctx)
{
    passed_list *l = ctx;
    if (l->used >= sizeof l->text)
        return;
    int n = snprintf(l->text + l->used, sizeof l->text - l->used,
                     "; passed over %s (%s:%d: %s) because %s", r->algo->name, r->source, r->line,
                     r->text, why);
    l->used += n > 0 ? (size_t)n : 0;
}

static void say_choice(const trl_comm *c, const trl_coll_args *a, size_t bytes,
                       const trl_choice *ch)
{
    trl_coll coll = a->coll;
    uint64_t key = fnv1a(0xcbf29ce484222325ULL, &coll, sizeof coll);
    key = fnv1a(key, &c->size, sizeof c->size);
    key = fnv1a(key, &bytes, sizeof bytes);
    key = fnv1a(key, &ch->rule, sizeof ch->rule);
    key = fnv1a(key, &rt.current, sizeof rt.current); /* said again under other rules */
    key = fnv1a(key, &a->call, sizeof a->call);
    trl_layout_stats seen = trl_topo_stats(c->topo.host ? &c->topo : NULL, c->size);
    key = fnv1a(key, &seen.hosts, sizeof seen.hosts);
    key = fnv1a(key, &seen.ranks_per_host, sizeof seen.ranks_per_host);
    key = fnv1a(key, &seen.block, sizeof seen.block);
    /* An intercommunicator's call: both groups' sizes as the rules saw them. */
    unsigned long long big = (unsigned long long)c->size, small = 0;
    if (a->inter)
        trl_inter_rule_sizes(a, &big, &small);
    key = fnv1a(key, &small, sizeof small);
    if (!first_time(key))
        return;
    passed_list passed = {.used = 0};
    passed.text[0] = '\0';
    if (ch->rejected)
        trl_select_passed_over(rt.user, &rt.builtin, a, bytes, add_passed, &passed);
    char size[48] = "";
    /* Where ranks do not share a size, the rules saw none. */
    if (trl_coll_has_bytes(coll))
        snprintf(size, sizeof size, " bytes=%zu", bytes);
    /* Named as the program called it: iallreduce, allreduce_init. */
    const char *pre = a->call == TRL_CALL_NONBLOCKING ? "i" : "";
    const char *post = a->call == TRL_CALL_PERSISTENT ? "_init" : "";
    char ranks[64];
    snprintf(ranks, sizeof ranks, a->inter ? "inter ranks=%llu remote_ranks=%llu" : "ranks=%llu",
             big, small);
    /* What the layout filters saw, where there is more than one host. */
    char layout[96] = "";
    if (seen.hosts > 1)
        snprintf(layout, sizeof layout, "; hosts=%d ranks_per_host=%d placement=%s", seen.hosts,
                 seen.ranks_per_host, seen.block ? "block" : "other");
    trl_log("%s%s%s %s%s: %s (%s:%d: %s)%s%s", pre, trl_coll_name(coll), post, ranks, size,
            ch->algo->name, ch->rule->source, ch->rule->line, ch->rule->text, layout, passed.text);
}

void trl_comm_tags(trl_comm *c, const trl_cache_entry *e, int *base, int *span)
{
    *span = c->tag_span;
    /* The counter of e's group: its form of call, then its class. */
    int classes = c->class_seq ? c->nclasses : 1;
    int g = (int)e->call * classes + (c->class_seq ? e->tag_class % classes : 0);
    unsigned *seq = c->class_seq ? &c->class_seq[g] : &c->seq[g];
    unsigned n = (*seq)++;
    int per = c->tag_per_group;
    if (per > 0 && e->call == TRL_CALL_PERSISTENT) {
        /* A persistent call keeps its range while its request lives, and
         * the program may keep any number alive: its group's ranges are cut
         * into ranges of one tag period, which every schedule can run in
         * (messages a period apart already wait for each other, sched.h),
         * so that ranges come back only after per x span / period inits
         * (2.8 million with 2^31 tags). */
        unsigned small = (unsigned)per * (unsigned)(c->tag_span / TRL_SCHED_TAG_PERIOD);
        if (*seq == small)
            *seq = 0;
        *span = TRL_SCHED_TAG_PERIOD;
        *base = (int)((long)g * per * c->tag_span + (long)n * TRL_SCHED_TAG_PERIOD);
        return;
    }
    if (per > 0) {
        /* Every call of every form passes here: a counter that wraps, no
         * division. */
        if (*seq == (unsigned)per)
            *seq = 0;
        *base = (g * per + (int)n) * c->tag_span;
        return;
    }
    unsigned groups = (unsigned)(CALL_KINDS * classes); /* groups share the ranges */
    *base = (int)(((unsigned)g + n * groups) % (unsigned)c->tag_slots) * c->tag_span;
}

/* Ranges per counter (trl_comm_tags), after tag_slots or the classes
 * changed. */
static void count_groups(trl_comm *c)
{
    int groups = CALL_KINDS * (c->class_seq ? c->nclasses : 1);
    c->tag_per_group = c->tag_slots / groups;
}

bool trl_comm_tag_classes(trl_comm *c, int n)
{
    unsigned *seq = calloc((size_t)n * CALL_KINDS, sizeof *seq);
    if (!seq)
        return false;
    free(c->class_seq);
    c->class_seq = seq;
    c->nclasses = n;
    while (c->tag_span > TRL_SCHED_TAG_PERIOD && c->tag_slots / (n * CALL_KINDS) < 16) {
        c->tag_span >>= 1;
        c->tag_slots = (int)(((long)c->tag_ub + 1) / c->tag_span);
    }
    count_groups(c);
    return true;
}

trl_cache_entry *trl_cache_pin(trl_comm *c, const trl_cache_entry *e)
{
    (void)c;
    trl_cache_entry *w = (trl_cache_entry *)e; /* the cache's own, or transient */
    w->pins++;
    return w;
}

void trl_cache_unpin(trl_comm *c, trl_cache_entry *e)
{
    (void)c;
    if (--e->pins > 0 || !e->transient)
        return;
    if (e->valid)
        trl_sched_free(&e->sched);
    free(e->vec);
    free(e);
}

size_t *trl_comm_vec(trl_comm *c)
{
    if (!c->vec)
        c->vec = malloc(6 * (size_t)c->size * sizeof *c->vec);
    return c->vec;
}

/* The per-rank arrays of a call, in a fixed order, and their lengths:
 * size entries, but size x size for the matrix of send counts an alltoallv
 * or alltoallw algorithm that needs all counts gets in a->counts. */
static int vectors(const trl_coll_args *a, int size, const size_t *out[6], size_t len[6])
{
    const size_t *all[6] = {a->counts, a->displs, a->send_counts, a->send_displs, a->recv_counts,
                            a->recv_displs};
    bool matrix = a->coll == TRL_COLL_ALLTOALLV || a->coll == TRL_COLL_ALLTOALLW;
    int n = 0;
    for (int i = 0; i < 6; i++)
        if (all[i]) {
            len[n] = (size_t)size * (i == 0 && matrix ? (size_t)size : 1);
            out[n++] = all[i];
        }
    return n;
}

static bool same_key(const trl_cache_entry *e, const trl_coll_args *a, int size)
{
    if (!e->valid || e->coll != a->coll || e->root != a->root || e->count != a->count ||
        e->elem_size != a->elem_size || e->commutative != a->commutative ||
        e->in_place != a->in_place || e->call != a->call || e->rules != rt.current)
        return false;
    const size_t *v[6];
    size_t len[6], at = 0;
    int n = vectors(a, size, v, len);
    for (int i = 0; i < n; i++) {
        if (at + len[i] > e->nvec || memcmp(e->vec + at, v[i], len[i] * sizeof *e->vec))
            return false;
        at += len[i];
    }
    return at == e->nvec;
}

void trl_comm_rules_changed(trl_comm *c)
{
    c->rules_gen = trl_rules_gen;
    c->cache_gen++; /* no repeat skips to an entry of the old rules */
    memset(c->choice, 0, sizeof c->choice);
    memset(c->sizeless, 0, sizeof c->sizeless);
}

static bool choose(trl_comm *c, trl_coll_args *a, trl_choice *ch)
{
    trl_comm_sync_rules(c);
    a->rank = c->rank;
    a->size = c->size;
    a->topo = c->topo.host ? &c->topo : NULL; /* NULL: out of memory earlier */
    size_t bytes = trl_coll_rule_bytes(a);
    if (trl_select(rt.user, &rt.builtin, a, bytes, ch) != TRL_OK)
        return false;
    if (trl_verbose_level() > 0 && c->rank == 0)
        say_choice(c, a, bytes, ch);
    return true;
}

const trl_algo *trl_comm_choose(trl_comm *c, trl_coll_args *a)
{
    /* gatherv, scatterv, alltoallv and alltoallw ask on every call, and
     * without a size their choice depends on the collective, the
     * communicator and the form of call alone (a non-blocking call may not
     * get what needs an exchange of counts first). */
    bool fixed = !trl_coll_has_bytes(a->coll) && !trl_coll_is_reduction(a->coll);
    trl_comm_sync_rules(c);
    if (fixed && c->choice[a->coll][a->call])
        return c->choice[a->coll][a->call];
    trl_choice ch;
    if (!choose(c, a, &ch))
        return NULL;
    if (fixed)
        c->choice[a->coll][a->call] = ch.algo;
    return ch.algo;
}

trl_sizeless trl_comm_sizeless(trl_comm *c, trl_coll_args *a)
{
    trl_comm_sync_rules(c);
    signed char *known = &c->sizeless[a->coll][a->call][a->commutative];
    if (!*known) {
        a->rank = c->rank;
        a->size = c->size;
        a->topo = c->topo.host ? &c->topo : NULL;
        *known = (signed char)(1 + trl_select_sizeless(rt.user, &rt.builtin, a));
    }
    return (trl_sizeless)(*known - 1);
}

const trl_cache_entry *trl_comm_lookup(trl_comm *c, trl_coll_args *a)
{
    /* Programs repeat the same call: try the last hit first. */
    for (int pass = 0; pass < 2; pass++) {
        int from = pass == 0 ? c->last_hit : 0, to = pass == 0 ? c->last_hit + 1 : c->cache_cap;
        for (int i = from < 0 ? 0 : from; i < to; i++) {
            if (same_key(&c->cache[i], a, c->size)) {
                c->last_hit = i;
                return &c->cache[i];
            }
        }
        if (c->last_hit < 0)
            break;
    }

    trl_choice ch;
    if (!choose(c, a, &ch))
        return NULL;

    /* The key's arrays are copied first: without memory for them there is
     * no entry, and the MPI library serves the call. */
    const size_t *v[6];
    size_t len[6], nvec = 0, *vec = NULL;
    int nv = vectors(a, c->size, v, len);
    for (int i = 0; i < nv; i++)
        nvec += len[i];
    if (nvec) {
        vec = malloc(nvec * sizeof *vec);
        if (!vec)
            return NULL;
        size_t at = 0;
        for (int i = 0; i < nv; at += len[i++])
            memcpy(vec + at, v[i], len[i] * sizeof *vec);
    }

    /* Evict round-robin, passing over entries in use (an op in flight, a
     * persistent request): the cache is bounded whatever a program does.
     * With every entry in use, the entry lives outside the cache until its
     * user is done with it. */
    trl_cache_entry *e = NULL;
    for (int k = 0; k < c->cache_cap && !e; k++) {
        trl_cache_entry *cand = &c->cache[(c->cache_next + k) % c->cache_cap];
        if (cand->pins == 0) {
            c->cache_next = (c->cache_next + k) % c->cache_cap;
            e = cand;
        }
    }
    bool transient = !e;
    if (transient) {
        e = calloc(1, sizeof *e);
        if (!e) {
            free(vec);
            return NULL;
        }
    }
    if (e->valid)
        trl_sched_free(&e->sched);
    free(e->vec);
    e->valid = false;
    c->cache_gen++; /* a memo may point at it (trl_move_memo) */
    const trl_algo *algo = ch.algo;
    if (algo->build) {
        a->params = ch.params;
        int rc = trl_algo_build(algo, a, &e->sched);
        if (rc != TRL_OK) {
            /* A builder refusing a shape it should serve is a bug; the MPI
             * library still gives the right answer, and this entry keeps
             * sending the call there. */
            if (c->rank == 0)
                trl_log("%s %s failed to build for ranks=%d bytes=%zu (%s); using the MPI "
                        "library's own", trl_coll_name(a->coll), algo->name, c->size,
                        trl_coll_rule_bytes(a), trl_status_str(rc));
            algo = trl_algo_find(a->coll, "mpi", 3);
        }
    }
    *e = (trl_cache_entry){.coll = a->coll, .root = a->root, .count = a->count,
                           .elem_size = a->elem_size, .commutative = a->commutative,
                           .in_place = a->in_place, .call = a->call, .rules = rt.current,
                           .valid = true,
                           .tag_class = a->inter && trl_coll_is_rooted(a->coll) ? 1 + a->root : 0,
                           .transient = transient,
                           .vec = vec, .nvec = nvec, .algo = algo, .sched = e->sched,
                           .rule_bytes = trl_coll_rule_bytes(a), .rule = ch.rule};
    if (!transient) {
        c->last_hit = c->cache_next;
        c->cache_next = (c->cache_next + 1) % c->cache_cap;
    }
    return e;
}
