/* The schedule itself (src/sched/): phase names, how they nest through a
 * composing builder and trl_sched_append, tags per peer over many peers,
 * and the hierarchy's groups worked out once per call shape (the build
 * memo) giving every rank the schedule it gets without one. No MPI.
 *
 * Prints "N passed, M failed" last and exits non-zero on any failure. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/params.h"
#include "core/status.h"
#include "sched/sched.h"
#include "topo/topo.h"

#include "unit_harness.h"

static const char *phase_of(const trl_sched *s, int step)
{
    return trl_sched_phase_name(s, s->steps[step].phase);
}

static void names_phases_that_later_steps_inherit(void)
{
    trl_sched s;
    CHECK(trl_sched_init(&s, 0, 4) == TRL_OK, "init");
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    int a = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    CHECK(trl_sched_phase(&s, "reduce") > 0, "a phase gets an index above 0");
    int b = trl_sched_recv(&s, 2, r, 1, TRL_NODEPS);
    int c = trl_sched_copy(&s, r, r, 1, TRL_NODEPS);
    int again = trl_sched_phase(&s, "bcast");
    int d = trl_sched_send(&s, 3, r, 1, TRL_NODEPS);
    CHECK(trl_sched_phase(&s, "bcast") == again, "a name already there keeps its index");
    CHECK_STR(phase_of(&s, a), "");
    CHECK_STR(phase_of(&s, b), "reduce");
    CHECK_STR(phase_of(&s, c), "reduce");
    CHECK_STR(phase_of(&s, d), "bcast");
    CHECK(s.nphases == 3, "3 names (with the unnamed one), got %u", s.nphases);
    CHECK_STR(trl_sched_phase_name(&s, 99), "");
    CHECK(trl_sched_finish(&s) == TRL_OK, "finish");
    trl_sched_free(&s);
}

/* What a composing builder does: a scope per part, the inner algorithm's
 * own names under it, the enclosing phase back after it. */
static void nests_names_under_a_scope(void)
{
    trl_sched s;
    trl_sched_init(&s, 0, 2);
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    int outer = trl_sched_phase_enter(&s, "reduce");
    CHECK(outer == 0, "the top scope is the unnamed phase, got %d", outer);
    int a = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    trl_sched_phase(&s, "reduce-scatter");
    int b = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    int inner = trl_sched_phase_enter(&s, "deeper");
    int c = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    trl_sched_phase_leave(&s, inner);
    int d = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    trl_sched_phase_leave(&s, outer);
    int e = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    trl_sched_phase(&s, "bcast");
    int f = trl_sched_send(&s, 1, r, 1, TRL_NODEPS);
    CHECK_STR(phase_of(&s, a), "reduce");
    CHECK_STR(phase_of(&s, b), "reduce/reduce-scatter");
    CHECK_STR(phase_of(&s, c), "reduce/deeper"); /* under the scope, as any name */
    CHECK_STR(phase_of(&s, d), "reduce");
    CHECK_STR(phase_of(&s, e), "");
    CHECK_STR(phase_of(&s, f), "bcast");
    trl_sched_free(&s);
}

/* trl_sched_append writes sub's names under the current phase of s; sub's
 * unnamed steps take that phase itself. */
static void appends_with_the_level_as_prefix(void)
{
    trl_sched sub, s;
    trl_sched_init(&sub, 0, 2);
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    trl_sched_send(&sub, 1, r, 1, TRL_NODEPS);
    trl_sched_phase(&sub, "allgather");
    trl_sched_recv(&sub, 1, r, 1, TRL_NODEPS);

    trl_sched_init(&s, 2, 4);
    trl_sched_phase(&s, "world allreduce");
    int ranks[] = {2, 3};
    trl_sched_map m = {ranks, r, r};
    CHECK(trl_sched_append(&s, &sub, &m) == TRL_OK, "append");
    int after = trl_sched_send(&s, 3, r, 1, TRL_NODEPS);
    CHECK(s.nsteps == 3, "3 steps, got %zu", s.nsteps);
    CHECK_STR(phase_of(&s, 0), "world allreduce");
    CHECK_STR(phase_of(&s, 1), "world allreduce/allgather");
    CHECK_STR(phase_of(&s, after), "world allreduce");

    /* Under no phase at all, sub's names stay as they are. */
    trl_sched bare;
    trl_sched_init(&bare, 2, 4);
    trl_sched_append(&bare, &sub, &m);
    CHECK_STR(phase_of(&bare, 0), "");
    CHECK_STR(phase_of(&bare, 1), "allgather");
    trl_sched_free(&bare);
    trl_sched_free(&s);
    trl_sched_free(&sub);
}

/* Tags count messages per (peer, direction), whatever the number of peers
 * and the order they come in (the counters are a table that grows). */
static void tags_count_per_peer_over_many_peers(void)
{
    enum { P = 5000 };
    trl_sched s;
    trl_sched_init(&s, 0, P);
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    for (int round = 0; round < 3; round++)
        for (int peer = P - 1; peer >= 1; peer -= 7) {
            trl_sched_send(&s, peer, r, 1, TRL_NODEPS);
            trl_sched_recv(&s, peer, r, 1, TRL_NODEPS);
        }
    CHECK(s.status == TRL_OK, "status %d", s.status);
    bool ok = true;
    for (size_t i = 0; i < s.nsteps; i++)
        ok &= s.steps[i].tag == (int)(i / (2 * ((P - 2) / 7 + 1)));
    CHECK(ok, "the k-th message each way between two ranks carries tag k");
    CHECK(trl_sched_send(&s, 0, r, 1, TRL_NODEPS) == TRL_ERR_INVALID, "no message to itself");
    trl_sched_free(&s);
}

static bool same_steps(const trl_sched *x, const trl_sched *y)
{
    if (x->nsteps != y->nsteps || x->ndeps != y->ndeps || x->scratch != y->scratch)
        return false;
    for (size_t i = 0; i < x->nsteps; i++) {
        const trl_step *a = &x->steps[i], *b = &y->steps[i];
        if (a->kind != b->kind || a->peer != b->peer || a->tag != b->tag || a->count != b->count ||
            a->ndeps != b->ndeps ||
            strcmp(trl_sched_phase_name(x, a->phase), trl_sched_phase_name(y, b->phase)))
            return false;
    }
    return !memcmp(x->deps, y->deps, x->ndeps * sizeof *x->deps);
}

/* Every rank's hier schedule is the same with the groups worked out once
 * (memo) as without, for each hierarchical collective and a root that is
 * not a leader by rank order. */
static void memo_gives_every_rank_the_same_schedule(void)
{
    trl_topo topo;
    trl_topo_error err;
    const char *layout = "hosts=3 ranks_per_host=5 sockets_per_host=2 placement=round-robin";
    CHECK(trl_topo_parse(layout, "test", true, &topo, &err) == TRL_OK, "layout: %s", err.message);
    static const struct {
        trl_coll coll;
        const char *params;
        int root;
    } cases[] = {
        {TRL_COLL_ALLREDUCE, "levels=socket,host,world", 0},
        {TRL_COLL_BCAST, "levels=socket,host,world", 7},
        {TRL_COLL_REDUCE, "levels=group:2,host,world", 11},
        {TRL_COLL_BARRIER, "levels=socket,world", 0},
    };
    trl_build_memo *memo = trl_build_memo_new();
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        const trl_algo *algo = trl_algo_find(cases[c].coll, "hier", 4);
        trl_params params;
        const char *why;
        CHECK(trl_params_from_string(algo, cases[c].params, &params, &why) == TRL_OK, "%s", why);
        bool same = true;
        for (int r = 0; r < topo.size; r++) {
            trl_coll_args a = {.coll = cases[c].coll,
                               .rank = r,
                               .size = topo.size,
                               .root = cases[c].root,
                               .count = 6,
                               .elem_size = 4,
                               .commutative = true,
                               .params = &params,
                               .topo = &topo};
            trl_sched plain, memoized;
            int rc1 = trl_algo_build(algo, &a, &plain);
            a.memo = memo;
            int rc2 = trl_algo_build(algo, &a, &memoized);
            same &= rc1 == TRL_OK && rc2 == TRL_OK && same_steps(&plain, &memoized);
            if (rc1 == TRL_OK)
                trl_sched_free(&plain);
            if (rc2 == TRL_OK)
                trl_sched_free(&memoized);
        }
        CHECK(same, "%s hier %s: a rank's schedule differs with the memo",
              trl_coll_name(cases[c].coll), cases[c].params);
        trl_params_free(&params);
    }
    trl_build_memo_free(memo);
    trl_topo_free(&topo);
}

/* Whether step `step` waits directly for step `dep`. */
static bool waits_for(const trl_sched *s, int step, int dep)
{
    const trl_step *st = &s->steps[step];
    for (uint32_t i = 0; i < st->ndeps; i++)
        if (s->deps[st->dep_first + i] == dep)
            return true;
    return false;
}

/* A data fence joins what was received, not what was sent: a bcast's next
 * level starts while the sends of the level above complete. */
static void data_fence_waits_for_receives_only(void)
{
    trl_sched s;
    CHECK(trl_sched_init(&s, 1, 4) == TRL_OK, "init");
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    int got = trl_sched_recv(&s, 0, r, 1, TRL_NODEPS);
    int sent = trl_sched_send(&s, 2, r, 1, TRL_DEPS(got));
    int fence = trl_sched_fence_data(&s);
    CHECK(fence > sent, "a fence step is added after the receive");
    CHECK(waits_for(&s, fence, got) && !waits_for(&s, fence, sent),
          "the fence waits for the receive, not the send");
    int next = trl_sched_send(&s, 3, r, 1, TRL_NODEPS);
    CHECK(waits_for(&s, next, fence), "a later step waits for the fence");
    /* Only sends since: no new fence, and a full fence after it leaves the
     * passed-over send out too (it is not waited for at all). */
    CHECK(trl_sched_fence_data(&s) == fence, "nothing received: the same fence");
    int after = trl_sched_fence(&s);
    CHECK(after == fence, "the full fence finds nothing new either, got %d", after);
    CHECK(trl_sched_finish(&s) == TRL_OK, "finish");
    trl_sched_free(&s);
}

/* Messages a tag period apart in one direction (those an executor may send
 * with one tag) are chained: each waits for the one a period before it, in
 * that direction only, and only where a direction has more than a period;
 * the other dependencies stay as they were. */
static void chains_messages_a_tag_period_apart(void)
{
    enum { P = TRL_SCHED_TAG_PERIOD, N = 2 * TRL_SCHED_TAG_PERIOD + 90 };
    trl_sched s;
    CHECK(trl_sched_init(&s, 0, 4) == TRL_OK, "init");
    trl_ref r = trl_ref_at(TRL_BUF_RECV, 0);
    int send[N], recv[N], few[P];
    int last = -1;
    for (int k = 0; k < N; k++) {
        send[k] = trl_sched_send(&s, 1, r, 1, TRL_DEPS(last));
        recv[k] = trl_sched_recv(&s, 1, r, 1, TRL_NODEPS);
        if (k < P) /* exactly a period to peer 2: no chain there */
            few[k] = trl_sched_send(&s, 2, r, 1, TRL_NODEPS);
        last = recv[k];
    }
    size_t before = s.ndeps;
    CHECK(trl_sched_finish(&s) == TRL_OK, "finish");
    CHECK(s.ndeps == before + 2 * (N - P), "one more dependency a chained message: %zu, %zu",
          before, s.ndeps);
    int broken = 0;
    for (int k = 0; k < N; k++) {
        broken += s.steps[send[k]].tag != k || s.steps[recv[k]].tag != k;
        broken += k > 0 && !waits_for(&s, send[k], recv[k - 1]); /* kept */
        broken += k >= P &&
                  !(waits_for(&s, send[k], send[k - P]) && waits_for(&s, recv[k], recv[k - P]));
        broken += k < P && (s.steps[recv[k]].ndeps != 0 || s.steps[few[k]].ndeps != 0);
        broken += k >= P && s.steps[recv[k]].ndeps != 1;
    }
    CHECK(broken == 0, "%d messages with a wrong tag or dependency", broken);
    trl_sched_free(&s);
}

int main(void)
{
    RUN(names_phases_that_later_steps_inherit);
    RUN(nests_names_under_a_scope);
    RUN(appends_with_the_level_as_prefix);
    RUN(tags_count_per_peer_over_many_peers);
    RUN(memo_gives_every_rank_the_same_schedule);
    RUN(data_fence_waits_for_receives_only);
    RUN(chains_messages_a_tag_period_apart);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
