/* One section of a tree or script file: its ranks' parents and children as
 * the lines give them, and the checks on them. What one line can show
 * wrong is reported at that line; what needs the whole section (ranks
 * missing, parent and children disagreeing, cycles) when it ends. Every
 * check is linear in the number of ranks, so a 1<<20-rank file loads fast. */
#include "tree/tree_section.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

/* How messages say parent and child: a tree file names them, a script
 * sends and receives (the other way round in the bcast direction). */
typedef struct {
    const char *up;        /* "rank 2 names parent 0" */
    const char *down;      /* "rank 0 lists child 2" */
    const char *down_cmd;  /* "rank 0 does not list 2" */
    const char *no_up;     /* "rank 2 names parent none" */
    const char *root_none; /* "the root has no parent" */
    const char *one_up;    /* why a rank cannot be listed twice */
} wording;

static wording wording_of(const trl__reader *rd)
{
    if (!rd->script)
        return (wording){"names parent",      "lists child",   "list",
                         "names parent none", "has no parent", "a rank has one parent"};
    if (trl__section_is_bcast(rd))
        return (wording){"receives from",    "sends to",         "send to",
                         "does not receive", "receives nothing", "a rank receives from one rank"};
    return (wording){"sends to",      "receives from", "recv",
                     "does not send", "sends nothing", "a rank sends to one rank"};
}

bool trl__section_is_bcast(const trl__reader *rd)
{
    return strcmp(rd->sec.name, "bcast") == 0;
}

/* ---- storage --------------------------------------------------------------- */

void trl__section_free(trl__section *s)
{
    free(s->parent);
    free(s->line_of);
    free(s->first);
    free(s->n);
    free(s->listed_by);
    free(s->kids);
    memset(s, 0, sizeof *s);
}

int trl__section_start(trl__reader *rd, const char *name)
{
    trl__section *s = &rd->sec;
    size_t p = (size_t)rd->size;
    *s = (trl__section){.name = name, .header_line = rd->line};
    s->parent = malloc(p * sizeof *s->parent);
    s->line_of = calloc(p, sizeof *s->line_of);
    s->first = calloc(p, sizeof *s->first);
    s->n = calloc(p, sizeof *s->n);
    s->listed_by = malloc(p * sizeof *s->listed_by);
    s->kids = malloc(p * sizeof *s->kids);
    if (!s->parent || !s->line_of || !s->first || !s->n || !s->listed_by || !s->kids) {
        trl__section_free(s);
        trl__fail(rd, rd->line, "out of memory");
        return TRL_ERR_NOMEM;
    }
    for (size_t i = 0; i < p; i++) {
        s->parent[i] = TRL__NO_LINE;
        s->listed_by[i] = -1;
    }
    rd->in_section = true;
    return TRL_OK;
}

/* ---- what one line shows ------------------------------------------------------ */

int trl__rank_line(trl__reader *rd, int r)
{
    trl__section *s = &rd->sec;
    if (s->parent[r] != TRL__NO_LINE)
        return trl__fail(rd, rd->line,
                         "rank %d is listed twice in the %s section (first on line %d)", r, s->name,
                         s->line_of[r]);
    s->parent[r] = -1;
    s->line_of[r] = rd->line;
    s->first[r] = s->nkids;
    return TRL_OK;
}

int trl__set_parent(trl__reader *rd, int r, int parent)
{
    wording w = wording_of(rd);
    if (r == rd->root && parent >= 0)
        return trl__fail(rd, rd->line, "the root %d %s %d (the root %s)", r, w.up, parent,
                         w.root_none);
    if (r != rd->root && parent < 0)
        return trl__fail(rd, rd->line, "rank %d %s, but only the root %d %s", r, w.no_up, rd->root,
                         w.root_none);
    if (parent == r)
        return trl__fail(rd, rd->line, "rank %d is its own parent", r);
    rd->sec.parent[r] = parent;
    return TRL_OK;
}

int trl__add_child(trl__reader *rd, int r, int c)
{
    trl__section *s = &rd->sec;
    wording w = wording_of(rd);
    int other = s->listed_by[c];
    if (c == r)
        return trl__fail(rd, rd->line, "rank %d lists itself as a child", r);
    if (c == rd->root)
        return trl__fail(rd, rd->line, "rank %d %s %d, the root (the root %s)", r, w.down, c,
                         w.root_none);
    if (other == r)
        return trl__fail(rd, rd->line, "rank %d %s %d twice", r, w.down, c);
    if (other >= 0)
        return trl__fail(rd, rd->line, "rank %d %s %d, as rank %d already does (line %d); %s", r,
                         w.down, c, other, s->line_of[other], w.one_up);
    s->listed_by[c] = r;
    s->kids[s->nkids++] = c; /* fits: each rank but the root is listed once */
    s->n[r]++;
    return TRL_OK;
}

/* ---- what the whole section shows ------------------------------------------ */

static int check_every_rank_has_a_line(trl__reader *rd)
{
    const trl__section *s = &rd->sec;
    for (int r = 0; r < rd->size; r++)
        if (s->parent[r] == TRL__NO_LINE)
            return trl__fail(rd, s->header_line, "rank %d has no line in the %s section", r,
                             s->name);
    return TRL_OK;
}

/* A rank's parent lists it, and no other rank does (add_child already
 * refused a second lister and the root as a child, so this covers every
 * child in every list too). */
static int check_parents_list_their_children(trl__reader *rd)
{
    const trl__section *s = &rd->sec;
    wording w = wording_of(rd);
    for (int r = 0; r < rd->size; r++) {
        int p = s->parent[r], by = s->listed_by[r];
        if (p < 0 || by == p)
            continue;
        char also[64] = "";
        if (by >= 0)
            snprintf(also, sizeof also, "; rank %d does (line %d)", by, s->line_of[by]);
        return trl__fail(rd, s->line_of[r],
                         "rank %d %s %d, but rank %d does not %s %d (its line is %d)%s", r, w.up, p,
                         p, w.down_cmd, r, s->line_of[p], also);
    }
    return TRL_OK;
}

enum { UNSEEN, ON_PATH, REACHES, CUT_OFF };

/* Walks up from r, marking the ranks passed; returns whether r reaches the
 * root. Every rank but the root has a parent here, so a walk that meets
 * its own path has found a cycle. */
static bool walk_up(const trl__section *s, int root, char *state, int r)
{
    int at = r;
    while (at != root && state[at] == UNSEEN) {
        state[at] = ON_PATH;
        at = s->parent[at];
    }
    char end = at == root || state[at] == REACHES ? REACHES : CUT_OFF;
    for (at = r; at != root && state[at] == ON_PATH; at = s->parent[at])
        state[at] = end;
    return end == REACHES;
}

/* "4 -> 5 -> 4": the cycle that r leads to, from its smallest rank. */
static void describe_cycle(const trl__section *s, int size, int r, char *buf, size_t len)
{
    for (int i = 0; i < size; i++) /* size steps up land on the cycle */
        r = s->parent[r];
    int start = r;
    for (int at = s->parent[r]; at != r; at = s->parent[at])
        start = at < start ? at : start;
    size_t used = (size_t)snprintf(buf, len, "%d", start);
    int at = start;
    do {
        at = s->parent[at];
        if (used + 24 >= len) {
            snprintf(buf + used, len - used, " -> ...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, " -> %d", at);
    } while (at != start);
}

/* "4, 5" or "4, 5, 6, ... (12 in all)": the ranks cut off from the root. */
static void list_cut_off(const char *state, int size, char *buf, size_t len)
{
    int shown = 0, all = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int r = 0; r < size; r++) {
        if (state[r] != CUT_OFF)
            continue;
        if (++all <= 8)
            used += (size_t)snprintf(buf + used, len - used, "%s%d", shown++ ? ", " : "", r);
    }
    if (all > shown)
        snprintf(buf + used, len - used, ", ... (%d in all)", all);
}

static int check_every_rank_reaches_the_root(trl__reader *rd)
{
    const trl__section *s = &rd->sec;
    char *state = calloc((size_t)rd->size, 1);
    if (!state) {
        trl__fail(rd, rd->line, "out of memory");
        return TRL_ERR_NOMEM;
    }
    int first_cut = -1;
    for (int r = 0; r < rd->size; r++)
        if (!walk_up(s, rd->root, state, r) && first_cut < 0)
            first_cut = r;
    int rc = TRL_OK;
    if (first_cut >= 0) {
        char ranks[160], cycle[160];
        list_cut_off(state, rd->size, ranks, sizeof ranks);
        describe_cycle(s, rd->size, first_cut, cycle, sizeof cycle);
        rc = trl__fail(rd, s->line_of[first_cut], "ranks %s do not reach the root %d (cycle %s)",
                       ranks, rd->root, cycle);
    }
    free(state);
    return rc;
}

/* ---- the section's links ------------------------------------------------------- */

/* Parents and children, children in rank order of their parents (CSR). */
static int copy_links(trl__reader *rd, trl_tree_links *l)
{
    const trl__section *s = &rd->sec;
    size_t p = (size_t)rd->size;
    l->parent = malloc(p * sizeof *l->parent);
    l->child_first = malloc((p + 1) * sizeof *l->child_first);
    l->child = malloc((s->nkids ? (size_t)s->nkids : 1) * sizeof *l->child);
    if (!l->parent || !l->child_first || !l->child) {
        trl__fail(rd, rd->line, "out of memory");
        return TRL_ERR_NOMEM;
    }
    int at = 0;
    for (size_t r = 0; r < p; r++) {
        l->parent[r] = s->parent[r];
        l->child_first[r] = at;
        memcpy(l->child + at, s->kids + s->first[r], (size_t)s->n[r] * sizeof *l->child);
        at += s->n[r];
    }
    l->child_first[p] = at;
    return TRL_OK;
}

int trl__section_end(trl__reader *rd)
{
    if (!rd->in_section)
        return TRL_OK;
    int rc = check_every_rank_has_a_line(rd);
    if (rc == TRL_OK)
        rc = check_parents_list_their_children(rd);
    if (rc == TRL_OK)
        rc = check_every_rank_reaches_the_root(rd);
    trl_tree_file *f = rd->out;
    const char *name = rd->sec.name;
    if (rc == TRL_OK && strcmp(name, "bcast") != 0) {
        rc = copy_links(rd, &f->reduce);
        f->has_reduce = rc == TRL_OK;
    }
    if (rc == TRL_OK && strcmp(name, "reduce") != 0) {
        rc = copy_links(rd, &f->bcast);
        f->has_bcast = rc == TRL_OK;
    }
    trl__section_free(&rd->sec);
    rd->in_section = false;
    return rc;
}
