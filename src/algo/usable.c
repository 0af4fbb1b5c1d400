/* Whether an algorithm can serve a call. */
#include "algo/usable.h"

#include <stddef.h>

#include "algo/params.h"
#include "topo/topo.h"

const char *trl_algo_unusable(const trl_algo *algo, const trl_coll_args *a)
{
    /* The MPI library's own serves both kinds of communicator. */
    if (algo->build && !(algo->needs & TRL_NEEDS_INTER) != !a->inter)
        return a->inter ? "it serves intracommunicators only" : "it serves intercommunicators only";
    if ((algo->needs & TRL_NEEDS_COMMUTATIVE) && !a->commutative)
        return "it needs a commutative operation";
    /* The counts are exchanged by a blocking collective before the
     * schedule is built, which a call that may not wait cannot do; a
     * persistent neighbourhood call sends them in its first run, which runs
     * another algorithm, and plans the runs after it; a non-blocking one
     * sends them at the call and plans its run (this choice is then the
     * one it would make without them). */
    if ((algo->needs & TRL_NEEDS_ALL_COUNTS) && a->call != TRL_CALL_BLOCKING && !a->counts_planned)
        return a->call == TRL_CALL_PERSISTENT && a->nbhd
                   ? "it needs its host's block sizes, which a persistent call's first start "
                     "sends: it serves the starts after it"
               : a->nbhd ? "it needs its host's block sizes, which a non-blocking call sends "
                           "first: the call runs it once they are in (said above), and this "
                           "choice only stands in for it"
                         : "it needs every rank's counts, which a non-blocking or persistent call "
                           "cannot exchange before it returns";
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
