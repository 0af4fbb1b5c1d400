/* Selection: which rule serves a call. User rules come first, then the
 * built-in ones; the first rule that matches the call and whose algorithm
 * can serve it wins. A matching rule whose algorithm cannot serve the call
 * (a commutative-only algorithm for a non-commutative operation) is passed
 * over: the first such is remembered, and trl_select_passed_over names
 * them all, so verbose mode and explain can say why the rules the user
 * wrote did not run. */
#include "select/rules.h"

#include "algo/inter/inter.h"
#include "core/status.h"
#include "topo/topo.h"

static bool in_range(const trl_range *r, unsigned long long v)
{
    return r->lo <= v && v <= r->hi;
}

/* The layout's values were computed once with the communicator's layout
 * (trl_topo_summarize), and every rank holds the same layout. An
 * intercommunicator call's ranks= and remote_ranks= are the larger and the
 * smaller group's sizes (trl_inter_rule_sizes): both groups must choose
 * alike; its layout is the merged communicator's. A remote_ranks= range
 * never matches an intracommunicator call, and a rule naming an algorithm
 * for the other kind of communicator (inter_* for an intracommunicator,
 * any other but mpi for an intercommunicator) does not match at all: it
 * was not written for this call. */
static bool matches(const trl_rule *r, const trl_coll_args *a, size_t bytes)
{
    unsigned long long ranks = (unsigned long long)a->size, remote = 0;
    bool any_remote = r->remote_ranks.lo == 0 && r->remote_ranks.hi == TRL_RANGE_MAX;
    if (a->inter)
        trl_inter_rule_sizes(a, &ranks, &remote);
    else if (!any_remote)
        return false;
    /* A rule applies to the kind of communicator its algorithm serves. */
    if (r->algo->build && !(r->algo->needs & TRL_NEEDS_INTER) != !a->inter)
        return false;
    if (r->coll != a->coll || !in_range(&r->ranks, ranks) || !in_range(&r->bytes, bytes) ||
        (r->commutative >= 0 && r->commutative != a->commutative) ||
        (r->inter >= 0 && r->inter != (a->inter != NULL)) || !in_range(&r->remote_ranks, remote) ||
        (r->nonblocking >= 0 && r->nonblocking != (a->call != TRL_CALL_BLOCKING)))
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

/* Sizes to try: the choice can change only where a rule's bytes= range
 * starts or ends, so one size from each piece between those ends covers
 * every size. */
static trl_sizeless sizeless_in(const trl_ruleset *user, const trl_ruleset *builtin,
                                const trl_coll_args *a, const trl_ruleset *rs, int *seen)
{
    for (size_t i = 0; rs && i < rs->n; i++) {
        const trl_rule *r = &rs->rules[i];
        if (r->coll != a->coll)
            continue;
        unsigned long long at[3] = {r->bytes.lo, r->bytes.hi, r->bytes.hi + 1};
        for (int k = 0; k < (r->bytes.hi == TRL_RANGE_MAX ? 2 : 3); k++) {
            trl_choice ch;
            bool trellis = select_all(user, builtin, a, (size_t)at[k], &ch, NULL, NULL) == TRL_OK &&
                           ch.algo->build;
            *seen |= trellis ? 1 : 2;
            if (*seen == 3)
                return TRL_SIZELESS_MIXED;
        }
    }
    return *seen == 1 ? TRL_SIZELESS_TRELLIS : TRL_SIZELESS_LIBRARY;
}

trl_sizeless trl_select_sizeless(const trl_ruleset *user, const trl_ruleset *builtin,
                                 const trl_coll_args *a)
{
    int seen = 0; /* bit 0: a size gets Trellis; bit 1: a size gets the library */
    trl_choice ch;
    seen |= select_all(user, builtin, a, 0, &ch, NULL, NULL) == TRL_OK && ch.algo->build ? 1 : 2;
    if (sizeless_in(user, builtin, a, user, &seen) == TRL_SIZELESS_MIXED)
        return TRL_SIZELESS_MIXED;
    return sizeless_in(user, builtin, a, builtin, &seen);
}
