/* The words of a rule and the located messages about them. */
#include "select/rules_words.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "core/status.h"

/* ---- messages ----------------------------------------------------------- */

static void set_error(trl_rules_error *err, const char *source, int line, int column,
                      const char *fmt, va_list ap)
{
    snprintf(err->source, sizeof err->source, "%s", source);
    err->line = line;
    err->column = column;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
}

int trl__rules_fail(parser *ps, int column, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(ps->err, ps->source, ps->line, column, fmt, ap);
    va_end(ap);
    return TRL_ERR_PARSE;
}

/* Line 0 tells trl_rules_error_format to leave the position out. */
int trl__rules_fail_whole(trl_rules_error *err, const char *source, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_error(err, source, 0, 0, fmt, ap);
    va_end(ap);
    return rc;
}

void trl__rules_list_add(char *buf, size_t len, const char *word)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%s%s", used ? ", " : "", word);
}

/* ---- words -------------------------------------------------------------- */

bool trl__rules_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

bool trl__rules_next_token(parser *ps, token *t)
{
    while (ps->cur < ps->end && trl__rules_is_blank(*ps->cur))
        ps->cur++;
    if (ps->cur == ps->end)
        return false;
    t->p = ps->cur;
    while (ps->cur < ps->end && !trl__rules_is_blank(*ps->cur))
        ps->cur++;
    t->len = (size_t)(ps->cur - t->p);
    t->column = (int)(t->p - ps->col_base) + 1;
    return true;
}

bool trl__rules_word_is(const char *word, const char *p, size_t len)
{
    return strlen(word) == len && memcmp(word, p, len) == 0;
}

bool trl__rules_split_pair(const token *t, pair *kv)
{
    const char *eq = memchr(t->p, '=', t->len);
    if (!eq)
        return false;
    kv->key = t->p;
    kv->klen = (size_t)(eq - t->p);
    kv->val = eq + 1;
    kv->vlen = t->len - kv->klen - 1;
    return true;
}

char *trl__rules_trimmed_copy(const char *begin, const char *end)
{
    while (begin < end && trl__rules_is_blank(*begin))
        begin++;
    while (end > begin && trl__rules_is_blank(end[-1]))
        end--;
    size_t len = (size_t)(end - begin);
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, begin, len);
        s[len] = '\0';
    }
    return s;
}


/* The collective of a non-blocking or persistent call's name, as verbose
 * mode prints it (iallreduce, allreduce_init): its rules are the
 * collective's, told apart by the nonblocking= filter. -1 for another word. */
int trl__rules_call_name_coll(const char *p, size_t len, bool *persistent)
{
    *persistent = len > 5 && memcmp(p + len - 5, "_init", 5) == 0;
    if (*persistent)
        return trl_coll_from_name(p, len - 5);
    return len > 1 && p[0] == 'i' ? trl_coll_from_name(p + 1, len - 1) : -1;
}
