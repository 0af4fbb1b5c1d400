/* Selection: which rule serves a call. User rules come first, then the
 * built-in ones; the first rule that matches the call and whose algorithm
 * can serve it wins. A matching rule whose algorithm cannot serve the call
 * (a commutative-only algorithm for a non-commutative operation) is passed
 * over: the first such is remembered, and trl_select_passed_over names
 * them all, so verbose mode and explain can say why the rules the user
 * wrote did not run. */
#include "select/rules.h"

#include "algo/inter/inter.h"
#include "algo/usable.h"
#include "core/status.h"
#include "topo/topo.h"

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
    case TRL_COLL_REDUCE_SCATTER_BLOCK: return a->count * a->elem_size * (size_t)a->size;
    default: return a->count * a->elem_size;
    }
}

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

static int select_all(const trl_ruleset *user, const trl_ruleset *builtin, const trl_coll_args *a,
                      size_t bytes, trl_choice *out, trl_passed_fn passed, void *ctx)
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

/* 1 when the call of `bytes` gets one of Trellis' algorithms, 2 when the
 * MPI library: bits of trl_select_sizeless's tally. */
static int side_at(const trl_ruleset *user, const trl_ruleset *builtin, const trl_coll_args *a,
                   unsigned long long bytes)
{
    trl_choice ch;
    return select_all(user, builtin, a, (size_t)bytes, &ch, NULL, NULL) == TRL_OK && ch.algo->build
               ? 1
               : 2;
}

/* The choice can change only where a rule's bytes= range starts or ends:
 * every piece between those points starts at 0, at some rule's lo or just
 * past some rule's hi, so trying those sizes tries every piece. */
trl_sizeless trl_select_sizeless(const trl_ruleset *user, const trl_ruleset *builtin,
                                 const trl_coll_args *a)
{
    int seen = side_at(user, builtin, a, 0);
    const trl_ruleset *sets[2] = {user, builtin};
    for (int s = 0; s < 2 && seen != 3; s++) {
        for (size_t i = 0; sets[s] && i < sets[s]->n && seen != 3; i++) {
            const trl_rule *r = &sets[s]->rules[i];
            if (r->coll != a->coll)
                continue;
            seen |= side_at(user, builtin, a, r->bytes.lo);
            if (r->bytes.hi != TRL_RANGE_MAX)
                seen |= side_at(user, builtin, a, r->bytes.hi + 1);
        }
    }
    return seen == 3 ? TRL_SIZELESS_MIXED : seen == 1 ? TRL_SIZELESS_TRELLIS : TRL_SIZELESS_LIBRARY;
}
