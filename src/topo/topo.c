/* Described layouts (docs/topology.md), subsets and printing. A layout is
 * read into a list of settings first, then built in one place, so the
 * checks that involve several keys (counts that must add up, forms that
 * must not mix) see them all. */
#include "topo/topo.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/status.h"

enum { MAX_RANKS = 1 << 20, MAX_LISTS = 1 << 16 };

/* A list of ranks as written: "0-3,8" (one host's, socket's, NUMA's). */
typedef struct {
    int *ranks;
    int n;
    int line, column;
} rank_list;

typedef struct {
    const char *source;
    bool inline_text;
    trl_topo_error *err;
    int line, column; /* of the word being read */
    /* The settings; -1: not given. */
    int hosts, sockets_per_host, numa_per_socket, placement; /* placement: 0 block, 1 rr */
    int *per_host, nper_host;
    rank_list lists[3][64]; /* host=, socket=, numa= */
    int nlists[3];
    int pos[6][2]; /* where each count key was given: line, column */
} layout;

enum { L_HOST, L_SOCKET, L_NUMA };

static int fail(layout *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(layout *l, const char *fmt, ...)
{
    trl_topo_error *e = l->err;
    snprintf(e->source, sizeof e->source, "%s", l->source);
    e->line = l->line;
    e->column = l->column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return TRL_ERR_INVALID;
}

/* ---- values ------------------------------------------------------------------ */

static int parse_int(layout *l, const char *key, const char *v, size_t len, int lo, int hi,
                     int *out)
{
    long long x = 0;
    bool ok = len > 0 && len <= 9;
    for (size_t i = 0; ok && i < len; i++) {
        ok = isdigit((unsigned char)v[i]);
        x = x * 10 + (v[i] - '0');
    }
    if (!ok)
        return fail(l, "%s: expected a number, got '%.*s'", key, (int)(len < 40 ? len : 40), v);
    if (x < lo || x > hi)
        return fail(l, "%s: %lld is out of range (%d..%d)", key, x, lo, hi);
    *out = (int)x;
    return TRL_OK;
}

/* "a,b-c,...": ranks in the order written. */
static int parse_ranks(layout *l, const char *key, const char *v, size_t len, int **out, int *n)
{
    int cap = 0, *ranks = NULL;
    *n = 0;
    for (size_t i = 0; i <= len;) {
        size_t end = i;
        while (end < len && v[end] != ',')
            end++;
        const char *dash = memchr(v + i, '-', end - i);
        int lo, hi;
        if (parse_int(l, key, v + i, (dash ? (size_t)(dash - v) : end) - i, 0, MAX_RANKS - 1, &lo) ||
            (dash && parse_int(l, key, dash + 1, (size_t)(v + end - dash - 1), 0, MAX_RANKS - 1,
                               &hi))) {
            free(ranks);
            return TRL_ERR_INVALID;
        }
        if (!dash)
            hi = lo;
        if (hi < lo) {
            free(ranks);
            return fail(l, "%s: the range %d-%d goes backwards", key, lo, hi);
        }
        for (int r = lo; r <= hi; r++) {
            if (*n == cap) {
                cap = cap ? 2 * cap : 16;
                int *g = cap <= MAX_RANKS ? realloc(ranks, (size_t)cap * sizeof *g) : NULL;
                if (!g) {
                    free(ranks);
                    return fail(l, "%s: too many ranks", key);
                }
                ranks = g;
            }
            ranks[(*n)++] = r;
        }
        i = end + 1;
    }
    *out = ranks;
    return TRL_OK;
}

static const char *const count_keys[] = {"hosts", "ranks_per_host", "placement",
                                         "sockets_per_host", "numa_per_socket"};

static int setting(layout *l, const char *key, size_t klen, const char *v, size_t vlen)
{
    static const char *const list_keys[] = {"host", "socket", "numa"};
    for (int k = 0; k < 3; k++) {
        if (strlen(list_keys[k]) != klen || strncmp(key, list_keys[k], klen))
            continue;
        if (l->nlists[k] == (int)(sizeof l->lists[k] / sizeof l->lists[k][0]))
            return fail(l, "too many %s= lists (at most 64)", list_keys[k]);
        rank_list *rl = &l->lists[k][l->nlists[k]];
        if (parse_ranks(l, list_keys[k], v, vlen, &rl->ranks, &rl->n))
            return TRL_ERR_INVALID;
        rl->line = l->line;
        rl->column = l->column;
        l->nlists[k]++;
        return TRL_OK;
    }
    int which = -1;
    for (int k = 0; k < 5; k++)
        if (strlen(count_keys[k]) == klen && !strncmp(key, count_keys[k], klen))
            which = k;
    if (which < 0)
        return fail(l, "unknown key '%.*s' (expected hosts, ranks_per_host, placement, "
                    "sockets_per_host, numa_per_socket, host, socket or numa)",
                    (int)(klen < 40 ? klen : 40), key);
    if (l->pos[which][0])
        return fail(l, "%s given twice", count_keys[which]);
    l->pos[which][0] = l->line;
    l->pos[which][1] = l->column;
    switch (which) {
    case 0:
        return parse_int(l, "hosts", v, vlen, 1, MAX_RANKS, &l->hosts);
    case 1:
        return parse_ranks(l, "ranks_per_host", v, vlen, &l->per_host, &l->nper_host);
    case 2:
        if (vlen == 5 && !strncmp(v, "block", 5))
            l->placement = 0;
        else if (vlen == 11 && !strncmp(v, "round-robin", 11))
            l->placement = 1;
        else
            return fail(l, "placement: expected block or round-robin, got '%.*s'",
                        (int)(vlen < 40 ? vlen : 40), v);
        return TRL_OK;
    case 3:
        return parse_int(l, "sockets_per_host", v, vlen, 1, 4096, &l->sockets_per_host);
    default:
        return parse_int(l, "numa_per_socket", v, vlen, 1, 4096, &l->numa_per_socket);
    }
}

/* ---- building ---------------------------------------------------------------- */

static int alloc_topo(trl_topo *t, int size)
{
    memset(t, 0, sizeof *t);
    t->size = size;
    t->host = malloc((size_t)size * sizeof *t->host);
    t->socket = malloc((size_t)size * sizeof *t->socket);
    t->numa = malloc((size_t)size * sizeof *t->numa);
    if (!t->host || !t->socket || !t->numa) {
        trl_topo_free(t);
        return TRL_ERR_NOMEM;
    }
    for (int r = 0; r < size; r++)
        t->host[r] = t->socket[r] = t->numa[r] = -1;
    return TRL_OK;
}

static int build_by_counts(layout *l, trl_topo *t)
{
    l->line = l->pos[0][0] ? l->pos[0][0] : l->pos[1][0];
    l->column = l->pos[0][0] ? l->pos[0][1] : l->pos[1][1];
    if (l->hosts < 0 || !l->per_host)
        return fail(l, "a layout by counts needs both hosts=N and ranks_per_host=K");
    if (l->nper_host != 1 && l->nper_host != l->hosts)
        return fail(l, "ranks_per_host has %d counts but hosts=%d (give one count, or one per "
                    "host)", l->nper_host, l->hosts);
    long long total = 0;
    for (int h = 0; h < l->hosts; h++) {
        int k = l->per_host[l->nper_host == 1 ? 0 : h];
        if (k < 1)
            return fail(l, "ranks_per_host: host %d has no ranks (every host needs one)", h);
        total += k;
    }
    if (total > MAX_RANKS)
        return fail(l, "the layout has %lld ranks, more than %d", total, MAX_RANKS);
    if (alloc_topo(t, (int)total))
        return fail(l, "out of memory");
    int *left = malloc((size_t)l->hosts * sizeof *left);
    if (!left)
        return fail(l, "out of memory");
    for (int h = 0; h < l->hosts; h++)
        left[h] = l->per_host[l->nper_host == 1 ? 0 : h];
    /* block: fill each host in turn; round-robin: deal in turn, skipping
     * hosts that are full. */
    for (int r = 0, h = 0; r < t->size; r++) {
        while (left[h] == 0)
            h = (h + 1) % l->hosts;
        t->host[r] = h;
        left[h]--;
        if (l->placement == 1)
            h = (h + 1) % l->hosts;
    }
    free(left);
    t->nhosts = l->hosts;
    return TRL_OK;
}

/* Each rank in exactly one list; returns the rank count (lists[i] gives
 * index i to its ranks in *of, which must hold MAX_RANKS). */
static int assign_lists(layout *l, int kind, const char *what, int *of, int size)
{
    for (int i = 0; i < l->nlists[kind]; i++) {
        rank_list *rl = &l->lists[kind][i];
        l->line = rl->line;
        l->column = rl->column;
        for (int j = 0; j < rl->n; j++) {
            int r = rl->ranks[j];
            if (size > 0 && r >= size)
                return fail(l, "%s=: rank %d is beyond the layout's %d ranks", what, r, size);
            if (of[r] >= 0)
                return fail(l, "rank %d is on %s %d and %s %d", r, what, of[r], what, i);
            of[r] = i;
        }
    }
    return TRL_OK;
}

static int build_by_lists(layout *l, trl_topo *t)
{
    int size = 0;
    for (int i = 0; i < l->nlists[L_HOST]; i++)
        for (int j = 0; j < l->lists[L_HOST][i].n; j++)
            size = l->lists[L_HOST][i].ranks[j] + 1 > size ? l->lists[L_HOST][i].ranks[j] + 1 : size;
    if (alloc_topo(t, size))
        return fail(l, "out of memory");
    if (assign_lists(l, L_HOST, "host", t->host, 0))
        return TRL_ERR_INVALID;
    for (int r = 0; r < size; r++)
        if (t->host[r] < 0) {
            l->line = l->lists[L_HOST][0].line;
            l->column = l->lists[L_HOST][0].column;
            return fail(l, "rank %d is on no host (the host= lists name ranks 0..%d)", r,
                        size - 1);
        }
    t->nhosts = l->nlists[L_HOST];
    return TRL_OK;
}

/* Cut each host's (or socket's) ranks, in rank order, into `parts` runs as
 * equal as can be, the first ones one larger: run j of group g gets id
 * g*parts + j. */
static void split(const int *group, int ngroups, int parts, int size, int *out)
{
    int *count = calloc((size_t)ngroups, sizeof *count), *seen = calloc((size_t)ngroups, sizeof *seen);
    if (!count || !seen) {
        free(count);
        free(seen);
        return; /* out stays unknown */
    }
    for (int r = 0; r < size; r++)
        count[group[r]]++;
    for (int r = 0; r < size; r++) {
        int g = group[r], n = count[g], i = seen[g]++;
        int base = n / parts, extra = n % parts;
        /* the first `extra` runs hold base+1 ranks */
        int j = i < extra * (base + 1) ? i / (base + 1) : extra + (i - extra * (base + 1)) / (base ? base : 1);
        out[r] = g * parts + j;
    }
    free(count);
    free(seen);
}

/* Point messages at where count key k was given. */
static void at_key(layout *l, int k)
{
    l->line = l->pos[k][0];
    l->column = l->pos[k][1];
}

static int build_levels_below(layout *l, trl_topo *t)
{
    if (l->sockets_per_host > 0 && l->nlists[L_SOCKET]) {
        at_key(l, 3);
        return fail(l, "give sockets by sockets_per_host= or by socket= lists, not both");
    }
    if (l->numa_per_socket > 0 && l->nlists[L_NUMA]) {
        at_key(l, 4);
        return fail(l, "give NUMA domains by numa_per_socket= or by numa= lists, not both");
    }
    if (l->sockets_per_host > 0)
        split(t->host, t->nhosts, l->sockets_per_host, t->size, t->socket);
    if (l->nlists[L_SOCKET]) {
        if (assign_lists(l, L_SOCKET, "socket", t->socket, t->size))
            return TRL_ERR_INVALID;
        for (int r = 0; r < t->size; r++)
            if (t->socket[r] < 0)
                return fail(l, "rank %d is in no socket= list (give every rank one)", r);
    }
    if (l->numa_per_socket > 0) {
        if (t->socket[0] < 0) {
            at_key(l, 4);
            return fail(l, "numa_per_socket needs sockets (sockets_per_host= or socket=)");
        }
        int nsockets = 0;
        for (int r = 0; r < t->size; r++)
            nsockets = t->socket[r] + 1 > nsockets ? t->socket[r] + 1 : nsockets;
        split(t->socket, nsockets, l->numa_per_socket, t->size, t->numa);
    }
    if (l->nlists[L_NUMA]) {
        if (assign_lists(l, L_NUMA, "numa", t->numa, t->size))
            return TRL_ERR_INVALID;
        for (int r = 0; r < t->size; r++)
            if (t->numa[r] < 0)
                return fail(l, "rank %d is in no numa= list (give every rank one)", r);
    }
    /* A socket within one host, a NUMA domain within one socket. */
    for (int pass = 0; pass < 2; pass++) {
        const int *id = pass ? t->numa : t->socket, *within = pass ? t->socket : t->host;
        for (int r = 0; r < t->size; r++)
            for (int q = r + 1; q < t->size && id[r] >= 0 && within[r] >= 0; q++)
                if (id[q] == id[r] && within[q] != within[r]) {
                    int kind = pass ? L_NUMA : L_SOCKET;
                    if (l->nlists[kind]) { /* the list that spans: ids are list indexes */
                        l->line = l->lists[kind][id[r]].line;
                        l->column = l->lists[kind][id[r]].column;
                    }
                    return fail(l, "%s %d spans %s %d and %d (ranks %d and %d)",
                                pass ? "numa" : "socket", id[r], pass ? "socket" : "host",
                                within[r], within[q], r, q);
                }
    }
    return TRL_OK;
}

static void layout_free(layout *l)
{
    free(l->per_host);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < l->nlists[k]; i++)
            free(l->lists[k][i].ranks);
}

int trl_topo_parse(const char *text, const char *source, bool inline_text, trl_topo *out,
                   trl_topo_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    layout l = {.source = source, .inline_text = inline_text, .err = err, .hosts = -1,
                .sockets_per_host = -1, .numa_per_socket = -1, .placement = 0};
    int rc = TRL_OK;
    const char *line_start = text;
    l.line = 1;
    for (const char *p = text; rc == TRL_OK && *p;) {
        if (*p == '\n') {
            l.line++;
            line_start = ++p;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        const char *end = p;
        while (*end && !isspace((unsigned char)*end) && *end != '#')
            end++;
        l.column = (int)(p - line_start) + 1;
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (!eq || eq == p || eq + 1 == end)
            rc = fail(&l, "expected key=value, got '%.*s'", (int)(end - p < 40 ? end - p : 40), p);
        else
            rc = setting(&l, p, (size_t)(eq - p), eq + 1, (size_t)(end - eq - 1));
        p = end;
    }
    bool counts = l.pos[0][0] || l.pos[1][0], lists = l.nlists[L_HOST] > 0;
    if (rc == TRL_OK && counts && lists)
        rc = fail(&l, "give hosts by hosts=/ranks_per_host= or by host= lists, not both");
    else if (rc == TRL_OK && !counts && !lists)
        rc = fail(&l, "an empty layout: give hosts=N ranks_per_host=K or host= lists");
    else if (rc == TRL_OK && l.pos[2][0] && !counts)
        rc = fail(&l, "placement= goes with hosts= and ranks_per_host=");
    if (rc == TRL_OK)
        rc = counts ? build_by_counts(&l, out) : build_by_lists(&l, out);
    if (rc == TRL_OK)
        rc = build_levels_below(&l, out);
    layout_free(&l);
    if (rc) {
        trl_topo_free(out);
        return rc;
    }
    out->described = true;
    out->world_order = true;
    return TRL_OK;
}

/* ---- the environment ------------------------------------------------------------ */

static char *read_file(const char *path, trl_topo_error *err)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0;
    if (f) {
        FILE *m = open_memstream(&text, &len);
        char buf[4096];
        size_t n;
        while (m && (n = fread(buf, 1, sizeof buf, f)) > 0 && len < (16u << 20))
            fwrite(buf, 1, n, m);
        if (m)
            fclose(m);
        fclose(f);
    }
    if (!text) {
        snprintf(err->source, sizeof err->source, "%s", path);
        snprintf(err->message, sizeof err->message, "cannot read the layout file: %s",
                 f ? "out of memory" : strerror(errno));
    }
    return text;
}

int trl_topo_load_env(trl_topo *out, bool *set, trl_topo_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    *set = false;
    const char *v = getenv("TRELLIS_TOPOLOGY");
    if (!v)
        return TRL_OK;
    while (isspace((unsigned char)*v))
        v++;
    size_t len = strlen(v);
    while (len > 0 && isspace((unsigned char)v[len - 1]))
        len--;
    if (len == 0)
        return TRL_OK;
    *set = true;
    char *trimmed = strndup(v, len);
    if (!trimmed)
        return TRL_ERR_NOMEM;
    /* A file name has no blank (a layout always has two words or a key
     * with '='... a single word without '=' is a file), or names a file. */
    struct stat st;
    bool file = stat(trimmed, &st) == 0 || (!strpbrk(trimmed, " \t\n") && !strchr(trimmed, '='));
    int rc;
    if (file) {
        char *text = read_file(trimmed, err);
        rc = text ? trl_topo_parse(text, trimmed, false, out, err) : TRL_ERR_INVALID;
        free(text);
    } else {
        rc = trl_topo_parse(trimmed, "TRELLIS_TOPOLOGY", true, out, err);
    }
    free(trimmed);
    return rc;
}

int trl_topo_single_host(int size, trl_topo *out)
{
    int rc = alloc_topo(out, size);
    if (rc)
        return rc;
    for (int r = 0; r < size; r++)
        out->host[r] = 0;
    out->nhosts = 1;
    out->world_order = true;
    return TRL_OK;
}

int trl_topo_subset(const trl_topo *world, const int *world_ranks, int n, trl_topo *out)
{
    int rc = alloc_topo(out, n);
    if (rc)
        return rc;
    int *renumber = malloc((size_t)(world->nhosts > 0 ? world->nhosts : 1) * sizeof *renumber);
    if (!renumber) {
        trl_topo_free(out);
        return TRL_ERR_NOMEM;
    }
    for (int h = 0; h < world->nhosts; h++)
        renumber[h] = -1;
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
    return TRL_OK;
}

void trl_topo_free(trl_topo *t)
{
    free(t->host);
    free(t->socket);
    free(t->numa);
    memset(t, 0, sizeof *t);
}

/* ---- printing ------------------------------------------------------------------ */

typedef struct {
    char *buf;
    size_t len, at;
    bool cut;
} out_text;

static void put(out_text *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out_text *o, const char *fmt, ...)
{
    if (o->cut)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->at, o->len - o->at, fmt, ap);
    va_end(ap);
    if (n < 0 || o->at + (size_t)n + 4 >= o->len) { /* keep room for "..." */
        o->buf[o->at] = '\0';
        o->cut = true;
        if (o->at + 4 <= o->len)
            snprintf(o->buf + o->at, o->len - o->at, "...");
        return;
    }
    o->at += (size_t)n;
}

/* The ranks r with key[r] == id (in rank order), as "0-3,8". */
static void put_ranks(out_text *o, const int *key, int id, int size)
{
    bool first = true;
    for (int r = 0; r < size; r++) {
        if (key[r] != id)
            continue;
        int end = r;
        while (end + 1 < size && key[end + 1] == id)
            end++;
        put(o, end > r ? "%s%d-%d" : "%s%d", first ? "" : ",", r, end);
        first = false;
        r = end;
    }
}

void trl_topo_format(const trl_topo *t, char *buf, size_t len)
{
    if (len == 0)
        return;
    out_text o = {buf, len, 0, false};
    buf[0] = '\0';
    put(&o, "layout: %d rank%s on %d host%s (%s):", t->size, t->size == 1 ? "" : "s", t->nhosts,
        t->nhosts == 1 ? "" : "s", t->described ? "described" : "discovered");
    for (int h = 0; h < t->nhosts; h++) {
        put(&o, "%s host %d: ", h ? " |" : "", h);
        bool sockets = false;
        for (int r = 0; r < t->size; r++)
            sockets = sockets || (t->host[r] == h && t->socket[r] >= 0);
        if (!sockets) {
            put_ranks(&o, t->host, h, t->size);
            continue;
        }
        /* Sockets in order of their first rank. */
        for (int r = 0, n = 0; r < t->size; r++) {
            if (t->host[r] != h)
                continue;
            bool first_of_socket = true;
            for (int q = 0; q < r; q++)
                first_of_socket = first_of_socket && !(t->host[q] == h && t->socket[q] == t->socket[r]);
            if (!first_of_socket)
                continue;
            put(&o, "%s[", n++ ? " " : "");
            if (t->socket[r] < 0)
                put(&o, "%d?", r);
            else
                put_ranks(&o, t->socket, t->socket[r], t->size);
            put(&o, "]");
        }
    }
}

void trl_topo_error_format(const trl_topo_error *err, char *buf, size_t len)
{
    if (err->line > 0 && err->column > 0)
        snprintf(buf, len, "%s:%d:%d: %s", err->source, err->line, err->column, err->message);
    else if (err->line > 0)
        snprintf(buf, len, "%s:%d: %s", err->source, err->line, err->message);
    else
        snprintf(buf, len, "%s: %s", err->source, err->message);
}
