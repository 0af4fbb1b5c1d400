/* Described layouts: the text of TRELLIS_TOPOLOGY (docs/topology.md).
 *
 * The words are read into a list of settings first and the layout is built
 * from them in one place afterwards, so the checks that involve several
 * keys (counts that must add up, forms that must not mix) see them all,
 * whatever order they were written in. Telling a file's name from a
 * layout inline in TRELLIS_TOPOLOGY, and reading the file, is
 * layout_env.c's. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "topo/topo.h"

typedef struct {
    int line, column; /* line 0: nowhere */
} where;

static const where nowhere = {0, 0};

/* A list as written, "0-3,8": ranges of ranks. */
typedef struct {
    int lo, hi;
} range;

typedef struct {
    range *ranges;
    int n;
    where at;
} rank_list;

typedef struct {
    rank_list *v;
    int n, cap;
} lists;

enum { K_HOSTS, K_RANKS_PER_HOST, K_PLACEMENT, K_SOCKETS_PER_HOST, K_NUMA_PER_SOCKET, K_COUNT };
enum { L_HOST, L_SOCKET, L_NUMA, L_COUNT };

static const char *const key_names[K_COUNT] = {"hosts", "ranks_per_host", "placement",
                                               "sockets_per_host", "numa_per_socket"};
static const char *const list_names[L_COUNT] = {"host", "socket", "numa"};

typedef struct {
    const char *source;
    bool inline_text;
    trl_topo_error *err;
    /* The settings, and where each key was given (line 0: not given). */
    where key_at[K_COUNT];
    int hosts, sockets_per_host, numa_per_socket;
    bool round_robin;
    int *per_host, nper_host;
    lists list[L_COUNT];
} layout;

static int fail(layout *l, where at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(layout *l, where at, const char *fmt, ...)
{
    trl_topo_error *e = l->err;
    snprintf(e->source, sizeof e->source, "%s", l->source);
    e->line = at.line;
    e->column = l->inline_text ? at.column : 0; /* a file's line is enough */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return TRL_ERR_INVALID;
}

static bool given(const layout *l, int key)
{
    return l->key_at[key].line > 0;
}

static bool before(where a, where b)
{
    return a.line < b.line || (a.line == b.line && a.column < b.column);
}

/* At most 40 characters of what was written, for messages. */
#define QUOTE(s, len) (int)((len) < 40 ? (len) : 40), (s)

/* ---- values -------------------------------------------------------------- */

static int parse_number(layout *l, where at, const char *key, const char *s, size_t len, int lo,
                        int hi, int *out)
{
    long long x = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i]))
            return fail(l, at, "%s: expected a number, got '%.*s'", key, QUOTE(s, len));
        if (x <= hi) /* saturates: only "too large" matters past hi */
            x = x * 10 + (s[i] - '0');
    }
    if (len == 0)
        return fail(l, at, "%s: expected a number, got ''", key);
    if (x < lo || x > hi)
        return fail(l, at, "%s: %.*s is out of range (%d..%d)", key, QUOTE(s, len), lo, hi);
    *out = (int)x;
    return TRL_OK;
}

/* "4" or "4,3,2": ranks_per_host's counts. */
static int parse_counts(layout *l, where at, const char *s, size_t len)
{
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += s[i] == ',';
    l->per_host = malloc((size_t)n * sizeof *l->per_host);
    if (!l->per_host)
        return fail(l, at, "out of memory");
    for (const char *p = s, *end = s + len; l->nper_host < n; p++) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        if (parse_number(l, at, "ranks_per_host", p, (size_t)(stop - p), 1, TRL_TOPO_MAX_RANKS,
                         &l->per_host[l->nper_host++]))
            return TRL_ERR_INVALID;
        p = stop;
    }
    return TRL_OK;
}

/* "a" or "a-b". */
static int parse_range(layout *l, where at, const char *key, const char *s, size_t len, range *r)
{
    const char *dash = memchr(s, '-', len);
    size_t first = dash ? (size_t)(dash - s) : len;
    if (parse_number(l, at, key, s, first, 0, TRL_TOPO_MAX_RANKS - 1, &r->lo))
        return TRL_ERR_INVALID;
    r->hi = r->lo;
    if (dash &&
        parse_number(l, at, key, dash + 1, len - first - 1, 0, TRL_TOPO_MAX_RANKS - 1, &r->hi))
        return TRL_ERR_INVALID;
    if (r->hi < r->lo)
        return fail(l, at, "%s: the range %.*s goes backwards", key, QUOTE(s, len));
    return TRL_OK;
}

/* host=, socket= or numa=: one more list of that kind. */
static int parse_list(layout *l, where at, int kind, const char *s, size_t len)
{
    lists *ls = &l->list[kind];
    if (ls->n == ls->cap) {
        int cap = ls->cap ? 2 * ls->cap : 16;
        rank_list *v = realloc(ls->v, (size_t)cap * sizeof *v);
        if (!v)
            return fail(l, at, "out of memory");
        ls->v = v;
        ls->cap = cap;
    }
    rank_list *rl = &ls->v[ls->n++];
    *rl = (rank_list){.at = at};
    int n = 1;
    for (size_t i = 0; i < len; i++)
        n += s[i] == ',';
    rl->ranges = malloc((size_t)n * sizeof *rl->ranges);
    if (!rl->ranges)
        return fail(l, at, "out of memory");
    for (const char *p = s, *end = s + len; rl->n < n; p++) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        if (parse_range(l, at, list_names[kind], p, (size_t)(stop - p), &rl->ranges[rl->n++]))
            return TRL_ERR_INVALID;
        p = stop;
    }
    return TRL_OK;
}

static int parse_key(layout *l, where at, int key, const char *v, size_t len)
{
    if (given(l, key))
        return fail(l, at, "%s given twice (first at %s %d)", key_names[key],
                    l->inline_text ? "column" : "line",
                    l->inline_text ? l->key_at[key].column : l->key_at[key].line);
    l->key_at[key] = at;
    switch (key) {
    case K_HOSTS: return parse_number(l, at, "hosts", v, len, 1, TRL_TOPO_MAX_RANKS, &l->hosts);
    case K_RANKS_PER_HOST: return parse_counts(l, at, v, len);
    case K_PLACEMENT:
        if (len == 5 && !memcmp(v, "block", 5))
            return TRL_OK;
        if (len == 11 && !memcmp(v, "round-robin", 11)) {
            l->round_robin = true;
            return TRL_OK;
        }
        return fail(l, at, "placement: expected block or round-robin, got '%.*s'", QUOTE(v, len));
    case K_SOCKETS_PER_HOST:
        return parse_number(l, at, "sockets_per_host", v, len, 1, TRL_TOPO_MAX_RANKS,
                            &l->sockets_per_host);
    default:
        return parse_number(l, at, "numa_per_socket", v, len, 1, TRL_TOPO_MAX_RANKS,
                            &l->numa_per_socket);
    }
}

static bool word_is(const char *name, const char *s, size_t len)
{
    return strlen(name) == len && !memcmp(name, s, len);
}

/* One key=value word. */
static int parse_word(layout *l, where at, const char *w, size_t len)
{
    const char *eq = memchr(w, '=', len);
    if (!eq || eq == w)
        return fail(l, at, "expected key=value, got '%.*s'", QUOTE(w, len));
    size_t klen = (size_t)(eq - w), vlen = len - klen - 1;
    int key = -1, kind = -1;
    for (int k = 0; k < K_COUNT; k++)
        if (word_is(key_names[k], w, klen))
            key = k;
    for (int k = 0; k < L_COUNT; k++)
        if (word_is(list_names[k], w, klen))
            kind = k;
    if (key < 0 && kind < 0)
        return fail(l, at,
                    "unknown key '%.*s' (expected hosts, ranks_per_host, placement, "
                    "sockets_per_host, numa_per_socket, host, socket or numa)",
                    QUOTE(w, klen));
    if (vlen == 0)
        return fail(l, at, "missing value after '%.*s='", QUOTE(w, klen));
    return key >= 0 ? parse_key(l, at, key, eq + 1, vlen) : parse_list(l, at, kind, eq + 1, vlen);
}

/* Words are separated by blanks and newlines; '#' comments to the end of
 * the line. */
static int parse_words(layout *l, const char *text)
{
    where at = {1, 1};
    const char *line_start = text;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            at.line++;
            line_start = ++p;
        } else if (isspace((unsigned char)*p)) {
            p++;
        } else if (*p == '#') {
            p += strcspn(p, "\n");
        } else {
            size_t len = 0;
            while (p[len] && !isspace((unsigned char)p[len]) && p[len] != '#')
                len++;
            at.column = (int)(p - line_start) + 1;
            if (parse_word(l, at, p, len))
                return TRL_ERR_INVALID;
            p += len;
        }
    }
    return TRL_OK;
}

/* ---- hosts ----------------------------------------------------------------- */

static int hosts_by_counts(layout *l, trl_topo *t)
{
    where at = l->key_at[K_RANKS_PER_HOST];
    if (!given(l, K_RANKS_PER_HOST))
        return fail(l, l->key_at[K_HOSTS],
                    "hosts= needs ranks_per_host= (one count, or one "
                    "per host)");
    if (!given(l, K_HOSTS))
        return fail(l, at, "ranks_per_host= needs hosts=");
    if (l->nper_host != 1 && l->nper_host != l->hosts)
        return fail(l, at,
                    "ranks_per_host has %d counts but hosts=%d (give one count, or one "
                    "per host)",
                    l->nper_host, l->hosts);
    int *left = malloc((size_t)l->hosts * sizeof *left);
    if (!left)
        return fail(l, at, "out of memory");
    long long total = 0;
    for (int h = 0; h < l->hosts; h++) {
        left[h] = l->per_host[l->nper_host == 1 ? 0 : h];
        total += left[h];
    }
    if (total > TRL_TOPO_MAX_RANKS || trl_topo_single_host((int)total, t)) {
        free(left);
        return total > TRL_TOPO_MAX_RANKS ? fail(l, at, "the layout has %lld ranks, more than %d",
                                                 total, TRL_TOPO_MAX_RANKS)
                                          : fail(l, at, "out of memory");
    }
    /* block: fill each host in turn; round-robin: deal to the hosts in
     * turn, skipping those that are full. */
    for (int r = 0, h = 0; r < t->size; r++) {
        while (left[h] == 0)
            h = (h + 1) % l->hosts;
        t->host[r] = h;
        left[h]--;
        if (l->round_robin)
            h = (h + 1) % l->hosts;
    }
    free(left);
    t->nhosts = l->hosts;
    return TRL_OK;
}

/* Give the ranks of lists[i] id i in of[] (size ranks, -1 where unset):
 * every rank named once, within the layout. */
static int assign_lists(layout *l, int kind, int *of, int size)
{
    const char *what = list_names[kind];
    for (int i = 0; i < l->list[kind].n; i++) {
        const rank_list *rl = &l->list[kind].v[i];
        for (int k = 0; k < rl->n; k++)
            for (int r = rl->ranges[k].lo; r <= rl->ranges[k].hi; r++) {
                if (r >= size)
                    return fail(l, rl->at,
                                "%s %d names rank %d, but the layout has %d ranks "
                                "(0..%d)",
                                what, i, r, size, size - 1);
                if (of[r] == i)
                    return fail(l, rl->at, "%s %d names rank %d twice", what, i, r);
                if (of[r] >= 0)
                    return fail(l, rl->at, "rank %d is on %s %d and %s %d", r, what, of[r], what,
                                i);
                of[r] = i;
            }
    }
    for (int r = 0; r < size; r++)
        if (of[r] < 0)
            return fail(l, nowhere, "rank %d is in no %s= list (give every rank one)", r, what);
    return TRL_OK;
}

static int hosts_by_lists(layout *l, trl_topo *t)
{
    int size = 0;
    for (int i = 0; i < l->list[L_HOST].n; i++)
        for (int k = 0; k < l->list[L_HOST].v[i].n; k++)
            if (l->list[L_HOST].v[i].ranges[k].hi >= size)
                size = l->list[L_HOST].v[i].ranges[k].hi + 1;
    if (trl_topo_single_host(size, t))
        return fail(l, nowhere, "out of memory");
    for (int r = 0; r < size; r++)
        t->host[r] = -1;
    t->nhosts = l->list[L_HOST].n;
    return assign_lists(l, L_HOST, t->host, size);
}

/* The first word of the hosts= / ranks_per_host= form. */
static where counts_at(const layout *l)
{
    where h = l->key_at[K_HOSTS], k = l->key_at[K_RANKS_PER_HOST];
    return !given(l, K_HOSTS) || (given(l, K_RANKS_PER_HOST) && before(k, h)) ? k : h;
}

static int build_hosts(layout *l, trl_topo *t)
{
    bool counts = given(l, K_HOSTS) || given(l, K_RANKS_PER_HOST);
    bool by_lists = l->list[L_HOST].n > 0;
    if (counts && by_lists) {
        where c = counts_at(l), h = l->list[L_HOST].v[0].at;
        return fail(l, before(c, h) ? h : c,
                    "give hosts by hosts= and ranks_per_host=, or by "
                    "host= lists, not both");
    }
    if (!counts && !by_lists)
        return fail(l, nowhere,
                    "the layout is empty: give hosts=N ranks_per_host=K, or host= "
                    "lists");
    if (given(l, K_PLACEMENT) && !counts)
        return fail(l, l->key_at[K_PLACEMENT],
                    "placement= applies to hosts= and "
                    "ranks_per_host=, not to host= lists");
    return counts ? hosts_by_counts(l, t) : hosts_by_lists(l, t);
}

/* ---- sockets and NUMA domains --------------------------------------------- */

/* Cut each group's ranks, in rank order, into `parts` runs as equal as can
 * be, the first ones one larger. Runs are numbered group by group (empty
 * runs, of groups with fewer ranks than parts, get no number). */
static int split(const int *group, int size, int parts, int *out)
{
    int ngroups = 0;
    for (int r = 0; r < size; r++)
        ngroups = group[r] >= ngroups ? group[r] + 1 : ngroups;
    int *count = calloc((size_t)ngroups + 1, sizeof *count);
    int *first = calloc((size_t)ngroups + 1, sizeof *first);
    int *seen = calloc((size_t)ngroups + 1, sizeof *seen);
    if (!count || !first || !seen) {
        free(count);
        free(first);
        free(seen);
        return TRL_ERR_NOMEM;
    }
    for (int r = 0; r < size; r++)
        count[group[r]]++;
    for (int g = 1; g < ngroups; g++) /* the first id of group g's runs */
        first[g] = first[g - 1] + (count[g - 1] < parts ? count[g - 1] : parts);
    for (int r = 0; r < size; r++) {
        int g = group[r], i = seen[g]++;
        int base = count[g] / parts, extra = count[g] % parts;
        /* runs 0..extra-1 hold base+1 ranks, the others base */
        int run = i < extra * (base + 1) ? i / (base + 1) : extra + (i - extra * (base + 1)) / base;
        out[r] = first[g] + run;
    }
    free(count);
    free(first);
    free(seen);
    return TRL_OK;
}

/* Each list of `kind` within one `within` id (a host, or a socket). */
static int check_within(layout *l, int kind, const int *id, const int *within, int size,
                        const char *of)
{
    /* The lowest rank of each id (ids are list indexes, below size). */
    int *lowest = malloc((size_t)(size > 0 ? size : 1) * sizeof *lowest);
    if (!lowest)
        return fail(l, nowhere, "out of memory");
    for (int i = 0; i < size; i++)
        lowest[i] = -1;
    int rc = TRL_OK;
    for (int r = 0; r < size && rc == TRL_OK; r++) {
        int first = lowest[id[r]];
        if (first < 0)
            lowest[id[r]] = r;
        else if (within[first] != within[r])
            rc = fail(l, l->list[kind].v[id[r]].at, "%s %d spans %s %d and %s %d (ranks %d and %d)",
                      list_names[kind], id[r], of, within[first], of, within[r], first, r);
    }
    free(lowest);
    return rc;
}

/* One of a count key and lists of the same level, not both. */
static int one_way(layout *l, int key, int kind, const char *level)
{
    if (!given(l, key) || l->list[kind].n == 0)
        return TRL_OK;
    where k = l->key_at[key], first = l->list[kind].v[0].at;
    return fail(l, before(k, first) ? first : k, "give %s by %s= or by %s= lists, not both", level,
                key_names[key], list_names[kind]);
}

static int build_sockets(layout *l, trl_topo *t)
{
    if (one_way(l, K_SOCKETS_PER_HOST, L_SOCKET, "sockets"))
        return TRL_ERR_INVALID;
    if (given(l, K_SOCKETS_PER_HOST) && split(t->host, t->size, l->sockets_per_host, t->socket))
        return fail(l, nowhere, "out of memory");
    if (l->list[L_SOCKET].n == 0)
        return TRL_OK;
    if (assign_lists(l, L_SOCKET, t->socket, t->size))
        return TRL_ERR_INVALID;
    return check_within(l, L_SOCKET, t->socket, t->host, t->size, "host");
}

static int build_numa(layout *l, trl_topo *t)
{
    if (one_way(l, K_NUMA_PER_SOCKET, L_NUMA, "NUMA domains"))
        return TRL_ERR_INVALID;
    bool sockets = t->size > 0 && t->socket[0] >= 0;
    if (given(l, K_NUMA_PER_SOCKET)) {
        if (!sockets)
            return fail(l, l->key_at[K_NUMA_PER_SOCKET],
                        "numa_per_socket= needs sockets "
                        "(sockets_per_host= or socket= lists)");
        if (split(t->socket, t->size, l->numa_per_socket, t->numa))
            return fail(l, nowhere, "out of memory");
    }
    if (l->list[L_NUMA].n == 0)
        return TRL_OK;
    if (assign_lists(l, L_NUMA, t->numa, t->size) ||
        check_within(l, L_NUMA, t->numa, t->host, t->size, "host"))
        return TRL_ERR_INVALID;
    return sockets ? check_within(l, L_NUMA, t->numa, t->socket, t->size, "socket") : TRL_OK;
}

/* ---- the layout -------------------------------------------------------------- */

static void layout_free(layout *l)
{
    free(l->per_host);
    for (int k = 0; k < L_COUNT; k++) {
        for (int i = 0; i < l->list[k].n; i++)
            free(l->list[k].v[i].ranges);
        free(l->list[k].v);
    }
}

int trl_topo_parse(const char *text, const char *source, bool inline_text, trl_topo *out,
                   trl_topo_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    layout l = {.source = source, .inline_text = inline_text, .err = err};
    int rc = parse_words(&l, text ? text : "");
    if (rc == TRL_OK)
        rc = build_hosts(&l, out);
    if (rc == TRL_OK)
        rc = build_sockets(&l, out);
    if (rc == TRL_OK)
        rc = build_numa(&l, out);
    layout_free(&l);
    if (rc) {
        trl_topo_free(out);
        return rc;
    }
    out->described = true;
    out->world_order = true;
    trl_topo_summarize(out);
    return TRL_OK;
}
