/* Reading tree and script files (docs/trees.md). The text is read line by
 * line: the first line says which kind, `ranks` and `root` come before the
 * sections, and each rank line goes into the current section
 * (tree_section.c), which is checked as a whole when it ends. Script rank
 * lines are read in script_file.c, the words of every line in tree_read.c. */
#include "tree/tree_file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "tree/script_file.h"
#include "tree/tree_read.h"
#include "tree/tree_section.h"

/* Far above any real file (a 1<<20-rank file is about 40 MiB), low enough
 * that a wrong path (a disk image, say) is refused rather than read. */
#define MAX_FILE_BYTES ((size_t)256 << 20)

/* ---- the lines before the sections ------------------------------------------- */

static int first_line(trl__reader *rd, trl__cursor *c, const trl__word *w)
{
    trl__word kind, extra;
    bool ok = trl__word_is(w, "trellis") && trl__next_word(c, &kind) &&
              (trl__word_is(&kind, "tree") || trl__word_is(&kind, "script")) &&
              !trl__next_word(c, &extra);
    if (!ok)
        return trl__fail(rd, rd->line,
                         "expected 'trellis tree' or 'trellis script' as the first line");
    rd->kind_given = true;
    rd->script = trl__word_is(&kind, "script");
    rd->out->script = rd->script;
    return TRL_OK;
}

static bool any_section(const trl__reader *rd)
{
    return rd->reduce_line || rd->bcast_line || rd->both_line;
}

/* The number after `ranks` or `root`, each given once, before the sections. */
static int header_number(trl__reader *rd, trl__cursor *c, const char *key, int *line_seen,
                         trl__word *w)
{
    char q[48];
    trl__word extra;
    if (any_section(rd))
        return trl__fail(rd, rd->line, "'%s' must come before the first section", key);
    if (*line_seen)
        return trl__fail(rd, rd->line, "'%s' given twice (first on line %d)", key, *line_seen);
    if (!trl__next_word(c, w))
        return trl__fail(rd, rd->line, "'%s' needs a number", key);
    if (trl__next_word(c, &extra))
        return trl__fail(rd, rd->line, "unexpected '%s' after %s", trl__quote(&extra, q), key);
    *line_seen = rd->line;
    return TRL_OK;
}

static int ranks_line(trl__reader *rd, trl__cursor *c)
{
    char q[48];
    trl__word w;
    long long v;
    int rc = header_number(rd, c, "ranks", &rd->size_line, &w);
    if (rc)
        return rc;
    if (!trl__digits(&w, TRL__MAX_TREE_RANKS + 1LL, &v))
        return trl__fail(rd, rd->line, "ranks: expected a number, got '%s'", trl__quote(&w, q));
    if (v < 1)
        return trl__fail(rd, rd->line, "ranks must be at least 1");
    if (v > TRL__MAX_TREE_RANKS)
        return trl__fail(rd, rd->line, "ranks %s is too many (at most %d)", trl__quote(&w, q),
                         TRL__MAX_TREE_RANKS);
    rd->size = (int)v;
    return TRL_OK;
}

static int root_line(trl__reader *rd, trl__cursor *c)
{
    trl__word w;
    if (rd->size < 0)
        return trl__fail(rd, rd->line, "'root' must come after 'ranks'");
    int rc = header_number(rd, c, "root", &rd->root_line, &w);
    return rc ? rc : trl__rank(rd, &w, "root", &rd->root);
}

/* ---- section headers ---------------------------------------------------------- */

static int section_conflict(trl__reader *rd, const char *name)
{
    bool both = !strcmp(name, "both"), reduce = !strcmp(name, "reduce");
    int *again = both ? &rd->both_line : reduce ? &rd->reduce_line : &rd->bcast_line;
    if (*again)
        return trl__fail(rd, rd->line, "a second %s section (the first is on line %d)", name,
                         *again);
    if (rd->script && both)
        return trl__fail(rd, rd->line,
                         "a script has reduce and bcast sections, not both "
                         "(its commands differ by direction)");
    if (both && any_section(rd))
        return trl__fail(rd, rd->line,
                         "'both' cannot follow a %s section (line %d): a file has "
                         "both, or reduce and bcast",
                         rd->reduce_line ? "reduce" : "bcast",
                         rd->reduce_line ? rd->reduce_line : rd->bcast_line);
    if (!both && rd->both_line)
        return trl__fail(rd, rd->line,
                         "'%s' cannot follow the both section (line %d): a file "
                         "has both, or reduce and bcast",
                         name, rd->both_line);
    return TRL_OK;
}

static int section_header(trl__reader *rd, trl__cursor *c, const char *name)
{
    char q[48];
    trl__word extra;
    if (trl__next_word(c, &extra))
        return trl__fail(rd, rd->line,
                         "unexpected '%s' after %s (a section header stands alone "
                         "on its line)",
                         trl__quote(&extra, q), name);
    if (rd->size < 0)
        return trl__fail(rd, rd->line, "no 'ranks N' line before the first section");
    if (rd->root < 0)
        return trl__fail(rd, rd->line, "no 'root R' line before the first section");
    int rc = section_conflict(rd, name);
    if (rc == TRL_OK)
        rc = trl__section_end(rd);
    if (rc)
        return rc;
    int *line = !strcmp(name, "both")     ? &rd->both_line
                : !strcmp(name, "reduce") ? &rd->reduce_line
                                          : &rd->bcast_line;
    *line = rd->line;
    return trl__section_start(rd, name);
}

/* ---- rank lines ------------------------------------------------------------------ */

/* "rank R parent P|none [children C1 C2 ...]", after "rank R". */
static int tree_rank_line(trl__reader *rd, trl__cursor *c, int r)
{
    char q[48];
    trl__word w;
    if (!trl__next_word(c, &w) || !trl__word_is(&w, "parent"))
        return trl__fail(rd, rd->line, "expected 'rank %d parent P' (P a rank or none)", r);
    if (!trl__next_word(c, &w))
        return trl__fail(rd, rd->line, "rank %d: parent needs a rank or none", r);
    int parent = -1, child, rc;
    if (!trl__word_is(&w, "none") && (rc = trl__rank(rd, &w, "parent", &parent)))
        return rc;
    if ((rc = trl__set_parent(rd, r, parent)))
        return rc;
    if (!trl__next_word(c, &w))
        return TRL_OK;
    if (!trl__word_is(&w, "children"))
        return trl__fail(rd, rd->line, "unexpected '%s' after the parent (expected children)",
                         trl__quote(&w, q));
    while (trl__next_word(c, &w))
        if ((rc = trl__rank(rd, &w, "child", &child)) || (rc = trl__add_child(rd, r, child)))
            return rc;
    return TRL_OK;
}

static int rank_line(trl__reader *rd, trl__cursor *c)
{
    trl__word w;
    int r, rc;
    if (!rd->in_section)
        return trl__fail(rd, rd->line, "a rank line before any section (reduce, bcast or both)");
    if (!trl__next_word(c, &w))
        return trl__fail(rd, rd->line, "'rank' needs a rank number");
    if ((rc = trl__rank(rd, &w, "rank", &r)) || (rc = trl__rank_line(rd, r)))
        return rc;
    return rd->script ? trl__script_line(rd, c, r) : tree_rank_line(rd, c, r);
}

/* ---- the file ---------------------------------------------------------------------- */

static int one_line(trl__reader *rd, const char *p, const char *end)
{
    const char *hash = memchr(p, '#', (size_t)(end - p));
    trl__cursor c = {p, hash ? hash : end};
    trl__word w;
    char q[48];
    if (!trl__next_word(&c, &w))
        return TRL_OK; /* blank or comment */
    if (!rd->kind_given)
        return first_line(rd, &c, &w);
    if (trl__word_is(&w, "rank"))
        return rank_line(rd, &c);
    if (trl__word_is(&w, "ranks"))
        return ranks_line(rd, &c);
    if (trl__word_is(&w, "root"))
        return root_line(rd, &c);
    for (int i = 0; i < 3; i++) {
        static const char *const sections[] = {"reduce", "bcast", "both"};
        if (trl__word_is(&w, sections[i]))
            return section_header(rd, &c, sections[i]);
    }
    return trl__fail(rd, rd->line,
                     "unknown keyword '%s' (expected ranks, root, reduce, bcast, "
                     "both or rank)",
                     trl__quote(&w, q));
}

/* After the last line: what the file as a whole must have. */
static int at_end(trl__reader *rd, int last_line)
{
    if (!rd->kind_given)
        return trl__fail(rd, 1, "empty file: expected 'trellis tree' or 'trellis script'");
    if (!any_section(rd))
        return trl__fail(rd, last_line, "no section: expected reduce, bcast or both");
    rd->line = last_line;
    return trl__section_end(rd);
}

int trl_tree_file_parse(const char *text, const char *source, trl_tree_file *out,
                        trl_file_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    trl__reader rd = {.source = source, .err = err, .size = -1, .root = -1, .out = out};
    int rc = TRL_OK;
    const char *p = text;
    for (rd.line = 1; rc == TRL_OK && *p; rd.line++) {
        const char *end = p + strcspn(p, "\n");
        rc = one_line(&rd, p, end);
        p = *end ? end + 1 : end;
    }
    if (rc == TRL_OK)
        rc = at_end(&rd, rd.line - 1);
    trl__section_free(&rd.sec);
    if (rc == TRL_OK && !(out->path = strdup(source))) {
        trl__fail(&rd, 0, "out of memory");
        rc = TRL_ERR_NOMEM;
    }
    if (rc) {
        trl_tree_file_free(out);
        return rc;
    }
    out->size = rd.size;
    out->root = rd.root;
    return TRL_OK;
}

/* ---- loading ------------------------------------------------------------- */

static int whole_file_error(trl_file_error *err, int line, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int whole_file_error(trl_file_error *err, int line, int rc, const char *fmt, ...)
{
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return rc;
}

/* The file's bytes, NUL-terminated, in *text (the caller frees it). */
static int read_all(FILE *f, char **text, size_t *len, trl_file_error *err)
{
    size_t cap = 0;
    *text = NULL;
    *len = 0;
    for (;;) {
        if (*len + 1 == cap || !*text) {
            if (cap >= MAX_FILE_BYTES)
                return whole_file_error(err, 0, TRL_ERR_IO,
                                        "cannot read the tree file: "
                                        "larger than %zu MiB",
                                        MAX_FILE_BYTES >> 20);
            cap = cap ? 2 * cap : 16384;
            char *t = realloc(*text, cap);
            if (!t)
                return whole_file_error(err, 0, TRL_ERR_NOMEM, "out of memory");
            *text = t;
        }
        size_t n = fread(*text + *len, 1, cap - *len - 1, f);
        *len += n;
        if (n == 0)
            break;
    }
    (*text)[*len] = '\0';
    if (ferror(f))
        return whole_file_error(err, 0, TRL_ERR_IO, "cannot read the tree file: %s",
                                strerror(errno));
    return TRL_OK;
}

/* A NUL would end the text early: refuse it, at its line. */
static int check_text(const char *text, size_t len, trl_file_error *err)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return TRL_OK;
    int line = 1;
    for (const char *p = text; p < nul; p++)
        line += *p == '\n';
    return whole_file_error(err, line, TRL_ERR_PARSE, "not a text file (it holds a NUL byte)");
}

int trl_tree_file_load(const char *path, trl_tree_file *out, trl_file_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    snprintf(err->source, sizeof err->source, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return whole_file_error(err, 0, TRL_ERR_IO, "cannot read the tree file: %s",
                                strerror(errno));
    char *text;
    size_t len;
    int rc = read_all(f, &text, &len, err);
    fclose(f);
    if (rc == TRL_OK)
        rc = check_text(text, len, err);
    if (rc == TRL_OK)
        rc = trl_tree_file_parse(text, path, out, err);
    free(text);
    return rc;
}
