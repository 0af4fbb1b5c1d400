#include "mpi/context/schedule.h"

#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/status.h"
#include "mpi/context/short.h"
#include "mpi/context/verbose.h"

void trl_comm_rules_changed(trl_comm *c)
{
    c->rules_gen = trl_rules_gen;
    c->cache.gen++; /* no repeat skips to an entry of the old rules */
    memset(c->choice, 0, sizeof c->choice);
    memset(c->choice_params, 0, sizeof c->choice_params);
    memset(c->sizeless, 0, sizeof c->sizeless);
}

/* What a call's arguments take from its communicator. */
static void comm_args(const trl_comm *c, trl_coll_args *a)
{
    a->rank = c->rank;
    a->size = c->size;
    a->topo = c->topo.host ? &c->topo : NULL; /* NULL: out of memory earlier */
}

static bool choose(trl_comm *c, trl_coll_args *a, trl_choice *ch)
{
    trl_comm_sync_rules(c);
    comm_args(c, a);
    size_t bytes = trl_coll_rule_bytes(a);
    if (trl_select(trl_rules_user(), trl_rules_builtin(), a, bytes, ch) != TRL_OK)
        return false;
    if (trl_verbose_level() > 0 && c->rank == 0)
        trl_say_choice(a, bytes, ch);
    return true;
}

const trl_algo *trl_comm_choose(trl_comm *c, trl_coll_args *a)
{
    /* gatherv, scatterv, alltoallv and alltoallw ask on every call, and
     * without a size their choice depends on the collective, the
     * communicator and the form of call alone (a non-blocking call may not
     * get what needs an exchange of counts first). */
    bool fixed = !trl_coll_has_bytes(a->coll) && !trl_coll_is_reduction(a->coll);
    trl_comm_sync_rules(c);
    comm_args(c, a); /* a remembered choice too: plans are built with them */
    if (fixed && c->choice[a->coll][a->call]) {
        a->params = c->choice_params[a->coll][a->call];
        return c->choice[a->coll][a->call];
    }
    trl_choice ch;
    if (!choose(c, a, &ch))
        return NULL;
    if (fixed) {
        c->choice[a->coll][a->call] = ch.algo;
        c->choice_params[a->coll][a->call] = ch.params;
    }
    a->params = ch.params;
    return ch.algo;
}

trl_sizeless trl_comm_sizeless(trl_comm *c, trl_coll_args *a)
{
    trl_comm_sync_rules(c);
    signed char *known = &c->sizeless[a->coll][a->call][a->commutative];
    if (!*known) {
        comm_args(c, a);
        *known = (signed char)(1 + trl_select_sizeless(trl_rules_user(), trl_rules_builtin(), a));
    }
    return (trl_sizeless)(*known - 1);
}

const trl_cache_entry *trl_comm_build(trl_comm *c, trl_coll_args *a)
{
    trl_choice ch;
    if (!choose(c, a, &ch))
        return NULL;

    /* Out of memory here is this rank's alone: the others build and run
     * Trellis' schedule, so the call fails (short.h) rather than go to the
     * MPI library. */
    size_t *vec, nvec;
    if (!trl_cache_key_arrays(a, c->size, &vec, &nvec)) {
        trl_short_of_memory("a cache entry's key");
        return NULL;
    }
    bool transient;
    trl_cache_entry *e = trl_cache_claim(&c->cache, &transient);
    if (!e) {
        free(vec);
        trl_short_of_memory("a cache entry");
        return NULL;
    }
    const trl_algo *algo = ch.algo;
    if (algo->build) {
        a->params = ch.params;
        int rc = trl_algo_build(algo, a, &e->sched);
        if (rc == TRL_ERR_NOMEM) {
            free(vec);
            if (transient)
                free(e);
            trl_short_of_memory("its schedule");
            return NULL;
        }
        if (rc != TRL_OK) {
            /* A builder refusing a shape it should serve is a bug; the MPI
             * library still gives the right answer, and this entry keeps
             * sending the call there. */
            if (c->rank == 0)
                trl_log("%s %s failed to build for ranks=%d bytes=%zu (%s); using the MPI "
                        "library's own",
                        trl_coll_name(a->coll), algo->name, c->size, trl_coll_rule_bytes(a),
                        trl_status_str(rc));
            algo = trl_algo_find(a->coll, "mpi", 3);
        }
    }
    trl_cache_fill(e, a, trl_rules_current, transient, vec, nvec, algo, e->sched);
    e->rule = ch.rule;
    trl_cache_filled(&c->cache, transient);
    return e;
}
