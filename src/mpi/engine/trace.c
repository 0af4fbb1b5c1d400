/* The run-time tracer (trace.h; the file format: docs/trace-format.md).
 *
 * Clocks: each rank's monotonic clock is compared with rank 0's by
 * ping-pong at start (the exchange with the shortest round trip of
 * CLOCK_ROUNDS: offset = the peer's reading minus the midpoint of rank 0's
 * send and receive, error = half that round trip, as in Cristian's
 * algorithm) and again at MPI_Finalize. Times are written corrected by the
 * start offset; the stated error is the larger of the two exchanges'
 * errors and the drift between them.
 */
#include "mpi/engine/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/settings.h"

bool trl_trace_on;

enum { CLOCK_ROUNDS = 20, CLOCK_TAG = 7 };

typedef struct {
    uint8_t kind, level; /* trl_step_kind; trl_link, TRL_LINK_COUNT for local steps */
    int32_t peer, tag;
    uint32_t phase; /* index into the tracer's phase names */
    uint64_t bytes;
} step_info;

struct trl_trace_call {
    int64_t call;
    int rank, ranks, root;
    trl_coll coll;
    size_t bytes;
    const trl_algo *algo;
    const trl_rule *rule;
    int64_t t_enter, t_exit;
    uint32_t nsteps; /* 0 where the steps were not kept */
    step_info *steps;
    trl_exec_trace times;
    /* Steps [0, first) are a helper's that ran before the call's schedule
     * (trl_trace_prefix_end); the executor writes the schedule's times from
     * first on (run), and its `after` indices are shifted by first. */
    uint32_t first;
    trl_exec_trace run;
};

static struct {
    char *dir;
    size_t max_calls, max_steps;
    trl_trace_call **ring; /* the last max_calls calls: next is the oldest */
    size_t next, kept;
    unsigned long long calls, steps_left_out;
    char **phases; /* interned phase names; [0] is "" */
    size_t nphases, cap_phases;
    const trl_topo *world;
    int world_rank, world_size;
    double offset, error, offset_end, error_end;
    char run[17]; /* the run's id: rank 0's, the same in every rank's file */
} tr;

static size_t env_size(const char *name, size_t fallback)
{
    return (size_t)trl_setting_count(name, (long long)fallback);
}

/* ---- clocks ---------------------------------------------------------------- */

/* Rank 0 against every other rank in turn, on a private communicator:
 * returns this rank's offset (its clock minus rank 0's) and error. */
static void measure_clocks(MPI_Comm comm, double *offset, double *error)
{
    *offset = 0;
    *error = 0;
    for (int peer = 1; peer < tr.world_size; peer++) {
        if (tr.world_rank != 0 && tr.world_rank != peer)
            continue;
        double best[2] = {0, -1}; /* offset, round trip */
        for (int k = 0; k < CLOCK_ROUNDS; k++) {
            int64_t theirs = 0, t0, t1;
            if (tr.world_rank == 0) {
                t0 = trl_now_ns();
                PMPI_Send(&t0, 1, MPI_INT64_T, peer, CLOCK_TAG, comm);
                PMPI_Recv(&theirs, 1, MPI_INT64_T, peer, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
                t1 = trl_now_ns();
                double rtt = (double)(t1 - t0);
                if (best[1] < 0 || rtt < best[1]) {
                    best[0] = (double)theirs - ((double)t0 + (double)t1) / 2;
                    best[1] = rtt;
                }
            } else {
                PMPI_Recv(&t0, 1, MPI_INT64_T, 0, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
                theirs = trl_now_ns();
                PMPI_Send(&theirs, 1, MPI_INT64_T, 0, CLOCK_TAG, comm);
            }
        }
        double answer[2] = {best[0], best[1] / 2};
        if (tr.world_rank == 0)
            PMPI_Send(answer, 2, MPI_DOUBLE, peer, CLOCK_TAG, comm);
        else
            PMPI_Recv(answer, 2, MPI_DOUBLE, 0, CLOCK_TAG, comm, MPI_STATUS_IGNORE);
        if (tr.world_rank == peer) {
            *offset = answer[0];
            *error = answer[1];
        }
    }
}

/* This rank's clock offset to rank 0 and its error; with run_id, first the
 * run's id: rank 0 draws it (64 random bits, else its clock and process id)
 * and every rank takes it, so that each file names the run that wrote it
 * and `trellis trace` never mixes the files of two runs in one directory. */
static void clocks(double *offset, double *error, bool run_id)
{
    MPI_Comm comm;
    if (PMPI_Comm_dup(MPI_COMM_WORLD, &comm) != MPI_SUCCESS) {
        *offset = *error = 0;
        return;
    }
    if (run_id) {
        uint64_t id = 0;
        if (tr.world_rank == 0) {
            FILE *f = fopen("/dev/urandom", "rb");
            if (!f || fread(&id, sizeof id, 1, f) != 1)
                id = (uint64_t)trl_now_ns() * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
            if (f)
                fclose(f);
        }
        PMPI_Bcast(&id, 1, MPI_UINT64_T, 0, comm);
        snprintf(tr.run, sizeof tr.run, "%016" PRIx64, id);
    }
    measure_clocks(comm, offset, error);
    PMPI_Comm_free(&comm);
}

void trl_trace_init(const trl_topo *world)
{
    const char *dir = getenv("TRELLIS_TRACE");
    if (!dir || !*dir)
        return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &tr.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &tr.world_size);
    tr.world = world;
    tr.max_calls = env_size("TRELLIS_TRACE_CALLS", 1000);
    tr.max_steps = env_size("TRELLIS_TRACE_STEPS", 1000000);
    tr.dir = strdup(dir);
    tr.ring = calloc(tr.max_calls, sizeof *tr.ring);
    tr.phases = malloc(16 * sizeof *tr.phases);
    if (!tr.dir || !tr.ring || !tr.phases || !(tr.phases[0] = strdup(""))) {
        trl_log("TRELLIS_TRACE: out of memory; not tracing");
        return;
    }
    tr.nphases = 1;
    tr.cap_phases = 16;
    /* Every rank creates it: a file system not shared by the hosts gets a
     * directory on each. */
    if (mkdir(tr.dir, 0777) != 0 && errno != EEXIST)
        trl_log("TRELLIS_TRACE: cannot create %s: %s", tr.dir, strerror(errno));
    clocks(&tr.offset, &tr.error, true);
    trl_trace_on = true;
}

/* ---- recording -------------------------------------------------------------- */

static uint32_t intern(const char *name)
{
    for (size_t i = 0; i < tr.nphases; i++)
        if (!strcmp(tr.phases[i], name))
            return (uint32_t)i;
    if (tr.nphases == tr.cap_phases) {
        char **grown = realloc(tr.phases, 2 * tr.cap_phases * sizeof *grown);
        if (!grown)
            return 0;
        tr.phases = grown;
        tr.cap_phases *= 2;
    }
    char *copy = strdup(name);
    if (!copy)
        return 0;
    tr.phases[tr.nphases] = copy;
    return (uint32_t)tr.nphases++;
}

static void call_free(trl_trace_call *t)
{
    if (!t)
        return;
    free(t->steps);
    free(t->times.t);
    free(t->times.after);
    free(t);
}

/* Room for n steps' records and times, none done. */
static bool steps_alloc(trl_trace_call *t, size_t n)
{
    t->steps = malloc((n ? n : 1) * sizeof *t->steps);
    t->times.t = calloc(3 * (n ? n : 1), sizeof *t->times.t);
    t->times.after = malloc((n ? n : 1) * sizeof *t->times.after);
    if (!t->steps || !t->times.t || !t->times.after)
        return false;
    for (size_t i = 0; i < n; i++)
        t->times.after[i] = -1;
    t->nsteps = (uint32_t)n;
    return true;
}

/* The steps of e's schedule, as the file states them, from t's step first
 * on. shift (NULL: none) counts, per peer, the messages of a helper's
 * steps before first: a message's tag goes on from them, so that the k-th
 * message from a to b has tag k over the whole record, as on both ends. */
static void steps_of(trl_trace_call *t, uint32_t first, const trl_cache_entry *e, const trl_comm *c,
                     const int32_t *shift)
{
    const trl_sched *s = &e->sched;
    /* A schedule's phase indices, mapped once to the tracer's names. */
    uint32_t map[256];
    size_t nmap = s->nphases < 256 ? s->nphases : 256;
    for (size_t p = 0; p < nmap; p++)
        map[p] = intern(s->phase_names[p]);
    for (size_t i = 0; i < s->nsteps; i++) {
        const trl_step *st = &s->steps[i];
        bool msg = st->kind == TRL_STEP_SEND || st->kind == TRL_STEP_RECV;
        t->steps[first + i] = (step_info){
            .kind = (uint8_t)st->kind,
            .level = (uint8_t)(msg ? trl_link_between(c->topo.host ? &c->topo : NULL, c->rank,
                                                      st->peer)
                                   : TRL_LINK_COUNT),
            .peer = msg ? st->peer : -1,
            .tag = msg ? st->tag + (shift ? shift[2 * st->peer + (st->kind == TRL_STEP_RECV)] : 0)
                       : -1,
            .phase = st->phase < nmap ? map[st->phase] : 0,
            .bytes = (uint64_t)st->count * e->elem_size};
    }
}

/* Per peer, the messages sent to it and received from it in t's steps. */
static int32_t *messages_per_peer(const trl_trace_call *t, int ranks)
{
    int32_t *n = calloc(2 * (size_t)ranks, sizeof *n);
    for (uint32_t i = 0; n && i < t->nsteps; i++) {
        const step_info *st = &t->steps[i];
        if (st->kind == TRL_STEP_SEND || st->kind == TRL_STEP_RECV)
            n[2 * st->peer + (st->kind == TRL_STEP_RECV)]++;
    }
    return n;
}

/* The steps of t: a helper's that ran first (pre, NULL for none), then e's
 * schedule's, whose times the executor writes through t->run. */
static bool keep_steps(trl_trace_call *t, const trl_cache_entry *e, const trl_comm *c,
                       const trl_trace_call *pre)
{
    uint32_t first = pre ? pre->nsteps : 0;
    int32_t *shift = pre ? messages_per_peer(pre, c->size) : NULL;
    if ((pre && !shift) || !steps_alloc(t, first + e->sched.nsteps)) {
        free(shift);
        return false;
    }
    if (pre) {
        memcpy(t->steps, pre->steps, first * sizeof *t->steps);
        memcpy(t->times.t, pre->times.t, 3 * (size_t)first * sizeof *t->times.t);
        memcpy(t->times.after, pre->times.after, first * sizeof *t->times.after);
    }
    steps_of(t, first, e, c, shift);
    free(shift);
    t->first = first;
    t->run = (trl_exec_trace){t->times.t + 3 * (size_t)first, t->times.after + first};
    return true;
}

/* The kept steps of t let go: its record says the call only. */
static void steps_drop(trl_trace_call *t)
{
    free(t->steps);
    free(t->times.t);
    free(t->times.after);
    t->steps = NULL;
    t->times = (trl_exec_trace){0};
    t->nsteps = t->first = 0;
}

/* The helper's record parked on c, if any: this call's (the entry point
 * lets go of one its call did not take, trl_trace_prefix_drop). */
static trl_trace_call *prefix_take(trl_comm *c)
{
    trl_trace_call *pre = c->trace_prefix;
    c->trace_prefix = NULL;
    return pre;
}

trl_trace_call *trl_trace_begin(const trl_cache_entry *e, trl_comm *c, trl_exec_trace **out)
{
    *out = NULL;
    trl_trace_call *pre = prefix_take(c);
    trl_trace_call *t = calloc(1, sizeof *t);
    if (!t) {
        call_free(pre);
        return NULL;
    }
    *t = (trl_trace_call){.call = c->trace_id << 32 | c->traced_calls++,
                          .rank = c->rank,
                          .ranks = c->size,
                          .root = trl_coll_is_rooted(e->coll) ? e->root : -1,
                          .coll = e->coll,
                          .bytes = e->rule_bytes,
                          .algo = e->algo,
                          .rule = e->rule};
    tr.calls++;
    bool whole = !pre || pre->steps; /* the helper's steps were kept */
    if (whole && (pre ? pre->nsteps : 0) + e->sched.nsteps <= tr.max_steps &&
        keep_steps(t, e, c, pre))
        *out = &t->run;
    else {
        steps_drop(t);
        tr.steps_left_out++;
    }
    t->t_enter = pre ? pre->t_enter : trl_now_ns();
    call_free(pre);
    return t;
}

trl_trace_call *trl_trace_prefix_begin(const trl_cache_entry *e, trl_comm *c, trl_exec_trace **out)
{
    *out = NULL;
    trl_trace_prefix_drop(c);
    trl_trace_call *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (e->sched.nsteps <= tr.max_steps && keep_steps(t, e, c, NULL))
        *out = &t->run;
    else
        steps_drop(t); /* and so its call's (trl_trace_begin) */
    t->t_enter = trl_now_ns();
    return t;
}

void trl_trace_prefix_end(trl_trace_call *t, trl_comm *c)
{
    c->trace_prefix = t;
}

void trl_trace_prefix_drop(trl_comm *c)
{
    call_free(c->trace_prefix);
    c->trace_prefix = NULL;
}

void trl_trace_end(trl_trace_call *t)
{
    if (!t)
        return;
    t->t_exit = trl_now_ns();
    call_free(tr.ring[tr.next]); /* the oldest, once the ring is full */
    tr.ring[tr.next] = t;
    tr.next = (tr.next + 1) % tr.max_calls;
    if (tr.kept < tr.max_calls)
        tr.kept++;
}

/* ---- writing ------------------------------------------------------------------ */

/* A JSON string; runs of blanks as one space (rules align their columns). */
static void json_text(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if ((ch == ' ' || ch == '\t') && (s[1] == ' ' || s[1] == '\t'))
            continue;
        if (ch == '\t')
            fputc(' ', f);
        else if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

/* A time on rank 0's clock. */
static long long corrected(int64_t t)
{
    return (long long)((double)t - tr.offset);
}

static void write_call(FILE *f, const trl_trace_call *t)
{
    static const char *const kinds[] = {"send", "recv", "copy", "reduce", "nop"};
    fprintf(f,
            "{\"type\": \"call\", \"call\": %" PRId64 ", \"rank\": %d, \"world_rank\": %d, "
            "\"collective\": \"%s\", \"bytes\": %zu, \"ranks\": %d, \"root\": ",
            t->call, t->rank, tr.world_rank, trl_coll_name(t->coll), t->bytes, t->ranks);
    if (t->root >= 0)
        fprintf(f, "%d", t->root);
    else
        fputs("null", f);
    fprintf(f, ", \"algorithm\": \"%s\"", t->algo ? t->algo->name : "mpi");
    if (t->rule) {
        char rule[1200];
        snprintf(rule, sizeof rule, "%s:%d: %s", t->rule->source, t->rule->line, t->rule->text);
        fputs(", \"rule\": ", f);
        json_text(f, rule);
    }
    fprintf(f, ", \"steps_kept\": %s, \"t_enter\": %lld, \"t_exit\": %lld}\n",
            t->steps ? "true" : "false", corrected(t->t_enter), corrected(t->t_exit));
    for (uint32_t i = 0; i < t->nsteps; i++) {
        const step_info *s = &t->steps[i];
        const int64_t *when = &t->times.t[3 * (size_t)i];
        fprintf(f,
                "{\"type\": \"step\", \"call\": %" PRId64 ", \"rank\": %d, \"step\": %u, "
                "\"kind\": \"%s\", ",
                t->call, t->rank, i, s->kind < 5 ? kinds[s->kind] : "?");
        if (s->level < TRL_LINK_COUNT)
            fprintf(f, "\"peer\": %d, \"tag\": %d, \"level\": \"%s\", ", s->peer, s->tag,
                    trl_link_name((trl_link)s->level));
        else
            fputs("\"peer\": null, \"tag\": null, \"level\": null, ", f);
        fprintf(f, "\"bytes\": %" PRIu64 ", \"phase\": ", s->bytes);
        json_text(f, tr.phases[s->phase]);
        int32_t after = t->times.after[i];
        if (after >= 0) /* the schedule's indices are from its first step */
            fprintf(f, ", \"after\": %d", after + (int32_t)(i >= t->first ? t->first : 0));
        else
            fputs(", \"after\": null", f);
        fprintf(f, ", \"t_ready\": %lld, \"t_posted\": %lld, \"t_done\": %lld}\n",
                corrected(when[0]), corrected(when[1]), corrected(when[2]));
    }
}

static void write_file(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/rank-%05d.jsonl", tr.dir, tr.world_rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        trl_log("TRELLIS_TRACE: cannot write %s: %s", path, strerror(errno));
        return;
    }
    double drift = tr.offset_end - tr.offset;
    double error = tr.error > tr.error_end ? tr.error : tr.error_end;
    if (drift < 0 ? -drift > error : drift > error)
        error = drift < 0 ? -drift : drift;
    fprintf(f,
            "{\"type\": \"trace\", \"version\": 1, \"source\": \"trace\", \"clock\": \"ns\", "
            "\"run\": \"%s\", \"world_size\": %d}\n",
            tr.run, tr.world_size);
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    PMPI_Get_processor_name(host, &len);
    const trl_topo *w = tr.world;
    int r = tr.world_rank;
    fprintf(f, "{\"type\": \"rank\", \"rank\": %d, \"hostname\": ", r);
    json_text(f, host);
    fprintf(f,
            ", \"host\": %d, \"socket\": %d, \"numa\": %d, \"clock_offset_ns\": %.1f, "
            "\"clock_error_ns\": %.1f, \"clock_offset_end_ns\": %.1f, \"calls\": %llu, "
            "\"calls_kept\": %zu, \"calls_without_steps\": %llu}\n",
            w && w->host ? w->host[r] : 0, w && w->socket ? w->socket[r] : -1,
            w && w->numa ? w->numa[r] : -1, tr.offset, error, tr.offset_end, tr.calls, tr.kept,
            tr.steps_left_out);
    /* Oldest first. */
    size_t first = tr.kept < tr.max_calls ? 0 : tr.next;
    for (size_t k = 0; k < tr.kept; k++)
        write_call(f, tr.ring[(first + k) % tr.max_calls]);
    if (fclose(f) != 0)
        trl_log("TRELLIS_TRACE: writing %s failed: %s", path, strerror(errno));
}

void trl_trace_finalize(void)
{
    if (!trl_trace_on)
        return;
    trl_trace_on = false;
    clocks(&tr.offset_end, &tr.error_end, false);
    write_file();
    for (size_t i = 0; i < tr.max_calls; i++)
        call_free(tr.ring[i]);
    free(tr.ring);
    for (size_t i = 0; i < tr.nphases; i++)
        free(tr.phases[i]);
    free(tr.phases);
    free(tr.dir);
    memset(&tr, 0, sizeof tr);
}
