/* Selection: which rule serves a call. User rules come first, then the
 * built-in ones; the first rule that matches the call and whose algorithm
 * can serve it wins. A matching rule whose algorithm cannot serve the call
 * (a commutative-only algorithm for a non-commutative operation) is passed
 * over: the first such is remembered, and trl_select_passed_over names
 * them all, so verbose mode and explain can say why the rules the user
 * wrote did not run. */
#include "select/rules.h"

#include "core/status.h"
#include "topo/topo.h"

static bool in_range(const trl_range *r, unsigned long long v)
{
    return r->lo <= v && v <= r->hi;
}

/* The layout's values were computed once with the communicator's layout
 * (trl_topo_summarize), and every rank holds the same layout. */
static bool matches(const trl_rule *r, const trl_coll_args *a, size_t bytes)
{
    if (r->coll != a->coll || !in_range(&r->ranks, (unsigned long long)a->size) ||
        !in_range(&r->bytes, bytes) || (r->commutative >= 0 && r->commutative != a->commutative))
        return false;
    trl_layout_stats l = trl_topo_stats(a->topo, a->size);
    return in_range(&r->hosts, (unsigned long long)l.hosts) &&
           in_range(&r->ranks_per_host, (unsigned long long)l.ranks_per_host) &&
           (r->placement < 0 || r->placement == l.block);
}

/* Walk one ruleset; true when a usable rule was found. Each rule passed
 * over goes to `passed` (when given) with why. */
static bool select_from(const trl_ruleset *rs, const trl_coll_args *a, size_t bytes,
                        trl_choice *out, trl_passed_fn passed, void *ctx)
{
    for (size_t i = 0; rs && i < rs->n; i++) {
        const trl_rule *r = &rs->rules[i];
        if (!matches(r, a, bytes))
            continue;
        /* trl_algo_unusable reads the rule's ALGO parameters (reduce_bcast's
         * reduce=...), and their defaults through args.algo. */
        trl_coll_args args = *a;
        args.params = &r->params;
        args.algo = r->algo;
        const char *why = trl_algo_unusable(r->algo, &args);
        if (!why) {
            out->algo = r->algo;
            out->params = &r->params;
            out->rule = r;
            return true;
        }
        if (passed)
            passed(r, why, ctx);
        if (!out->rejected) {
            out->rejected = r;
            out->why = why;
        }
    }
    return false;
}

static int select_all(const trl_ruleset *user, const trl_ruleset *builtin,
                      const trl_coll_args *a, size_t bytes, trl_choice *out, trl_passed_fn passed,
                      void *ctx)
{
    trl_choice none = {0};
    *out = none;
    if (select_from(user, a, bytes, out, passed, ctx) ||
        select_from(builtin, a, bytes, out, passed, ctx))
        return TRL_OK;
    return TRL_ERR_UNSUPPORTED;
}

int trl_select(const trl_ruleset *user, const trl_ruleset *builtin, const trl_coll_args *a,
               size_t bytes, trl_choice *out)
{
    return select_all(user, builtin, a, bytes, out, NULL, NULL);
}

void trl_select_passed_over(const trl_ruleset *user, const trl_ruleset *builtin,
                            const trl_coll_args *a, size_t bytes, trl_passed_fn each, void *ctx)
{
    trl_choice ignored;
    select_all(user, builtin, a, bytes, &ignored, each, ctx);
}
