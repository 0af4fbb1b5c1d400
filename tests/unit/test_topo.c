/* Described layouts (docs/topology.md): every form read back into hosts,
 * sockets and NUMA domains written out here by hand, every error message
 * with its position, a communicator's subset with reordered ranks, the
 * printed line, and TRELLIS_TOPOLOGY as text or file. No MPI.
 *
 * Prints "N passed, M failed" last and exits non-zero on any failure. The
 * only messages not exercised are "out of memory". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/status.h"
#include "topo/topo.h"

#include "unit_harness.h"

/* "0 0 1 1": a per-rank array as text. */
static void ids(const int *v, int n, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%d", i ? " " : "", v[i]);
}

static bool all_unknown(const int *v, int n)
{
    for (int i = 0; i < n; i++)
        if (v[i] != -1)
            return false;
    return true;
}

/* Parse inline text; compare hosts, sockets and NUMA domains (NULL: all
 * unknown) and the printed line. */
static void expect_layout(const char *text, int nhosts, const char *hosts, const char *sockets,
                          const char *numa, const char *printed)
{
    trl_topo t;
    trl_topo_error err;
    char got[1024];
    int rc = trl_topo_parse(text, "TRELLIS_TOPOLOGY", true, &t, &err);
    trl_topo_error_format(&err, got, sizeof got);
    CHECK(rc == TRL_OK, "'%s': %s", text, got);
    if (rc)
        return;
    CHECK(t.nhosts == nhosts, "'%s': %d hosts, want %d", text, t.nhosts, nhosts);
    ids(t.host, t.size, got, sizeof got);
    CHECK(!strcmp(got, hosts), "'%s' hosts:\n  got  %s\n  want %s", text, got, hosts);
    ids(t.socket, t.size, got, sizeof got);
    if (sockets)
        CHECK(!strcmp(got, sockets), "'%s' sockets:\n  got  %s\n  want %s", text, got, sockets);
    else
        CHECK(all_unknown(t.socket, t.size), "'%s' sockets: got %s, want unknown", text, got);
    ids(t.numa, t.size, got, sizeof got);
    if (numa)
        CHECK(!strcmp(got, numa), "'%s' numa:\n  got  %s\n  want %s", text, got, numa);
    else
        CHECK(all_unknown(t.numa, t.size), "'%s' numa: got %s, want unknown", text, got);
    CHECK(t.described && t.world_order, "'%s': described, in world order", text);
    trl_topo_format(&t, got, sizeof got);
    CHECK(!strcmp(got, printed), "'%s' printed:\n  got  %s\n  want %s", text, got, printed);
    trl_topo_free(&t);
}

/* ---- the forms ------------------------------------------------------------- */

static void reads_block_layouts(void)
{
    expect_layout("hosts=2 ranks_per_host=4", 2, "0 0 0 0 1 1 1 1", NULL, NULL,
                  "layout: 8 ranks on 2 hosts (described): host 0: 0-3 | host 1: 4-7");
    expect_layout("hosts=4 ranks_per_host=4 placement=block", 4, "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3",
                  NULL, NULL,
                  "layout: 16 ranks on 4 hosts (described): host 0: 0-3 | host 1: 4-7 | "
                  "host 2: 8-11 | host 3: 12-15");
    expect_layout("hosts=3 ranks_per_host=4,3,2", 3, "0 0 0 0 1 1 1 2 2", NULL, NULL,
                  "layout: 9 ranks on 3 hosts (described): host 0: 0-3 | host 1: 4-6 | "
                  "host 2: 7-8");
    expect_layout("hosts=3 ranks_per_host=1", 3, "0 1 2", NULL, NULL,
                  "layout: 3 ranks on 3 hosts (described): host 0: 0 | host 1: 1 | host 2: 2");
    expect_layout("hosts=1 ranks_per_host=8", 1, "0 0 0 0 0 0 0 0", NULL, NULL,
                  "layout: 8 ranks on 1 host (described): host 0: 0-7");
    expect_layout("hosts=1 ranks_per_host=1", 1, "0", NULL, NULL,
                  "layout: 1 rank on 1 host (described): host 0: 0");
    /* Keys in any order, blanks of any kind, comments, CRLF lines. */
    expect_layout("# a 2x4 cluster\r\n\tranks_per_host=4   # each\r\nhosts=2#two\r\n", 2,
                  "0 0 0 0 1 1 1 1", NULL, NULL,
                  "layout: 8 ranks on 2 hosts (described): host 0: 0-3 | host 1: 4-7");
}

static void reads_round_robin_layouts(void)
{
    expect_layout("hosts=4 ranks_per_host=4 placement=round-robin", 4,
                  "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3", NULL, NULL,
                  "layout: 16 ranks on 4 hosts (described): host 0: 0,4,8,12 | "
                  "host 1: 1,5,9,13 | host 2: 2,6,10,14 | host 3: 3,7,11,15");
    expect_layout("hosts=2 ranks_per_host=4 placement=round-robin", 2, "0 1 0 1 0 1 0 1", NULL,
                  NULL,
                  "layout: 8 ranks on 2 hosts (described): host 0: 0,2,4,6 | host 1: 1,3,5,7");
    /* Full hosts are skipped: host 0 holds one rank, host 2 two. */
    expect_layout("hosts=3 ranks_per_host=1,3,2 placement=round-robin", 3, "0 1 2 1 2 1", NULL,
                  NULL,
                  "layout: 6 ranks on 3 hosts (described): host 0: 0 | host 1: 1,3,5 | "
                  "host 2: 2,4");
    expect_layout("hosts=3 ranks_per_host=4,3,2 placement=round-robin", 3, "0 1 2 0 1 2 0 1 0",
                  NULL, NULL,
                  "layout: 9 ranks on 3 hosts (described): host 0: 0,3,6,8 | "
                  "host 1: 1,4,7 | host 2: 2,5");
}

static void reads_sockets_and_numa_by_counts(void)
{
    expect_layout("hosts=2 ranks_per_host=8 sockets_per_host=2", 2,
                  "0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1", "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3", NULL,
                  "layout: 16 ranks on 2 hosts (described): host 0: [0-3] [4-7] | "
                  "host 1: [8-11] [12-15]");
    expect_layout("hosts=1 ranks_per_host=8 sockets_per_host=2 numa_per_socket=2", 1,
                  "0 0 0 0 0 0 0 0", "0 0 0 0 1 1 1 1", "0 0 1 1 2 2 3 3",
                  "layout: 8 ranks on 1 host (described): host 0: [0-3] [4-7]");
    /* Uneven splits: the first runs are one larger; a host with fewer ranks
     * than sockets has only as many sockets as ranks. */
    expect_layout("hosts=3 ranks_per_host=5,2,1 sockets_per_host=2", 3, "0 0 0 0 0 1 1 2",
                  "0 0 0 1 1 2 3 4", NULL,
                  "layout: 8 ranks on 3 hosts (described): host 0: [0-2] [3-4] | host 1: [5] [6] | "
                  "host 2: [7]");
    expect_layout("hosts=1 ranks_per_host=7 sockets_per_host=2 numa_per_socket=3", 1,
                  "0 0 0 0 0 0 0", "0 0 0 0 1 1 1", "0 0 1 2 3 4 5",
                  "layout: 7 ranks on 1 host (described): host 0: [0-3] [4-6]");
    /* Round-robin: each host's ranks, in rank order, are split. */
    expect_layout("hosts=2 ranks_per_host=4 placement=round-robin sockets_per_host=2", 2,
                  "0 1 0 1 0 1 0 1", "0 2 0 2 1 3 1 3", NULL,
                  "layout: 8 ranks on 2 hosts (described): host 0: [0,2] [4,6] | "
                  "host 1: [1,3] [5,7]");
    expect_layout("hosts=2 ranks_per_host=4 sockets_per_host=1 numa_per_socket=2", 2,
                  "0 0 0 0 1 1 1 1", "0 0 0 0 1 1 1 1", "0 0 1 1 2 2 3 3",
                  "layout: 8 ranks on 2 hosts (described): host 0: [0-3] | host 1: [4-7]");
}

static void reads_explicit_lists(void)
{
    expect_layout("host=0-3 host=4-6 host=7,8", 3, "0 0 0 0 1 1 1 2 2", NULL, NULL,
                  "layout: 9 ranks on 3 hosts (described): host 0: 0-3 | host 1: 4-6 | "
                  "host 2: 7-8");
    expect_layout("host=0-3 host=4-6 host=7,8\nsocket=0,1 socket=2,3 socket=4-6 socket=7,8", 3,
                  "0 0 0 0 1 1 1 2 2", "0 0 1 1 2 2 2 3 3", NULL,
                  "layout: 9 ranks on 3 hosts (described): host 0: [0-1] [2-3] | host 1: [4-6] | "
                  "host 2: [7-8]");
    /* Hosts in the order written, ranks in any order; the odd ranks first. */
    expect_layout("host=1,3,5 host=4,0,2", 2, "1 0 1 0 1 0", NULL, NULL,
                  "layout: 6 ranks on 2 hosts (described): host 0: 1,3,5 | host 1: 0,2,4");
    /* Sockets numbered as written, printed in the order of their first rank. */
    expect_layout("host=0-5 socket=3-5 socket=0-2 numa=0 numa=1-2 numa=3-5", 1, "0 0 0 0 0 0",
                  "1 1 1 0 0 0", "0 1 1 2 2 2",
                  "layout: 6 ranks on 1 host (described): host 0: [0-2] [3-5]");
    /* NUMA lists with no sockets: each within a host. */
    expect_layout("host=0-3 host=4-7 numa=0,1 numa=2,3 numa=4-7", 2, "0 0 0 0 1 1 1 1", NULL,
                  "0 0 1 1 2 2 2 2",
                  "layout: 8 ranks on 2 hosts (described): host 0: 0-3 | host 1: 4-7");
    /* Counts and lists of different levels mix. */
    expect_layout("host=0-2 host=3-5 sockets_per_host=3", 2, "0 0 0 1 1 1", "0 1 2 3 4 5", NULL,
                  "layout: 6 ranks on 2 hosts (described): host 0: [0] [1] [2] | "
                  "host 1: [3] [4] [5]");
    expect_layout("hosts=2 ranks_per_host=4 socket=0-1 socket=2-3 socket=4-7 numa_per_socket=2", 2,
                  "0 0 0 0 1 1 1 1", "0 0 1 1 2 2 2 2", "0 1 2 3 4 4 5 5",
                  "layout: 8 ranks on 2 hosts (described): host 0: [0-1] [2-3] | host 1: [4-7]");
    expect_layout("hosts=1 ranks_per_host=4 sockets_per_host=2 numa=0-1 numa=2 numa=3", 1,
                  "0 0 0 0", "0 0 1 1", "0 0 1 2",
                  "layout: 4 ranks on 1 host (described): host 0: [0-1] [2-3]");
}

/* ---- errors -------------------------------------------------------------------- */

typedef struct {
    const char *text, *want;
} bad_case;

#define KEYS                                                                                       \
    "(expected hosts, ranks_per_host, placement, sockets_per_host, numa_per_socket, host, "        \
    "socket or numa)"

static const bad_case bad_inline[] = {
    /* words */
    {"hosts=2 ranks_per_host", "TRELLIS_TOPOLOGY:1:9: expected key=value, got 'ranks_per_host'"},
    {"hosts=2 =4", "TRELLIS_TOPOLOGY:1:9: expected key=value, got '=4'"},
    {"hosts=2 ranks_per_hots=1", "TRELLIS_TOPOLOGY:1:9: unknown key 'ranks_per_hots' " KEYS},
    {"hosts=2\n  Hosts=2", "TRELLIS_TOPOLOGY:2:3: unknown key 'Hosts' " KEYS},
    {"hosts= ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: missing value after 'hosts='"},
    {"host=", "TRELLIS_TOPOLOGY:1:1: missing value after 'host='"},
    {"hosts=2 hosts=3", "TRELLIS_TOPOLOGY:1:9: hosts given twice (first at column 1)"},
    {"hosts=2 ranks_per_host=1 placement=block placement=block",
     "TRELLIS_TOPOLOGY:1:42: placement given twice (first at column 26)"},
    /* numbers and lists */
    {"hosts=x ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: hosts: expected a number, got 'x'"},
    {"hosts=-1 ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: hosts: expected a number, got '-1'"},
    {"hosts=0 ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: hosts: 0 is out of range (1..1048576)"},
    {"hosts=99999999999999999999 ranks_per_host=1",
     "TRELLIS_TOPOLOGY:1:1: hosts: 99999999999999999999 is out of range (1..1048576)"},
    {"hosts=2 ranks_per_host=4,0",
     "TRELLIS_TOPOLOGY:1:9: ranks_per_host: 0 is out of range (1..1048576)"},
    {"hosts=2 ranks_per_host=4,",
     "TRELLIS_TOPOLOGY:1:9: ranks_per_host: expected a number, got ''"},
    {"hosts=3 ranks_per_host=2-4",
     "TRELLIS_TOPOLOGY:1:9: ranks_per_host: expected a number, got '2-4'"},
    {"hosts=1 ranks_per_host=2\nsockets_per_host=9999999",
     "TRELLIS_TOPOLOGY:2:1: sockets_per_host: 9999999 is out of range (1..1048576)"},
    {"hosts=1 ranks_per_host=2 sockets_per_host=1 numa_per_socket=0",
     "TRELLIS_TOPOLOGY:1:45: numa_per_socket: 0 is out of range (1..1048576)"},
    {"hosts=2 ranks_per_host=2 placement=cyclic",
     "TRELLIS_TOPOLOGY:1:26: placement: expected block or round-robin, got 'cyclic'"},
    {"host=3-1", "TRELLIS_TOPOLOGY:1:1: host: the range 3-1 goes backwards"},
    {"host=0,,1", "TRELLIS_TOPOLOGY:1:1: host: expected a number, got ''"},
    {"host=0-", "TRELLIS_TOPOLOGY:1:1: host: expected a number, got ''"},
    {"host=1-2-3", "TRELLIS_TOPOLOGY:1:1: host: expected a number, got '2-3'"},
    {"host=0-1048576", "TRELLIS_TOPOLOGY:1:1: host: 1048576 is out of range (0..1048575)"},
    {"host=0-3 socket=0-1 socket=a", "TRELLIS_TOPOLOGY:1:21: socket: expected a number, got 'a'"},
    /* hosts by counts */
    {"hosts=2", "TRELLIS_TOPOLOGY:1:1: hosts= needs ranks_per_host= (one count, or one per host)"},
    {"sockets_per_host=2 ranks_per_host=4", "TRELLIS_TOPOLOGY:1:20: ranks_per_host= needs hosts="},
    {"hosts=3 ranks_per_host=4,3",
     "TRELLIS_TOPOLOGY:1:9: ranks_per_host has 2 counts but hosts=3 (give one count, or one per "
     "host)"},
    {"hosts=2 ranks_per_host=1048576,1",
     "TRELLIS_TOPOLOGY:1:9: the layout has 1048577 ranks, more than 1048576"},
    /* the forms */
    {"", "TRELLIS_TOPOLOGY: the layout is empty: give hosts=N ranks_per_host=K, or host= lists"},
    {"  # nothing but a comment\n",
     "TRELLIS_TOPOLOGY: the layout is empty: give hosts=N ranks_per_host=K, or host= lists"},
    {"sockets_per_host=2",
     "TRELLIS_TOPOLOGY: the layout is empty: give hosts=N ranks_per_host=K, or host= lists"},
    {"host=0-3 hosts=1 ranks_per_host=4",
     "TRELLIS_TOPOLOGY:1:10: give hosts by hosts= and ranks_per_host=, or by host= lists, not "
     "both"},
    {"ranks_per_host=4 hosts=1 host=0-3",
     "TRELLIS_TOPOLOGY:1:26: give hosts by hosts= and ranks_per_host=, or by host= lists, not "
     "both"},
    {"host=0-3 placement=block",
     "TRELLIS_TOPOLOGY:1:10: placement= applies to hosts= and ranks_per_host=, not to host= "
     "lists"},
    /* hosts by lists */
    {"host=0-3 host=3-5", "TRELLIS_TOPOLOGY:1:10: rank 3 is on host 0 and host 1"},
    {"host=0-3,2", "TRELLIS_TOPOLOGY:1:1: host 0 names rank 2 twice"},
    {"host=0-1 host=3", "TRELLIS_TOPOLOGY: rank 2 is in no host= list (give every rank one)"},
    /* sockets */
    {"host=0-3 socket=0-1 socket=2-4",
     "TRELLIS_TOPOLOGY:1:21: socket 1 names rank 4, but the layout has 4 ranks (0..3)"},
    {"host=0-3 socket=0-1 socket=1-3", "TRELLIS_TOPOLOGY:1:21: rank 1 is on socket 0 and socket 1"},
    {"host=0-3 socket=0-1", "TRELLIS_TOPOLOGY: rank 2 is in no socket= list (give every rank one)"},
    {"host=0-1 host=2-3 socket=0 socket=1-2 socket=3",
     "TRELLIS_TOPOLOGY:1:28: socket 1 spans host 0 and host 1 (ranks 1 and 2)"},
    {"hosts=1 ranks_per_host=2 sockets_per_host=2 socket=0 socket=1",
     "TRELLIS_TOPOLOGY:1:45: give sockets by sockets_per_host= or by socket= lists, not both"},
    {"socket=0 socket=1 hosts=1 ranks_per_host=2 sockets_per_host=2",
     "TRELLIS_TOPOLOGY:1:44: give sockets by sockets_per_host= or by socket= lists, not both"},
    /* NUMA domains */
    {"hosts=1 ranks_per_host=4 numa_per_socket=2",
     "TRELLIS_TOPOLOGY:1:26: numa_per_socket= needs sockets (sockets_per_host= or socket= lists)"},
    {"hosts=1 ranks_per_host=4 sockets_per_host=2 numa_per_socket=2 numa=0-3",
     "TRELLIS_TOPOLOGY:1:63: give NUMA domains by numa_per_socket= or by numa= lists, not both"},
    {"host=0-3 numa=0-2", "TRELLIS_TOPOLOGY: rank 3 is in no numa= list (give every rank one)"},
    {"host=0-1 host=2-3 numa=0 numa=1-3",
     "TRELLIS_TOPOLOGY:1:26: numa 1 spans host 0 and host 1 (ranks 1 and 2)"},
    {"hosts=1 ranks_per_host=4 sockets_per_host=2 numa=0 numa=1-2 numa=3",
     "TRELLIS_TOPOLOGY:1:52: numa 1 spans socket 0 and socket 1 (ranks 1 and 2)"},
    {"host=0-3 numa=0-1 numa=2-3 numa=4",
     "TRELLIS_TOPOLOGY:1:28: numa 2 names rank 4, but the layout has 4 ranks (0..3)"},
};

static void check_error(const char *text, const char *source, bool inline_text, const char *want)
{
    trl_topo t;
    trl_topo_error err;
    int rc = trl_topo_parse(text, source, inline_text, &t, &err);
    CHECK(rc == TRL_ERR_INVALID, "'%s' gave %d, want TRL_ERR_INVALID", text, rc);
    CHECK(t.host == NULL && t.size == 0, "'%s': the topology is left empty", text);
    char got[1024];
    trl_topo_error_format(&err, got, sizeof got);
    CHECK(!strcmp(got, want), "'%s':\n  got  %s\n  want %s", text, got, want);
    if (rc == TRL_OK)
        trl_topo_free(&t);
}

static void reports_every_error_with_its_position(void)
{
    for (size_t i = 0; i < sizeof bad_inline / sizeof *bad_inline; i++)
        check_error(bad_inline[i].text, "TRELLIS_TOPOLOGY", true, bad_inline[i].want);
    /* A file's errors give the line only. */
    check_error("# three hosts\nhost=0-5\nhost=6,7\nhost=8,5\n", "layouts/x", false,
                "layouts/x:4: rank 5 is on host 0 and host 2");
    check_error("hosts=3\n\n  ranks_per_host=4,3\n", "layouts/x", false,
                "layouts/x:3: ranks_per_host has 2 counts but hosts=3 (give one count, or one "
                "per host)");
    check_error("hosts=2\nranks_per_host=1\nhosts=2\n", "layouts/x", false,
                "layouts/x:3: hosts given twice (first at line 1)");
    check_error("# nothing\n", "layouts/x", false,
                "layouts/x: the layout is empty: give hosts=N ranks_per_host=K, or host= lists");
    trl_topo_error err = {.line = 0};
    char got[1024];
    snprintf(err.source, sizeof err.source, "f");
    snprintf(err.message, sizeof err.message, "m");
    err.line = 2;
    trl_topo_error_format(&err, got, sizeof got);
    CHECK_STR(got, "f:2: m");
    err.column = 7;
    trl_topo_error_format(&err, got, sizeof got);
    CHECK_STR(got, "f:2:7: m");
}

/* ---- a communicator's view ---------------------------------------------------- */

static void gives_a_communicator_its_view(void)
{
    trl_topo world, sub;
    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=2 ranks_per_host=4 sockets_per_host=2 numa_per_socket=2", "t", true,
                         &world, &err) == TRL_OK,
          "%s", err.message);
    /* World ranks 7, 3, 5: hosts 1, 0, 1, renumbered by first appearance;
     * sockets (3, 1, 2) and NUMA domains (7, 3, 5) kept. */
    static const int picked[] = {7, 3, 5};
    CHECK(trl_topo_subset(&world, picked, 3, &sub) == TRL_OK, "subset");
    char got[256];
    ids(sub.host, sub.size, got, sizeof got);
    CHECK_STR(got, "0 1 0");
    ids(sub.socket, sub.size, got, sizeof got);
    CHECK_STR(got, "3 1 2");
    ids(sub.numa, sub.size, got, sizeof got);
    CHECK_STR(got, "7 3 5");
    CHECK(sub.size == 3 && sub.nhosts == 2, "%d ranks on %d hosts", sub.size, sub.nhosts);
    CHECK(!sub.world_order && sub.described, "not in world order, described");
    trl_topo_format(&sub, got, sizeof got);
    CHECK_STR(got, "layout: 3 ranks on 2 hosts (described): host 0: [0] [2] | host 1: [1]");
    trl_topo_free(&sub);

    static const int identity[] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(trl_topo_subset(&world, identity, 8, &sub) == TRL_OK && sub.world_order, "identity");
    ids(sub.host, sub.size, got, sizeof got);
    CHECK_STR(got, "0 0 0 0 1 1 1 1");
    trl_topo_free(&sub);
    /* WORLD's first four ranks in order, but not all of WORLD. */
    CHECK(trl_topo_subset(&world, identity, 4, &sub) == TRL_OK && !sub.world_order, "prefix");
    CHECK(sub.nhosts == 1, "prefix: %d hosts", sub.nhosts);
    trl_topo_free(&sub);
    static const int reversed[] = {7, 6, 5, 4, 3, 2, 1, 0};
    CHECK(trl_topo_subset(&world, reversed, 8, &sub) == TRL_OK && !sub.world_order, "reversed");
    ids(sub.host, sub.size, got, sizeof got);
    CHECK_STR(got, "0 0 0 0 1 1 1 1");
    ids(sub.socket, sub.size, got, sizeof got);
    CHECK_STR(got, "3 3 2 2 1 1 0 0");
    trl_topo_free(&sub);
    static const int outside[] = {0, 8};
    CHECK(trl_topo_subset(&world, outside, 2, &sub) == TRL_ERR_INVALID && !sub.host,
          "a rank outside WORLD");
    trl_topo_free(&world);

    CHECK(trl_topo_single_host(3, &sub) == TRL_OK, "one host");
    CHECK(sub.size == 3 && sub.nhosts == 1 && !sub.described && sub.world_order, "one host");
    ids(sub.host, sub.size, got, sizeof got);
    CHECK_STR(got, "0 0 0");
    CHECK(all_unknown(sub.socket, 3) && all_unknown(sub.numa, 3), "unknown sockets");
    trl_topo_format(&sub, got, sizeof got);
    CHECK_STR(got, "layout: 3 ranks on 1 host (discovered): host 0: 0-2");
    trl_topo_free(&sub);
}

/* ---- what the rules' layout filters see ---------------------------------------- */

static void summarizes_hosts_for_the_rules(void)
{
    static const struct {
        const char *layout;
        int hosts, most;
        bool block;
    } cases[] = {
        {"hosts=4 ranks_per_host=4", 4, 4, true},
        {"hosts=3 ranks_per_host=6,5,5", 3, 6, true},
        {"hosts=3 ranks_per_host=1,4,2", 3, 4, true},
        {"hosts=5 ranks_per_host=1", 5, 1, true},
        {"hosts=4 ranks_per_host=4 placement=round-robin", 4, 4, false},
        {"hosts=2 ranks_per_host=1,3 placement=round-robin", 2, 3, true},  /* hosts 0,1,1,1 */
        {"hosts=2 ranks_per_host=3,1 placement=round-robin", 2, 3, false}, /* hosts 0,1,0,0 */
        {"host=4-7 host=0-3", 2, 4, true}, /* block in another host order */
        {"host=0,2 host=1", 2, 2, false},
        {"hosts=1 ranks_per_host=7 sockets_per_host=2", 1, 7, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        trl_topo t;
        trl_topo_error err;
        if (trl_topo_parse(cases[i].layout, "t", true, &t, &err)) {
            check_at(__LINE__, "'%s': %s", cases[i].layout, err.message);
            continue;
        }
        trl_layout_stats l = trl_topo_stats(&t, t.size);
        CHECK(l.hosts == cases[i].hosts && l.ranks_per_host == cases[i].most &&
                  l.block == cases[i].block,
              "'%s': hosts=%d ranks_per_host=%d block=%d", cases[i].layout, l.hosts,
              l.ranks_per_host, l.block);
        trl_topo_free(&t);
    }
    /* Unknown (no layout) and one host: everything on one host. */
    trl_layout_stats l = trl_topo_stats(NULL, 9);
    CHECK(l.hosts == 1 && l.ranks_per_host == 9 && l.block, "no layout");
    trl_topo one;
    CHECK(trl_topo_single_host(5, &one) == TRL_OK, "one host");
    l = trl_topo_stats(&one, 5);
    CHECK(l.hosts == 1 && l.ranks_per_host == 5 && l.block, "one host: %d %d %d", l.hosts,
          l.ranks_per_host, l.block);
    trl_topo_free(&one);

    /* A communicator's own: block in WORLD, not in its order. */
    trl_topo world, sub;
    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=2 ranks_per_host=3", "t", true, &world, &err) == TRL_OK, "parse");
    static const int interleaved[] = {0, 3, 1, 4}, reversed[] = {5, 4, 3, 2, 1, 0};
    CHECK(trl_topo_subset(&world, interleaved, 4, &sub) == TRL_OK, "subset");
    l = trl_topo_stats(&sub, 4);
    CHECK(l.hosts == 2 && l.ranks_per_host == 2 && !l.block, "interleaved");
    trl_topo_free(&sub);
    CHECK(trl_topo_subset(&world, reversed + 3, 3, &sub) == TRL_OK, "subset");
    l = trl_topo_stats(&sub, 3);
    CHECK(l.hosts == 1 && l.ranks_per_host == 3 && l.block, "one host of two");
    trl_topo_free(&sub);
    CHECK(trl_topo_subset(&world, reversed, 6, &sub) == TRL_OK, "subset");
    l = trl_topo_stats(&sub, 6);
    CHECK(l.hosts == 2 && l.ranks_per_host == 3 && l.block, "reversed");
    trl_topo_free(&sub);
    trl_topo_free(&world);
}

/* ---- printing ------------------------------------------------------------------ */

static void prints_unknown_sockets_and_cuts_long_lines(void)
{
    /* Discovered: ranks 2 and 5 not bound within a socket. */
    int host[] = {0, 0, 0, 0, 1, 1}, socket[] = {4, 4, -1, 9, 2, -1}, numa[6] = {0};
    trl_topo t = {.size = 6, .nhosts = 2, .host = host, .socket = socket, .numa = numa};
    char line[256];
    trl_topo_format(&t, line, sizeof line);
    CHECK_STR(line, "layout: 6 ranks on 2 hosts (discovered): host 0: [0-1] [3] [?: 2] | "
                    "host 1: [4] [?: 5]");

    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=64 ranks_per_host=1", "t", true, &t, &err) == TRL_OK, "parse");
    char full[2048], cut[64];
    trl_topo_format(&t, full, sizeof full);
    for (size_t len = 1; len <= sizeof cut; len++) {
        memset(cut, 'x', sizeof cut);
        trl_topo_format(&t, cut, len);
        size_t n = strnlen(cut, len);
        CHECK(n < len, "len %zu: not terminated", len);
        if (n >= len)
            continue;
        bool dots = n >= 3 && !strcmp(cut + n - 3, "...");
        CHECK(len < 4 ? n == 0 : dots, "len %zu: '%s'", len, cut);
        CHECK(!dots || !strncmp(cut, full, n - 3), "len %zu: '%s' is not a prefix", len, cut);
    }
    trl_topo_free(&t);
}

/* Large layouts parse and print in time linear (or n log n) in the ranks. */
static void handles_a_million_ranks(void)
{
    clock_t start = clock();
    trl_topo t;
    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=2 ranks_per_host=524288 sockets_per_host=2 numa_per_socket=4", "t",
                         true, &t, &err) == TRL_OK,
          "%s", err.message);
    char line[4096];
    trl_topo_format(&t, line, sizeof line);
    CHECK_STR(line, "layout: 1048576 ranks on 2 hosts (described): host 0: [0-262143] "
                    "[262144-524287] | host 1: [524288-786431] [786432-1048575]");
    CHECK(t.numa[1048575] == 15, "numa of the last rank: %d", t.numa[1048575]);
    trl_topo_free(&t);
    CHECK(trl_topo_parse("host=0-524287 host=524288-1048575 socket=0-1048575", "t", true, &t,
                         &err) != TRL_OK,
          "a socket across hosts");
    CHECK(trl_topo_parse("hosts=1048576 ranks_per_host=1 placement=round-robin", "t", true, &t,
                         &err) == TRL_OK,
          "%s", err.message);
    trl_topo_format(&t, line, sizeof line);
    CHECK(!strcmp(line + strlen(line) - 3, "..."), "cut: %.60s", line);
    trl_topo_free(&t);
    double seconds = (double)(clock() - start) / CLOCKS_PER_SEC;
    CHECK(seconds < 10, "took %.1f s", seconds);
}

/* ---- TRELLIS_TOPOLOGY ----------------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f && fputs(text, f) >= 0, "cannot write %s", path);
    if (f)
        fclose(f);
}

static int load(const char *value, trl_topo *t, bool *set, char *msg, size_t len)
{
    trl_topo_error err;
    setenv("TRELLIS_TOPOLOGY", value, 1);
    int rc = trl_topo_load_env(t, set, &err);
    trl_topo_error_format(&err, msg, len);
    return rc;
}

static void reads_the_environment(void)
{
    trl_topo t;
    trl_topo_error err;
    bool set = true;
    char msg[1024], want[1100];
    unsetenv("TRELLIS_TOPOLOGY");
    CHECK(trl_topo_load_env(&t, &set, &err) == TRL_OK && !set && !t.host, "unset");
    CHECK(load(" \t ", &t, &set, msg, sizeof msg) == TRL_OK && !set && !t.host, "blank");

    /* Inline: columns count from the value as written. */
    CHECK(load(" hosts=2 ranks_per_host=3 ", &t, &set, msg, sizeof msg) == TRL_OK && set &&
              t.size == 6 && t.described,
          "inline: %s", msg);
    trl_topo_free(&t);
    CHECK(load(" hosts=2 ranks_per_hots=1", &t, &set, msg, sizeof msg) != TRL_OK && set, "bad");
    CHECK_STR(msg, "TRELLIS_TOPOLOGY:1:10: unknown key 'ranks_per_hots' " KEYS);
    /* One word with '=' is a layout, not a file name. */
    CHECK(load("host=0-3", &t, &set, msg, sizeof msg) == TRL_OK && t.size == 4, "%s", msg);
    trl_topo_free(&t);

    char dir[] = "/tmp/trellis-topo-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256], spaced[256];
    snprintf(path, sizeof path, "%s/layout", dir);
    snprintf(spaced, sizeof spaced, "%s/my layout=2", dir);
    write_file(path, "# a file\nhosts=2\nranks_per_host=3\nplacement=round-robin\n");
    CHECK(load(path, &t, &set, msg, sizeof msg) == TRL_OK && set && t.size == 6, "file: %s", msg);
    ids(t.host, t.size, msg, sizeof msg);
    CHECK_STR(msg, "0 1 0 1 0 1");
    trl_topo_free(&t);
    /* A name with blanks and '=' is a file when the file exists. */
    write_file(spaced, "host=0 host=1\n");
    CHECK(load(spaced, &t, &set, msg, sizeof msg) == TRL_OK && t.nhosts == 2, "spaced: %s", msg);
    trl_topo_free(&t);

    write_file(path, "hosts=2\nranks_per_host=3\n sockets=2\n");
    CHECK(load(path, &t, &set, msg, sizeof msg) == TRL_ERR_INVALID && set && !t.host, "bad file");
    snprintf(want, sizeof want, "%s:3: unknown key 'sockets' " KEYS, path);
    CHECK_STR(msg, want);
    unlink(path);
    unlink(spaced);
    CHECK(load(path, &t, &set, msg, sizeof msg) == TRL_ERR_IO && set, "a missing file");
    snprintf(want, sizeof want,
             "TRELLIS_TOPOLOGY: cannot read layout file '%s': No such file or directory", path);
    CHECK_STR(msg, want);
    CHECK(load(dir, &t, &set, msg, sizeof msg) == TRL_ERR_IO, "a directory");
    snprintf(want, sizeof want, "TRELLIS_TOPOLOGY: cannot read layout file '%s': Is a directory",
             dir);
    CHECK_STR(msg, want);
    rmdir(dir);
    unsetenv("TRELLIS_TOPOLOGY");
}

int main(void)
{
    RUN(reads_block_layouts);
    RUN(reads_round_robin_layouts);
    RUN(reads_sockets_and_numa_by_counts);
    RUN(reads_explicit_lists);
    RUN(reports_every_error_with_its_position);
    RUN(gives_a_communicator_its_view);
    RUN(summarizes_hosts_for_the_rules);
    RUN(prints_unknown_sockets_and_cuts_long_lines);
    RUN(handles_a_million_ranks);
    RUN(reads_the_environment);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
