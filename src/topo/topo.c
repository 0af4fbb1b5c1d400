/* Topologies: one host, a communicator's subset, and the printed line
 * (docs/topology.md). Reading TRELLIS_TOPOLOGY is in layout_parse.c. */
#include "topo/topo.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

int trl_topo_single_host(int size, trl_topo *out)
{
    memset(out, 0, sizeof *out);
    if (size < 0)
        return TRL_ERR_INVALID;
    size_t bytes = (size_t)(size > 0 ? size : 1) * sizeof(int);
    out->host = malloc(bytes);
    out->socket = malloc(bytes);
    out->numa = malloc(bytes);
    if (!out->host || !out->socket || !out->numa) {
        trl_topo_free(out);
        return TRL_ERR_NOMEM;
    }
    for (int r = 0; r < size; r++) {
        out->host[r] = 0;
        out->socket[r] = out->numa[r] = -1;
    }
    out->size = size;
    out->nhosts = size > 0;
    out->world_order = true;
    trl_topo_summarize(out);
    return TRL_OK;
}

int trl_topo_subset(const trl_topo *world, const int *world_ranks, int n, trl_topo *out)
{
    for (int i = 0; i < n; i++)
        if (world_ranks[i] < 0 || world_ranks[i] >= world->size) {
            memset(out, 0, sizeof *out);
            return TRL_ERR_INVALID;
        }
    int rc = trl_topo_single_host(n, out);
    int *renumber = rc ? NULL
                       : malloc((size_t)(world->nhosts > 0 ? world->nhosts : 1) * sizeof *renumber);
    if (!renumber) {
        trl_topo_free(out);
        return rc ? rc : TRL_ERR_NOMEM;
    }
    for (int h = 0; h < world->nhosts; h++)
        renumber[h] = -1;
    out->nhosts = 0;
    out->world_order = n == world->size;
    for (int i = 0; i < n; i++) {
        int w = world_ranks[i], h = world->host[w];
        if (renumber[h] < 0)
            renumber[h] = out->nhosts++;
        out->host[i] = renumber[h];
        out->socket[i] = world->socket[w];
        out->numa[i] = world->numa[w];
        out->world_order = out->world_order && w == i;
    }
    free(renumber);
    out->described = world->described;
    trl_topo_summarize(out);
    return TRL_OK;
}

/* A host's ranks are consecutive when it starts a run once: a rank on
 * another host than the rank before it starts a run, and a host that
 * starts two is split. Hosts are 0..nhosts-1, so one pass with a count per
 * host does. */
void trl_topo_summarize(trl_topo *t)
{
    t->max_per_host = 0;
    t->block = true;
    int n = t->nhosts > 0 ? t->nhosts : 1;
    int *ranks = calloc((size_t)n, sizeof *ranks), *runs = calloc((size_t)n, sizeof *runs);
    if (!ranks || !runs) { /* out of memory: the values of one host */
        t->max_per_host = t->size;
        free(ranks);
        free(runs);
        return;
    }
    for (int r = 0; r < t->size; r++) {
        int h = t->host[r];
        if (h < 0 || h >= n)
            continue; /* not placed yet (a parser still filling host[]) */
        if (++ranks[h] > t->max_per_host)
            t->max_per_host = ranks[h];
        if ((r == 0 || t->host[r - 1] != h) && ++runs[h] > 1)
            t->block = false;
    }
    free(ranks);
    free(runs);
}

trl_layout_stats trl_topo_stats(const trl_topo *t, int size)
{
    if (!t || t->nhosts < 1)
        return (trl_layout_stats){1, size, true};
    return (trl_layout_stats){t->nhosts, t->max_per_host, t->block};
}

void trl_topo_free(trl_topo *t)
{
    free(t->host);
    free(t->socket);
    free(t->numa);
    memset(t, 0, sizeof *t);
}

static const char *const link_names[TRL_LINK_COUNT] = {"socket", "host", "world"};

const char *trl_link_name(trl_link c)
{
    return c >= 0 && c < TRL_LINK_COUNT ? link_names[c] : "?";
}

trl_link trl_link_between(const trl_topo *t, int a, int b)
{
    if (!t || !t->host || t->host[a] == t->host[b]) {
        bool one_socket = t && t->socket && t->socket[a] >= 0 && t->socket[a] == t->socket[b];
        return one_socket ? TRL_LINK_SOCKET : TRL_LINK_HOST;
    }
    return TRL_LINK_WORLD;
}

/* ---- printing ------------------------------------------------------------ */

/* Text that stops, with "...", at the first piece that does not fit. */
typedef struct {
    char *buf;
    size_t len, at;
    bool cut;
} line;

static void put(line *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(line *o, const char *fmt, ...)
{
    if (o->cut)
        return;
    char piece[128]; /* the longest piece is the first line's start */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(piece, sizeof piece, fmt, ap);
    va_end(ap);
    /* Room for the piece and, should a later one not fit, "...". */
    if (n < 0 || (size_t)n >= sizeof piece || o->at + (size_t)n + 4 > o->len) {
        o->cut = true;
        if (o->at + 4 <= o->len)
            memcpy(o->buf + o->at, "...", 4);
        return;
    }
    memcpy(o->buf + o->at, piece, (size_t)n + 1);
    o->at += (size_t)n;
}

/* Increasing ranks as "0-3,8,10-11". */
static void put_runs(line *o, const int *ranks, int n)
{
    for (int i = 0; i < n && !o->cut;) {
        int j = i;
        while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
            j++;
        if (j > i)
            put(o, "%s%d-%d", i ? "," : "", ranks[i], ranks[j]);
        else
            put(o, "%s%d", i ? "," : "", ranks[i]);
        i = j + 1;
    }
}

typedef struct {
    int key, rank;
} keyed;

static int by_key_then_rank(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* Scratch for put_sockets, one entry per rank. */
typedef struct {
    keyed *by_socket, *groups;
    int *ranks;
} scratch;

/* One host's ranks (increasing), grouped by socket, the sockets in the
 * order of their first rank; ranks of unknown socket last, as "[?: ...]".
 * Sorting keeps this n log n for hosts of any size. */
static void put_sockets(line *o, const trl_topo *t, const int *ranks, int n, scratch *s)
{
    for (int i = 0; i < n; i++) {
        int socket = t->socket[ranks[i]];
        s->by_socket[i] = (keyed){socket >= 0 ? socket : INT_MAX, ranks[i]};
    }
    qsort(s->by_socket, (size_t)n, sizeof *s->by_socket, by_key_then_rank);
    int ngroups = 0, known = 0;
    for (; known < n && s->by_socket[known].key != INT_MAX; known++)
        if (known == 0 || s->by_socket[known].key != s->by_socket[known - 1].key)
            s->groups[ngroups++] = (keyed){s->by_socket[known].rank, known}; /* first rank, start */
    qsort(s->groups, (size_t)ngroups, sizeof *s->groups, by_key_then_rank);
    for (int g = 0; g < ngroups && !o->cut; g++) {
        int at = s->groups[g].rank, k = 0;
        for (int i = at; i < known && s->by_socket[i].key == s->by_socket[at].key; i++)
            s->ranks[k++] = s->by_socket[i].rank;
        put(o, "%s[", g ? " " : "");
        put_runs(o, s->ranks, k);
        put(o, "]");
    }
    if (known < n) {
        for (int i = known; i < n; i++)
            s->ranks[i - known] = s->by_socket[i].rank;
        put(o, " [?: ");
        put_runs(o, s->ranks, n - known);
        put(o, "]");
    }
}

void trl_topo_format(const trl_topo *t, char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
    line o = {buf, len, 0, false};
    put(&o, "layout: %d rank%s on %d host%s (%s)", t->size, t->size == 1 ? "" : "s", t->nhosts,
        t->nhosts == 1 ? "" : "s", t->described ? "described" : "discovered");
    /* The ranks sorted by host (each host's in rank order): host h's are
     * by_host[start[h] .. start[h+1]). */
    size_t n = (size_t)(t->size > 0 ? t->size : 1);
    int *start = calloc((size_t)t->nhosts + 2, sizeof *start);
    int *by_host = malloc(n * sizeof *by_host);
    scratch s = {malloc(n * sizeof *s.by_socket), malloc(n * sizeof *s.groups),
                 malloc(n * sizeof *s.ranks)};
    if (start && by_host && s.by_socket && s.groups && s.ranks) {
        for (int r = 0; r < t->size; r++)
            start[t->host[r] + 2]++;
        for (int h = 0; h < t->nhosts; h++)
            start[h + 2] += start[h + 1];
        for (int r = 0; r < t->size; r++)
            by_host[start[t->host[r] + 1]++] = r;
        put(&o, ":");
        for (int h = 0; h < t->nhosts && !o.cut; h++) {
            const int *ranks = by_host + start[h];
            int count = start[h + 1] - start[h];
            bool sockets = false;
            for (int i = 0; i < count; i++)
                sockets = sockets || t->socket[ranks[i]] >= 0;
            put(&o, "%s host %d: ", h ? " |" : "", h);
            if (sockets)
                put_sockets(&o, t, ranks, count, &s);
            else
                put_runs(&o, ranks, count);
        }
    }
    free(start);
    free(by_host);
    free(s.by_socket);
    free(s.groups);
    free(s.ranks);
}

void trl_topo_error_format(const trl_topo_error *err, char *buf, size_t len)
{
    trl_format_where(buf, len, err->source, err->line, err->column, err->message);
}
