/* Reading a tree or script file's lines: their words, the ranks they name,
 * and the located message of what is wrong. */
#include "tree/tree_read.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/status.h"

static bool is_separator(char ch)
{
    return ch == ',' || ch == ':';
}

bool trl__next_word(trl__cursor *c, trl__word *w)
{
    while (c->p < c->end && isspace((unsigned char)*c->p))
        c->p++;
    if (c->p == c->end)
        return false;
    w->p = c->p;
    if (is_separator(*c->p))
        c->p++;
    else
        while (c->p < c->end && !isspace((unsigned char)*c->p) && !is_separator(*c->p))
            c->p++;
    w->len = (size_t)(c->p - w->p);
    return true;
}

bool trl__word_is(const trl__word *w, const char *lit)
{
    return strlen(lit) == w->len && memcmp(w->p, lit, w->len) == 0;
}

const char *trl__quote(const trl__word *w, char buf[48])
{
    size_t n = w->len < 40 ? w->len : 40;
    for (size_t i = 0; i < n; i++)
        buf[i] = isprint((unsigned char)w->p[i]) ? w->p[i] : '?';
    strcpy(buf + n, w->len > n ? "..." : "");
    return buf;
}

int trl__fail(trl__reader *rd, int line, const char *fmt, ...)
{
    snprintf(rd->err->source, sizeof rd->err->source, "%s", rd->source);
    rd->err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->err->message, sizeof rd->err->message, fmt, ap);
    va_end(ap);
    return TRL_ERR_PARSE;
}

/* Digits only. The value stops growing at cap, so no number overflows. */
bool trl__digits(const trl__word *w, long long cap, long long *v)
{
    *v = 0;
    for (size_t i = 0; i < w->len; i++) {
        if (!isdigit((unsigned char)w->p[i]))
            return false;
        if (*v < cap)
            *v = *v * 10 + (w->p[i] - '0');
    }
    return w->len > 0;
}

int trl__rank(trl__reader *rd, const trl__word *w, const char *what, int *out)
{
    char q[48];
    long long v;
    if (!trl__digits(w, rd->size, &v))
        return trl__fail(rd, rd->line, "%s: expected a number, got '%s'", what, trl__quote(w, q));
    if (v >= rd->size && rd->size == 1)
        return trl__fail(rd, rd->line, "%s %s is out of range (the file has 1 rank: 0)", what,
                         trl__quote(w, q));
    if (v >= rd->size)
        return trl__fail(rd, rd->line, "%s %s is out of range (the file has %d ranks: 0..%d)", what,
                         trl__quote(w, q), rd->size, rd->size - 1);
    *out = (int)v;
    return TRL_OK;
}
