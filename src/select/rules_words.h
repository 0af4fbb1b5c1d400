/* Inside the rules reader (not part of the API): a rule's words, the state
 * of reading one rule, and the located messages about them (rules_words.c),
 * shared by the parser (rules.c) and the reader of TRELLIS_RULES
 * (rules_env.c). */
#ifndef TRL_RULES_WORDS_H
#define TRL_RULES_WORDS_H

#include <stdbool.h>
#include <stddef.h>

#include "select/rules_error.h"

/* User text quoted in a message is cut to this many characters, so the
 * message itself still fits trl_rules_error. */
#define QUOTE_MAX 60
#define Q(p, len) (int)((len) < QUOTE_MAX ? (len) : QUOTE_MAX), (p)

/* A word of a rule and its column. */
typedef struct {
    const char *p;
    size_t len;
    int column;
} token;

/* The state of parsing one rule: its words lie in [cur, end), and the
 * character at col_base is column 1. */
typedef struct {
    const char *source;
    int line;
    const char *col_base;
    const char *cur, *end;
    trl_rules_error *err;
} parser;

/* A name=value word, split at its first '='. */
typedef struct {
    const char *key, *val;
    size_t klen, vlen;
} pair;

/* The blanks between words (and around a rule). */
bool trl__rules_is_blank(char c);
/* The next word of the rule in ps, if any. */
bool trl__rules_next_token(parser *ps, token *t);
bool trl__rules_word_is(const char *word, const char *p, size_t len);
bool trl__rules_split_pair(const token *t, pair *kv);
/* [begin, end) without blanks at either end, malloc'ed; NULL if out of memory. */
char *trl__rules_trimmed_copy(const char *begin, const char *end);
/* The collective of a non-blocking or persistent call's name, as verbose
 * mode prints it (iallreduce, allreduce_init); -1 for another word. */
int trl__rules_call_name_coll(const char *p, size_t len, bool *persistent);

/* Records the message at this column of ps's line; returns TRL_ERR_PARSE. */
int trl__rules_fail(parser *ps, int column, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* An error with no position in the text (a file that cannot be read, no
 * memory); returns rc. */
int trl__rules_fail_whole(trl_rules_error *err, const char *source, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Append `word` to a ", "-separated list in buf, as far as it fits. */
void trl__rules_list_add(char *buf, size_t len, const char *word);

#endif
