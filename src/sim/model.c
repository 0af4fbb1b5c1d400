#include "sim/model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "core/status.h"
#include "topo/topo.h"


static int __attribute__((format(printf, 5, 6)))
error_at(trl_model_error *err, const char *source, int line, int column, const char *fmt, ...)
{
    snprintf(err->source, sizeof err->source, "%s", source);
    err->line = line;
    err->column = column;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return TRL_ERR_PARSE;
}

/* The value of key=value as a number of ns (or ns per byte): finite, >= 0. */
static bool read_number(const char *v, size_t len, double *out)
{
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf)
        return false;
    memcpy(buf, v, len);
    buf[len] = '\0';
    errno = 0;
    double x = strtod(buf, &end);
    if (*end || errno || !isfinite(x) || x < 0)
        return false;
    *out = x;
    return true;
}

enum { SET_OK, SET_NO_KEY, SET_BAD_VALUE };

static const char *const link_keys[] = {"latency",  "overhead",      "gap",  "per_byte",
                                        "recv_gap", "recv_per_byte", "eager"};
static const char *const local_keys[] = {"per_step", "per_byte"};
static const char *const engine_keys[] = {"style", "bytes"};
enum { LINK_EAGER = 6, ENGINE_STYLE = 0 };

#define COUNT(a) (int)(sizeof(a) / sizeof *(a))

static bool is(const char *v, size_t vlen, const char *word)
{
    return strlen(word) == vlen && !strncmp(v, word, vlen);
}

/* One "key=value" of a line headed by `part`, into *m. */
static int one_setting(trl_model *m, const char *part, const char *key, size_t klen, const char *v,
                       size_t vlen)
{
    int c = -1;
    for (int i = 0; i < TRL_LINK_COUNT; i++)
        if (!strcmp(part, trl_link_name((trl_link)i)))
            c = i;
    bool engine = !strcmp(part, "engine");
    const char *const *keys = c >= 0 ? link_keys : engine ? engine_keys : local_keys;
    int nkeys = c >= 0 ? COUNT(link_keys) : engine ? COUNT(engine_keys) : COUNT(local_keys);
    int k = -1;
    for (int i = 0; i < nkeys; i++)
        if (is(key, klen, keys[i]))
            k = i;
    if (k < 0)
        return SET_NO_KEY;
    if (engine) {
        if (k == ENGINE_STYLE && (is(v, vlen, "executor") || is(v, vlen, "loggopsim")))
            m->style = is(v, vlen, "executor") ? TRL_ENGINE_EXECUTOR : TRL_ENGINE_LOGGOPSIM;
        else if (k != ENGINE_STYLE && (is(v, vlen, "s") || is(v, vlen, "s-1")))
            m->bytes_after_first = is(v, vlen, "s-1");
        else
            return SET_BAD_VALUE;
        return SET_OK;
    }
    double x;
    if (c >= 0 && k == LINK_EAGER) { /* a size, or none */
        unsigned long long bytes;
        if (is(v, vlen, "none"))
            x = INFINITY;
        else if (vlen > 0 && trl_parse_size(v, vlen, &bytes) == vlen)
            x = (double)bytes;
        else
            return SET_BAD_VALUE;
    } else if (!read_number(v, vlen, &x)) {
        return SET_BAD_VALUE;
    }
    if (c >= 0) {
        trl_link_model *l = &m->link[c];
        double *field[] = {&l->latency,  &l->overhead,      &l->gap,  &l->per_byte,
                           &l->recv_gap, &l->recv_per_byte, &l->eager};
        *field[k] = x;
    } else {
        trl_local_model *l = !strcmp(part, "reduce") ? &m->reduce : &m->copy;
        *(k == 0 ? &l->per_step : &l->per_byte) = x;
    }
    return SET_OK;
}

/* What a part's keys are, or what a key's value may be, for errors. */
static const char *keys_of(const char *part)
{
    if (!strcmp(part, "reduce") || !strcmp(part, "copy"))
        return "per_step, per_byte";
    if (!strcmp(part, "engine"))
        return "style, bytes";
    return "latency, overhead, gap, per_byte, recv_gap, recv_per_byte, eager";
}

static const char *values_of(const char *part, const char *key, size_t klen)
{
    if (!strcmp(part, "engine"))
        return is(key, klen, "style") ? "executor or loggopsim" : "s or s-1";
    if (is(key, klen, "eager"))
        return "a size such as 4096 or 64K, or none";
    return "a number >= 0";
}

int trl_model_parse(const char *text, const char *source, trl_model *out, trl_model_error *err)
{
    memset(out, 0, sizeof *out);
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        out->link[c].eager = INFINITY;
    int line = 1, style_line = 0, style_column = 0;
    for (const char *p = text; *p; line++) {
        const char *eol = strchr(p, '\n');
        if (!eol)
            eol = p + strlen(p);
        const char *q = p;
        while (q < eol && isspace((unsigned char)*q))
            q++;
        if (q == eol || *q == '#') {
            p = *eol ? eol + 1 : eol;
            continue;
        }
        const char *w = q;
        while (q < eol && !isspace((unsigned char)*q))
            q++;
        char part[16];
        size_t plen = (size_t)(q - w);
        bool known = plen < sizeof part;
        if (known) {
            memcpy(part, w, plen);
            part[plen] = '\0';
            known = !strcmp(part, "socket") || !strcmp(part, "host") || !strcmp(part, "world") ||
                    !strcmp(part, "reduce") || !strcmp(part, "copy") || !strcmp(part, "engine");
        }
        if (!known)
            return error_at(err, source, line, (int)(w - p) + 1,
                            "expected socket, host, world, reduce, copy or engine, got '%.*s'",
                            (int)plen, w);
        for (;;) {
            while (q < eol && isspace((unsigned char)*q))
                q++;
            if (q == eol || *q == '#')
                break;
            const char *kv = q;
            while (q < eol && !isspace((unsigned char)*q))
                q++;
            const char *eq = memchr(kv, '=', (size_t)(q - kv));
            int column = (int)(kv - p) + 1;
            if (!eq)
                return error_at(err, source, line, column, "expected key=value, got '%.*s'",
                                (int)(q - kv), kv);
            size_t klen = (size_t)(eq - kv), vlen = (size_t)(q - eq - 1);
            int rc = one_setting(out, part, kv, klen, eq + 1, vlen);
            if (rc == SET_NO_KEY)
                return error_at(err, source, line, column, "%s has no key '%.*s' (%s)", part,
                                (int)klen, kv, keys_of(part));
            if (rc == SET_BAD_VALUE)
                return error_at(err, source, line, (int)(eq + 1 - p) + 1,
                                "%.*s: expected %s, got '%.*s'", (int)klen, kv,
                                values_of(part, kv, klen), (int)vlen, eq + 1);
            if (!strcmp(part, "engine") && is(kv, klen, "style")) {
                style_line = line;
                style_column = column;
            }
        }
        p = *eol ? eol + 1 : eol;
    }
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        if (out->style == TRL_ENGINE_LOGGOPSIM && isfinite(out->link[c].eager))
            return error_at(err, source, style_line, style_column,
                            "style=loggopsim sends every message eager, but %s has eager=%.0f "
                            "(leave it out, or none)",
                            trl_link_name((trl_link)c), out->link[c].eager);
    return TRL_OK;
}

int trl_model_load(const char *path, trl_model *out, trl_model_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        error_at(err, path, 0, 0, "cannot read the model file: %s", strerror(errno));
        return TRL_ERR_IO;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 8192;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                return TRL_ERR_NOMEM;
            }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096)
            break;
    }
    fclose(f);
    text[len] = '\0';
    int rc = trl_model_parse(text, path, out, err);
    free(text);
    return rc;
}

void trl_model_error_format(const trl_model_error *err, char *buf, size_t len)
{
    trl_format_where(buf, len, err->source, err->line, err->column, err->message);
}
