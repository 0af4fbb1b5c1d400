/* The parameter kinds of hierarchies and tree files: levels= lists, one
 * level's algorithm with its own parameters, choices and files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/params_extra.h"
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

int trl__param_parse_extra(const trl_param_spec *spec, const char *text, size_t len,
                           trl_param_value *out, const char **why)
{
    switch (spec->kind) {
    case TRL_PARAM_CHOICE:
        return parse_choice(spec, text, len, out, why);
    case TRL_PARAM_LEVELS:
        return parse_levels(text, len, &out->value, why);
    case TRL_PARAM_LEVEL:
        return parse_level(spec, text, len, out, why);
    case TRL_PARAM_FILE:
        return parse_file(text, len, out, why);
    default:
        *why = "not a parameter kind of this file";
        return TRL_ERR_INVALID;
    }
}

void trl__param_free_obj(trl_param_value *v)
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

void trl__param_format_extra(const trl_param_value *v, char *buf, size_t len)
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
