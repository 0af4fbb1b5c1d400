/* Lookups over the algorithm table and the parameters of rules. */
#include "algo/algo.h"
#include "algo/inter/inter.h"
#include "algo/params_extra.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"
#include "topo/topo.h"

static const char *const coll_names[] = {
#define TRL_COLL_NAME(id, name, mpi) name,
    TRL_COLL_MAP(TRL_COLL_NAME)
#undef TRL_COLL_NAME
};

static const char *const coll_mpi_names[] = {
#define TRL_COLL_MPI_NAME(id, name, mpi) mpi,
    TRL_COLL_MAP(TRL_COLL_MPI_NAME)
#undef TRL_COLL_MPI_NAME
};

const char *trl_coll_mpi_name(trl_coll c)
{
    return (unsigned)c < TRL_COLL_COUNT ? coll_mpi_names[c] : "?";
}

const char *trl_coll_name(trl_coll c)
{
    return (unsigned)c < TRL_COLL_COUNT ? coll_names[c] : "?";
}

static bool same(const char *name, const char *text, size_t len)
{
    return strlen(name) == len && memcmp(name, text, len) == 0;
}

bool trl_coll_is_rooted(trl_coll c)
{
    return c == TRL_COLL_BCAST || c == TRL_COLL_REDUCE || c == TRL_COLL_GATHER ||
           c == TRL_COLL_GATHERV || c == TRL_COLL_SCATTER || c == TRL_COLL_SCATTERV;
}

bool trl_coll_is_reduction(trl_coll c)
{
    return c == TRL_COLL_REDUCE || c == TRL_COLL_ALLREDUCE || c == TRL_COLL_REDUCE_SCATTER ||
           c == TRL_COLL_REDUCE_SCATTER_BLOCK || c == TRL_COLL_SCAN || c == TRL_COLL_EXSCAN;
}

bool trl_coll_is_vector(trl_coll c)
{
    return c == TRL_COLL_GATHERV || c == TRL_COLL_SCATTERV || c == TRL_COLL_ALLGATHERV ||
           c == TRL_COLL_ALLTOALLV || c == TRL_COLL_ALLTOALLW || c == TRL_COLL_REDUCE_SCATTER;
}

bool trl_coll_has_bytes(trl_coll c)
{
    return c != TRL_COLL_BARRIER && c != TRL_COLL_GATHERV && c != TRL_COLL_SCATTERV &&
           c != TRL_COLL_ALLTOALLV && c != TRL_COLL_ALLTOALLW;
}

size_t trl_coll_rule_bytes(const trl_coll_args *a)
{
    if (a->inter)
        return trl_inter_rule_bytes(a);
    if (!trl_coll_has_bytes(a->coll))
        return 0;
    size_t total = 0;
    switch (a->coll) {
    case TRL_COLL_ALLGATHERV:
    case TRL_COLL_REDUCE_SCATTER:
        for (int r = 0; a->counts && r < a->size; r++)
            total += a->counts[r];
        total *= a->elem_size;
        return a->coll == TRL_COLL_ALLGATHERV ? total / (size_t)a->size : total;
    case TRL_COLL_REDUCE_SCATTER_BLOCK:
        return a->count * a->elem_size * (size_t)a->size;
    default:
        return a->count * a->elem_size;
    }
}

int trl_coll_from_name(const char *name, size_t len)
{
    for (int c = 0; c < TRL_COLL_COUNT; c++)
        if (same(coll_names[c], name, len))
            return c;
    return -1;
}

const trl_algo *trl_algo_find(trl_coll coll, const char *name, size_t len)
{
    for (const trl_algo *a = trl_algorithms; a->name; a++)
        if (a->coll == coll && same(a->name, name, len))
            return a;
    return NULL;
}

bool trl_algo_nestable(const trl_algo *a)
{
    if (!a->build || (a->needs & TRL_NEEDS_INTER))
        return false;
    for (const trl_param_spec *p = a->params; p && p->name; p++)
        if (p->flags & TRL_PARAM_REQUIRED)
            return false;
    return true;
}

void trl_algo_names(trl_coll coll, bool nestable_only, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const trl_algo *a = trl_algorithms; a->name && used < len; a++) {
        if (a->coll != coll || (nestable_only && !trl_algo_nestable(a)))
            continue;
        int n = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", a->name);
        used += n > 0 ? (size_t)n : 0;
    }
}

const trl_param_spec *trl_algo_param(const trl_algo *a, const char *name, size_t len)
{
    for (const trl_param_spec *p = a->params; p && p->name; p++)
        if (same(p->name, name, len))
            return p;
    return NULL;
}

const char *trl_algo_unusable(const trl_algo *algo, const trl_coll_args *a)
{
    /* The MPI library's own serves both kinds of communicator. */
    if (algo->build && !(algo->needs & TRL_NEEDS_INTER) != !a->inter)
        return a->inter ? "it serves intracommunicators only"
                        : "it serves intercommunicators only";
    if ((algo->needs & TRL_NEEDS_COMMUTATIVE) && !a->commutative)
        return "it needs a commutative operation";
    /* The counts are exchanged by a blocking collective before the
     * schedule is built, which a call that may not wait cannot do. */
    if ((algo->needs & TRL_NEEDS_ALL_COUNTS) && a->call != TRL_CALL_BLOCKING)
        return "it needs every rank's counts, which a non-blocking or persistent call cannot "
               "exchange before it returns";
    if ((algo->needs & TRL_NEEDS_BLOCK_PLACEMENT) && !trl_topo_stats(a->topo, a->size).block)
        return "it needs placement=block (every host holding consecutive ranks)";
    if (algo->unusable) {
        trl_coll_args self = *a;
        self.algo = algo;
        const char *why = algo->unusable(&self);
        if (why)
            return why;
    }
    /* Parameters are read as `algo` reads them; a nested algorithm takes
     * the same parameter list (that is how reduce_bcast passes radix on). */
    trl_coll_args self = *a;
    self.algo = algo;
    for (const trl_param_spec *p = algo->params; p && p->name; p++) {
        if (p->kind != TRL_PARAM_ALGO)
            continue;
        const trl_algo *nested = trl_param_algo(&self, p->name);
        if (!nested)
            return "a nested algorithm is missing";
        const char *why = trl_algo_unusable(nested, &self);
        if (why)
            return why;
    }
    return NULL;
}

size_t trl_parse_size(const char *text, size_t len, unsigned long long *out)
{
    size_t i = 0;
    unsigned long long v = 0;
    while (i < len && isdigit((unsigned char)text[i])) {
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (~0ULL - d) / 10)
            return 0;
        v = v * 10 + d;
        i++;
    }
    if (i == 0)
        return 0;
    if (i < len) {
        /* Either case: the grammar of sizes everywhere (rules, parameters,
         * the command's --bytes and --sizes: trellis.native.parse_size). */
        int unit = toupper((unsigned char)text[i]);
        int shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : 0;
        if (shift) {
            if (v > (~0ULL >> shift))
                return 0;
            v <<= shift;
            i++;
        }
    }
    *out = v;
    return i;
}

void trl_format_size(unsigned long long v, char *buf, size_t len)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        int shift = 30 - 10 * i;
        if (v && v % (1ULL << shift) == 0) {
            snprintf(buf, len, "%llu%c", v >> shift, suffix[i]);
            return;
        }
    }
    snprintf(buf, len, "%llu", v);
}

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
        snprintf(msg, sizeof msg, "the MPI library's own %s cannot be part of another algorithm "
                 "(expected one of: %s)", coll, names);
    else
        snprintf(msg, sizeof msg, "%s %s needs a file of its own and cannot be part of another "
                 "algorithm (expected one of: %s)", coll, named->name, names);
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
        return trl__param_parse_extra(spec, text, len, out, why);
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

const trl_algo *trl_param_level(const trl_coll_args *a, const char *name,
                                const trl_params **params)
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
        trl__param_format_extra(v, buf, len);
}

void trl_params_free(trl_params *p)
{
    for (int i = 0; i < p->n; i++)
        trl__param_free_obj(&p->v[i]);
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
        if (spec->kind == TRL_PARAM_ALGO ? !g->algo || g->algo->coll != spec->of
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
        if (trl_param_parse_value(spec, eq + 1, (size_t)(end - eq - 1), &out->v[out->n],
                                  &reason)) {
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

int trl_algo_build(const trl_algo *algo, const trl_coll_args *a, trl_sched *s)
{
    trl_coll_args args = *a;
    args.algo = algo;
    int rc = trl_sched_init(s, a->rank, a->size);
    if (rc)
        return rc;
    rc = algo->build(&args, s);
    if (rc == TRL_OK)
        rc = trl_sched_finish(s);
    if (rc)
        trl_sched_free(s);
    return rc;
}
