/* The simulator (src/sim/) against times worked out by hand, for small
 * schedules under simple models: linear, binomial and ring on 2..8 ranks,
 * the CPU's overhead, the gap, a host's link shared across hosts,
 * rendezvous, late ranks, the receiving side; and under the shipped
 * loggopsim.model (its path the first argument), LogGOPSim's closed forms
 * on 64 ranks. Every time below is the hand computation written out in the
 * comment above it; the parameters are integers so the times are exact.
 * No MPI.
 *
 * Prints "N passed, M failed" last and exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo/algo.h"
#include "algo/params.h"
#include "core/status.h"
#include "sim/model.h"
#include "sim/sim.h"
#include "topo/topo.h"

#include "unit_harness.h"

/* L = 1000 ns, o = 0, g = 0, G = 1 ns per byte on every link; a reduce
 * costs 0.5 ns per byte, a copy nothing. */
static trl_model simple(void)
{
    trl_model m;
    trl_model_error err;
    trl_model_parse("socket latency=1000 per_byte=1\n"
                    "host latency=1000 per_byte=1\n"
                    "world latency=1000 per_byte=1\n"
                    "reduce per_byte=0.5\n",
                    "simple", &m, &err);
    return m;
}

typedef struct {
    double recv_done[16]; /* per rank: when its last receive completed */
    double exit[16];
} seen;

static int remember(void *ctx, const trl_sim_rank *r)
{
    seen *s = ctx;
    s->exit[r->rank] = r->t_exit;
    for (size_t i = 0; i < r->nsteps; i++)
        if (r->steps[i].kind == TRL_STEP_RECV)
            s->recv_done[r->rank] = r->steps[i].t_done;
    return 0;
}

/* Simulate `coll algo params` on p ranks of n bytes (1-byte elements) from
 * root 0; layout NULL: one host. Returns the time, NAN on failure. */
static double simulate(const trl_model *m, trl_coll coll, const char *algo_name, const char *params,
                       int p, size_t n, const char *layout, const double *enter, seen *out)
{
    const trl_algo *algo = trl_algo_find(coll, algo_name, strlen(algo_name));
    trl_params pv = {0};
    const char *why = NULL;
    if (!algo || trl_params_from_string(algo, params, &pv, &why)) {
        printf("  bad algorithm %s %s: %s\n", algo_name, params, why ? why : "unknown");
        return NAN;
    }
    trl_topo topo;
    trl_topo_error terr;
    if (layout && trl_topo_parse(layout, "test", true, &topo, &terr)) {
        printf("  bad layout: %s\n", terr.message);
        trl_params_free(&pv);
        return NAN;
    }
    trl_sim_call c = {
        .algo = algo,
        .args = {.coll = coll,
                 .size = p,
                 .root = 0,
                 .count = n,
                 .elem_size = 1,
                 .commutative = true,
                 .params = &pv,
                 .topo = layout ? &topo : NULL},
        .model = m,
        .enter = enter,
        .sink = out ? remember : NULL,
        .ctx = out,
    };
    trl_sim_result res;
    int rc = trl_sim_run(&c, &res);
    if (rc)
        printf("  simulate failed: %s\n", res.why);
    double t = rc ? NAN : res.t_end;
    trl_sim_result_free(&res);
    if (layout)
        trl_topo_free(&topo);
    trl_params_free(&pv);
    return t;
}

static void time_is(int line, double got, double want, int p)
{
    if (got != want)
        check_at(line, "p=%d: %.3f ns, want %.3f", p, got, want);
}

/* The simulated time is exactly the hand-computed one (p: for the message). */
#define CHECK_TIME(got, want, p) time_is(__LINE__, (got), (want), (p))

/* Linear bcast of n = 100 bytes: the root posts p-1 sends at once; its port
 * sends them one after another, each taking n G = 100 ns, so rank k (the
 * k-th served) has its message at (k-1) 100 + 100 + 1000. The last:
 * L + (p-1) n G. */
static void linear_bcast(void)
{
    trl_model m = simple();
    for (int p = 2; p <= 8; p++) {
        seen s = {{0}, {0}};
        CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", p, 100, NULL, NULL, &s),
                   1000.0 + 100.0 * (p - 1), p);
        for (int k = 1; k < p; k++)
            CHECK(s.recv_done[k] == 1000.0 + 100.0 * k, "p=%d rank %d: %.1f", p, k, s.recv_done[k]);
    }
}

/* Binomial bcast, n = 100, one round = L + n G = 1100 ns. Every rank posts
 * its sends in the builder's order, largest subtree first (the executor's
 * queues are FIFO): the root serves vranks 4, 2, 1, and the port delays
 * each later send by 100; vrank 4 serves 6 before 5.
 *   p=2: 1 at 1100.                    p=3: 2 at 1100, 1 at 1200.
 *   p=4: 2 at 1100, 1 at 1200, 3 at 1100+1100 = 2200.
 *   p=5: 4, 2, 1 at 1100, 1200, 1300; 3 at 2200.
 *   p=6: 4, 2, 1 at 1100, 1200, 1300; 5 at 2200, 3 at 2300.
 *   p=7: 4 at 1100 serves 6 then 5: 2200, 2300; 3 at 1200+1100 = 2300.
 *   p=8: 6 at 2200 serves 7 at 3300; 5 at 2300. */
static void binomial_bcast(void)
{
    trl_model m = simple();
    const double want[] = {0, 0, 1100, 1200, 2200, 2200, 2300, 2300, 3300};
    for (int p = 2; p <= 8; p++)
        CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "binomial", "", p, 100, NULL, NULL, NULL), want[p],
                   p);
}

/* Ring allreduce of n = 840 bytes (blocks b = 840/p). Every rank is alike:
 * a reduce-scatter step sends a block, receives one (L + b G) and adds it
 * in (b/2); an allgather step sends and receives (L + b G). Each step
 * waits for the one before, so the time is
 * (p-1)(L + b G + b/2) + (p-1)(L + b G). */
static void ring_allreduce(void)
{
    trl_model m = simple();
    for (int p = 2; p <= 8; p++) {
        double b = 840.0 / p, want = (p - 1) * (1000 + b + b / 2) + (p - 1) * (1000 + b);
        CHECK_TIME(simulate(&m, TRL_COLL_ALLREDUCE, "ring", "", p, 840, NULL, NULL, NULL), want, p);
    }
}

/* Linear reduce of n = 100 bytes on one host: all p-1 messages arrive at
 * L + n G = 1100; the root then adds p-1 vectors, 50 ns each. Across hosts
 * (one rank per host) the messages queue on the root host's link: rank k's
 * is in at 1000 + 100 k, and each 50-ns add fits before the next arrives,
 * so the last ends at 1000 + 100 (p-1) + 50. */
static void linear_reduce(void)
{
    trl_model m = simple();
    for (int p = 2; p <= 8; p++) {
        CHECK_TIME(simulate(&m, TRL_COLL_REDUCE, "linear", "", p, 100, NULL, NULL, NULL),
                   1100.0 + 50.0 * (p - 1), p);
        char layout[64];
        snprintf(layout, sizeof layout, "hosts=%d ranks_per_host=1", p);
        CHECK_TIME(simulate(&m, TRL_COLL_REDUCE, "linear", "", p, 100, layout, NULL, NULL),
                   1000.0 + 100.0 * (p - 1) + 50.0, p);
    }
}

/* The CPU's overhead o = 300 > n G = 100 paces the root of a linear bcast:
 * send k leaves at k o, arrives L + n G later, and costs the receiver o:
 * (p-1) o + L + n G + o. A gap g = 500 > n G paces the port instead (o = 0):
 * send k leaves at (k-1) g: (p-2) g + L + n G. */
static void overhead_and_gap(void)
{
    trl_model m = simple();
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        m.link[c].overhead = 300;
    for (int p = 2; p <= 8; p++)
        CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", p, 100, NULL, NULL, NULL),
                   300.0 * (p - 1) + 1100 + 300, p);
    m = simple();
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        m.link[c].gap = 500;
    for (int p = 2; p <= 8; p++)
        CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", p, 100, NULL, NULL, NULL),
                   500.0 * (p - 2) + 1100, p);
}

/* Above the eager limit a message waits for its receive: L for the sender's
 * request, L for the answer, then L + n G for the data: 3 L + n G. A
 * receive posted late (rank 1 enters at 5000) makes the answer wait for
 * it: 5000 + L + L + n G. An eager message to a late rank is simply in
 * when the rank gets there (its receive completes at its entry). */
static void rendezvous(void)
{
    trl_model m = simple();
    m.link[TRL_LINK_HOST].eager = 64;
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", 2, 100, NULL, NULL, NULL), 3100.0, 2);
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", 2, 64, NULL, NULL, NULL), 1064.0, 2);
    const double late[] = {0, 5000};
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", 2, 100, NULL, late, NULL), 7100.0, 2);
    m = simple();
    seen s = {{0}, {0}};
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", 2, 100, NULL, late, &s), 5000.0, 2);
    CHECK(s.exit[0] == 100.0, "the root's send leaves at once: exit %.1f", s.exit[0]);
}

/* A hierarchy: 2 hosts of 2 ranks, world messages dearer (L = 10000).
 * allreduce hier host=linear world=recursive_doubling, n = 100:
 *   host reduce: 1100 + 50 (one add) = 1150 at the leaders 0 and 2;
 *   world allreduce: exchange 10000 + 100, add 50: 1150 + 10150 = 11300;
 *   host bcast: 1100 more: 12400. */
static void hierarchy(void)
{
    trl_model m = simple();
    m.link[TRL_LINK_WORLD].latency = 10000;
    CHECK_TIME(simulate(&m, TRL_COLL_ALLREDUCE, "hier",
                        "levels=host,world host=linear world=recursive_doubling", 4, 100,
                        "hosts=2 ranks_per_host=2", NULL, NULL),
               12400.0, 4);
}

/* The receiving side (recv_per_byte, recv_gap) under the executor's rules,
 * n = 100 bytes, o = 0. recv_per_byte = 2 holds the receiver's CPU 2 n =
 * 200 per message:
 *   gather linear: every block is in at L + n G = 1100, the root takes
 *   them one after another: 1100 + 200 (p-1);
 *   alltoall linear: rank r's port sends to r+1, r+2, ... n G = 100 apart,
 *   so its k-th message comes in at 1100 + 100 (k-1), faster than its CPU
 *   takes them: 1100 + 200 (p-1);
 *   reduce knomial radix=4 on 16 ranks, a fan-in tree: a node's 3 children
 *   of a round send at once, their messages are in 1100 later, and it takes
 *   and adds each (200 + 50) before the next round's are in: 2 rounds of
 *   1100 + 3 (200 + 50) = 3700.
 * recv_gap = 300 alone (no CPU time) spaces a gather's takes at the
 * root's port: the last starts (and ends) at 1100 + 300 (p-2). Without
 * these keys each of these is the time with the receiver unlimited. */
static void receiving_side(void)
{
    trl_model m = simple();
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        m.link[c].recv_per_byte = 2;
    for (int p = 2; p <= 8; p++) {
        CHECK_TIME(simulate(&m, TRL_COLL_GATHER, "linear", "", p, 100, NULL, NULL, NULL),
                   1100.0 + 200.0 * (p - 1), p);
        CHECK_TIME(simulate(&m, TRL_COLL_ALLTOALL, "linear", "", p, 100, NULL, NULL, NULL),
                   1100.0 + 200.0 * (p - 1), p);
    }
    CHECK_TIME(simulate(&m, TRL_COLL_REDUCE, "knomial", "radix=4", 16, 100, NULL, NULL, NULL),
               2 * (1100.0 + 3 * (200 + 50)), 16);
    m = simple();
    for (int c = 0; c < TRL_LINK_COUNT; c++)
        m.link[c].recv_gap = 300;
    for (int p = 2; p <= 8; p++)
        CHECK_TIME(simulate(&m, TRL_COLL_GATHER, "linear", "", p, 100, NULL, NULL, NULL),
                   1100.0 + 300.0 * (p - 2 > 0 ? p - 2 : 0), p);
}

/* engine bytes=s-1: a message's per-byte costs count n-1 bytes. A linear
 * bcast of n = 100: the root's port sends p-1 messages of 99 ns each, the
 * last in L later: 1000 + 99 (p-1). */
static void bytes_after_first(void)
{
    trl_model m = simple();
    m.bytes_after_first = true;
    for (int p = 2; p <= 8; p++)
        CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", p, 100, NULL, NULL, NULL),
                   1000.0 + 99.0 * (p - 1), p);
}

/* LogGOPSim's LogGP (Hoefler, Schneider, Lumsdaine 2010) with L = 2500,
 * o = 1500, g = 1000, G = 6 ns and local work (GOAL's calc) at 1 ns a
 * byte, as python/trellis/models/loggopsim.model sets them. Its rules: a
 * send starts when its rank's CPU and network interface are both free,
 * takes o of the CPU and g + (s-1) G of the interface; its message is at
 * the receiver o + L after the send started, and is taken in there as soon
 * as the receiver's CPU and interface are free, for o + (s-1) G of the CPU
 * (and g + (s-1) G of the interface); a rank's CPU serves what was ready
 * first. So, for messages of s bytes:
 *   A = o + L          from a send's start to its message at the receiver,
 *   C = o + (s-1) G    the receiver's CPU per message,
 *   S = g + (s-1) G    between two sends of a rank (here S > o),
 *   R = s              a reduce or copy of s bytes. */
enum { LG_L = 2500, LG_O = 1500, LG_G = 1000 };
static const double LG_PER_BYTE = 6;

typedef struct {
    double A, C, S, R;
} closed;

static closed lgs_terms(double s)
{
    return (closed){LG_O + LG_L, LG_O + (s - 1) * LG_PER_BYTE, LG_G + (s - 1) * LG_PER_BYTE, s};
}

static bool is_loggopsim_model(const trl_model *m)
{
    for (int c = 0; c < TRL_LINK_COUNT; c++) {
        const trl_link_model *l = &m->link[c];
        if (l->latency != LG_L || l->overhead != LG_O || l->gap != LG_G ||
            l->per_byte != LG_PER_BYTE || l->recv_gap != LG_G || l->recv_per_byte != LG_PER_BYTE ||
            !isinf(l->eager))
            return false;
    }
    return m->reduce.per_step == 0 && m->reduce.per_byte == 1 && m->copy.per_step == 0 &&
           m->copy.per_byte == 1 && m->style == TRL_ENGINE_LOGGOPSIM && m->bytes_after_first;
}

/* The patterns of issue 30 on 64 ranks of 1 KiB (and others where the
 * closed form is short), each the time of its last rank's last work:
 *   gather linear: the 63 blocks are all at the root at A, which takes them
 *   one after another (its own block's copy done long before): A + 63 C.
 *   LogGOPSim: 485 us.
 *   alltoall linear: a rank's k-th send waits for its CPU, busy taking its
 *   (k-1)-th message, which came A after its sender's (k-1)-th send; every
 *   rank alike, each round is A + C (the copy fits in the first wait):
 *   63 (A + C). LogGOPSim: 733 us.
 *   bcast and scatter linear: the root's sends S apart, the last is taken
 *   in A + C later: 62 S + A + C.
 *   reduce knomial radix=4, a fan-in tree: a node's 3 children of a round
 *   send at once; it takes the 3 messages, then adds each in (the messages,
 *   sent first, go before the additions): 3 rounds of A + 3 (C + R).
 *   bcast binomial: the path through every rank's first child, each hop
 *   A + C (later children are S after, and S < A + C): 6 (A + C).
 *   allreduce recursive_doubling: a copy, then 6 rounds of a message each
 *   way and an addition: R + 6 (A + C + R).
 *   allreduce ring, blocks of b = 16 bytes: 63 steps of A + C_b + b
 *   (reduce-scatter), 63 of A + C_b (allgather).
 *   allreduce hier on 8 hosts of 8: binomial reduce in each host (3 levels
 *   of A + C + R), recursive doubling among the 8 leaders (a copy, 3 rounds
 *   of A + C + R), binomial bcast in each host (3 hops of A + C). */
static const char *loggopsim_model; /* the first argument */

static void loggopsim_closed_forms(void)
{
    const char *path = loggopsim_model;
    trl_model m;
    trl_model_error err;
    if (!path || trl_model_load(path, &m, &err)) {
        check_at(__LINE__, "cannot load the loggopsim model %s: %s", path ? path : "(none)",
                 path ? err.message : "give its path as the first argument");
        return;
    }
    CHECK(is_loggopsim_model(&m), "%s is not LogGOPSim's LogGP as this test knows it", path);
    const int p = 64;
    const double s = 1024;
    closed k = lgs_terms(s), b = lgs_terms(s / p);
    CHECK_TIME(simulate(&m, TRL_COLL_GATHER, "linear", "", p, 1024, NULL, NULL, NULL),
               k.A + (p - 1) * k.C, p);
    CHECK_TIME(simulate(&m, TRL_COLL_ALLTOALL, "linear", "", p, 1024, NULL, NULL, NULL),
               (p - 1) * (k.A + k.C), p);
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "linear", "", p, 1024, NULL, NULL, NULL),
               (p - 2) * k.S + k.A + k.C, p);
    CHECK_TIME(simulate(&m, TRL_COLL_SCATTER, "linear", "", p, 1024, NULL, NULL, NULL),
               (p - 2) * k.S + k.A + k.C, p);
    CHECK_TIME(simulate(&m, TRL_COLL_REDUCE, "knomial", "radix=4", p, 1024, NULL, NULL, NULL),
               3 * (k.A + 3 * (k.C + k.R)), p);
    CHECK_TIME(simulate(&m, TRL_COLL_BCAST, "binomial", "", p, 1024, NULL, NULL, NULL),
               6 * (k.A + k.C), p);
    CHECK_TIME(
        simulate(&m, TRL_COLL_ALLREDUCE, "recursive_doubling", "", p, 1024, NULL, NULL, NULL),
        k.R + 6 * (k.A + k.C + k.R), p);
    CHECK_TIME(simulate(&m, TRL_COLL_ALLREDUCE, "ring", "", p, 1024, NULL, NULL, NULL),
               (p - 1) * (b.A + b.C + b.R) + (p - 1) * (b.A + b.C), p);
    CHECK_TIME(simulate(&m, TRL_COLL_ALLREDUCE, "hier",
                        "levels=host,world host=binomial world=recursive_doubling", p, 1024,
                        "hosts=8 ranks_per_host=8", NULL, NULL),
               3 * (k.A + k.C + k.R) + k.R + 3 * (k.A + k.C + k.R) + 3 * (k.A + k.C), p);
}

/* Every rank's record: one per step, in the schedule's order, each with
 * ready <= posted <= done and its phase named. */
static int check_records(void *ctx, const trl_sim_rank *r)
{
    int *bad = ctx;
    for (size_t i = 0; i < r->nsteps; i++) {
        const trl_sim_step *x = &r->steps[i];
        if (x->step != (int)i || !(r->t_enter <= x->t_ready && x->t_ready <= x->t_posted &&
                                   x->t_posted <= x->t_done && x->t_done <= r->t_exit))
            (*bad)++;
    }
    return 0;
}

static void records_are_ordered_in_time(void)
{
    trl_model m = simple();
    m.link[TRL_LINK_HOST].overhead = 70;
    m.copy.per_step = 5;
    const trl_algo *algo = trl_algo_find(TRL_COLL_ALLREDUCE, "reduce_bcast", 12);
    trl_params pv = {0};
    int bad = 0;
    trl_sim_call c = {.algo = algo,
                      .args = {.coll = TRL_COLL_ALLREDUCE,
                               .size = 13,
                               .count = 1000,
                               .elem_size = 8,
                               .commutative = true,
                               .params = &pv},
                      .model = &m,
                      .sink = check_records,
                      .ctx = &bad};
    trl_sim_result res;
    CHECK(trl_sim_run(&c, &res) == TRL_OK, "%s", res.why);
    CHECK(bad == 0, "%d steps out of order", bad);
    CHECK(res.steps > 0 && res.messages > 0 && res.peak_ranks == 13, "counts: %zu %zu %zu",
          res.steps, res.messages, res.peak_ranks);
    bool named = false;
    for (int i = 0; i < res.nphases; i++)
        named |= !strcmp(res.phase_names[i], "reduce");
    CHECK(named, "the phase 'reduce' is among the names");
    trl_sim_result_free(&res);
}

/* Model files: every key read, and errors with their position. */
static void reads_model_files(void)
{
    trl_model m;
    trl_model_error err;
    char msg[600];
    CHECK(trl_model_parse("# c\nworld latency=25.5 overhead=3 gap=2 per_byte=0.08 eager=64K\n"
                          "copy per_step=7 per_byte=0.25  # tail\n",
                          "f", &m, &err) == TRL_OK,
          "parse: %s", err.message);
    CHECK(m.link[TRL_LINK_WORLD].latency == 25.5 && m.link[TRL_LINK_WORLD].overhead == 3 &&
              m.link[TRL_LINK_WORLD].gap == 2 && m.link[TRL_LINK_WORLD].per_byte == 0.08 &&
              m.link[TRL_LINK_WORLD].eager == 65536,
          "world read back");
    CHECK(isinf(m.link[TRL_LINK_HOST].eager) && m.link[TRL_LINK_HOST].latency == 0,
          "unset: 0, and eager none");
    CHECK(m.copy.per_step == 7 && m.copy.per_byte == 0.25, "copy read back");
    CHECK(m.style == TRL_ENGINE_EXECUTOR && !m.bytes_after_first, "the engine's defaults");
    CHECK(m.link[TRL_LINK_WORLD].recv_gap == 0 && m.link[TRL_LINK_WORLD].recv_per_byte == 0,
          "the receiving side's defaults");
    CHECK(trl_model_parse("host recv_gap=7 recv_per_byte=0.5\nengine style=loggopsim bytes=s-1\n",
                          "f", &m, &err) == TRL_OK,
          "parse: %s", err.message);
    CHECK(m.link[TRL_LINK_HOST].recv_gap == 7 && m.link[TRL_LINK_HOST].recv_per_byte == 0.5 &&
              m.style == TRL_ENGINE_LOGGOPSIM && m.bytes_after_first,
          "receiving side and engine read back");
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"wrld latency=1\n",
         "f:1:1: expected socket, host, world, reduce, copy or engine, got 'wrld'"},
        {"\nhost latncy=1\n", "f:2:6: host has no key 'latncy' (latency, overhead, gap, "
                              "per_byte, recv_gap, recv_per_byte, eager)"},
        {"reduce latency=1", "f:1:8: reduce has no key 'latency' (per_step, per_byte)"},
        {"host latency=-1", "f:1:14: latency: expected a number >= 0, got '-1'"},
        {"host eager=lots", "f:1:12: eager: expected a size such as 4096 or 64K, or none, got "
                            "'lots'"},
        {"host latency", "f:1:6: expected key=value, got 'latency'"},
        {"engine style=lgs", "f:1:14: style: expected executor or loggopsim, got 'lgs'"},
        {"engine bytes=s-2", "f:1:14: bytes: expected s or s-1, got 's-2'"},
        {"engine gap=1", "f:1:8: engine has no key 'gap' (style, bytes)"},
        {"world eager=4K\n\nengine style=loggopsim", "f:3:8: style=loggopsim sends every "
                                                     "message eager, but world has eager=4096 "
                                                     "(leave it out, or none)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(trl_model_parse(bad[i].text, "f", &m, &err) != TRL_OK, "%s parses", bad[i].text);
        trl_model_error_format(&err, msg, sizeof msg);
        CHECK_STR(msg, bad[i].want);
    }
    CHECK(trl_model_load("/nonexistent/model", &m, &err) == TRL_ERR_IO, "missing file");
}

int main(int argc, char **argv)
{
    loggopsim_model = argc > 1 ? argv[1] : NULL;
    RUN(linear_bcast);
    RUN(binomial_bcast);
    RUN(ring_allreduce);
    RUN(linear_reduce);
    RUN(overhead_and_gap);
    RUN(rendezvous);
    RUN(hierarchy);
    RUN(receiving_side);
    RUN(bytes_after_first);
    RUN(loggopsim_closed_forms);
    RUN(records_are_ordered_in_time);
    RUN(reads_model_files);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
