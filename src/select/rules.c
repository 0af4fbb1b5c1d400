/* The rules language (docs/rules.md): a scanner that cuts text into rules,
 * and a parser that checks each rule completely, so that a mistake is
 * reported once, at start-up, with its position, and never surfaces later
 * in the middle of a collective call.
 *
 *   rule   = collective { filter } algorithm { param }
 *   filter = ("ranks" | "bytes" | "hosts" | "ranks_per_host" | "remote_ranks") "=" range
 *          | ("commutative" | "inter" | "nonblocking") "=" ("yes" | "no")
 *          | "placement" "=" ("block" | "other")
 *   range  = "*" | n | n "-" | "-" n | n "-" n
 *   param  = name "=" value
 *
 * Words are separated by blanks; a rule ends at a newline, a ';' or the end
 * of the text; '#' starts a comment. The first word with no '=' after the
 * collective is the algorithm: filters come before it, parameters after.
 *
 * The words and the messages are rules_words.c's; reading TRELLIS_RULES,
 * rules_env.c's.
 */
#include "select/rules.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/params.h"
#include "core/status.h"
#include "select/rules_words.h"

enum {
    FILTER_RANKS,
    FILTER_BYTES,
    FILTER_COMMUTATIVE,
    FILTER_HOSTS,
    FILTER_RANKS_PER_HOST,
    FILTER_PLACEMENT,
    FILTER_NONBLOCKING,
    FILTER_INTER,
    FILTER_REMOTE_RANKS,
    FILTER_COUNT
};
static const char *const filter_names[FILTER_COUNT] = {
    "ranks",     "bytes",       "commutative", "hosts",       "ranks_per_host",
    "placement", "nonblocking", "inter",       "remote_ranks"};

static int filter_index(const char *p, size_t len)
{
    for (int f = 0; f < FILTER_COUNT; f++)
        if (trl__rules_word_is(filter_names[f], p, len))
            return f;
    return -1;
}

/* ---- filters ------------------------------------------------------------ */

/* A bound of a range: a size (digits with K, M or G, either case) for bytes, plain
 * digits for ranks. */
static bool parse_bound(const char *p, size_t len, bool sizes, unsigned long long *out)
{
    size_t used = trl_parse_size(p, len, out);
    return used > 0 && used == len && (sizes || isdigit((unsigned char)p[len - 1]));
}

static bool parse_range(const char *p, size_t len, bool sizes, trl_range *r)
{
    r->lo = 0;
    r->hi = TRL_RANGE_MAX;
    if (len == 1 && p[0] == '*')
        return true;
    const char *dash = memchr(p, '-', len);
    if (!dash) {
        bool ok = parse_bound(p, len, sizes, &r->lo);
        r->hi = r->lo;
        return ok;
    }
    size_t nlo = (size_t)(dash - p), nhi = len - nlo - 1;
    if (nlo == 0 && nhi == 0)
        return false;
    return (nlo == 0 || parse_bound(p, nlo, sizes, &r->lo)) &&
           (nhi == 0 || parse_bound(dash + 1, nhi, sizes, &r->hi));
}

/* What a range filter counts: its example ranges, and why 0 alone matches
 * nothing (NULL for bytes, where 0 is a size). */
static void range_words(int f, const char **examples, const char **why_not_zero)
{
    switch (f) {
    case FILTER_BYTES:
        *examples = "0-4K, 4K-, -64K, 512 or * (sizes take K, M or G, either case)";
        *why_not_zero = NULL;
        return;
    case FILTER_HOSTS:
        *examples = "1, 2-, 2-8, -4 or * (whole numbers of hosts)";
        *why_not_zero = "a communicator spans at least 1 host";
        return;
    case FILTER_RANKS_PER_HOST:
        *examples = "1, 2-, 2-8, -4 or * (whole numbers of ranks)";
        *why_not_zero = "a host of the communicator holds at least 1 rank";
        return;
    default:
        *examples = "1-8, 9-, -64, 16 or * (whole numbers of ranks)";
        *why_not_zero = "the smallest has 1 rank";
    }
}

static int parse_range_filter(parser *ps, const token *t, const pair *kv, int f, trl_range *r)
{
    const char *examples, *why_not_zero;
    range_words(f, &examples, &why_not_zero);
    if (!parse_range(kv->val, kv->vlen, f == FILTER_BYTES, r))
        return trl__rules_fail(ps, t->column, "%.*s: expected a range such as %s", Q(t->p, t->len),
                               examples);
    if (r->lo > r->hi)
        return trl__rules_fail(ps, t->column, "range '%.*s' is empty", Q(kv->val, kv->vlen));
    if (why_not_zero && r->hi == 0)
        return trl__rules_fail(ps, t->column, "range '%.*s' matches no communicator (%s)",
                               Q(kv->val, kv->vlen), why_not_zero);
    return TRL_OK;
}

/* A filter of two words: *out gets 1 for `yes`, 0 for `no`. */
static int parse_either(parser *ps, const token *t, const pair *kv, const char *yes, const char *no,
                        int *out)
{
    if (trl__rules_word_is(yes, kv->val, kv->vlen) || trl__rules_word_is(no, kv->val, kv->vlen)) {
        *out = trl__rules_word_is(yes, kv->val, kv->vlen);
        return TRL_OK;
    }
    return trl__rules_fail(ps, t->column, "%.*s: expected %s or %s", Q(t->p, t->len), yes, no);
}

/* Which filters make sense for a collective: a barrier carries no data,
 * in gatherv, scatterv, alltoallv and alltoallw no rank knows what the
 * others move (so ranks could choose differently), only reductions have
 * an operation, and MPI defines no scan or exscan on intercommunicators. */
static bool filter_applies(int f, trl_coll coll)
{
    if (f == FILTER_BYTES)
        return trl_coll_has_bytes(coll);
    if (f == FILTER_COMMUTATIVE)
        return trl_coll_is_reduction(coll);
    if (f == FILTER_INTER || f == FILTER_REMOTE_RANKS)
        return coll != TRL_COLL_SCAN && coll != TRL_COLL_EXSCAN && !trl_coll_is_neighbor(coll);
    return true;
}

static int parse_filter(parser *ps, trl_rule *r, const token *t, const pair *kv, unsigned *seen)
{
    int f = filter_index(kv->key, kv->klen);
    if (f < 0) {
        char names[160] = "";
        for (int i = 0; i < FILTER_COUNT; i++)
            trl__rules_list_add(names, sizeof names, filter_names[i]);
        return trl__rules_fail(ps, t->column, "unknown filter '%.*s' (expected one of: %s)",
                               Q(kv->key, kv->klen), names);
    }
    if (*seen & (1u << f))
        return trl__rules_fail(ps, t->column, "duplicate filter '%s'", filter_names[f]);
    *seen |= 1u << f;
    if (!filter_applies(f, r->coll))
        return trl__rules_fail(ps, t->column, "filter '%s' does not apply to %s%s", filter_names[f],
                               trl_coll_name(r->coll),
                               f == FILTER_BYTES && r->coll != TRL_COLL_BARRIER
                                   ? " (each rank knows only its own counts)"
                               : f == FILTER_INTER || f == FILTER_REMOTE_RANKS
                                   ? " (MPI defines it on intracommunicators only)"
                                   : "");
    if (kv->vlen == 0)
        return trl__rules_fail(ps, t->column, "missing value after '%s='", filter_names[f]);
    switch (f) {
    case FILTER_RANKS: return parse_range_filter(ps, t, kv, f, &r->ranks);
    case FILTER_BYTES: return parse_range_filter(ps, t, kv, f, &r->bytes);
    case FILTER_REMOTE_RANKS: return parse_range_filter(ps, t, kv, f, &r->remote_ranks);
    case FILTER_HOSTS: return parse_range_filter(ps, t, kv, f, &r->hosts);
    case FILTER_RANKS_PER_HOST: return parse_range_filter(ps, t, kv, f, &r->ranks_per_host);
    case FILTER_PLACEMENT: return parse_either(ps, t, kv, "block", "other", &r->placement);
    case FILTER_NONBLOCKING: return parse_either(ps, t, kv, "yes", "no", &r->nonblocking);
    case FILTER_INTER: return parse_either(ps, t, kv, "yes", "no", &r->inter);
    default: return parse_either(ps, t, kv, "yes", "no", &r->commutative);
    }
}

/* ---- the algorithm and its parameters ----------------------------------- */

static int parse_algorithm(parser *ps, trl_rule *r, const token *t)
{
    int f = filter_index(t->p, t->len);
    if (f >= 0)
        return trl__rules_fail(ps, t->column,
                               "filter '%s' needs a value (write %s=<value>, no blanks around '=')",
                               filter_names[f], filter_names[f]);
    r->algo = trl_algo_find(r->coll, t->p, t->len);
    if (r->algo)
        return TRL_OK;
    char names[160];
    trl_algo_names(r->coll, false, names, sizeof names);
    return trl__rules_fail(ps, t->column, "unknown algorithm '%.*s' for %s (expected one of: %s)",
                           Q(t->p, t->len), trl_coll_name(r->coll), names);
}

static int unknown_param(parser *ps, const trl_rule *r, const token *t, const pair *kv)
{
    if (filter_index(kv->key, kv->klen) >= 0)
        return trl__rules_fail(ps, t->column, "filter '%.*s' must come before the algorithm",
                               Q(kv->key, kv->klen));
    char names[320] = "";
    for (const trl_param_spec *s = r->algo->params; s && s->name; s++)
        trl__rules_list_add(names, sizeof names, s->name);
    if (!names[0])
        return trl__rules_fail(ps, t->column,
                               "parameter '%.*s' is not known to %s %s (it takes no parameters)",
                               Q(kv->key, kv->klen), trl_coll_name(r->coll), r->algo->name);
    return trl__rules_fail(ps, t->column, "parameter '%.*s' is not known to %s %s (it takes: %s)",
                           Q(kv->key, kv->klen), trl_coll_name(r->coll), r->algo->name, names);
}

/* A relative file= names a file next to the rules file that names it
 * (rules inline, with no '/' in their source name, resolve from the current
 * directory). */
static void file_path(const char *source, const char *val, size_t vlen, char *out, size_t len)
{
    const char *slash = strrchr(source, '/');
    if (val[0] == '/' || !slash)
        snprintf(out, len, "%.*s", (int)vlen, val);
    else
        snprintf(out, len, "%.*s/%.*s", (int)(slash - source), source, (int)vlen, val);
}

static int parse_param(parser *ps, trl_rule *r, const token *t)
{
    pair kv;
    if (!trl__rules_split_pair(t, &kv))
        return trl__rules_fail(ps, t->column,
                               "unexpected '%.*s' after algorithm %s (parameters are name=value)",
                               Q(t->p, t->len), r->algo->name);
    if (kv.klen == 0)
        return trl__rules_fail(ps, t->column,
                               "unexpected '%.*s' (write name=value, no blanks around '=')",
                               Q(t->p, t->len));
    const trl_param_spec *spec = trl_algo_param(r->algo, kv.key, kv.klen);
    if (!spec)
        return unknown_param(ps, r, t, &kv);
    for (int i = 0; i < r->params.n; i++)
        if (r->params.v[i].spec == spec)
            return trl__rules_fail(ps, t->column, "duplicate parameter '%s'", spec->name);
    if (kv.vlen == 0)
        return trl__rules_fail(ps, t->column, "missing value after '%s='", spec->name);

    trl_param_value value;
    const char *why = NULL;
    int rc;
    if (spec->kind == TRL_PARAM_FILE) {
        char path[4096];
        file_path(ps->source, kv.val, kv.vlen, path, sizeof path);
        rc = trl_param_parse_value(spec, path, strlen(path), &value, &why);
    } else {
        rc = trl_param_parse_value(spec, kv.val, kv.vlen, &value, &why);
    }
    if (rc) /* why says what is accepted */
        return trl__rules_fail(ps, t->column, "%.*s: %s", Q(t->p, t->len), why);

    trl_param_value *v = realloc(r->params.v, (size_t)(r->params.n + 1) * sizeof *v);
    if (!v)
        return trl__rules_fail_whole(ps->err, ps->source, TRL_ERR_NOMEM, "out of memory");
    r->params.v = v;
    r->params.v[r->params.n++] = value;
    return TRL_OK;
}

/* ---- one rule ------------------------------------------------------------ */

static int parse_collective(parser *ps, trl_rule *r, const token *t)
{
    int c = trl_coll_from_name(t->p, t->len);
    if (c >= 0) {
        r->coll = (trl_coll)c;
        return TRL_OK;
    }
    char names[320] = "";
    for (int i = 0; i < TRL_COLL_COUNT; i++)
        trl__rules_list_add(names, sizeof names, trl_coll_name((trl_coll)i));
    bool persistent;
    int b = trl__rules_call_name_coll(t->p, t->len, &persistent);
    if (b >= 0) {
        const char *name = trl_coll_name((trl_coll)b);
        return trl__rules_fail(
            ps, t->column,
            "unknown collective '%.*s': the %s %s is served by %s rules; a rule that "
            "only non-blocking and persistent calls take is written '%s nonblocking=yes "
            "...'",
            Q(t->p, t->len), persistent ? "persistent" : "non-blocking", name, name, name);
    }
    return trl__rules_fail(ps, t->column, "unknown collective '%.*s' (expected one of: %s)",
                           Q(t->p, t->len), names);
}

/* The filters, then the algorithm: the first word with no '='. */
static int parse_head(parser *ps, trl_rule *r, const token *first)
{
    token t, last = *first;
    unsigned seen = 0;
    int rc;
    while (trl__rules_next_token(ps, &t)) {
        pair kv;
        if (!trl__rules_split_pair(&t, &kv))
            return parse_algorithm(ps, r, &t);
        if (kv.klen == 0)
            return trl__rules_fail(ps, t.column,
                                   "unexpected '%.*s' (write name=value, no blanks around '=')",
                                   Q(t.p, t.len));
        rc = parse_filter(ps, r, &t, &kv, &seen);
        if (rc)
            return rc;
        last = t;
    }
    char names[160];
    trl_algo_names(r->coll, false, names, sizeof names);
    return trl__rules_fail(ps, last.column + (int)last.len,
                           "missing algorithm after %s (expected one of: %s)",
                           seen ? "filters" : trl_coll_name(r->coll), names);
}

static int parse_rule(parser *ps, trl_rule *r, const token *first)
{
    int rc = parse_collective(ps, r, first);
    if (rc == TRL_OK)
        rc = parse_head(ps, r, first);
    token t;
    while (rc == TRL_OK && trl__rules_next_token(ps, &t))
        rc = parse_param(ps, r, &t);
    for (const trl_param_spec *p = rc ? NULL : r->algo->params; p && p->name; p++) {
        bool given = false;
        for (int i = 0; i < r->params.n; i++)
            given = given || r->params.v[i].spec == p;
        if ((p->flags & TRL_PARAM_REQUIRED) && !given)
            return trl__rules_fail(ps, (int)(ps->end - ps->col_base) + 1,
                                   "%s %s needs %s=", trl_coll_name(r->coll), r->algo->name,
                                   p->name);
    }
    return rc;
}

/* ---- the ruleset ---------------------------------------------------------- */

static void rule_free(trl_rule *r)
{
    trl_params_free(&r->params);
    free(r->text);
    r->text = NULL;
}

void trl_rules_free(trl_ruleset *rs)
{
    for (size_t i = 0; i < rs->n; i++)
        rule_free(&rs->rules[i]);
    free(rs->rules);
    free(rs->source);
    rs->rules = NULL;
    rs->n = 0;
    rs->source = NULL;
}

static int append(trl_ruleset *rs, size_t *cap, const trl_rule *r)
{
    if (rs->n == *cap) {
        size_t want = *cap ? 2 * *cap : 16;
        trl_rule *grown = realloc(rs->rules, want * sizeof *grown);
        if (!grown)
            return TRL_ERR_NOMEM;
        rs->rules = grown;
        *cap = want;
    }
    rs->rules[rs->n++] = *r;
    return TRL_OK;
}

/* Parse the rule in ps (if it holds any words) and add it to rs. */
static int parse_part(parser *ps, trl_ruleset *rs, size_t *cap)
{
    token first;
    const char *begin = ps->cur;
    if (!trl__rules_next_token(ps, &first))
        return TRL_OK;
    trl_rule r = {.ranks = {0, TRL_RANGE_MAX},
                  .bytes = {0, TRL_RANGE_MAX},
                  .commutative = -1,
                  .hosts = {0, TRL_RANGE_MAX},
                  .ranks_per_host = {0, TRL_RANGE_MAX},
                  .placement = -1,
                  .nonblocking = -1,
                  .inter = -1,
                  .remote_ranks = {0, TRL_RANGE_MAX},
                  .source = rs->source,
                  .line = ps->line};
    int rc = parse_rule(ps, &r, &first);
    if (rc == TRL_OK) {
        r.text = trl__rules_trimmed_copy(begin, ps->end);
        rc = r.text ? append(rs, cap, &r) : TRL_ERR_NOMEM;
        if (rc)
            trl__rules_fail_whole(ps->err, ps->source, rc, "out of memory");
    }
    if (rc)
        rule_free(&r);
    return rc;
}

/* Cut the text into rules. A rule ends at a newline or ';'; a comment runs
 * to the end of the line (in inline text, to the next ';' too, since there
 * a ';' is the only way to end a rule on one line). */
static int parse_text(const char *text, const char *source, bool inline_parts, trl_ruleset *out,
                      trl_rules_error *err)
{
    trl_ruleset rs = {0};
    size_t cap = 0;
    int rc = TRL_OK;
    rs.source = strdup(source);
    if (!rs.source) {
        rc = trl__rules_fail_whole(err, source, TRL_ERR_NOMEM, "out of memory");
        goto done;
    }
    parser ps = {.source = source, .line = 1, .col_base = text ? text : "", .err = err};
    const char *p = ps.col_base;
    for (;;) {
        const char *end = p + strcspn(p, ";\n#");
        const char *next = *end == '#' ? end + strcspn(end, inline_parts ? ";\n" : "\n") : end;
        ps.cur = p;
        ps.end = end;
        rc = parse_part(&ps, &rs, &cap);
        if (rc || *next == '\0')
            break;
        if (*next == '\n' || inline_parts) {
            ps.line++;
            ps.col_base = next + 1;
        }
        p = next + 1;
    }
done:
    if (rc)
        trl_rules_free(&rs);
    *out = rs;
    return rc;
}

int trl_rules_parse(const char *text, const char *source, trl_ruleset *out, trl_rules_error *err)
{
    return parse_text(text, source, false, out, err);
}

int trl_rules_parse_inline(const char *text, trl_ruleset *out, trl_rules_error *err)
{
    return parse_text(text, "TRELLIS_RULES", true, out, err);
}

int trl_rules_parse_inline_as(const char *text, const char *source, trl_ruleset *out,
                              trl_rules_error *err)
{
    return parse_text(text, source, true, out, err);
}
