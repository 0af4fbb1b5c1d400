#include "sched/sched.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

int trl_sched_init(trl_sched *s, int rank, int size)
{
    memset(s, 0, sizeof *s);
    s->rank = rank;
    s->size = size;
    s->fence = -1;
    /* The unnamed phase: index 0, so zeroed steps are in it. */
    s->phase_names = malloc(4 * sizeof *s->phase_names);
    if (s->phase_names)
        s->phase_names[0] = strdup("");
    if (!s->phase_names || !s->phase_names[0]) {
        trl_sched_free(s);
        return TRL_ERR_NOMEM;
    }
    s->nphases = 1;
    s->cap_phases = 4;
    return TRL_OK;
}

void trl_sched_free(trl_sched *s)
{
    free(s->steps);
    free(s->deps);
    free(s->succ_first);
    free(s->succ);
    free(s->roots);
    free(s->seq);
    for (size_t i = 0; s->phase_names && i < s->nphases; i++)
        free(s->phase_names[i]);
    free(s->phase_names);
    memset(s, 0, sizeof *s);
}

size_t trl_sched_scratch(trl_sched *s, size_t count)
{
    size_t off = s->scratch;
    s->scratch += count;
    return off;
}

static int fail(trl_sched *s, int status)
{
    if (s->status == TRL_OK)
        s->status = status;
    return status;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return TRL_OK;
    size_t n = *cap ? *cap * 2 : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(*p, n * elem);
    if (!q)
        return TRL_ERR_NOMEM;
    *p = q;
    *cap = n;
    return TRL_OK;
}

static int add(trl_sched *s, trl_step step, const int *deps, int ndeps)
{
    if (s->status != TRL_OK)
        return s->status;
    if (grow((void **)&s->steps, &s->cap_steps, s->nsteps + 1, sizeof *s->steps) ||
        grow((void **)&s->deps, &s->cap_deps, s->ndeps + (size_t)ndeps + 1, sizeof *s->deps))
        return fail(s, TRL_ERR_NOMEM);
    int id = (int)s->nsteps;
    step.phase = s->phase;
    step.dep_first = (uint32_t)s->ndeps;
    step.ndeps = 0;
    if (s->fence >= 0) {
        s->deps[s->ndeps++] = s->fence;
        step.ndeps++;
    }
    for (int i = 0; i < ndeps; i++) {
        if (deps[i] < 0)
            continue;
        if (deps[i] >= id) /* a step can only wait for an earlier one */
            return fail(s, TRL_ERR_INVALID);
        s->deps[s->ndeps++] = deps[i];
        step.ndeps++;
    }
    s->steps[s->nsteps++] = step;
    return id;
}

static int check_peer(trl_sched *s, int peer)
{
    if (peer < 0 || peer >= s->size || peer == s->rank)
        return fail(s, TRL_ERR_INVALID);
    return TRL_OK;
}

/* Where peer's tag counters are in the table, or the free slot for them. */
static size_t slot_of(const trl_sched *s, int peer)
{
    size_t j = (size_t)peer & (s->seq_cap - 1);
    while (s->seq[j].peer >= 0 && s->seq[j].peer != peer)
        j = (j + 1) & (s->seq_cap - 1);
    return j;
}

/* The tag counters of one peer, found or added. Keyed by peer in a table
 * that stays at most half full, so building one rank's schedule costs
 * nothing per rank of the communicator (simulate builds a million). */
static trl_sched_seq *seq_of(trl_sched *s, int peer)
{
    if (2 * (s->seq_n + 1) > s->seq_cap) {
        size_t cap = s->seq_cap ? 2 * s->seq_cap : 16;
        trl_sched_seq *t = malloc(cap * sizeof *t);
        if (!t)
            return NULL;
        for (size_t i = 0; i < cap; i++)
            t[i].peer = -1;
        for (size_t i = 0; i < s->seq_cap; i++) {
            if (s->seq[i].peer < 0)
                continue;
            size_t j = (size_t)s->seq[i].peer & (cap - 1);
            while (t[j].peer >= 0)
                j = (j + 1) & (cap - 1);
            t[j] = s->seq[i];
        }
        free(s->seq);
        s->seq = t;
        s->seq_cap = cap;
    }
    size_t j = slot_of(s, peer);
    if (s->seq[j].peer < 0) {
        s->seq[j] = (trl_sched_seq){peer, 0, 0};
        s->seq_n++;
    }
    return &s->seq[j];
}

static int message(trl_sched *s, trl_step st, const int *deps, int ndeps)
{
    if (s->status != TRL_OK)
        return s->status;
    if (check_peer(s, st.peer))
        return s->status;
    trl_sched_seq *q = seq_of(s, st.peer);
    if (!q)
        return fail(s, TRL_ERR_NOMEM);
    st.tag = st.kind == TRL_STEP_SEND ? q->sends++ : q->recvs++;
    return add(s, st, deps, ndeps);
}

int trl_sched_send(trl_sched *s, int peer, trl_ref src, size_t count, const int *deps, int ndeps)
{
    return message(s, (trl_step){.kind = TRL_STEP_SEND, .peer = peer, .a = src, .count = count},
                   deps, ndeps);
}

int trl_sched_recv(trl_sched *s, int peer, trl_ref dst, size_t count, const int *deps, int ndeps)
{
    return message(s, (trl_step){.kind = TRL_STEP_RECV, .peer = peer, .b = dst, .count = count},
                   deps, ndeps);
}

int trl_sched_copy(trl_sched *s, trl_ref src, trl_ref dst, size_t count, const int *deps, int ndeps)
{
    trl_step st = {.kind = TRL_STEP_COPY, .peer = -1, .a = src, .b = dst, .count = count};
    return add(s, st, deps, ndeps);
}

int trl_sched_reduce(trl_sched *s, trl_ref in, trl_ref inout, size_t count, const int *deps,
                     int ndeps)
{
    trl_step st = {
        .kind = TRL_STEP_REDUCE, .peer = -1, .a = in, .b = inout, .c = inout, .count = count};
    return add(s, st, deps, ndeps);
}

/* A fence over the steps added since the last one: all of them, or
 * (data_only) those that write data, leaving sends and joins out. */
static int fence_over(trl_sched *s, bool data_only)
{
    if (s->status != TRL_OK)
        return s->status;
    size_t from = s->fence_from, to = s->nsteps, n = 0;
    if (from == to)
        return s->fence; /* nothing new to wait for */
    int *deps = malloc((to - from) * sizeof *deps);
    if (!deps)
        return fail(s, TRL_ERR_NOMEM);
    for (size_t i = from; i < to; i++) {
        trl_step_kind kind = s->steps[i].kind;
        if (!data_only || (kind != TRL_STEP_SEND && kind != TRL_STEP_NOP))
            deps[n++] = (int)i;
    }
    trl_step st = {.kind = TRL_STEP_NOP, .peer = -1};
    int id = n > 0 ? add(s, st, deps, (int)n) : s->fence;
    free(deps);
    if (id >= 0) {
        s->fence = id;
        s->fence_from = s->nsteps;
    }
    return id;
}

int trl_sched_fence(trl_sched *s)
{
    return fence_over(s, false);
}

int trl_sched_fence_data(trl_sched *s)
{
    return fence_over(s, true);
}

int trl_sched_wait_for(trl_sched *s, const int *deps, int ndeps)
{
    if (s->status != TRL_OK)
        return s->status;
    int n = 0, only = -1;
    for (int i = 0; i < ndeps; i++) {
        if (deps[i] >= 0) {
            n++;
            only = deps[i];
        }
    }
    s->fence = -1;
    trl_step st = {.kind = TRL_STEP_NOP, .peer = -1};
    int id = n > 1 ? add(s, st, deps, ndeps) : only;
    if (s->status != TRL_OK)
        return s->status;
    s->fence = id;
    s->fence_from = s->nsteps;
    return id;
}

/* The index of `name` written under phase `outer` ("outer/name"; an
 * empty name is `outer` itself), added to the table if new. */
static int phase_index(trl_sched *s, uint16_t outer, const char *name)
{
    if (s->status != TRL_OK)
        return s->status;
    const char *prefix = s->phase_names[outer];
    size_t lp = strlen(prefix), ln = strlen(name);
    if (ln == 0)
        return outer;
    char *full = malloc(lp + ln + 2);
    if (!full)
        return fail(s, TRL_ERR_NOMEM);
    if (lp) {
        memcpy(full, prefix, lp);
        full[lp++] = '/';
    }
    memcpy(full + lp, name, ln + 1);
    for (uint16_t i = 0; i < s->nphases; i++)
        if (!strcmp(s->phase_names[i], full)) {
            free(full);
            return i;
        }
    if (s->nphases == UINT16_MAX) {
        free(full);
        return fail(s, TRL_ERR_INVALID);
    }
    if (s->nphases == s->cap_phases) {
        unsigned cap = 2u * s->cap_phases;
        char **names = realloc(s->phase_names,
                               (cap > UINT16_MAX ? UINT16_MAX : cap) * sizeof *names);
        if (!names) {
            free(full);
            return fail(s, TRL_ERR_NOMEM);
        }
        s->phase_names = names;
        s->cap_phases = (uint16_t)(cap > UINT16_MAX ? UINT16_MAX : cap);
    }
    s->phase_names[s->nphases] = full;
    return s->nphases++;
}

int trl_sched_phase(trl_sched *s, const char *name)
{
    int i = phase_index(s, s->phase_scope, name);
    if (i >= 0)
        s->phase = (uint16_t)i;
    return i;
}

int trl_sched_phase_enter(trl_sched *s, const char *name)
{
    int outer = s->phase_scope, i = trl_sched_phase(s, name);
    if (i < 0)
        return i;
    s->phase_scope = (uint16_t)i;
    return outer;
}

void trl_sched_phase_leave(trl_sched *s, int outer)
{
    if (outer < 0 || outer >= s->nphases)
        return;
    s->phase_scope = s->phase = (uint16_t)outer;
}

const char *trl_sched_phase_name(const trl_sched *s, int phase)
{
    return phase >= 0 && phase < s->nphases ? s->phase_names[phase] : "";
}

static trl_ref translate(trl_ref r, const trl_sched_map *m, size_t scratch)
{
    if (r.buf == TRL_BUF_AUX) /* the run names it, not the schedule: as it is */
        return r;
    trl_ref base = r.buf == TRL_BUF_SEND   ? m->send
                   : r.buf == TRL_BUF_RECV ? m->recv
                                           : trl_ref_at(TRL_BUF_SCRATCH, scratch);
    return trl_ref_at(base.buf, base.off + r.off);
}

int trl_sched_append(trl_sched *s, const trl_sched *sub, const trl_sched_map *m)
{
    if (sub->status != TRL_OK)
        return fail(s, sub->status);
    size_t scratch = trl_sched_scratch(s, sub->scratch);
    int base = (int)s->nsteps;
    int *deps = malloc((sub->ndeps ? sub->ndeps : 1) * sizeof *deps);
    uint16_t *phase = malloc(sub->nphases * sizeof *phase), current = s->phase;
    if (!deps || !phase) {
        free(deps);
        free(phase);
        return fail(s, TRL_ERR_NOMEM);
    }
    /* sub's phases, written under the current phase of s. */
    for (uint16_t j = 0; j < sub->nphases; j++) {
        int k = phase_index(s, current, sub->phase_names[j]);
        phase[j] = k >= 0 ? (uint16_t)k : 0;
    }
    for (size_t i = 0; i < sub->nsteps && s->status == TRL_OK; i++) {
        const trl_step *st = &sub->steps[i];
        s->phase = phase[st->phase];
        /* A sub step's own fence is among its listed dependencies. */
        int n = 0;
        for (uint32_t d = 0; d < st->ndeps; d++)
            deps[n++] = base + sub->deps[st->dep_first + d];
        trl_ref a = translate(st->a, m, scratch), b = translate(st->b, m, scratch);
        switch (st->kind) {
        case TRL_STEP_SEND: trl_sched_send(s, m->ranks[st->peer], a, st->count, deps, n); break;
        case TRL_STEP_RECV: trl_sched_recv(s, m->ranks[st->peer], b, st->count, deps, n); break;
        case TRL_STEP_COPY: trl_sched_copy(s, a, b, st->count, deps, n); break;
        case TRL_STEP_REDUCE: {
            /* c is b while sub is unfinished, as it must be; a finished
             * sub's folded c would otherwise be lost here. */
            int id = trl_sched_reduce(s, a, b, st->count, deps, n);
            if (id >= 0)
                s->steps[id].c = translate(st->c, m, scratch);
            break;
        }
        case TRL_STEP_NOP: add(s, (trl_step){.kind = TRL_STEP_NOP, .peer = -1}, deps, n); break;
        }
    }
    s->phase = current;
    free(deps);
    free(phase);
    return s->status;
}

static bool overlap(trl_ref x, trl_ref y, size_t count)
{
    return x.buf == y.buf && x.off < y.off + count && y.off < x.off + count;
}

/* trl_sched_finish's fold. Safe because the copy's only successor is the
 * reduce: whatever had to wait for the copy (a write to its source, a read
 * of what it wrote) waits for the reduce, and whatever the copy waited
 * for, the nop left in its place still does. */
static void fold_copies(trl_sched *s)
{
    for (size_t i = 0; i < s->nsteps; i++) {
        trl_step *r = &s->steps[i];
        if (r->kind != TRL_STEP_REDUCE || r->count == 0 || !trl_ref_same(r->b, r->c))
            continue;
        for (uint32_t d = 0; d < r->ndeps; d++) {
            int k = s->deps[r->dep_first + d];
            trl_step *c = &s->steps[k];
            bool only_successor = s->succ_first[k + 1] - s->succ_first[k] == 1;
            if (c->kind != TRL_STEP_COPY || c->count != r->count || !only_successor ||
                !trl_ref_same(c->b, r->b) || overlap(c->a, c->b, c->count) ||
                overlap(r->a, r->b, r->count))
                continue;
            r->c = c->a;
            *c = (trl_step){.kind = TRL_STEP_NOP,
                            .peer = -1,
                            .phase = c->phase,
                            .dep_first = c->dep_first,
                            .ndeps = c->ndeps};
            break;
        }
    }
}

/* trl_sched_finish's chain (TRL_SCHED_TAG_PERIOD): each message in a
 * direction with more than a period of messages waits for the one a period
 * before it. The dependency slices are copied anew with room for that;
 * within a direction tags grow with step ids, so one pass in step order
 * keeps, per direction, the last period's step ids. Nothing happens unless
 * some direction has that many messages (pipelines in small segments). */
static int chain_tags(trl_sched *s)
{
    enum { P = TRL_SCHED_TAG_PERIOD };
    size_t extra = 0;
    for (size_t j = 0; j < s->seq_cap; j++) {
        const trl_sched_seq *q = &s->seq[j];
        if (q->peer >= 0)
            extra += (size_t)(q->sends > P ? q->sends - P : 0) +
                     (size_t)(q->recvs > P ? q->recvs - P : 0);
    }
    if (extra == 0)
        return TRL_OK;
    int **last = calloc(2 * s->seq_cap, sizeof *last); /* [2 slot + is_recv] */
    int *deps = malloc((s->ndeps + extra) * sizeof *deps);
    bool ok = last && deps;
    for (size_t j = 0; ok && j < s->seq_cap; j++) {
        const trl_sched_seq *q = &s->seq[j];
        if (q->peer >= 0 && q->sends > P)
            ok = (last[2 * j] = malloc(P * sizeof **last)) != NULL;
        if (ok && q->peer >= 0 && q->recvs > P)
            ok = (last[2 * j + 1] = malloc(P * sizeof **last)) != NULL;
    }
    size_t n = 0;
    for (size_t i = 0; ok && i < s->nsteps; i++) {
        trl_step *st = &s->steps[i];
        if (st->ndeps)
            memcpy(deps + n, s->deps + st->dep_first, st->ndeps * sizeof *deps);
        st->dep_first = (uint32_t)n;
        n += st->ndeps;
        if (st->kind != TRL_STEP_SEND && st->kind != TRL_STEP_RECV)
            continue;
        int *ids = last[2 * slot_of(s, st->peer) + (st->kind == TRL_STEP_RECV)];
        if (!ids)
            continue;
        if (st->tag >= P) {
            deps[n++] = ids[st->tag % P];
            st->ndeps++;
        }
        ids[st->tag % P] = (int)i;
    }
    for (size_t j = 0; last && j < 2 * s->seq_cap; j++)
        free(last[j]);
    free(last);
    if (!ok) {
        free(deps);
        return fail(s, TRL_ERR_NOMEM);
    }
    free(s->deps);
    s->deps = deps;
    s->ndeps = n;
    s->cap_deps = n;
    return TRL_OK;
}

int trl_sched_finish(trl_sched *s)
{
    if (s->status == TRL_OK)
        chain_tags(s);
    free(s->seq);
    s->seq = NULL;
    s->seq_cap = s->seq_n = 0;
    if (s->status != TRL_OK)
        return s->status;

    size_t n = s->nsteps;
    s->succ_first = calloc(n + 1, sizeof *s->succ_first);
    s->succ = malloc((s->ndeps ? s->ndeps : 1) * sizeof *s->succ);
    s->roots = malloc((n ? n : 1) * sizeof *s->roots);
    if (!s->succ_first || !s->succ || !s->roots)
        return fail(s, TRL_ERR_NOMEM);

    /* Count successors per step, prefix-sum into offsets, then fill. */
    for (size_t i = 0; i < s->ndeps; i++)
        s->succ_first[s->deps[i] + 1]++;
    for (size_t i = 0; i < n; i++)
        s->succ_first[i + 1] += s->succ_first[i];
    uint32_t *fill = calloc(n + 1, sizeof *fill);
    if (!fill)
        return fail(s, TRL_ERR_NOMEM);
    for (size_t i = 0; i < n; i++) {
        const trl_step *st = &s->steps[i];
        for (uint32_t d = 0; d < st->ndeps; d++) {
            int dep = s->deps[st->dep_first + d];
            s->succ[s->succ_first[dep] + fill[dep]++] = (uint32_t)i;
        }
        if (st->ndeps == 0)
            s->roots[s->nroots++] = (uint32_t)i;
    }
    free(fill);
    fold_copies(s);
    return TRL_OK;
}

const char *trl_buf_name(trl_buf b)
{
    static const char *names[TRL_BUF_KINDS] = {"send", "recv", "scratch", "aux"};
    return names[b];
}

void trl_sched_print_goal(const trl_sched *s, size_t elem_size, FILE *out)
{
    fprintf(out, "rank %d {\n", s->rank);
    for (size_t i = 0; i < s->nsteps; i++) {
        const trl_step *st = &s->steps[i];
        size_t bytes = st->count * elem_size;
        switch (st->kind) {
        case TRL_STEP_SEND:
            fprintf(out, "l%zu: send %zub to %d tag %d\n", i + 1, bytes, st->peer, st->tag);
            break;
        case TRL_STEP_RECV:
            fprintf(out, "l%zu: recv %zub from %d tag %d\n", i + 1, bytes, st->peer, st->tag);
            break;
        case TRL_STEP_NOP:
        case TRL_STEP_COPY:
        case TRL_STEP_REDUCE:
            /* GOAL has no copy or reduce; both are local work of a cost
             * proportional to the bytes touched. */
            fprintf(out, "l%zu: calc %zu\n", i + 1, bytes);
            break;
        }
    }
    for (size_t i = 0; i < s->nsteps; i++) {
        const trl_step *st = &s->steps[i];
        for (uint32_t d = 0; d < st->ndeps; d++)
            fprintf(out, "l%zu requires l%d\n", i + 1, s->deps[st->dep_first + d] + 1);
    }
    fprintf(out, "}\n");
}

void trl_sched_print_steps(const trl_sched *s, FILE *out)
{
    static const char *names[] = {"send", "recv", "copy", "reduce", "nop"};
    fprintf(out, "rank %d: %zu steps, scratch %zu elements\n", s->rank, s->nsteps, s->scratch);
    for (size_t i = 0; i < s->nsteps; i++) {
        const trl_step *st = &s->steps[i];
        bool changed = i == 0 ? st->phase != 0 : s->steps[i - 1].phase != st->phase;
        if (changed)
            fprintf(out, "  phase %s:\n",
                    st->phase ? trl_sched_phase_name(s, st->phase) : "(none)");
        fprintf(out, "  l%zu: %-6s", i + 1, names[st->kind]);
        if (st->kind == TRL_STEP_SEND)
            fprintf(out, " %s+%zu to %d", trl_buf_name(st->a.buf), st->a.off, st->peer);
        else if (st->kind == TRL_STEP_RECV)
            fprintf(out, " %s+%zu from %d", trl_buf_name(st->b.buf), st->b.off, st->peer);
        else if (st->kind == TRL_STEP_REDUCE && !trl_ref_same(st->b, st->c))
            fprintf(out, " %s+%zu, %s+%zu -> %s+%zu", trl_buf_name(st->a.buf), st->a.off,
                    trl_buf_name(st->c.buf), st->c.off, trl_buf_name(st->b.buf), st->b.off);
        else if (st->kind != TRL_STEP_NOP)
            fprintf(out, " %s+%zu -> %s+%zu", trl_buf_name(st->a.buf), st->a.off,
                    trl_buf_name(st->b.buf), st->b.off);
        fprintf(out, " x%zu", st->count);
        if (st->kind == TRL_STEP_SEND || st->kind == TRL_STEP_RECV)
            fprintf(out, " tag %d", st->tag);
        for (uint32_t d = 0; d < st->ndeps; d++)
            fprintf(out, "%s l%d", d ? "," : " after", s->deps[st->dep_first + d] + 1);
        fputc('\n', out);
    }
}
