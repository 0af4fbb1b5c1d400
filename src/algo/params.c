/* The parameters of rules: each kind's values parsed, read by the builders,
 * formatted for tools, and freed. One file, since the kinds nest: a level's
 * value holds parameters of its own, of any kind, parsed, formatted and
 * freed as these are. First the kinds of hierarchies and tree files
 * (levels= lists, one level's algorithm with its own parameters, choices
 * and files), then numbers and algorithm names, and lists of parameters. */
#include "algo/params.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "tree/tree_file.h"

static const char *const level_names[TRL_LEVEL_COUNT] = {"numa", "socket", "group", "host",
                                                         "world"};

const char *trl_level_name(trl_level_kind k)
{
    return k >= 0 && k < TRL_LEVEL_COUNT ? level_names[k] : "?";
}

/* value: bit k set for each level kind present, K of group:K from bit 8. */
void trl_levels_decode(long long value, trl_levels *out)
{
    out->n = 0;
    out->group = (int)(value >> 8);
    for (int k = 0; k < TRL_LEVEL_COUNT; k++)
        if (value & (1LL << k))
            out->kind[out->n++] = (trl_level_kind)k;
}

static int parse_levels(const char *text, size_t len, long long *out, const char **why)
{
    long long mask = 0, group = 0;
    int last = -1;
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && text[end] != ',')
            end++;
        size_t n = end - i;
        int kind = -1;
        for (int k = 0; k < TRL_LEVEL_COUNT; k++) {
            size_t m = strlen(level_names[k]);
            bool grouped = k == TRL_LEVEL_GROUP;
            if (grouped ? n > m && !strncmp(text + i, "group:", m + 1)
                        : n == m && !strncmp(text + i, level_names[k], m))
                kind = k;
        }
        if (kind == TRL_LEVEL_GROUP) {
            char *stop;
            group = strtol(text + i + 6, &stop, 10);
            if (stop != text + end || group < 1 || group > 1 << 20) {
                *why = "group:K needs a number of ranks K from 1 to 1048576";
                return TRL_ERR_INVALID;
            }
        }
        if (kind < 0) {
            *why = "expected levels from numa, socket, group:K, host, world, separated by ','";
            return TRL_ERR_INVALID;
        }
        if (kind <= last) {
            *why = "levels go from the smallest to world, each once: numa, socket, group:K, "
                   "host, world";
            return TRL_ERR_INVALID;
        }
        last = kind;
        mask |= 1LL << kind;
        i = end + (end < len);
    }
    if (last != TRL_LEVEL_WORLD) {
        *why = "the last level must be world";
        return TRL_ERR_INVALID;
    }
    *out = mask | group << 8;
    return TRL_OK;
}

static bool is_tree_shape(const char *name, size_t len)
{
    static const char *const shapes[] = {"linear", "binomial", "knomial", "kary", "chain"};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        if (strlen(shapes[i]) == len && !strncmp(shapes[i], name, len))
            return true;
    return false;
}

/* Whether a level whose parameter is `spec` can run `a`. */
static bool level_runs(const trl_param_spec *spec, const trl_algo *a)
{
    size_t len = strlen(a->name);
    return a->coll == spec->of && trl_algo_nestable(a) &&
           (!(spec->flags & TRL_PARAM_ALSO_BCAST) || trl_algo_find(TRL_COLL_BCAST, a->name, len)) &&
           (!(spec->flags & TRL_PARAM_TREE_SHAPE) || is_tree_shape(a->name, len));
}

bool trl_param_runs(const trl_param_spec *spec, const trl_algo *a)
{
    if (spec->kind == TRL_PARAM_LEVEL)
        return level_runs(spec, a);
    return spec->kind == TRL_PARAM_ALGO && a->coll == spec->of && trl_algo_nestable(a);
}

/* Why a level cannot run what it names, with the names it can run. */
static const char *bad_level(const trl_param_spec *spec, const trl_algo *named)
{
    static _Thread_local char msg[500];
    char names[256] = "";
    for (const trl_algo *a = trl_algorithms; a->name; a++)
        if (level_runs(spec, a))
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     names[0] ? ", " : "", a->name);
    const char *reason = "not an algorithm a level can run";
    if (named && trl_algo_nestable(named) && (spec->flags & TRL_PARAM_ALSO_BCAST))
        reason = "a level below the top reduces up and broadcasts down: it needs a name that is "
                 "both a reduce and a bcast algorithm";
    else if (named && trl_algo_nestable(named) && (spec->flags & TRL_PARAM_TREE_SHAPE))
        reason = "a barrier's lower levels are trees";
    snprintf(msg, sizeof msg, "%s (expected one of: %s)", reason, names);
    return msg;
}

/* "knomial" or "knomial(radix=4,segment=8K)". */
static int parse_level(const trl_param_spec *spec, const char *text, size_t len,
                       trl_param_value *out, const char **why)
{
    const char *open = memchr(text, '(', len);
    size_t nlen = open ? (size_t)(open - text) : len;
    const trl_algo *algo = trl_algo_find(spec->of, text, nlen);
    if (!algo || !level_runs(spec, algo)) {
        *why = bad_level(spec, algo);
        return TRL_ERR_INVALID;
    }
    out->algo = algo;
    if (!open)
        return TRL_OK;
    if (text[len - 1] != ')') {
        *why = "expected name(key=value,...) with the ')' last";
        return TRL_ERR_INVALID;
    }
    /* The inner list, commas turned into the blanks trl_params_from_string
     * separates on. */
    size_t ilen = len - nlen - 2;
    char *inner = malloc(ilen + 1);
    trl_params *params = malloc(sizeof *params);
    if (!inner || !params) {
        free(inner);
        free(params);
        *why = "out of memory";
        return TRL_ERR_NOMEM;
    }
    for (size_t i = 0; i < ilen; i++)
        inner[i] = open[1 + i] == ',' || open[1 + i] == ' ' ? ' ' : open[1 + i];
    inner[ilen] = '\0';
    int rc = trl_params_from_string(algo, inner, params, why);
    free(inner);
    if (rc) {
        free(params);
        return rc;
    }
    out->obj = params;
    return TRL_OK;
}

static int parse_choice(const trl_param_spec *spec, const char *text, size_t len,
                        trl_param_value *out, const char **why)
{
    const char *p = spec->choices;
    for (long long i = 0; p && *p; i++) {
        size_t n = strcspn(p, "|");
        if (n == len && !strncmp(p, text, len)) {
            out->value = i;
            return TRL_OK;
        }
        p += n + (p[n] == '|');
    }
    static _Thread_local char msg[300];
    size_t at = (size_t)snprintf(msg, sizeof msg, "expected one of: ");
    for (p = spec->choices; p && *p && at < sizeof msg;) {
        size_t n = strcspn(p, "|");
        int w = snprintf(msg + at, sizeof msg - at, "%s%.*s", p == spec->choices ? "" : ", ",
                         (int)n, p);
        at += w > 0 ? (size_t)w : 0;
        p += n + (p[n] == '|');
    }
    *why = msg;
    return TRL_ERR_INVALID;
}

static int parse_file(const char *text, size_t len, trl_param_value *out, const char **why)
{
    static _Thread_local char message[700];
    char *path = strndup(text, len);
    trl_tree_file *f = calloc(1, sizeof *f);
    if (!path || !f) {
        free(path);
        free(f);
        *why = "out of memory";
        return TRL_ERR_NOMEM;
    }
    trl_file_error err;
    int rc = trl_tree_file_load(path, f, &err);
    free(path);
    if (rc) {
        free(f);
        trl_file_error_format(&err, message, sizeof message);
        *why = message;
        return rc;
    }
    out->obj = f;
    return TRL_OK;
}

static int parse_extra(const trl_param_spec *spec, const char *text, size_t len,
                       trl_param_value *out, const char **why)
{
    switch (spec->kind) {
    case TRL_PARAM_CHOICE: return parse_choice(spec, text, len, out, why);
    case TRL_PARAM_LEVELS: return parse_levels(text, len, &out->value, why);
    case TRL_PARAM_LEVEL: return parse_level(spec, text, len, out, why);
    case TRL_PARAM_FILE: return parse_file(text, len, out, why);
    default: *why = "not a parameter kind of this file"; return TRL_ERR_INVALID;
    }
}

static void free_obj(trl_param_value *v)
{
    if (!v->obj)
        return;
    if (v->spec->kind == TRL_PARAM_LEVEL) {
        trl_params_free(v->obj);
    } else if (v->spec->kind == TRL_PARAM_FILE) {
        trl_tree_file_free(v->obj);
    }
    free(v->obj);
    v->obj = NULL;
}

static void format_levels(long long value, char *buf, size_t len)
{
    trl_levels l;
    trl_levels_decode(value, &l);
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < l.n && at < len; i++) {
        int n = l.kind[i] == TRL_LEVEL_GROUP
                    ? snprintf(buf + at, len - at, "%sgroup:%d", i ? "," : "", l.group)
                    : snprintf(buf + at, len - at, "%s%s", i ? "," : "", level_names[l.kind[i]]);
        at += n > 0 ? (size_t)n : 0;
    }
}

static void format_extra(const trl_param_value *v, char *buf, size_t len)
{
    const trl_param_spec *spec = v->spec;
    if (spec->kind == TRL_PARAM_LEVELS) {
        format_levels(v->value, buf, len);
    } else if (spec->kind == TRL_PARAM_CHOICE) {
        const char *p = spec->choices;
        for (long long i = 0; i < v->value && p && *p; i++)
            p += strcspn(p, "|") + 1;
        snprintf(buf, len, "%.*s", p ? (int)strcspn(p, "|") : 1, p ? p : "?");
    } else if (spec->kind == TRL_PARAM_FILE) {
        const trl_tree_file *f = v->obj;
        snprintf(buf, len, "%s", f && f->path ? f->path : "?");
    } else if (spec->kind == TRL_PARAM_LEVEL) {
        const trl_params *p = v->obj;
        size_t at = (size_t)snprintf(buf, len, "%s", v->algo ? v->algo->name : "?");
        for (int i = 0; p && i < p->n && at + 1 < len; i++) {
            char one[300];
            trl_param_format(&p->v[i], one, sizeof one);
            int n = snprintf(buf + at, len - at, "%c%s=%s", i ? ',' : '(', p->v[i].spec->name, one);
            at += n > 0 ? (size_t)n : 0;
        }
        if (p && p->n && at + 1 < len)
            snprintf(buf + at, len - at, ")");
    }
}

/* ---- numbers, algorithm names, lists of parameters ------------------------------ */

/* Why an ALGO value names nothing another algorithm can run, with the
 * names it could have given. */
static const char *bad_nested_algo(const trl_param_spec *spec, const trl_algo *named,
                                   const char *text, size_t len)
{
    static _Thread_local char msg[400];
    char names[256];
    trl_algo_names(spec->of, true, names, sizeof names);
    const char *coll = trl_coll_name(spec->of);
    if (!named)
        snprintf(msg, sizeof msg, "unknown %s algorithm '%.*s' (expected one of: %s)", coll,
                 (int)(len < 60 ? len : 60), text, names);
    else if (!named->build)
        snprintf(msg, sizeof msg,
                 "the MPI library's own %s cannot be part of another algorithm "
                 "(expected one of: %s)",
                 coll, names);
    else
        snprintf(msg, sizeof msg,
                 "%s %s needs a file of its own and cannot be part of another "
                 "algorithm (expected one of: %s)",
                 coll, named->name, names);
    return msg;
}

/* A number outside a parameter's limits, with the limits. */
static const char *out_of_range(const trl_param_spec *spec)
{
    static _Thread_local char msg[96];
    if (spec->max == LLONG_MAX) /* the table's way of saying "no upper bound" */
        snprintf(msg, sizeof msg, "value out of range (at least %lld)", spec->min);
    else
        snprintf(msg, sizeof msg, "value out of range (%lld..%lld)", spec->min, spec->max);
    return msg;
}

int trl_param_parse_value(const trl_param_spec *spec, const char *text, size_t len,
                          trl_param_value *out, const char **why)
{
    out->spec = spec;
    out->value = 0;
    out->algo = NULL;
    out->obj = NULL;
    if (spec->kind > TRL_PARAM_ALGO)
        return parse_extra(spec, text, len, out, why);
    if (spec->kind == TRL_PARAM_ALGO) {
        const trl_algo *named = trl_algo_find(spec->of, text, len);
        if (!named || !trl_algo_nestable(named)) {
            *why = bad_nested_algo(spec, named, text, len);
            return TRL_ERR_INVALID;
        }
        out->algo = named;
        return TRL_OK;
    }
    unsigned long long v;
    size_t used = trl_parse_size(text, len, &v);
    bool suffixed = used > 0 && !isdigit((unsigned char)text[used - 1]);
    if (used == 0 || used != len || (spec->kind == TRL_PARAM_INT && suffixed)) {
        *why = spec->kind == TRL_PARAM_SIZE ? "expected a size such as 4096, 64K or 1M"
                                            : "expected an integer";
        return TRL_ERR_INVALID;
    }
    if (v > (unsigned long long)spec->max || (long long)v < spec->min) {
        *why = out_of_range(spec);
        return TRL_ERR_INVALID;
    }
    out->value = (long long)v;
    return TRL_OK;
}

static const trl_param_value *given(const trl_coll_args *a, const char *name)
{
    for (int i = 0; a->params && i < a->params->n; i++)
        if (strcmp(a->params->v[i].spec->name, name) == 0)
            return &a->params->v[i];
    return NULL;
}

/* The default of the running algorithm's own spec. The table is checked by
 * the unit tests, so a default that fails to parse is a programming error. */
static trl_param_value fallback(const trl_coll_args *a, const char *name)
{
    trl_param_value v = {0};
    const trl_param_spec *spec = a->algo ? trl_algo_param(a->algo, name, strlen(name)) : NULL;
    const char *why;
    /* Defaults never allocate: no level's default has parameters, and a
     * file has no default. */
    if (spec && spec->default_text)
        trl_param_parse_value(spec, spec->default_text, strlen(spec->default_text), &v, &why);
    return v;
}

long long trl_param_int(const trl_coll_args *a, const char *name)
{
    const trl_param_value *v = given(a, name);
    return v ? v->value : fallback(a, name).value;
}

const trl_algo *trl_param_algo(const trl_coll_args *a, const char *name)
{
    const trl_param_value *v = given(a, name);
    return v ? v->algo : fallback(a, name).algo;
}

const trl_algo *trl_param_level(const trl_coll_args *a, const char *name, const trl_params **params)
{
    static const trl_params none = {NULL, 0};
    const trl_param_value *v = given(a, name);
    *params = v && v->obj ? v->obj : &none;
    return v ? v->algo : fallback(a, name).algo;
}

const void *trl_param_obj(const trl_coll_args *a, const char *name)
{
    const trl_param_value *v = given(a, name);
    return v ? v->obj : NULL;
}

void trl_param_format(const trl_param_value *v, char *buf, size_t len)
{
    if (v->spec->kind == TRL_PARAM_ALGO)
        snprintf(buf, len, "%s", v->algo ? v->algo->name : "?");
    else if (v->spec->kind == TRL_PARAM_SIZE)
        trl_format_size((unsigned long long)v->value, buf, len);
    else if (v->spec->kind == TRL_PARAM_INT)
        snprintf(buf, len, "%lld", v->value);
    else
        format_extra(v, buf, len);
}

void trl_params_free(trl_params *p)
{
    for (int i = 0; i < p->n; i++)
        free_obj(&p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

/* Only the values sub declares, with the same kind. A value outside sub's
 * range (radix=1 reaching a k-nomial tree, which needs 2) makes the call
 * unsupported rather than silently changed. */
int trl_params_view(const trl_params *given, const trl_algo *sub, trl_params *out)
{
    int n = given ? given->n : 0;
    out->n = 0;
    out->v = NULL;
    if (n == 0)
        return TRL_OK;
    out->v = malloc((size_t)n * sizeof *out->v);
    if (!out->v)
        return TRL_ERR_NOMEM;
    for (int i = 0; i < n; i++) {
        const trl_param_value *g = &given->v[i];
        const char *name = g->spec->name;
        const trl_param_spec *spec = trl_algo_param(sub, name, strlen(name));
        if (!spec || spec->kind != g->spec->kind)
            continue;
        bool numeric = spec->kind == TRL_PARAM_INT || spec->kind == TRL_PARAM_SIZE;
        if (spec->kind == TRL_PARAM_ALGO
                ? !g->algo || g->algo->coll != spec->of
                : numeric && (g->value < spec->min || g->value > spec->max)) {
            trl_params_release(out);
            return TRL_ERR_UNSUPPORTED;
        }
        out->v[out->n] = *g;
        out->v[out->n].spec = spec;
        out->n++;
    }
    return TRL_OK;
}

void trl_params_release(trl_params *view)
{
    free(view->v);
    view->v = NULL;
    view->n = 0;
}

/* The message of a parameter inside parentheses, which the rules parser
 * cannot locate itself: "radix=1: value out of range (2..1024)". */
static const char *nested_error(const char *word, size_t wlen, const char *detail)
{
    static _Thread_local char msg[700];
    char copy[600]; /* detail may be msg itself, from a level within this one */
    snprintf(copy, sizeof copy, "%s", detail);
    snprintf(msg, sizeof msg, "%.*s: %s", (int)(wlen < 60 ? wlen : 60), word, copy);
    return msg;
}

static const char *unknown_nested_param(const trl_algo *algo, const char *word, size_t wlen)
{
    char detail[400];
    int n = snprintf(detail, sizeof detail, "unknown parameter (%s ", algo->name);
    for (const trl_param_spec *s = algo->params; s && s->name && n > 0 && (size_t)n < sizeof detail;
         s++)
        n += snprintf(detail + n, sizeof detail - (size_t)n, "%s%s",
                      s == algo->params ? "takes: " : ", ", s->name);
    if (n > 0 && (size_t)n < sizeof detail)
        snprintf(detail + n, sizeof detail - (size_t)n, "%s)",
                 algo->params && algo->params->name ? "" : "takes no parameters");
    return nested_error(word, wlen, detail);
}

int trl_params_from_string(const trl_algo *algo, const char *text, trl_params *out,
                           const char **why)
{
    out->v = NULL;
    out->n = 0;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *end = p + strcspn(p, " ");
        size_t wlen = (size_t)(end - p);
        const char *eq = memchr(p, '=', wlen);
        if (!eq) {
            *why = nested_error(p, wlen, "expected name=value");
            goto error;
        }
        const trl_param_spec *spec = trl_algo_param(algo, p, (size_t)(eq - p));
        if (!spec) {
            *why = unknown_nested_param(algo, p, wlen);
            goto error;
        }
        for (int i = 0; i < out->n; i++)
            if (out->v[i].spec == spec) {
                *why = nested_error(p, wlen, "duplicate parameter");
                goto error;
            }
        trl_param_value *v = realloc(out->v, (size_t)(out->n + 1) * sizeof *v);
        if (!v) {
            *why = "out of memory";
            goto error;
        }
        out->v = v;
        const char *reason;
        if (trl_param_parse_value(spec, eq + 1, (size_t)(end - eq - 1), &out->v[out->n], &reason)) {
            *why = nested_error(p, wlen, reason);
            goto error;
        }
        out->n++;
        p = end;
    }
    return TRL_OK;
error:
    trl_params_free(out);
    return TRL_ERR_INVALID;
}
