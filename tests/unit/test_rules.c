/* The rules language: parsing (files and inline text), every error message
 * the parser can emit with its exact position, selection (first match,
 * fallback to the built-in rules, rules passed over for a non-commutative
 * operation; the intercommunicator filters and kinds of algorithm), the
 * built-in rules themselves (every intercommunicator call included), and
 * TRELLIS_RULES.
 *
 * No MPI: this links trellis_core only. Prints "N passed, M failed" last
 * and exits non-zero on any failure. The only message not exercised is
 * "out of memory".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/env_value.h"
#include "algo/inter/inter.h"
#include "algo/usable.h"
#include "core/status.h"
#include "select/rules.h"
#include "topo/topo.h"

#include "unit_harness.h"

static const trl_algo *algo(trl_coll c, const char *name)
{
    const trl_algo *a = trl_algo_find(c, name, strlen(name));
    if (!a) {
        printf("FATAL: no algorithm %s %s in the table\n", trl_coll_name(c), name);
        exit(2);
    }
    return a;
}

static int parse(const char *text, trl_ruleset *rs)
{
    trl_rules_error err;
    int rc = trl_rules_parse(text, "test.rules", rs, &err);
    if (rc) {
        char msg[900];
        trl_rules_error_format(&err, msg, sizeof msg);
        printf("  (parse error: %s)\n", msg);
    }
    return rc;
}

/* ---- valid rules ----------------------------------------------------------- */

static void parses_the_example_file(void)
{
    const char *text = "# comments and blank lines are allowed\n"
                       "\n"
                       "allreduce bytes=0-4K      recursive_doubling\n"
                       "allreduce bytes=4K-       rabenseifner\n"
                       "bcast     ranks=9-        knomial radix=4\n"
                       "reduce                    chain segment=32K   # trailing comment\n";
    trl_ruleset rs;
    CHECK(parse(text, &rs) == TRL_OK, "parse failed");
    CHECK(rs.n == 4, "n = %zu, want 4", rs.n);
    if (rs.n != 4)
        goto done;
    CHECK_STR(rs.source, "test.rules");
    const trl_rule *r = rs.rules;
    CHECK(r[0].coll == TRL_COLL_ALLREDUCE &&
              r[0].algo == algo(TRL_COLL_ALLREDUCE, "recursive_doubling"),
          "rule 1 coll/algo");
    CHECK(r[0].bytes.lo == 0 && r[0].bytes.hi == 4096, "rule 1 bytes %llu-%llu", r[0].bytes.lo,
          r[0].bytes.hi);
    CHECK(r[0].ranks.lo == 0 && r[0].ranks.hi == TRL_RANGE_MAX, "rule 1 ranks not unrestricted");
    CHECK(r[0].commutative == -1, "rule 1 commutative = %d", r[0].commutative);
    CHECK(r[0].line == 3 && r[3].line == 6, "lines %d, %d; want 3, 6", r[0].line, r[3].line);
    CHECK(r[0].source == rs.source, "rule source is not the ruleset's");
    CHECK(r[1].bytes.lo == 4096 && r[1].bytes.hi == TRL_RANGE_MAX, "rule 2 bytes");
    CHECK(r[2].coll == TRL_COLL_BCAST && r[2].ranks.lo == 9 && r[2].ranks.hi == TRL_RANGE_MAX,
          "rule 3 ranks");
    CHECK(r[2].params.n == 1 && r[2].params.v[0].value == 4 &&
              strcmp(r[2].params.v[0].spec->name, "radix") == 0,
          "rule 3 params");
    CHECK(r[3].params.n == 1 && r[3].params.v[0].value == 32 * 1024, "rule 4 segment");
    CHECK_STR(r[3].text, "reduce                    chain segment=32K");
done:
    trl_rules_free(&rs);
    CHECK(rs.n == 0 && rs.rules == NULL && rs.source == NULL, "trl_rules_free left state");
}

static void parses_every_range_form_and_size(void)
{
    const char *text = "bcast ranks=2-8 bytes=1K-2M linear\n"
                       "bcast ranks=9- bytes=3G- linear\n"
                       "bcast ranks=-64 bytes=-512 linear\n"
                       "bcast ranks=* bytes=* linear\n"
                       "bcast ranks=16 bytes=64K linear\n"
                       "bcast bytes=0 linear\n"
                       "bcast bytes=18446744073709551615 linear\n"
                       /* Either case, as the command's --bytes (issue 35). */
                       "bcast bytes=-64k linear\n"
                       "bcast bytes=1m-2g linear\n";
    const trl_range want[][2] = {
        {{2, 8}, {1024, 2u << 20}},
        {{9, TRL_RANGE_MAX}, {3ULL << 30, TRL_RANGE_MAX}},
        {{0, 64}, {0, 512}},
        {{0, TRL_RANGE_MAX}, {0, TRL_RANGE_MAX}},
        {{16, 16}, {65536, 65536}},
        {{0, TRL_RANGE_MAX}, {0, 0}},
        {{0, TRL_RANGE_MAX}, {TRL_RANGE_MAX, TRL_RANGE_MAX}},
        {{0, TRL_RANGE_MAX}, {0, 65536}},
        {{0, TRL_RANGE_MAX}, {1u << 20, 2ULL << 30}},
    };
    size_t nwant = sizeof want / sizeof want[0];
    trl_ruleset rs;
    CHECK(parse(text, &rs) == TRL_OK, "parse failed");
    CHECK(rs.n == nwant, "n = %zu, want %zu", rs.n, nwant);
    for (size_t i = 0; i < rs.n && i < nwant; i++) {
        const trl_rule *r = &rs.rules[i];
        CHECK(r->ranks.lo == want[i][0].lo && r->ranks.hi == want[i][0].hi,
              "rule %zu ranks %llu-%llu", i + 1, r->ranks.lo, r->ranks.hi);
        CHECK(r->bytes.lo == want[i][1].lo && r->bytes.hi == want[i][1].hi,
              "rule %zu bytes %llu-%llu", i + 1, r->bytes.lo, r->bytes.hi);
    }
    trl_rules_free(&rs);
}

static void parses_blanks_tabs_crlf_and_semicolons(void)
{
    /* CRLF line ends, tabs between words, a blank line with only blanks, a
     * comment holding a ';' (in a file it runs to the end of the line), and
     * two rules on one line separated by ';'. */
    const char *text = "\t# header; not a rule\r\n"
                       "   \t  \r\n"
                       "allreduce\tbytes=-16K\t recursive_doubling\r\n"
                       "bcast binomial ; barrier dissemination   \r\n"
                       "reduce commutative=no binomial";
    trl_ruleset rs;
    CHECK(parse(text, &rs) == TRL_OK, "parse failed");
    CHECK(rs.n == 4, "n = %zu, want 4", rs.n);
    if (rs.n == 4) {
        CHECK(rs.rules[0].line == 3 && rs.rules[0].bytes.hi == 16384, "rule 1");
        CHECK_STR(rs.rules[0].text, "allreduce\tbytes=-16K\t recursive_doubling");
        CHECK(rs.rules[1].line == 4 && rs.rules[2].line == 4, "';' rules should share line 4");
        CHECK_STR(rs.rules[1].text, "bcast binomial");
        CHECK_STR(rs.rules[2].text, "barrier dissemination");
        CHECK(rs.rules[2].algo == algo(TRL_COLL_BARRIER, "dissemination"), "rule 3 algo");
        CHECK(rs.rules[3].commutative == 0 && rs.rules[3].line == 5, "rule 4");
    }
    trl_rules_free(&rs);
}

static void parses_empty_texts(void)
{
    const char *texts[] = {"", "\n\n", "# only a comment\n;;\n", "   ", NULL};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        trl_ruleset rs;
        CHECK(parse(texts[i], &rs) == TRL_OK, "text %zu failed", i);
        CHECK(rs.n == 0, "text %zu gave %zu rules", i, rs.n);
        CHECK_STR(rs.source, "test.rules");
        trl_rules_free(&rs);
    }
}

static void parses_inline_parts(void)
{
    /* Inline, a comment ends at the next ';' and every part counts as a line. */
    const char *text = "allreduce ring segment=1M # big ones; bcast ranks=3 kary radix=3\n"
                       "reduce commutative=yes knomial;barrier mpi;";
    trl_ruleset rs;
    trl_rules_error err;
    CHECK(trl_rules_parse_inline(text, &rs, &err) == TRL_OK, "parse failed: %s", err.message);
    CHECK(rs.n == 4, "n = %zu, want 4", rs.n);
    CHECK_STR(rs.source, "TRELLIS_RULES");
    if (rs.n == 4) {
        for (int i = 0; i < 4; i++)
            CHECK(rs.rules[i].line == i + 1, "rule %d has line %d", i + 1, rs.rules[i].line);
        CHECK(rs.rules[0].params.v[0].value == 1 << 20, "segment=1M");
        CHECK(rs.rules[1].ranks.lo == 3 && rs.rules[1].ranks.hi == 3, "ranks=3");
        CHECK(rs.rules[2].commutative == 1, "commutative=yes");
        CHECK(rs.rules[3].algo == algo(TRL_COLL_BARRIER, "mpi") && !rs.rules[3].algo->build,
              "barrier mpi");
        CHECK_STR(rs.rules[0].text, "allreduce ring segment=1M");
    }
    trl_rules_free(&rs);
}

static void parses_algorithm_parameters(void)
{
    const char *text = "allreduce reduce_bcast reduce=rabenseifner bcast=chain segment=8K radix=2\n"
                       "allreduce reduce_bcast\n";
    trl_ruleset rs;
    CHECK(parse(text, &rs) == TRL_OK, "parse failed");
    CHECK(rs.n == 2, "n = %zu", rs.n);
    if (rs.n == 2) {
        const trl_params *p = &rs.rules[0].params;
        CHECK(p->n == 4, "params n = %d", p->n);
        if (p->n == 4) {
            CHECK(p->v[0].algo == algo(TRL_COLL_REDUCE, "rabenseifner"), "reduce=");
            CHECK(p->v[1].algo == algo(TRL_COLL_BCAST, "chain"), "bcast=");
            CHECK(p->v[2].value == 8192 && p->v[3].value == 2, "segment, radix");
        }
        CHECK(rs.rules[1].params.n == 0, "defaults are not stored");
    }
    trl_rules_free(&rs);
}

/* ---- errors ---------------------------------------------------------------- */

#define ALL_COLLS                                                                                  \
    "bcast, reduce, allreduce, barrier, gather, gatherv, scatter, scatterv, allgather, "           \
    "allgatherv, alltoall, alltoallv, alltoallw, reduce_scatter, reduce_scatter_block, scan, "     \
    "exscan, neighbor_allgather, neighbor_allgatherv, neighbor_alltoall, neighbor_alltoallv, "     \
    "neighbor_alltoallw"

typedef struct {
    const char *text;
    bool inline_text;
    const char *want; /* the formatted error */
} error_case;

static const error_case error_cases[] = {
    /* The collective. */
    {"allreduc ring", false,
     "test.rules:1:1: unknown collective 'allreduc' (expected one of: " ALL_COLLS ")"},
    {"# c\n\n  Bcast binomial", false,
     "test.rules:3:3: unknown collective 'Bcast' (expected one of: " ALL_COLLS ")"},
    {"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx "
     "ring",
     false,
     "test.rules:1:1: unknown collective "
     "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' "
     "(expected one of: " ALL_COLLS ")"},
    /* A call's name as verbose mode prints it (issue 35). */
    {"iallreduce ring", false,
     "test.rules:1:1: unknown collective 'iallreduce': the non-blocking allreduce is served by "
     "allreduce rules; a rule that only non-blocking and persistent calls take is written "
     "'allreduce nonblocking=yes ...'"},
    {"reduce_scatter_block_init ring", false,
     "test.rules:1:1: unknown collective 'reduce_scatter_block_init': the persistent "
     "reduce_scatter_block is served by reduce_scatter_block rules; a rule that only "
     "non-blocking and persistent calls take is written 'reduce_scatter_block nonblocking=yes "
     "...'"},
    /* Filters. */
    {"allreduce radix=4 ring", false,
     "test.rules:1:11: unknown filter 'radix' (expected one of: ranks, bytes, commutative, "
     "hosts, ranks_per_host, placement, nonblocking, inter, remote_ranks)"},
    {"allreduce bytes=1K- ranks=2 bytes=4K ring", false,
     "test.rules:1:29: duplicate filter 'bytes'"},
    {"barrier bytes=0 linear", false, "test.rules:1:9: filter 'bytes' does not apply to barrier"},
    {"gatherv bytes=0-1K linear", false,
     "test.rules:1:9: filter 'bytes' does not apply to gatherv (each rank knows only its own "
     "counts)"},
    {"alltoallw bytes=1K- pairwise", false,
     "test.rules:1:11: filter 'bytes' does not apply to alltoallw (each rank knows only its own "
     "counts)"},
    {"allgather commutative=yes ring", false,
     "test.rules:1:11: filter 'commutative' does not apply to allgather"},
    {"bcast commutative=yes linear", false,
     "test.rules:1:7: filter 'commutative' does not apply to bcast"},
    {"barrier commutative=no linear", false,
     "test.rules:1:9: filter 'commutative' does not apply to barrier"},
    {"allreduce bytes= ring", false, "test.rules:1:11: missing value after 'bytes='"},
    {"allreduce ranks= ring", false, "test.rules:1:11: missing value after 'ranks='"},
    {"reduce commutative= binomial", false, "test.rules:1:8: missing value after 'commutative='"},
    {"allreduce bytes=4Q- ring", false,
     "test.rules:1:11: bytes=4Q-: expected a range such as 0-4K, 4K-, -64K, 512 or * (sizes take "
     "K, M or G, either case)"},
    {"allreduce bytes=- ring", false,
     "test.rules:1:11: bytes=-: expected a range such as 0-4K, 4K-, -64K, 512 or * (sizes take K, "
     "M or G, either case)"},
    {"allreduce bytes=1-2-3 ring", false,
     "test.rules:1:11: bytes=1-2-3: expected a range such as 0-4K, 4K-, -64K, 512 or * (sizes take "
     "K, M or G, either case)"},
    {"allreduce bytes=99999999999999999999 ring", false,
     "test.rules:1:11: bytes=99999999999999999999: expected a range such as 0-4K, 4K-, -64K, 512 "
     "or * "
     "(sizes take K, M or G, either case)"},
    {"allreduce ranks=4K- ring", false,
     "test.rules:1:11: ranks=4K-: expected a range such as 1-8, 9-, -64, 16 or * (whole numbers of "
     "ranks)"},
    {"allreduce ranks=** ring", false,
     "test.rules:1:11: ranks=**: expected a range such as 1-8, 9-, -64, 16 or * (whole numbers of "
     "ranks)"},
    {"bcast ranks=9-3 binomial", false, "test.rules:1:7: range '9-3' is empty"},
    {"bcast bytes=8K-4K binomial", false, "test.rules:1:7: range '8K-4K' is empty"},
    {"bcast ranks=0 binomial", false,
     "test.rules:1:7: range '0' matches no communicator (the smallest has 1 rank)"},
    {"bcast ranks=-0 binomial", false,
     "test.rules:1:7: range '-0' matches no communicator (the smallest has 1 rank)"},
    {"reduce commutative=maybe binomial", false,
     "test.rules:1:8: commutative=maybe: expected yes or no"},
    /* The layout filters. */
    {"allreduce hosts=2 placement=block hosts=3 ring", false,
     "test.rules:1:35: duplicate filter 'hosts'"},
    {"bcast ranks_per_host=1- placement=other placement=block binomial", false,
     "test.rules:1:41: duplicate filter 'placement'"},
    {"barrier hosts= linear", false, "test.rules:1:9: missing value after 'hosts='"},
    {"barrier ranks_per_host= linear", false,
     "test.rules:1:9: missing value after 'ranks_per_host='"},
    {"gatherv placement= linear", false, "test.rules:1:9: missing value after 'placement='"},
    {"allreduce hosts=2K ring", false,
     "test.rules:1:11: hosts=2K: expected a range such as 1, 2-, 2-8, -4 or * (whole numbers of "
     "hosts)"},
    {"allreduce hosts=two ring", false,
     "test.rules:1:11: hosts=two: expected a range such as 1, 2-, 2-8, -4 or * (whole numbers of "
     "hosts)"},
    {"allreduce ranks_per_host=4-2-1 ring", false,
     "test.rules:1:11: ranks_per_host=4-2-1: expected a range such as 1, 2-, 2-8, -4 or * (whole "
     "numbers of ranks)"},
    {"allreduce hosts=8-2 ring", false, "test.rules:1:11: range '8-2' is empty"},
    {"allreduce ranks_per_host=5-4 ring", false, "test.rules:1:11: range '5-4' is empty"},
    {"allreduce hosts=0 ring", false,
     "test.rules:1:11: range '0' matches no communicator (a communicator spans at least 1 host)"},
    {"scan ranks_per_host=-0 linear", false,
     "test.rules:1:6: range '-0' matches no communicator (a host of the communicator holds at "
     "least 1 rank)"},
    {"alltoallv placement=blocked linear", false,
     "test.rules:1:11: placement=blocked: expected block or other"},
    {"allgather placement=round-robin ring", false,
     "test.rules:1:11: placement=round-robin: expected block or other"},
    {"bcast hosts 2- binomial", false,
     "test.rules:1:7: filter 'hosts' needs a value (write hosts=<value>, no blanks around '=')"},
    {"bcast binomial placement=block", false,
     "test.rules:1:16: filter 'placement' must come before the algorithm"},
    {"allreduce bytes =4K ring", false,
     "test.rules:1:11: filter 'bytes' needs a value (write bytes=<value>, no blanks around '=')"},
    {"allreduce ranks=2 =4K ring", false,
     "test.rules:1:19: unexpected '=4K' (write name=value, no blanks around '=')"},
    /* The algorithm. */
    {"allreduce ringg", false,
     "test.rules:1:11: unknown algorithm 'ringg' for allreduce (expected one of: reduce_bcast, "
     "recursive_doubling, ring, rabenseifner, knomial, direct, hier, hier_sharded, tree, "
     "inter_linear, inter_leader, inter_pairwise, inter_hosts, mpi)"},
    {"barrier bintree", false,
     "test.rules:1:9: unknown algorithm 'bintree' for barrier (expected one of: linear, binomial, "
     "dissemination, recursive_doubling, direct, hier, inter_linear, inter_leader, inter_pairwise, "
     "inter_hosts, mpi)"},
    {"allreduce bytes=4K-", false,
     "test.rules:1:20: missing algorithm after filters (expected one of: reduce_bcast, "
     "recursive_doubling, ring, rabenseifner, knomial, direct, hier, hier_sharded, tree, "
     "inter_linear, inter_leader, inter_pairwise, inter_hosts, mpi)"},
    {"bcast   # no algorithm", false,
     "test.rules:1:6: missing algorithm after bcast (expected one of: linear, binomial, knomial, "
     "kary, "
     "chain, scatter_allgather, hier, hier_sharded, tree, inter_linear, inter_leader, inter_hosts, "
     "mpi)"},
    /* Parameters. */
    {"allreduce recursive_doubling ring", false,
     "test.rules:1:30: unexpected 'ring' after algorithm recursive_doubling (parameters are "
     "name=value)"},
    {"allreduce ring =1M", false,
     "test.rules:1:16: unexpected '=1M' (write name=value, no blanks around '=')"},
    {"allreduce ring bytes=4K-", false,
     "test.rules:1:16: filter 'bytes' must come before the algorithm"},
    {"allreduce ring radix=4", false,
     "test.rules:1:16: parameter 'radix' is not known to allreduce ring (it takes: segment)"},
    {"allreduce recursive_doubling radix=4", false,
     "test.rules:1:30: parameter 'radix' is not known to allreduce recursive_doubling (it takes no "
     "parameters)"},
    {"allreduce reduce_bcast sgment=4K", false,
     "test.rules:1:24: parameter 'sgment' is not known to allreduce reduce_bcast (it takes: "
     "reduce, "
     "bcast, radix, segment)"},
    {"bcast knomial radix=4 radix=8", false, "test.rules:1:23: duplicate parameter 'radix'"},
    {"bcast knomial radix=", false, "test.rules:1:15: missing value after 'radix='"},
    {"bcast knomial radix=1", false, "test.rules:1:15: radix=1: value out of range (2..1024)"},
    {"bcast knomial radix=1025", false,
     "test.rules:1:15: radix=1025: value out of range (2..1024)"},
    {"bcast chain segment=0", false, "test.rules:1:13: segment=0: value out of range (at least 1)"},
    {"bcast knomial radix=x", false, "test.rules:1:15: radix=x: expected an integer"},
    {"bcast knomial radix=4K", false, "test.rules:1:15: radix=4K: expected an integer"},
    {"bcast chain segment=4Q", false,
     "test.rules:1:13: segment=4Q: expected a size such as 4096, 64K or 1M"},
    {"allreduce reduce_bcast reduce=ringg", false,
     "test.rules:1:24: reduce=ringg: unknown reduce algorithm 'ringg' (expected one of: linear, "
     "binomial, knomial, kary, chain, rabenseifner, hier)"},
    {"allreduce reduce_bcast bcast=mpi", false,
     "test.rules:1:24: bcast=mpi: the MPI library's own bcast cannot be part of another algorithm "
     "(expected one of: linear, binomial, knomial, kary, chain, scatter_allgather, hier, "
     "hier_sharded)"},
    {"allreduce reduce_bcast reduce=tree", false,
     "test.rules:1:24: reduce=tree: reduce tree needs a file of its own and cannot be part of "
     "another algorithm (expected one of: linear, binomial, knomial, kary, chain, rabenseifner, "
     "hier)"},
    /* Hierarchies and files. */
    {"allreduce hier levels=host", false,
     "test.rules:1:16: levels=host: the last level must be world"},
    {"allreduce hier levels=world,host", false,
     "test.rules:1:16: levels=world,host: levels go from the smallest to world, each once: numa, "
     "socket, group:K, host, world"},
    {"allreduce hier levels=host,rack,world", false,
     "test.rules:1:16: levels=host,rack,world: expected levels from numa, socket, group:K, host, "
     "world, separated by ','"},
    {"allreduce hier levels=group:0,world", false,
     "test.rules:1:16: levels=group:0,world: group:K needs a number of ranks K from 1 to 1048576"},
    {"allreduce hier host=rabenseifner", false,
     "test.rules:1:16: host=rabenseifner: a level below the top reduces up and broadcasts down: it "
     "needs a name that is both a reduce and a bcast algorithm (expected one of: linear, binomial, "
     "knomial, kary, chain, hier)"},
    {"allreduce hier world=binomial", false,
     "test.rules:1:16: world=binomial: not an algorithm a level can run (expected one of: "
     "reduce_bcast, recursive_doubling, ring, rabenseifner, knomial, direct, hier, hier_sharded)"},
    {"allreduce hier world=linear", false,
     "test.rules:1:16: world=linear: not an algorithm a level can run (expected one of: "
     "reduce_bcast, recursive_doubling, ring, rabenseifner, knomial, direct, hier, hier_sharded)"},
    {"allreduce hier host=mpi", false,
     "test.rules:1:16: host=mpi: not an algorithm a level can run (expected one of: linear, "
     "binomial, knomial, kary, chain, hier)"},
    {"reduce hier world=tree", false,
     "test.rules:1:13: world=tree: not an algorithm a level can run (expected one of: linear, "
     "binomial, knomial, kary, chain, rabenseifner, hier)"},
    /* Parameters inside a level: the same messages as outside, with the range. */
    {"allreduce hier host=knomial(radix=1)", false,
     "test.rules:1:16: host=knomial(radix=1): radix=1: value out of range (2..1024)"},
    {"bcast hier host=knomial(radix=1)", false,
     "test.rules:1:12: host=knomial(radix=1): radix=1: value out of range (2..1024)"},
    {"bcast hier world=chain(segment=0)", false,
     "test.rules:1:12: world=chain(segment=0): segment=0: value out of range (at least 1)"},
    {"bcast hier world=kary(radix=x)", false,
     "test.rules:1:12: world=kary(radix=x): radix=x: expected an integer"},
    {"bcast hier host=knomial(radix=2,radix=3)", false,
     "test.rules:1:12: host=knomial(radix=2,radix=3): radix=3: duplicate parameter"},
    {"bcast hier host=binomial(radix=2)", false,
     "test.rules:1:12: host=binomial(radix=2): radix=2: unknown parameter (binomial takes no "
     "parameters)"},
    {"allreduce hier world=reduce_bcast(reduce=ringg)", false,
     "test.rules:1:16: world=reduce_bcast(reduce=ringg): reduce=ringg: unknown reduce algorithm "
     "'ringg' (expected one of: linear, binomial, knomial, kary, chain, rabenseifner, hier)"},
    {"allreduce hier world=reduce_bcast(bcast=mpi)", false,
     "test.rules:1:16: world=reduce_bcast(bcast=mpi): bcast=mpi: the MPI library's own bcast "
     "cannot be part of another algorithm (expected one of: linear, binomial, knomial, kary, "
     "chain, "
     "scatter_allgather, hier, hier_sharded)"},
    {"allreduce hier world=reduce_bcast(radix)", false,
     "test.rules:1:16: world=reduce_bcast(radix): radix: expected name=value"},
    {"allreduce hier host=knomial(radix=3", false,
     "test.rules:1:16: host=knomial(radix=3: expected name(key=value,...) with the ')' last"},
    {"allreduce hier host=knomial(sgment=3)", false,
     "test.rules:1:16: host=knomial(sgment=3): sgment=3: unknown parameter (knomial takes: radix)"},
    {"barrier hier host=scatter_allgather", false,
     "test.rules:1:14: host=scatter_allgather: a barrier's lower levels are trees (expected one "
     "of: linear, binomial, knomial, kary, chain)"},
    {"barrier hier host=dissemination", false,
     "test.rules:1:14: host=dissemination: not an algorithm a level can run (expected one of: "
     "linear, binomial, knomial, kary, chain)"},
    {"reduce tree order=file", false, "test.rules:1:23: reduce tree needs file="},
    {"reduce tree file=/nonexistent/x.tree", false,
     "test.rules:1:13: file=/nonexistent/x.tree: /nonexistent/x.tree: cannot read the tree file: "
     "No such file or directory"},
    {"reduce tree file=/dev/null order=last", false,
     "test.rules:1:13: file=/dev/null: /dev/null:1: empty file: expected 'trellis tree' or "
     "'trellis script'"},
    /* Positions: the first error stops parsing; CRLF and tabs; ';' in a file. */
    {"bcast binomial\r\nreduce binomial\r\n\tallreduce\tring radix=2\r\n", false,
     "test.rules:3:17: parameter 'radix' is not known to allreduce ring (it takes: segment)"},
    {"bcast binomial; reduce binomal # x; y\n", false,
     "test.rules:1:24: unknown algorithm 'binomal' for reduce (expected one of: linear, binomial, "
     "knomial, kary, chain, rabenseifner, hier, tree, inter_linear, inter_leader, mpi)"},
    {"bcast ringg\nbcast alsobad", false,
     "test.rules:1:7: unknown algorithm 'ringg' for bcast (expected one of: linear, binomial, "
     "knomial, "
     "kary, chain, scatter_allgather, hier, hier_sharded, tree, inter_linear, inter_leader, "
     "inter_hosts, mpi)"},
    /* Inline: every ';' or newline separated part is a line. */
    {"allreduce ring; bcast ringg", true,
     "TRELLIS_RULES:2:8: unknown algorithm 'ringg' for bcast (expected one of: linear, binomial, "
     "knomial, kary, chain, scatter_allgather, hier, hier_sharded, tree, inter_linear, "
     "inter_leader, inter_hosts, mpi)"},
    {"bcast binomial # a; ; reduce binomial\nbarrier ranks=9-3 linear", true,
     "TRELLIS_RULES:4:9: range '9-3' is empty"},
    /* The intercommunicator filters. */
    {"allreduce inter=maybe inter_leader", false,
     "test.rules:1:11: inter=maybe: expected yes or no"},
    {"scan inter=yes mpi", false,
     "test.rules:1:6: filter 'inter' does not apply to scan (MPI defines it on intracommunicators "
     "only)"},
    {"exscan remote_ranks=2 mpi", false,
     "test.rules:1:8: filter 'remote_ranks' does not apply to exscan (MPI defines it on "
     "intracommunicators only)"},
    {"bcast remote_ranks=0 inter_leader", false,
     "test.rules:1:7: range '0' matches no communicator (the smallest has 1 rank)"},
    {"bcast remote_ranks=x inter_leader", false,
     "test.rules:1:7: remote_ranks=x: expected a range such as 1-8, 9-, -64, 16 or * (whole "
     "numbers of ranks)"},
    {"barrier inter=yes inter=no mpi", false, "test.rules:1:19: duplicate filter 'inter'"},
    {"bcast inter_leader bcast=inter_linear", false,
     "test.rules:1:20: bcast=inter_linear: not an algorithm a level can run (expected one of: "
     "linear, binomial, knomial, kary, chain, scatter_allgather, hier, hier_sharded)"},
};

static void reports_every_error_with_its_position(void)
{
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        trl_ruleset rs = {(trl_rule *)1, 99, (char *)1}; /* garbage the parser must overwrite */
        trl_rules_error err;
        memset(&err, 0, sizeof err);
        int rc = c->inline_text ? trl_rules_parse_inline(c->text, &rs, &err)
                                : trl_rules_parse(c->text, "test.rules", &rs, &err);
        char got[900];
        trl_rules_error_format(&err, got, sizeof got);
        CHECK(rc == TRL_ERR_PARSE, "case %zu: rc %d, want TRL_ERR_PARSE", i, rc);
        CHECK(rs.n == 0 && rs.rules == NULL && rs.source == NULL, "case %zu: ruleset not empty", i);
        if (strcmp(got, c->want) != 0)
            check_at(__LINE__, "case %zu:\n  got  %s\n  want %s", i, got, c->want);
        CHECK(strlen(err.message) < sizeof err.message - 1, "case %zu: message truncated", i);
        trl_rules_free(&rs);
    }
}

static void formats_positionless_errors(void)
{
    trl_rules_error err = {.source = "TRELLIS_RULES", .line = 0, .column = 0, .message = "m"};
    char buf[64];
    trl_rules_error_format(&err, buf, sizeof buf);
    CHECK_STR(buf, "TRELLIS_RULES: m");
    err.line = 7;
    err.column = 3;
    trl_rules_error_format(&err, buf, sizeof buf);
    CHECK_STR(buf, "TRELLIS_RULES:7:3: m");
}

/* ---- selection ----------------------------------------------------------- */

static trl_ruleset builtin;

static trl_coll_args call(trl_coll coll, int size, bool commutative)
{
    trl_coll_args a = {.coll = coll,
                       .rank = 0,
                       .size = size,
                       .root = 0,
                       .count = 1,
                       .elem_size = 1,
                       .commutative = commutative};
    return a;
}

static void selects_first_match(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce bytes=0-4K recursive_doubling\n"
                "allreduce bytes=4K- ring\n"
                "allreduce knomial\n"
                "bcast ranks=9- knomial radix=8\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 4, true);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 4096, &ch) == TRL_OK && ch.rule == &rs.rules[0],
          "4096 bytes should take rule 1 (ranges are inclusive)");
    CHECK(ch.algo == rs.rules[0].algo && ch.params == &rs.rules[0].params && !ch.rejected,
          "choice fields for rule 1");
    CHECK(trl_select(&rs, &builtin, &a, 4097, &ch) == TRL_OK && ch.rule == &rs.rules[1],
          "4097 bytes should take rule 2");
    a = call(TRL_COLL_BCAST, 9, true);
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[3],
          "bcast on 9 ranks should take rule 4");
    CHECK(ch.params->n == 1 && ch.params->v[0].value == 8, "bcast radix");
    trl_rules_free(&rs);
}

static void falls_back_to_builtin(void)
{
    trl_ruleset rs;
    CHECK(parse("bcast ranks=9- knomial\n", &rs) == TRL_OK, "parse failed");
    trl_coll_args a = call(TRL_COLL_BCAST, 8, true);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK, "select failed");
    CHECK(ch.rule && ch.rule >= builtin.rules && ch.rule < builtin.rules + builtin.n,
          "8 ranks should fall to a built-in rule");
    CHECK(ch.rule && strcmp(ch.rule->source, "built-in") == 0, "rule source");
    CHECK(!ch.rejected && !ch.why, "nothing was rejected");
    /* No user rules at all. */
    CHECK(trl_select(NULL, &builtin, &a, 1, &ch) == TRL_OK && ch.rule &&
              ch.rule->source == builtin.source,
          "NULL user ruleset");
    trl_rules_free(&rs);
}

static void passes_over_rules_needing_commutative(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce ring\n"
                "allreduce rabenseifner\n"
                "allreduce knomial\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 6, false);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 100, &ch) == TRL_OK, "select failed");
    CHECK(ch.rule == &rs.rules[2], "non-commutative should reach knomial (rule 3)");
    CHECK(ch.rejected == &rs.rules[0], "the first rule passed over should be remembered");
    CHECK_STR(ch.why, "it needs a commutative operation");
    a.commutative = true;
    CHECK(trl_select(&rs, &builtin, &a, 100, &ch) == TRL_OK && ch.rule == &rs.rules[0] &&
              !ch.rejected && !ch.why,
          "commutative should take ring");
    trl_rules_free(&rs);
}

typedef struct {
    const trl_rule *rule[8];
    char why[8][200];
    int n;
} passed_seen;

static void collect_passed(const trl_rule *r, const char *why, void *ctx)
{
    passed_seen *seen = ctx;
    if (seen->n < 8) {
        seen->rule[seen->n] = r;
        snprintf(seen->why[seen->n], sizeof seen->why[0], "%s", why);
    }
    seen->n++;
}

static void names_every_rule_passed_over(void)
{
    /* Two user rules and then a built-in one (allreduce bytes=32K-
     * rabenseifner) cannot serve a non-commutative 64 KiB allreduce; the
     * third user rule does not match it; the built-in catch-all serves. */
    trl_ruleset rs;
    CHECK(parse("allreduce ring\n"
                "allreduce ranks=5- rabenseifner\n"
                "allreduce bytes=-1K knomial\n"
                "allreduce reduce_bcast reduce=rabenseifner\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 6, false);
    trl_choice ch;
    passed_seen seen = {.n = 0};
    CHECK(trl_select(&rs, &builtin, &a, 64 * 1024, &ch) == TRL_OK, "select failed");
    trl_select_passed_over(&rs, &builtin, &a, 64 * 1024, collect_passed, &seen);
    CHECK(ch.rule && ch.rule->source == builtin.source, "a built-in rule should serve");
    CHECK(seen.n == 4, "%d rules passed over, want 4", seen.n);
    if (seen.n == 4) {
        CHECK(seen.rule[0] == &rs.rules[0] && seen.rule[1] == &rs.rules[1] &&
                  seen.rule[2] == &rs.rules[3],
              "the user's rules 1, 2 and 4, in order");
        CHECK(seen.rule[3]->source == builtin.source &&
                  seen.rule[3]->algo == algo(TRL_COLL_ALLREDUCE, "rabenseifner"),
              "then the built-in rabenseifner rule");
        for (int i = 0; i < 4; i++)
            CHECK_STR(seen.why[i], "it needs a commutative operation");
    }
    CHECK(ch.rejected == seen.rule[0], "trl_select remembers the first");
    /* Nothing passed over: no calls. */
    a.commutative = true;
    seen.n = 0;
    trl_select_passed_over(&rs, &builtin, &a, 64 * 1024, collect_passed, &seen);
    CHECK(seen.n == 0, "%d rules passed over for a commutative call", seen.n);
    trl_rules_free(&rs);
}

static void follows_algorithm_parameters_when_passing_over(void)
{
    /* reduce_bcast itself serves any operation, but not with a reduce that
     * needs a commutative one: selection must look at the rule's own
     * parameters. Its default reduce (binomial) serves anything. */
    trl_ruleset rs;
    CHECK(parse("allreduce ranks=1-4 reduce_bcast reduce=rabenseifner\n"
                "allreduce reduce_bcast\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 4, false);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[1],
          "reduce=rabenseifner should be passed over for a non-commutative operation");
    CHECK(ch.rejected == &rs.rules[0] && ch.why, "rejected rule");
    a.commutative = true;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[0],
          "commutative should take rule 1");
    trl_rules_free(&rs);
}

static void falls_back_to_builtin_past_a_rejected_rule(void)
{
    trl_ruleset rs;
    CHECK(parse("reduce rabenseifner\n", &rs) == TRL_OK, "parse failed");
    trl_coll_args a = call(TRL_COLL_REDUCE, 16, false);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 1 << 20, &ch) == TRL_OK, "select failed");
    CHECK(ch.rejected == &rs.rules[0], "the user's rule should be the one rejected");
    CHECK(ch.rule && ch.rule->source == builtin.source, "a built-in rule should serve");
    CHECK(ch.algo && !(ch.algo->needs & TRL_NEEDS_COMMUTATIVE),
          "chosen algorithm needs commutative");
    trl_rules_free(&rs);
}

static void filters_on_commutativity(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce commutative=no knomial radix=3\n"
                "allreduce commutative=yes ring\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 5, false);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[0] &&
              !ch.rejected,
          "non-commutative should take rule 1");
    a.commutative = true;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[1] &&
              !ch.rejected,
          "commutative should take rule 2, without rejecting rule 1");
    trl_rules_free(&rs);
}

/* nonblocking= tells MPI_Ixxx and MPI_Xxx_init calls from blocking ones;
 * a gatherv tree needing every rank's counts is passed over for them. */
static void filters_on_the_form_of_the_call(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce nonblocking=yes ring\n"
                "allreduce nonblocking=no knomial\n"
                "gatherv binomial\n"
                "gatherv linear\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 5, true);
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[1],
          "a blocking call should take rule 2");
    a.call = TRL_CALL_NONBLOCKING;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[0],
          "a non-blocking call should take rule 1");
    a.call = TRL_CALL_PERSISTENT;
    CHECK(trl_select(&rs, &builtin, &a, 1, &ch) == TRL_OK && ch.rule == &rs.rules[0],
          "a persistent call counts as non-blocking");
    trl_coll_args g = call(TRL_COLL_GATHERV, 5, true);
    CHECK(trl_select(&rs, &builtin, &g, 0, &ch) == TRL_OK && ch.rule == &rs.rules[2] &&
              !ch.rejected,
          "a blocking gatherv may exchange counts: rule 3");
    g.call = TRL_CALL_NONBLOCKING;
    CHECK(trl_select(&rs, &builtin, &g, 0, &ch) == TRL_OK && ch.rule == &rs.rules[3] &&
              ch.rejected == &rs.rules[2] && ch.why && strstr(ch.why, "counts"),
          "a non-blocking gatherv passes the tree over, saying why");
    trl_rules_free(&rs);
}

static void parses_layout_filters(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce hosts=2- ranks_per_host=-8 placement=block hier\n"
                "barrier hosts=* ranks_per_host=4 placement=other linear\n"
                "alltoallv hosts=1 linear\n"
                "gatherv ranks_per_host=3-5 binomial\n"
                "bcast binomial\n",
                &rs) == TRL_OK,
          "parse failed");
    CHECK(rs.n == 5, "n = %zu", rs.n);
    if (rs.n == 5) {
        const trl_rule *r = rs.rules;
        CHECK(r[0].hosts.lo == 2 && r[0].hosts.hi == TRL_RANGE_MAX, "hosts=2-");
        CHECK(r[0].ranks_per_host.lo == 0 && r[0].ranks_per_host.hi == 8, "ranks_per_host=-8");
        CHECK(r[0].placement == 1 && r[1].placement == 0, "placement");
        CHECK(r[1].hosts.lo == 0 && r[1].hosts.hi == TRL_RANGE_MAX, "hosts=*");
        CHECK(r[1].ranks_per_host.lo == 4 && r[1].ranks_per_host.hi == 4, "ranks_per_host=4");
        CHECK(r[2].hosts.lo == 1 && r[2].hosts.hi == 1 && r[2].placement == -1, "hosts=1");
        CHECK(r[3].ranks_per_host.lo == 3 && r[3].ranks_per_host.hi == 5, "ranks_per_host=3-5");
        CHECK(r[4].hosts.lo == 0 && r[4].hosts.hi == TRL_RANGE_MAX && r[4].ranks_per_host.lo == 0 &&
                  r[4].ranks_per_host.hi == TRL_RANGE_MAX && r[4].placement == -1,
              "no layout filter: any layout");
    }
    trl_rules_free(&rs);
}

/* A described layout, parsed as TRELLIS_TOPOLOGY would be. */
static bool layout(const char *text, trl_topo *t)
{
    trl_topo_error err;
    if (trl_topo_parse(text, "test", true, t, &err) == TRL_OK)
        return true;
    check_at(__LINE__, "layout '%s': %s", text, err.message);
    return false;
}

/* Which rule a call picks on each layout: the values every rank computes
 * from the same layout, once per communicator. */
static void selects_by_layout(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce hosts=1 recursive_doubling\n"
                "allreduce hosts=2- ranks_per_host=1 direct\n"
                "allreduce hosts=2-3 placement=block hier\n"
                "allreduce ranks_per_host=3- placement=other knomial\n"
                "allreduce ring\n",
                &rs) == TRL_OK,
          "parse failed");
    static const struct {
        const char *layout; /* NULL: unknown, one host */
        int ranks, rule;    /* the rule (0-based) it must pick */
    } cases[] = {
        {NULL, 6, 0},
        {"hosts=1 ranks_per_host=6", 6, 0},
        {"hosts=6 ranks_per_host=1", 6, 1},
        {"hosts=2 ranks_per_host=3", 6, 2},
        {"hosts=3 ranks_per_host=4,1,2", 7, 2}, /* irregular, block */
        {"hosts=4 ranks_per_host=2", 8, 4},     /* 4 hosts: no rule 3 */
        {"hosts=2 ranks_per_host=3 placement=round-robin", 6, 3},
        {"hosts=2 ranks_per_host=2 placement=round-robin", 4, 4}, /* 2 a host: not 3- */
        {"host=0,1,4 host=2,3", 5, 3},                            /* one host split in two runs */
        {"host=2,3 host=0,1,4", 5, 3},
        {"host=0-2 host=3,4", 5, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trl_topo t, *tp = NULL;
        if (cases[i].layout) {
            if (!layout(cases[i].layout, &t))
                continue;
            tp = &t;
        }
        trl_coll_args a = call(TRL_COLL_ALLREDUCE, cases[i].ranks, true);
        a.topo = tp;
        trl_choice ch;
        int rc = trl_select(&rs, &builtin, &a, 8, &ch);
        CHECK(rc == TRL_OK && ch.rule == &rs.rules[cases[i].rule],
              "layout '%s': picked rule %d, want %d", cases[i].layout ? cases[i].layout : "none",
              rc == TRL_OK && ch.rule ? (int)(ch.rule - rs.rules) : -1, cases[i].rule);
        if (tp)
            trl_topo_free(tp);
    }
    trl_rules_free(&rs);
}

/* The values on a communicator that is part of a layout: its own hosts,
 * counted and ordered by its own ranks. */
static void selects_by_a_communicators_own_layout(void)
{
    trl_topo world, sub;
    if (!layout("hosts=2 ranks_per_host=4", &world))
        return;
    trl_ruleset rs;
    CHECK(parse("bcast hosts=2 placement=block hier\n"
                "bcast hosts=2 placement=other scatter_allgather\n"
                "bcast hosts=1 ranks_per_host=3 chain\n"
                "bcast linear\n",
                &rs) == TRL_OK,
          "parse failed");
    static const struct {
        int n, ranks[8], rule;
    } cases[] = {
        {8, {7, 6, 5, 4, 3, 2, 1, 0}, 0}, /* reversed: still block */
        {4, {0, 4, 1, 5}, 1},             /* alternating */
        {3, {1, 2, 3}, 2},                /* within host 0 */
        {3, {6, 0, 7}, 1},                /* host 1's ranks split by host 0's */
        {1, {5}, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (trl_topo_subset(&world, cases[i].ranks, cases[i].n, &sub) != TRL_OK) {
            check_at(__LINE__, "subset %zu", i);
            continue;
        }
        trl_coll_args a = call(TRL_COLL_BCAST, cases[i].n, true);
        a.topo = &sub;
        trl_choice ch;
        CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK &&
                  ch.rule == &rs.rules[cases[i].rule],
              "case %zu: picked rule %d, want %d", i, ch.rule ? (int)(ch.rule - rs.rules) : -1,
              cases[i].rule);
        trl_topo_free(&sub);
    }
    trl_rules_free(&rs);
    trl_topo_free(&world);
}

/* Hierarchical forms that cannot serve a layout are passed over, with the
 * reason verbose mode and explain give. */
static void passes_over_hierarchies_a_layout_cannot_serve(void)
{
    trl_topo block, rr;
    if (!layout("hosts=2 ranks_per_host=3", &block) ||
        !layout("hosts=2 ranks_per_host=3 placement=round-robin", &rr))
        return;
    trl_ruleset rs;
    CHECK(parse("scan hier\nscan linear\n"
                "reduce hier\nreduce binomial\n"
                "reduce_scatter_block hier\nreduce_scatter_block reduce_scatterv\n"
                "allreduce hier world=ring\nallreduce hier_sharded\n"
                "allreduce recursive_doubling\n",
                &rs) == TRL_OK,
          "parse failed");
    static const struct {
        trl_coll coll;
        bool commutative, is_block;
        int rule;        /* the rule chosen */
        const char *why; /* why the one before was passed over, or NULL */
    } cases[] = {
        {TRL_COLL_SCAN, false, true, 0, NULL},
        {TRL_COLL_SCAN, true, false, 1,
         "it needs placement=block (every host holding consecutive ranks)"},
        {TRL_COLL_REDUCE, false, true, 2, NULL},
        {TRL_COLL_REDUCE, true, false, 2, NULL},
        {TRL_COLL_REDUCE, false, false, 3,
         "a non-commutative operation needs every group of every level to hold consecutive "
         "ranks (placement=block)"},
        {TRL_COLL_REDUCE_SCATTER_BLOCK, true, false, 5,
         "it needs placement=block (every host holding consecutive ranks)"},
        {TRL_COLL_ALLREDUCE, true, false, 6, NULL},
        {TRL_COLL_ALLREDUCE, false, true, 8, "a level's algorithm needs a commutative operation"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trl_coll_args a = call(cases[i].coll, 6, cases[i].commutative);
        a.topo = cases[i].is_block ? &block : &rr;
        trl_choice ch;
        CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK &&
                  ch.rule == &rs.rules[cases[i].rule],
              "case %zu: picked rule %d, want %d", i, ch.rule ? (int)(ch.rule - rs.rules) : -1,
              cases[i].rule);
        if (cases[i].why)
            CHECK(ch.why && !strcmp(ch.why, cases[i].why), "case %zu: passed over because %s", i,
                  ch.why ? ch.why : "(nothing)");
        else
            CHECK(!ch.rejected, "case %zu: passed over a rule because %s", i, ch.why);
    }
    trl_rules_free(&rs);
    trl_topo_free(&block);
    trl_topo_free(&rr);
}

static void fails_when_nothing_matches(void)
{
    trl_ruleset rs;
    CHECK(parse("bcast ranks=2 linear\n", &rs) == TRL_OK, "parse failed");
    trl_coll_args a = call(TRL_COLL_BCAST, 3, true);
    trl_choice ch;
    CHECK(trl_select(&rs, NULL, &a, 0, &ch) < 0 && !ch.rule && !ch.algo,
          "no matching rule should be an error");
    trl_rules_free(&rs);
}

/* An intercommunicator call of n0 + n1 ranks, seen from merged rank 0. */
static trl_inter two_groups(int n0, int n1)
{
    int ranks[64];
    for (int i = 0; i < n0 + n1; i++)
        ranks[i] = i;
    trl_inter in;
    if (trl_inter_init(&in, ranks, n0, ranks + n0, n1)) {
        printf("FATAL: trl_inter_init(%d, %d)\n", n0, n1);
        exit(2);
    }
    return in;
}

/* Whether a call gets Trellis at every size (the MPI_PROC_NULL ranks of a
 * rooted intercommunicator call, which do not know the size, decide by it):
 * rules that differ by size are found out, wherever the change falls. */
static void tells_whether_every_size_gets_trellis(void)
{
    static const struct {
        const char *rules;
        trl_sizeless want;
    } cases[] = {
        {"", TRL_SIZELESS_TRELLIS}, /* the built-in rules */
        {"bcast mpi\n", TRL_SIZELESS_LIBRARY},
        {"bcast inter=yes mpi\n", TRL_SIZELESS_LIBRARY},
        {"bcast bytes=0-64 inter_linear\nbcast mpi\n", TRL_SIZELESS_MIXED},
        {"bcast bytes=65- mpi\n", TRL_SIZELESS_MIXED},
        {"bcast bytes=1M-1M mpi\n", TRL_SIZELESS_MIXED}, /* one size only */
        {"bcast bytes=0-0 mpi\n", TRL_SIZELESS_MIXED},
        {"bcast bytes=0-64 mpi\nbcast bytes=65- mpi\n", TRL_SIZELESS_LIBRARY},
        {"bcast bytes=0-64 inter_leader\nbcast inter_linear\n", TRL_SIZELESS_TRELLIS},
        {"bcast remote_ranks=9- mpi\n", TRL_SIZELESS_TRELLIS}, /* not this shape */
        {"reduce mpi\n", TRL_SIZELESS_TRELLIS},                /* another collective */
    };
    trl_inter in = two_groups(2, 5);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trl_ruleset rs;
        if (parse(cases[i].rules, &rs) != TRL_OK) {
            check_at(__LINE__, "case %zu does not parse", i);
            continue;
        }
        trl_coll_args a = call(TRL_COLL_BCAST, 7, true);
        a.inter = &in;
        a.call = TRL_CALL_NONBLOCKING;
        trl_sizeless got = trl_select_sizeless(&rs, &builtin, &a);
        CHECK(got == cases[i].want, "case %zu (%s): %d, want %d", i, cases[i].rules, (int)got,
              (int)cases[i].want);
        trl_rules_free(&rs);
    }
    /* A reduce asks with either kind of operation (inter.c): the answer
     * follows commutative=. */
    trl_ruleset rs;
    if (parse("reduce commutative=no mpi\nreduce bytes=4K- mpi\n", &rs) == TRL_OK) {
        trl_coll_args a = call(TRL_COLL_REDUCE, 7, false);
        a.inter = &in;
        a.call = TRL_CALL_PERSISTENT;
        CHECK(trl_select_sizeless(&rs, &builtin, &a) == TRL_SIZELESS_LIBRARY,
              "reduce, non-commutative: every size to the library");
        a.commutative = true;
        CHECK(trl_select_sizeless(&rs, &builtin, &a) == TRL_SIZELESS_MIXED,
              "reduce, commutative: from 4K to the library");
        trl_rules_free(&rs);
    } else {
        check_at(__LINE__, "reduce rules do not parse");
    }
    trl_inter_free(&in);
}

static void selects_by_kind_of_communicator(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce ring\n"
                "allreduce ranks=5 remote_ranks=2 inter_linear\n"
                "allreduce remote_ranks=-3 mpi\n"
                "allreduce inter=yes ranks=9- inter_leader reduce=knomial\n"
                "allreduce inter=no recursive_doubling\n"
                "allreduce inter_leader\n",
                &rs) == TRL_OK,
          "parse failed");
    trl_choice ch;
    /* An intracommunicator call: rules for intercommunicators never match
     * it, not even passed over; remote_ranks= needs an intercommunicator. */
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 5, false);
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[4],
          "intra, non-commutative: rule 5 (ring passed over)");
    CHECK(ch.rejected == &rs.rules[0], "ring is the rule passed over");
    /* Intercommunicator calls: intracommunicator rules do not match; ranks=
     * is the larger group and remote_ranks= the smaller, whichever group
     * this rank is in. */
    trl_inter in = two_groups(2, 5);
    a.inter = &in;
    a.size = 7;
    for (int rank = 0; rank < 7; rank++) {
        a.rank = rank;
        CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[1] &&
                  !ch.rejected,
              "2+5 from rank %d: rule 2", rank);
    }
    trl_inter_free(&in);
    in = two_groups(3, 3);
    a.size = 6;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[2] &&
              !ch.algo->build,
          "3+3: remote_ranks=-3 mpi");
    trl_inter_free(&in);
    in = two_groups(9, 4);
    a.size = 13;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[3] &&
              ch.params->n == 1,
          "9+4: rule 4");
    trl_inter_free(&in);
    in = two_groups(4, 7);
    a.size = 11;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[5],
          "4+7: rule 6");
    trl_inter_free(&in);
    trl_rules_free(&rs);
}

/* A leader algorithm whose part cannot serve the call is passed over with
 * the part's reason. */
static void passes_over_inter_parts_needing_commutative(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce inter_leader reduce=rabenseifner\n", &rs) == TRL_OK, "parse failed");
    trl_inter in = two_groups(3, 4);
    trl_coll_args a = call(TRL_COLL_ALLREDUCE, 7, false);
    a.inter = &in;
    trl_choice ch;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rejected == &rs.rules[0] &&
              ch.rule && ch.rule->source == builtin.source,
          "non-commutative: the built-in rule after the one passed over");
    CHECK_STR(ch.why, "it needs a commutative operation");
    a.commutative = true;
    CHECK(trl_select(&rs, &builtin, &a, 8, &ch) == TRL_OK && ch.rule == &rs.rules[0],
          "commutative: the rule");
    trl_inter_free(&in);
    trl_rules_free(&rs);
}

/* A leader's part runs on each group's own layout; every rank judges it on
 * both groups, so a rank whose own group could run it still passes over a
 * rule the other group cannot (each would otherwise choose differently). */
static void judges_inter_parts_on_both_groups_layouts(void)
{
    trl_ruleset rs;
    CHECK(parse("allreduce inter_leader reduce=hier\n", &rs) == TRL_OK, "parse failed");
    trl_inter in = two_groups(3, 4);
    static const struct {
        const char *layout;
        bool usable;
    } cases[] = {
        /* group 1 (ranks 3-6) alternates between two hosts: no rank order */
        {"host=0-2 host=3,5 host=4,6", false},
        {"host=0-2 host=3,4 host=5,6", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trl_topo t;
        if (!layout(cases[i].layout, &t))
            continue;
        for (int rank = 0; rank < 7; rank += 6) { /* a rank of each group */
            trl_coll_args a = call(TRL_COLL_ALLREDUCE, 7, false);
            a.inter = &in;
            a.rank = rank;
            a.topo = &t;
            trl_choice ch;
            int rc = trl_select(&rs, &builtin, &a, 8, &ch);
            CHECK(rc == TRL_OK && (ch.rule == &rs.rules[0]) == cases[i].usable,
                  "layout '%s', rank %d: the rule %s", cases[i].layout, rank,
                  cases[i].usable ? "must serve" : "must be passed over");
        }
        trl_topo_free(&t);
    }
    trl_inter_free(&in);
    trl_rules_free(&rs);
}

/* ---- the built-in rules -------------------------------------------------- */

static void builtin_rules_parse(void)
{
    trl_rules_error err;
    trl_ruleset rs;
    int rc = trl_rules_parse(trl_builtin_rules_text, "built-in", &rs, &err);
    char msg[900] = "";
    if (rc)
        trl_rules_error_format(&err, msg, sizeof msg);
    CHECK(rc == TRL_OK, "built-in rules: %s", msg);
    CHECK(rs.n > 0 && strcmp(rs.source, "built-in") == 0, "built-in ruleset");
    size_t hand = rs.n;
    trl_rules_free(&rs);
    /* With the tuned rules (src/select/tuned.rules) in front, under their own
     * name, the hand rules' line numbers as they were. */
    rc = trl_builtin_rules_load(&rs, &err);
    if (rc)
        trl_rules_error_format(&err, msg, sizeof msg);
    CHECK(rc == TRL_OK, "built-in and tuned rules: %s", msg);
    CHECK(rs.n >= hand && strcmp(rs.rules[rs.n - 1].source, "built-in") == 0,
          "the hand rules come last");
    for (size_t i = 0; rc == TRL_OK && i < rs.n - hand; i++)
        CHECK(strcmp(rs.rules[i].source, "tuned") == 0, "tuned rule %zu", i);
    trl_rules_free(&rs);
}

/* Each collective ends with a rule that matches any call and whose
 * algorithm serves any call. */
static void builtin_rules_end_with_catch_alls(void)
{
    for (int c = 0; c < TRL_COLL_COUNT; c++) {
        const trl_rule *last = NULL;
        for (size_t i = 0; i < builtin.n; i++)
            if (builtin.rules[i].coll == (trl_coll)c &&
                !(builtin.rules[i].algo->needs & TRL_NEEDS_INTER))
                last = &builtin.rules[i];
        CHECK(last, "no built-in rule for %s", trl_coll_name((trl_coll)c));
        if (!last)
            continue;
        CHECK(last->ranks.lo == 0 && last->ranks.hi == TRL_RANGE_MAX && last->bytes.lo == 0 &&
                  last->bytes.hi == TRL_RANGE_MAX && last->commutative < 0 && last->hosts.lo == 0 &&
                  last->hosts.hi == TRL_RANGE_MAX && last->ranks_per_host.lo == 0 &&
                  last->ranks_per_host.hi == TRL_RANGE_MAX && last->placement < 0,
              "last %s rule is not a catch-all: %s", trl_coll_name((trl_coll)c), last->text);
        trl_coll_args a = call((trl_coll)c, 7, false);
        a.params = &last->params;
        a.algo = last->algo;
        CHECK(!trl_algo_unusable(last->algo, &a), "last %s rule cannot serve every call",
              trl_coll_name((trl_coll)c));
    }
}

static void builtin_rules_cover_every_call(void)
{
    static const unsigned long long extra[] = {
        0, 1, 3, 1000, 4095, 4097, 16383, 16385, 524287, 524289, (1ULL << 30) - 1};
    int bad = 0;
    for (int c = 0; c < TRL_COLL_COUNT; c++)
        for (int size = 1; size <= 1024; size++)
            for (int k = -1; k <= 30 + (int)(sizeof extra / sizeof extra[0]); k++) {
                unsigned long long bytes = k < 0 ? 0 : k <= 30 ? 1ULL << k : extra[k - 31];
                if (c == TRL_COLL_BARRIER && bytes)
                    continue;
                for (int comm = 0; comm <= 1; comm++) {
                    trl_coll_args a = call((trl_coll)c, size, comm);
                    trl_choice ch;
                    int rc = trl_select(NULL, &builtin, &a, bytes, &ch);
                    bool ok = rc == TRL_OK && ch.algo && ch.rule && ch.algo->coll == (trl_coll)c &&
                              (comm || !(ch.algo->needs & TRL_NEEDS_COMMUTATIVE));
                    if (!ok && bad++ < 5)
                        check_at(__LINE__, "%s size %d bytes %llu commutative %d: no valid choice",
                                 trl_coll_name((trl_coll)c), size, bytes, comm);
                }
            }
}

/* Every intercommunicator call of every collective MPI defines there, over
 * group sizes 1..12 either way, finds an algorithm for intercommunicators
 * (or the MPI library's own) that can serve it. */
static void builtin_rules_cover_every_inter_call(void)
{
    static const unsigned long long sizes[] = {0, 1, 4, 1000, 4096, 65536, 1ULL << 20, 1ULL << 30};
    int bad = 0;
    for (int c = 0; c < TRL_COLL_COUNT; c++) {
        if (c == TRL_COLL_SCAN || c == TRL_COLL_EXSCAN || trl_coll_is_neighbor((trl_coll)c))
            continue;
        for (int n0 = 1; n0 <= 12; n0++)
            for (int n1 = 1; n1 <= 12; n1++) {
                trl_inter in = two_groups(n0, n1);
                for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
                    for (int comm = 0; comm <= 1; comm++) {
                        if (c == TRL_COLL_BARRIER && k > 0)
                            continue;
                        trl_coll_args a = call((trl_coll)c, n0 + n1, comm);
                        a.inter = &in;
                        trl_choice ch;
                        int rc = trl_select(NULL, &builtin, &a, sizes[k], &ch);
                        a.params = ch.params;
                        bool ok = rc == TRL_OK && ch.algo && ch.algo->coll == (trl_coll)c &&
                                  (!ch.algo->build || (ch.algo->needs & TRL_NEEDS_INTER)) &&
                                  !trl_algo_unusable(ch.algo, &a);
                        if (!ok && bad++ < 5)
                            check_at(__LINE__,
                                     "%s %d+%d bytes %llu commutative %d: no valid choice",
                                     trl_coll_name((trl_coll)c), n0, n1, sizes[k], comm);
                    }
                trl_inter_free(&in);
            }
    }
}

/* ---- TRELLIS_RULES --------------------------------------------------------- */

static char tmpdir[] = "/tmp/trl_rules_test_XXXXXX";

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("FATAL: cannot write %s\n", path);
        exit(2);
    }
}

/* Load with TRELLIS_RULES set to value (NULL: unset). */
static int load(const char *value, trl_ruleset *rs, char **text, char *msg, size_t len)
{
    if (value)
        setenv("TRELLIS_RULES", value, 1);
    else
        unsetenv("TRELLIS_RULES");
    trl_rules_error err;
    int rc = trl_rules_load_env(rs, text, &err);
    msg[0] = '\0';
    if (rc)
        trl_rules_error_format(&err, msg, len);
    return rc;
}

static void env_unset_or_empty(void)
{
    const char *values[] = {NULL, ""};
    for (int i = 0; i < 2; i++) {
        trl_ruleset rs;
        char *text = (char *)1, msg[900];
        CHECK(load(values[i], &rs, &text, msg, sizeof msg) == TRL_OK, "value %d: %s", i, msg);
        CHECK(rs.n == 0 && text == NULL, "value %d: want no rules and no text", i);
        trl_rules_free(&rs);
    }
}

static void env_reads_a_file(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/my.rules", tmpdir);
    const char *content = "# mine\nallreduce bytes=-1K knomial radix=2\nbcast chain\n";
    write_file(path, content);
    trl_ruleset rs;
    char *text = NULL, msg[900];
    CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_OK, "%s", msg);
    CHECK(rs.n == 2, "n = %zu", rs.n);
    CHECK_STR(rs.source, path);
    CHECK_STR(text, content);
    CHECK(rs.n == 2 && rs.rules[1].line == 3, "line numbers");
    trl_rules_free(&rs);
    free(text);

    /* Blanks around a file name are not part of it. */
    char padded[700];
    snprintf(padded, sizeof padded, "  %s\n", path);
    CHECK(load(padded, &rs, &text, msg, sizeof msg) == TRL_OK && rs.n == 2, "padded name: %s", msg);
    CHECK_STR(rs.source, path);
    trl_rules_free(&rs);
    free(text);
}

static void env_reads_a_file_with_blanks_in_its_name(void)
{
    char path[600];
    snprintf(path, sizeof path, "%s/with space.rules", tmpdir);
    write_file(path, "barrier dissemination\n");
    trl_ruleset rs;
    char *text = NULL, msg[900];
    CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_OK, "%s", msg);
    CHECK(rs.n == 1 && rs.rules[0].algo == algo(TRL_COLL_BARRIER, "dissemination"), "rule");
    CHECK_STR(rs.source, path);
    trl_rules_free(&rs);
    free(text);
}

static void env_reports_errors_in_a_file(void)
{
    char path[600], want[800];
    snprintf(path, sizeof path, "%s/bad.rules", tmpdir);
    const char *content = "bcast binomial\n\nreduce chain segment=0\n";
    write_file(path, content);
    trl_ruleset rs;
    char *text = NULL, msg[900];
    CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_ERR_PARSE, "want a parse error");
    snprintf(want, sizeof want, "%s:3:14: segment=0: value out of range (at least 1)", path);
    CHECK_STR(msg, want);
    CHECK_STR(text, content); /* kept, so ranks can still compare what they read */
    CHECK(rs.n == 0, "ruleset not empty");
    free(text);
}

static void env_inline(void)
{
    const char *value = "allreduce ring ; bcast ranks=2- binomial";
    trl_ruleset rs;
    char *text = NULL, msg[900];
    CHECK(load(value, &rs, &text, msg, sizeof msg) == TRL_OK, "%s", msg);
    CHECK(rs.n == 2, "n = %zu", rs.n);
    CHECK_STR(rs.source, "TRELLIS_RULES");
    CHECK_STR(text, value);
    CHECK(rs.n == 2 && rs.rules[1].line == 2, "second rule is line 2");
    trl_rules_free(&rs);
    free(text);

    /* Blanks only: inline text with no rules. */
    CHECK(load(" \t ", &rs, &text, msg, sizeof msg) == TRL_OK && rs.n == 0 && text, "blanks: %s",
          msg);
    trl_rules_free(&rs);
    free(text);

    CHECK(load("bcast binomial;reduce binomial;allreduce ring radix=2", &rs, &text, msg,
               sizeof msg) == TRL_ERR_PARSE,
          "want a parse error");
    CHECK_STR(
        msg,
        "TRELLIS_RULES:3:16: parameter 'radix' is not known to allreduce ring (it takes: segment)");
    free(text);
}

static void env_unreadable_paths(void)
{
    char path[600], want[2000];
    trl_ruleset rs;
    char *text = (char *)1, msg[900];

    snprintf(path, sizeof path, "%s/missing.rules", tmpdir);
    CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_ERR_IO, "missing file: want TRL_ERR_IO");
    snprintf(want, sizeof want, "TRELLIS_RULES: cannot read rules file '%s': %s", path,
             strerror(ENOENT));
    CHECK_STR(msg, want);
    CHECK(text == NULL && rs.n == 0 && rs.source == NULL, "missing file: no text, no rules");

    CHECK(load(tmpdir, &rs, &text, msg, sizeof msg) == TRL_ERR_IO, "directory: want TRL_ERR_IO");
    snprintf(want, sizeof want, "TRELLIS_RULES: cannot read rules file '%s': %s", tmpdir,
             strerror(EISDIR));
    CHECK_STR(msg, want);

    /* A file name with a blank that names nothing is read as rules: the
     * error says that no such file exists either (issue 35). */
    snprintf(path, sizeof path, "%s/my rules.txt", tmpdir);
    CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_ERR_PARSE, "missing spaced file");
    snprintf(want, sizeof want,
             "TRELLIS_RULES:1:1: unknown collective '%.*s' (expected one of: " ALL_COLLS
             "); and as a file name, '%s': %s",
             (int)strcspn(path, " "), path, path, strerror(ENOENT));
    CHECK_STR(msg, want);
    free(text);
    /* Rules with a mistake further on are rules: no word of files. */
    CHECK(load("allreduce ringg", &rs, &text, msg, sizeof msg) == TRL_ERR_PARSE, "a bad rule");
    CHECK(!strstr(msg, "file name"), "a bad rule: %s", msg);
    free(text);

    /* A single word is always a file name, never inline rules. */
    CHECK(load("barrier", &rs, &text, msg, sizeof msg) == TRL_ERR_IO,
          "single word: want TRL_ERR_IO");
    snprintf(want, sizeof want, "TRELLIS_RULES: cannot read rules file 'barrier': %s",
             strerror(ENOENT));
    CHECK_STR(msg, want);
}

static void write_bytes(const char *path, const char *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0) {
        printf("FATAL: cannot write %s\n", path);
        exit(2);
    }
}

static void env_refuses_a_nul_byte(void)
{
    /* Before the fix the text ended at the NUL: the junk after it was never
     * checked, and two files differing only there hashed alike. */
    static const char one[] = "allreduce ring\n\0bcast ringgg nonsense\n";
    static const char two[] = "allreduce ring\n\0bcast other junk\n";
    static const char mid[] = "allreduce ring\nbcast binomial # x\0y\n";
    const struct {
        const char *name, *bytes;
        size_t len;
        const char *where;
    } files[] = {{"nul1.rules", one, sizeof one - 1, "2:1"},
                 {"nul2.rules", two, sizeof two - 1, "2:1"},
                 {"nul3.rules", mid, sizeof mid - 1, "2:19"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[600], want[800], msg[900];
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i].name);
        write_bytes(path, files[i].bytes, files[i].len);
        trl_ruleset rs;
        char *text = NULL;
        CHECK(load(path, &rs, &text, msg, sizeof msg) == TRL_ERR_PARSE, "%s: want a parse error",
              files[i].name);
        snprintf(want, sizeof want, "%s:%s: not a text file (it holds a NUL byte)", path,
                 files[i].where);
        CHECK_STR(msg, want);
        CHECK(rs.n == 0, "%s: rules kept", files[i].name);
        free(text);
    }
}

static void could_be_path_cuts_at_the_system_limits(void)
{
    char name[5000];
    memset(name, 'a', sizeof name);
    name[255] = '\0';
    CHECK(trl_could_be_path(name), "a 255-byte name");
    name[255] = 'a';
    name[256] = '\0';
    CHECK(!trl_could_be_path(name), "a 256-byte name");
    memset(name, 'a', sizeof name);
    for (int i = 200; i < 4095; i += 201)
        name[i] = '/';
    name[4095] = '\0';
    CHECK(trl_could_be_path(name), "4095 bytes in short parts");
    name[4095] = 'a';
    name[4096] = '\0';
    CHECK(!trl_could_be_path(name), "4096 bytes");
    CHECK(!trl_could_be_path("a/b\nc"), "a newline");
    CHECK(trl_could_be_path("/x/with space.rules"), "blanks");
}

static void env_text_that_cannot_be_a_path_is_not_looked_up(void)
{
    char cwd[4096];
    CHECK(getcwd(cwd, sizeof cwd) && chdir(tmpdir) == 0, "chdir");
    /* A file named exactly like the rules text: a name with a newline
     * cannot be a path the user meant, so the text is rules, not the file. */
    write_file("bcast binomial\nreduce binomial", "barrier linear\n");
    trl_ruleset rs;
    char *text = NULL, msg[900];
    CHECK(load("bcast binomial\nreduce binomial", &rs, &text, msg, sizeof msg) == TRL_OK, "%s",
          msg);
    CHECK(rs.n == 2 && rs.rules[0].coll == TRL_COLL_BCAST, "read as rules inline, not the file");
    CHECK_STR(rs.source, "TRELLIS_RULES");
    trl_rules_free(&rs);
    free(text);
    unlink("bcast binomial\nreduce binomial");
    CHECK(chdir(cwd) == 0, "chdir back");

    /* Longer than a file name may be: rules inline. */
    char value[1200];
    int n = snprintf(value, sizeof value, "allreduce ranks=1- ring");
    while (n < 1100)
        n += snprintf(value + n, sizeof value - (size_t)n, "; bcast knomial radix=4");
    CHECK(load(value, &rs, &text, msg, sizeof msg) == TRL_OK, "%s", msg);
    CHECK(rs.n > 40, "long inline rules: %zu rules", rs.n);
    trl_rules_free(&rs);
    free(text);
}

static void remove_tmpdir(void)
{
    const char *names[] = {"my.rules",   "with space.rules", "bad.rules",
                           "nul1.rules", "nul2.rules",       "nul3.rules"};
    char path[700];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
    rmdir(tmpdir);
}

int main(void)
{
    trl_rules_error err;
    if (trl_builtin_rules_load(&builtin, &err)) {
        printf("FAIL the built-in rules do not parse: %s:%d:%d: %s\n", err.source, err.line,
               err.column, err.message);
        printf("0 passed, 1 failed\n");
        return 1;
    }
    if (!mkdtemp(tmpdir)) {
        printf("FATAL: mkdtemp: %s\n", strerror(errno));
        return 2;
    }

    RUN(parses_the_example_file);
    RUN(parses_every_range_form_and_size);
    RUN(parses_blanks_tabs_crlf_and_semicolons);
    RUN(parses_empty_texts);
    RUN(parses_inline_parts);
    RUN(parses_algorithm_parameters);
    RUN(reports_every_error_with_its_position);
    RUN(formats_positionless_errors);
    RUN(selects_first_match);
    RUN(falls_back_to_builtin);
    RUN(passes_over_rules_needing_commutative);
    RUN(names_every_rule_passed_over);
    RUN(follows_algorithm_parameters_when_passing_over);
    RUN(falls_back_to_builtin_past_a_rejected_rule);
    RUN(filters_on_commutativity);
    RUN(filters_on_the_form_of_the_call);
    RUN(parses_layout_filters);
    RUN(selects_by_layout);
    RUN(selects_by_a_communicators_own_layout);
    RUN(passes_over_hierarchies_a_layout_cannot_serve);
    RUN(fails_when_nothing_matches);
    RUN(selects_by_kind_of_communicator);
    RUN(tells_whether_every_size_gets_trellis);
    RUN(passes_over_inter_parts_needing_commutative);
    RUN(judges_inter_parts_on_both_groups_layouts);
    RUN(builtin_rules_parse);
    RUN(builtin_rules_end_with_catch_alls);
    RUN(builtin_rules_cover_every_call);
    RUN(builtin_rules_cover_every_inter_call);
    RUN(env_unset_or_empty);
    RUN(env_reads_a_file);
    RUN(env_reads_a_file_with_blanks_in_its_name);
    RUN(env_reports_errors_in_a_file);
    RUN(env_inline);
    RUN(env_unreadable_paths);
    RUN(env_refuses_a_nul_byte);
    RUN(could_be_path_cuts_at_the_system_limits);
    RUN(env_text_that_cannot_be_a_path_is_not_looked_up);

    remove_tmpdir();
    trl_rules_free(&builtin);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
