/* Inside the tree-file reader (not part of the API): the state of reading
 * one file, shared by tree_file.c (lines and headers), tree_section.c (one
 * section's ranks and its checks) and script_file.c (script rank lines),
 * and the words of a line and the messages about them (tree_read.c). */
#ifndef TRL_TREE_READ_H
#define TRL_TREE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "tree/tree.h"

enum { TRL__MAX_TREE_RANKS = 1 << 20 };

/* The ranks of the section being read, one line each. A rank's children
 * sit together in kids[] (they come from its one line); each rank is some
 * rank's child at most once, so kids[] never holds more than size. */
typedef struct {
    const char *name; /* "reduce", "bcast" or "both" */
    int header_line;
    int *parent;    /* TRL__NO_LINE until the rank's line; -1: none */
    int *line_of;   /* the rank's line */
    int *first, *n; /* the rank's children: kids[first .. first + n) */
    int *listed_by; /* the rank that lists this one as a child, or -1 */
    int *kids;
    int nkids;
} trl__section;

enum { TRL__NO_LINE = -2 };

typedef struct {
    const char *source;
    trl_file_error *err;
    int line;
    bool kind_given; /* the first line has been read */
    bool script;
    int size, root;                         /* -1 until given */
    int size_line, root_line;               /* where they were given */
    int reduce_line, bcast_line, both_line; /* section headers seen, or 0 */
    bool in_section;
    trl__section sec;
    trl_tree_file *out;
} trl__reader;

/* A word of a line: a run of characters other than blanks, ',' and ':',
 * or one ',' or ':' on its own. */
typedef struct {
    const char *p;
    size_t len;
} trl__word;

typedef struct {
    const char *p, *end;
} trl__cursor;

bool trl__next_word(trl__cursor *c, trl__word *w);
bool trl__word_is(const trl__word *w, const char *lit);
/* The word as a message quotes it: at most 40 characters, each byte that
 * is not printable ASCII shown as '?'. */
const char *trl__quote(const trl__word *w, char buf[48]);

/* A word of digits only, as a number that stops growing at cap (so none
 * overflows). */
bool trl__digits(const trl__word *w, long long cap, long long *v);

/* Records "source:line: message" in rd->err; returns TRL_ERR_PARSE. */
int trl__fail(trl__reader *rd, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A rank of this file: "what: expected a number" or "what N is out of range". */
int trl__rank(trl__reader *rd, const trl__word *w, const char *what, int *out);

#endif
