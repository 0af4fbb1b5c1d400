/* Reading and checking tree and script files (docs/trees.md). A file is
 * read line by line into one section at a time; each section is checked
 * as a whole when it ends (every rank present, parent and children agree,
 * every rank reaches the root), so messages can name the line at fault. */
#include "tree/tree_file.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

enum { MAX_TREE_RANKS = 1 << 20, MAX_FILE_BYTES = 256 << 20 };

/* The section being read: one line per rank, children in file order. */
typedef struct {
    const char *name; /* "reduce", "bcast" or "both" */
    int header_line;
    int *parent;      /* -2: no line yet; -1: none */
    int *line_of;     /* the rank's line */
    int *first, *n;   /* the rank's children in kids[] */
    int *kids;
    size_t nkids, cap_kids;
} section;

typedef struct {
    const char *source;
    trl_file_error *err;
    int line;
    bool script;
    int size, root; /* -1 until given */
    trl_tree_file *out;
    section sec;
    bool in_section, seen_reduce, seen_bcast, seen_both;
} reader;

static int fail_at(reader *rd, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail_at(reader *rd, int line, const char *fmt, ...)
{
    snprintf(rd->err->source, sizeof rd->err->source, "%s", rd->source);
    rd->err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err->message, sizeof rd->err->message, fmt, ap);
    va_end(ap);
    return TRL_ERR_INVALID;
}

/* ---- words ----------------------------------------------------------------- */

typedef struct {
    const char *p, *end;
} cursor;

static bool word(cursor *c, const char **w, size_t *len)
{
    while (c->p < c->end && (isspace((unsigned char)*c->p) || *c->p == ','))
        c->p++;
    if (c->p == c->end)
        return false;
    *w = c->p;
    while (c->p < c->end && !isspace((unsigned char)*c->p) && *c->p != ',' && *c->p != ':')
        c->p++;
    if (c->p == *w) /* a lone ':' */
        c->p++;
    *len = (size_t)(c->p - *w);
    return true;
}

static bool is(const char *w, size_t len, const char *lit)
{
    return strlen(lit) == len && !strncmp(w, lit, len);
}

/* A rank number below limit (limit < 0: any non-negative int). */
static int number(reader *rd, const char *w, size_t len, const char *what, int limit, int *out)
{
    long long v = 0;
    bool ok = len > 0 && len <= 10;
    for (size_t i = 0; ok && i < len; i++) {
        ok = isdigit((unsigned char)w[i]);
        v = v * 10 + (w[i] - '0');
    }
    if (!ok)
        return fail_at(rd, rd->line, "%s: expected a number, got '%.*s'", what,
                       (int)(len < 40 ? len : 40), w);
    if (limit >= 0 && v >= limit)
        return fail_at(rd, rd->line, "%s %lld is out of range (the file has %d ranks: 0..%d)",
                       what, v, limit, limit - 1);
    *out = (int)v;
    return TRL_OK;
}

/* ---- sections -------------------------------------------------------------- */

static void section_free(section *s)
{
    free(s->parent);
    free(s->line_of);
    free(s->first);
    free(s->n);
    free(s->kids);
    memset(s, 0, sizeof *s);
}

static int section_start(reader *rd, const char *name)
{
    section *s = &rd->sec;
    size_t p = (size_t)rd->size;
    *s = (section){.name = name, .header_line = rd->line};
    s->parent = malloc(p * sizeof *s->parent);
    s->line_of = calloc(p, sizeof *s->line_of);
    s->first = calloc(p, sizeof *s->first);
    s->n = calloc(p, sizeof *s->n);
    if (!s->parent || !s->line_of || !s->first || !s->n) {
        section_free(s);
        return fail_at(rd, rd->line, "out of memory");
    }
    for (size_t i = 0; i < p; i++)
        s->parent[i] = -2;
    rd->in_section = true;
    return TRL_OK;
}

static int add_kid(reader *rd, int r, int c)
{
    section *s = &rd->sec;
    for (int i = 0; i < s->n[r]; i++)
        if (s->kids[s->first[r] + i] == c)
            return fail_at(rd, rd->line, "rank %d lists %d twice", r, c);
    if (c == r)
        return fail_at(rd, rd->line, "rank %d lists itself", r);
    if (s->nkids == s->cap_kids) {
        size_t cap = s->cap_kids ? 2 * s->cap_kids : 64;
        int *k = realloc(s->kids, cap * sizeof *k);
        if (!k)
            return fail_at(rd, rd->line, "out of memory");
        s->kids = k;
        s->cap_kids = cap;
    }
    s->kids[s->nkids++] = c;
    s->n[r]++;
    return TRL_OK;
}

/* The words a message uses for parent and child in this section. */
typedef struct {
    const char *names_parent, *lists_child; /* "names parent", "lists child" */
    const char *answers; /* what the parent's line should hold: "list" */
} wording;

static wording words_for(const reader *rd)
{
    bool reduce = strcmp(rd->sec.name, "bcast") != 0;
    if (!rd->script)
        return (wording){"names parent", "lists child", "list"};
    return reduce ? (wording){"sends to", "receives from", "recv"}
                  : (wording){"receives from", "sends to", "send to"};
}

/* Parent and children agree, and every rank reaches the root. */
static int section_check(reader *rd)
{
    section *s = &rd->sec;
    wording w = words_for(rd);
    for (int r = 0; r < rd->size; r++)
        if (s->parent[r] == -2)
            return fail_at(rd, s->header_line, "rank %d has no line in the %s section", r,
                           s->name);
    /* Each rank on its own first, then parent against children. */
    for (int r = 0; r < rd->size; r++) {
        int p = s->parent[r];
        if (r == rd->root && p >= 0)
            return fail_at(rd, s->line_of[r], "the root %d %s %d (the root has none)", r,
                           w.names_parent, p);
        if (r != rd->root && p < 0)
            return fail_at(rd, s->line_of[r], "rank %d has no parent but is not the root %d", r,
                           rd->root);
        if (p == r)
            return fail_at(rd, s->line_of[r], "rank %d is its own parent", r);
    }
    for (int r = 0; r < rd->size; r++) {
        int p = s->parent[r];
        bool listed = false;
        for (int i = 0; p >= 0 && i < s->n[p]; i++)
            listed = listed || s->kids[s->first[p] + i] == r;
        if (p >= 0 && !listed)
            return fail_at(rd, s->line_of[r], "rank %d %s %d, but rank %d does not %s %d "
                           "(its line is %d)", r, w.names_parent, p, p, w.answers, r,
                           s->line_of[p]);
    }
    for (int r = 0; r < rd->size; r++)
        for (int i = 0; i < s->n[r]; i++) {
            int c = s->kids[s->first[r] + i];
            if (s->parent[c] != r) /* c's parent is another rank: it lists c too */
                return fail_at(rd, s->line_of[r], "rank %d %s %d, but rank %d's parent is %d", r,
                               w.lists_child, c, c, s->parent[c]);
        }
    /* Parents agree with children, so each rank has one way up: a rank
     * that does not reach the root within size steps is on a cycle. */
    for (int r = 0; r < rd->size; r++) {
        int at = r, steps = 0;
        while (at != rd->root && at >= 0 && steps <= rd->size) {
            at = s->parent[at];
            steps++;
        }
        if (at == rd->root)
            continue;
        char cycle[200];
        int start = r;
        for (int i = 0; i < rd->size; i++) /* step onto the cycle itself */
            start = s->parent[start];
        int len = snprintf(cycle, sizeof cycle, "%d", start);
        for (int v = s->parent[start]; len < (int)sizeof cycle - 20; v = s->parent[v]) {
            len += snprintf(cycle + len, sizeof cycle - (size_t)len, " -> %d", v);
            if (v == start)
                break;
        }
        return fail_at(rd, s->line_of[r], "rank %d does not reach the root %d (cycle %s)", r,
                       rd->root, cycle);
    }
    return TRL_OK;
}

/* Copy the section into links (CSR in rank order). */
static int section_links(reader *rd, trl_tree_links *l)
{
    section *s = &rd->sec;
    size_t p = (size_t)rd->size;
    l->parent = malloc(p * sizeof *l->parent);
    l->child_first = malloc((p + 1) * sizeof *l->child_first);
    l->child = malloc((s->nkids ? s->nkids : 1) * sizeof *l->child);
    if (!l->parent || !l->child_first || !l->child)
        return fail_at(rd, rd->line, "out of memory");
    int at = 0;
    for (size_t r = 0; r < p; r++) {
        l->parent[r] = s->parent[r];
        l->child_first[r] = at;
        for (int i = 0; i < s->n[r]; i++)
            l->child[at++] = s->kids[s->first[r] + i];
    }
    l->child_first[p] = at;
    return TRL_OK;
}

static int section_end(reader *rd)
{
    if (!rd->in_section)
        return TRL_OK;
    int rc = section_check(rd);
    const char *name = rd->sec.name;
    trl_tree_file *f = rd->out;
    if (rc == TRL_OK && strcmp(name, "bcast") != 0) {
        rc = section_links(rd, &f->reduce);
        f->has_reduce = rc == TRL_OK;
    }
    if (rc == TRL_OK && strcmp(name, "reduce") != 0) {
        rc = section_links(rd, &f->bcast);
        f->has_bcast = rc == TRL_OK;
    }
    section_free(&rd->sec);
    rd->in_section = false;
    return rc;
}

/* ---- lines ----------------------------------------------------------------- */

/* "rank R parent P|none [children C ...]" */
static int tree_line(reader *rd, cursor *c, int r)
{
    section *s = &rd->sec;
    const char *w;
    size_t len;
    if (!word(c, &w, &len) || !is(w, len, "parent"))
        return fail_at(rd, rd->line, "expected 'rank %d parent P' (P a rank or none)", r);
    if (!word(c, &w, &len))
        return fail_at(rd, rd->line, "rank %d: parent needs a rank or none", r);
    int p = -1;
    if (!is(w, len, "none") && number(rd, w, len, "parent", rd->size, &p))
        return TRL_ERR_INVALID;
    s->parent[r] = p;
    if (!word(c, &w, &len))
        return TRL_OK;
    if (!is(w, len, "children"))
        return fail_at(rd, rd->line, "unexpected '%.*s' after the parent (expected children)",
                       (int)(len < 40 ? len : 40), w);
    int kid;
    while (word(c, &w, &len))
        if (number(rd, w, len, "child", rd->size, &kid) || add_kid(rd, r, kid))
            return TRL_ERR_INVALID;
    return TRL_OK;
}

/* "rank R: cmd, cmd, ...": reduce: recv ... then one send (none at the
 * root); bcast: one recv first (none at the root), then sends. */
static int script_line(reader *rd, cursor *c, int r)
{
    section *s = &rd->sec;
    bool reduce = strcmp(s->name, "bcast") != 0;
    const char *w;
    size_t len;
    if (!word(c, &w, &len) || !is(w, len, ":"))
        return fail_at(rd, rd->line, "expected 'rank %d:' followed by commands", r);
    int sends = 0, recvs = 0, peer;
    s->parent[r] = -1;
    while (word(c, &w, &len)) {
        bool send = is(w, len, "send"), recv = is(w, len, "recv");
        if (!send && !recv)
            return fail_at(rd, rd->line, "unknown command '%.*s' (expected recv or send)",
                           (int)(len < 40 ? len : 40), w);
        const char *cmd = send ? "send" : "recv";
        if (!word(c, &w, &len))
            return fail_at(rd, rd->line, "%s needs a rank", cmd);
        if (number(rd, w, len, cmd, rd->size, &peer))
            return TRL_ERR_INVALID;
        if (peer == r)
            return fail_at(rd, rd->line, "rank %d cannot %s itself", r, cmd);
        /* The one message to or from the parent; the rest are children. */
        bool up = reduce ? send : recv;
        if (up) {
            if (sends + recvs > 0 && !reduce)
                return fail_at(rd, rd->line, "rank %d: recv must come before the sends", r);
            if (reduce ? sends : recvs)
                return fail_at(rd, rd->line, "rank %d %s more than once", r,
                               reduce ? "sends" : "receives");
            s->parent[r] = peer;
        } else {
            if (reduce && sends)
                return fail_at(rd, rd->line, "rank %d: recv after its send (the send comes last)",
                               r);
            if (add_kid(rd, r, peer))
                return TRL_ERR_INVALID;
        }
        sends += send;
        recvs += recv;
    }
    return TRL_OK;
}

static int rank_line(reader *rd, cursor *c)
{
    const char *w;
    size_t len;
    int r;
    if (!rd->in_section)
        return fail_at(rd, rd->line, "a rank line before any section (reduce, bcast or both)");
    if (!word(c, &w, &len) || number(rd, w, len, "rank", rd->size, &r))
        return TRL_ERR_INVALID;
    section *s = &rd->sec;
    if (s->parent[r] != -2)
        return fail_at(rd, rd->line, "rank %d is listed twice in the %s section (first on line %d)",
                       r, s->name, s->line_of[r]);
    s->line_of[r] = rd->line;
    s->first[r] = (int)s->nkids;
    return rd->script ? script_line(rd, c, r) : tree_line(rd, c, r);
}

static int header_value(reader *rd, cursor *c, const char *key, int limit, int *out)
{
    const char *w;
    size_t len;
    if (rd->in_section || rd->seen_reduce || rd->seen_bcast || rd->seen_both)
        return fail_at(rd, rd->line, "'%s' must come before the first section", key);
    if (*out >= 0)
        return fail_at(rd, rd->line, "'%s' given twice", key);
    if (!word(c, &w, &len))
        return fail_at(rd, rd->line, "'%s' needs a number", key);
    if (number(rd, w, len, key, limit, out))
        return TRL_ERR_INVALID;
    if (word(c, &w, &len))
        return fail_at(rd, rd->line, "unexpected '%.*s' after %s", (int)(len < 40 ? len : 40), w,
                       key);
    return TRL_OK;
}

static int section_line(reader *rd, const char *name)
{
    bool both = !strcmp(name, "both"), reduce = !strcmp(name, "reduce");
    if (rd->size < 0 || rd->root < 0)
        return fail_at(rd, rd->line, "'ranks N' and 'root R' must come before the first section");
    if (rd->seen_both || (both && (rd->seen_reduce || rd->seen_bcast)))
        return fail_at(rd, rd->line, "'both' cannot be combined with other sections");
    if ((reduce && rd->seen_reduce) || (!both && !reduce && rd->seen_bcast))
        return fail_at(rd, rd->line, "a second %s section", name);
    int rc = section_end(rd);
    if (rc)
        return rc;
    rd->seen_both |= both;
    rd->seen_reduce |= reduce;
    rd->seen_bcast |= !both && !reduce;
    return section_start(rd, both ? "both" : reduce ? "reduce" : "bcast");
}

static int one_line(reader *rd, const char *p, const char *end, bool *header_seen)
{
    const char *hash = memchr(p, '#', (size_t)(end - p));
    cursor c = {p, hash ? hash : end};
    const char *w;
    size_t len;
    if (!word(&c, &w, &len))
        return TRL_OK; /* blank or comment */
    if (!*header_seen) {
        const char *kind;
        size_t klen;
        bool ok = is(w, len, "trellis") && word(&c, &kind, &klen) &&
                  (is(kind, klen, "tree") || is(kind, klen, "script"));
        if (!ok)
            return fail_at(rd, rd->line, "expected 'trellis tree' or 'trellis script' as the "
                           "first line");
        rd->script = is(kind, klen, "script");
        rd->out->script = rd->script;
        *header_seen = true;
        return TRL_OK;
    }
    if (is(w, len, "ranks"))
        return header_value(rd, &c, "ranks", MAX_TREE_RANKS + 1, &rd->size) ||
                       (rd->size == 0 && fail_at(rd, rd->line, "ranks must be at least 1"))
                   ? TRL_ERR_INVALID
                   : TRL_OK;
    if (is(w, len, "root")) {
        if (rd->size < 0)
            return fail_at(rd, rd->line, "'root' must come after 'ranks'");
        return header_value(rd, &c, "root", rd->size, &rd->root);
    }
    if (is(w, len, "reduce") || is(w, len, "bcast") || is(w, len, "both")) {
        char name[8];
        snprintf(name, sizeof name, "%.*s", (int)len, w);
        if (word(&c, &w, &len))
            return fail_at(rd, rd->line, "a section header stands alone on its line");
        return section_line(rd, name);
    }
    if (is(w, len, "rank"))
        return rank_line(rd, &c);
    return fail_at(rd, rd->line, "unknown keyword '%.*s' (expected ranks, root, reduce, bcast, "
                   "both or rank)", (int)(len < 40 ? len : 40), w);
}

int trl_tree_file_parse(const char *text, const char *source, trl_tree_file *out,
                        trl_file_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    reader rd = {.source = source, .err = err, .size = -1, .root = -1, .out = out};
    out->path = strdup(source);
    int rc = out->path ? TRL_OK : fail_at(&rd, 0, "out of memory");
    bool header_seen = false;
    const char *p = text;
    for (rd.line = 1; rc == TRL_OK && *p; rd.line++) {
        const char *end = p + strcspn(p, "\n");
        rc = one_line(&rd, p, end, &header_seen);
        p = *end ? end + 1 : end;
    }
    if (rc == TRL_OK) {
        rd.line--;
        if (!header_seen)
            rc = fail_at(&rd, 1, "empty file: expected 'trellis tree' or 'trellis script'");
        else if (!rd.seen_reduce && !rd.seen_bcast && !rd.seen_both)
            rc = fail_at(&rd, rd.line, "no section: expected reduce, bcast or both");
        else
            rc = section_end(&rd);
    }
    section_free(&rd.sec);
    if (rc) {
        trl_tree_file_free(out);
        return rc;
    }
    out->size = rd.size;
    out->root = rd.root;
    return TRL_OK;
}

int trl_tree_file_load(const char *path, trl_tree_file *out, trl_file_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    snprintf(err->source, sizeof err->source, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err->message, sizeof err->message, "cannot read the tree file: %s",
                 strerror(errno));
        return TRL_ERR_INVALID;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = TRL_OK;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *t = cap <= MAX_FILE_BYTES ? realloc(text, cap) : NULL;
            if (!t) {
                snprintf(err->message, sizeof err->message, "too large to read");
                rc = TRL_ERR_INVALID;
                break;
            }
            text = t;
        }
        size_t n = fread(text + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
    }
    fclose(f);
    if (rc == TRL_OK && memchr(text, '\0', len)) {
        snprintf(err->message, sizeof err->message, "not a text file (it holds a NUL byte)");
        rc = TRL_ERR_INVALID;
    }
    if (rc == TRL_OK) {
        text[len] = '\0';
        rc = trl_tree_file_parse(text, path, out, err);
    }
    free(text);
    return rc;
}

static void links_free(trl_tree_links *l)
{
    free(l->parent);
    free(l->child_first);
    free(l->child);
    memset(l, 0, sizeof *l);
}

void trl_tree_file_free(trl_tree_file *f)
{
    free(f->path);
    links_free(&f->reduce);
    links_free(&f->bcast);
    memset(f, 0, sizeof *f);
}

void trl_file_error_format(const trl_file_error *err, char *buf, size_t len)
{
    if (err->line > 0)
        snprintf(buf, len, "%s:%d: %s", err->source, err->line, err->message);
    else
        snprintf(buf, len, "%s: %s", err->source, err->message);
}

/* ---- properties ------------------------------------------------------------- */

/* The subtree of r covers [r, r + size) and its children's runs follow one
 * another from r + 1; returns the subtree's size, or -1. */
static int ordered_run(const trl_tree_links *l, int r)
{
    int next = r + 1;
    for (int i = l->child_first[r]; i < l->child_first[r + 1]; i++) {
        if (l->child[i] != next)
            return -1;
        int n = ordered_run(l, next);
        if (n < 0)
            return -1;
        next += n;
    }
    return next - r;
}

bool trl_tree_links_ordered(const trl_tree_links *l, int size, int root)
{
    return root == 0 && ordered_run(l, 0) == size;
}

int trl_tree_links_depth(const trl_tree_links *l, int size, int root)
{
    int depth = 0;
    for (int r = 0; r < size; r++) {
        int d = 0;
        for (int at = r; at != root && at >= 0 && d <= size; at = l->parent[at])
            d++;
        depth = d > depth ? d : depth;
    }
    return depth;
}

int trl_tree_links_max_children(const trl_tree_links *l, int size)
{
    int most = 0;
    for (int r = 0; r < size; r++) {
        int n = l->child_first[r + 1] - l->child_first[r];
        most = n > most ? n : most;
    }
    return most;
}
