/* Described layouts (docs/topology.md): every form read back into hosts,
 * sockets and NUMA domains written out here by hand, every error message
 * with its position, a communicator's subset with reordered ranks, the
 * printed line, and TRELLIS_TOPOLOGY as text or file. No MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/status.h"
#include "topo/topo.h"
#include "unit_harness.h"

static void ids(const int *v, int n, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%d", i ? " " : "", v[i]);
}

/* Parse text and compare hosts (and sockets, NUMA where want_* is given). */
static void expect_layout(const char *text, const char *want_hosts, const char *want_sockets,
                          const char *want_numa, const char *want_line)
{
    trl_topo t;
    trl_topo_error err;
    int rc = trl_topo_parse(text, "TRELLIS_TOPOLOGY", true, &t, &err);
    CHECK(rc == TRL_OK, "'%s': %s", text, err.message);
    if (rc)
        return;
    char got[512];
    ids(t.host, t.size, got, sizeof got);
    CHECK(!strcmp(got, want_hosts), "'%s' hosts: got %s, want %s", text, got, want_hosts);
    ids(t.socket, t.size, got, sizeof got);
    CHECK(!strcmp(got, want_sockets), "'%s' sockets: got %s, want %s", text, got, want_sockets);
    ids(t.numa, t.size, got, sizeof got);
    CHECK(!strcmp(got, want_numa), "'%s' numa: got %s, want %s", text, got, want_numa);
    CHECK(t.described && t.world_order, "described, in world order");
    char line[512];
    trl_topo_format(&t, line, sizeof line);
    CHECK(!strcmp(line, want_line), "'%s' printed:\n  got  %s\n  want %s", text, line, want_line);
    trl_topo_free(&t);
}

static void reads_every_form(void)
{
    expect_layout("hosts=2 ranks_per_host=4", "0 0 0 0 1 1 1 1", "-1 -1 -1 -1 -1 -1 -1 -1",
                  "-1 -1 -1 -1 -1 -1 -1 -1",
                  "layout: 8 ranks on 2 hosts (described): host 0: 0-3 | host 1: 4-7");
    expect_layout("hosts=4 ranks_per_host=4 placement=round-robin",
                  "0 1 2 3 0 1 2 3 0 1 2 3 0 1 2 3",
                  "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1",
                  "-1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1 -1",
                  "layout: 16 ranks on 4 hosts (described): host 0: 0,4,8,12 | host 1: 1,5,9,13 | "
                  "host 2: 2,6,10,14 | host 3: 3,7,11,15");
    expect_layout("hosts=3 ranks_per_host=4,3,2", "0 0 0 0 1 1 1 2 2",
                  "-1 -1 -1 -1 -1 -1 -1 -1 -1", "-1 -1 -1 -1 -1 -1 -1 -1 -1",
                  "layout: 9 ranks on 3 hosts (described): host 0: 0-3 | host 1: 4-6 | host 2: 7-8");
    /* Round-robin with uneven hosts: full hosts are skipped. */
    expect_layout("hosts=3 ranks_per_host=1,3,2 placement=round-robin", "0 1 2 1 2 1",
                  "-1 -1 -1 -1 -1 -1", "-1 -1 -1 -1 -1 -1",
                  "layout: 6 ranks on 3 hosts (described): host 0: 0 | host 1: 1,3,5 | host 2: 2,4");
    expect_layout("hosts=3 ranks_per_host=1", "0 1 2", "-1 -1 -1", "-1 -1 -1",
                  "layout: 3 ranks on 3 hosts (described): host 0: 0 | host 1: 1 | host 2: 2");
    expect_layout("hosts=1 ranks_per_host=8 sockets_per_host=2 numa_per_socket=2",
                  "0 0 0 0 0 0 0 0", "0 0 0 0 1 1 1 1", "0 0 1 1 2 2 3 3",
                  "layout: 8 ranks on 1 host (described): host 0: [0-3] [4-7]");
    /* Uneven splits: the first runs are one larger. */
    expect_layout("hosts=2 ranks_per_host=5,2 sockets_per_host=2", "0 0 0 0 0 1 1",
                  "0 0 0 1 1 2 3", "-1 -1 -1 -1 -1 -1 -1",
                  "layout: 7 ranks on 2 hosts (described): host 0: [0-2] [3-4] | host 1: [5] [6]");
    expect_layout("# two hosts\nhost=0-2,6\nhost=3-5 # the rest\nsocket=0,1 socket=2,6 socket=3-5",
                  "0 0 0 1 1 1 0", "0 0 1 2 2 2 1", "-1 -1 -1 -1 -1 -1 -1",
                  "layout: 7 ranks on 2 hosts (described): host 0: [0-1] [2,6] | host 1: [3-5]");
}

typedef struct {
    const char *text, *want;
} bad_case;

static const bad_case bad[] = {
    {"", "TRELLIS_TOPOLOGY:1: an empty layout: give hosts=N ranks_per_host=K or host= lists"},
    {"hosts=2 ranks_per_hots=1",
     "TRELLIS_TOPOLOGY:1:9: unknown key 'ranks_per_hots' (expected hosts, ranks_per_host, placement, "
     "sockets_per_host, numa_per_socket, host, socket or numa)"},
    {"hosts=2 ranks_per_host", "TRELLIS_TOPOLOGY:1:9: expected key=value, got 'ranks_per_host'"},
    {"hosts=x ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: hosts: expected a number, got 'x'"},
    {"hosts=0 ranks_per_host=1", "TRELLIS_TOPOLOGY:1:1: hosts: 0 is out of range (1..1048576)"},
    {"hosts=2 hosts=3", "TRELLIS_TOPOLOGY:1:9: hosts given twice"},
    {"hosts=2", "TRELLIS_TOPOLOGY:1:1: a layout by counts needs both hosts=N and ranks_per_host=K"},
    {"hosts=3 ranks_per_host=4,3",
     "TRELLIS_TOPOLOGY:1:1: ranks_per_host has 2 counts but hosts=3 (give one count, or one per host)"},
    {"hosts=2 ranks_per_host=4,0",
     "TRELLIS_TOPOLOGY:1:1: ranks_per_host: host 1 has no ranks (every host needs one)"},
    {"hosts=2 ranks_per_host=2 placement=cyclic",
     "TRELLIS_TOPOLOGY:1:26: placement: expected block or round-robin, got 'cyclic'"},
    {"host=0-3 hosts=1 ranks_per_host=4",
     "TRELLIS_TOPOLOGY:1:18: give hosts by hosts=/ranks_per_host= or by host= lists, not both"},
    {"host=0-3 placement=block", "TRELLIS_TOPOLOGY:1:10: placement= goes with hosts= and ranks_per_host="},
    {"host=0-3 host=3-5", "TRELLIS_TOPOLOGY:1:10: rank 3 is on host 0 and host 1"},
    {"host=0-1 host=3", "TRELLIS_TOPOLOGY:1:1: rank 2 is on no host (the host= lists name ranks 0..3)"},
    {"host=3-1", "TRELLIS_TOPOLOGY:1:1: host: the range 3-1 goes backwards"},
    {"host=0,,1", "TRELLIS_TOPOLOGY:1:1: host: expected a number, got ''"},
    {"host=0-3 socket=0-1 socket=2-4", "TRELLIS_TOPOLOGY:1:21: socket=: rank 4 is beyond the layout's 4 ranks"},
    {"host=0-3 socket=0-1", "TRELLIS_TOPOLOGY:1:10: rank 2 is in no socket= list (give every rank one)"},
    {"host=0-1 host=2-3 socket=0-2 socket=3",
     "TRELLIS_TOPOLOGY:1:19: socket 0 spans host 0 and 1 (ranks 0 and 2)"},
    {"hosts=1 ranks_per_host=2 sockets_per_host=2 socket=0,1",
     "TRELLIS_TOPOLOGY:1:26: give sockets by sockets_per_host= or by socket= lists, not both"},
    {"hosts=1 ranks_per_host=4 numa_per_socket=2",
     "TRELLIS_TOPOLOGY:1:26: numa_per_socket needs sockets (sockets_per_host= or socket=)"},
    {"hosts=1 ranks_per_host=2\nsockets_per_host=9999",
     "TRELLIS_TOPOLOGY:2:1: sockets_per_host: 9999 is out of range (1..4096)"},
};

static void reports_every_error_with_its_position(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        trl_topo t;
        trl_topo_error err;
        int rc = trl_topo_parse(bad[i].text, "TRELLIS_TOPOLOGY", true, &t, &err);
        CHECK(rc != TRL_OK, "case %zu accepted", i);
        char got[800];
        trl_topo_error_format(&err, got, sizeof got);
        if (rc != TRL_OK && strcmp(got, bad[i].want))
            check_at(__LINE__, "case %zu:\n  got  %s\n  want %s", i, got, bad[i].want);
        if (rc == TRL_OK)
            trl_topo_free(&t);
    }
}

static void gives_a_communicator_its_view(void)
{
    trl_topo world, sub;
    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=2 ranks_per_host=4 sockets_per_host=2", "t", true, &world, &err) ==
              TRL_OK, "%s", err.message);
    /* World ranks 7, 3, 5: host 1, host 0, host 1; hosts renumbered by
     * first appearance, sockets kept. */
    static const int ranks[] = {7, 3, 5};
    CHECK(trl_topo_subset(&world, ranks, 3, &sub) == TRL_OK, "subset");
    char got[128];
    ids(sub.host, 3, got, sizeof got);
    CHECK_STR(got, "0 1 0");
    ids(sub.socket, 3, got, sizeof got);
    CHECK_STR(got, "3 1 2");
    CHECK(sub.nhosts == 2 && !sub.world_order && sub.described, "flags");
    trl_topo_free(&sub);
    static const int same[] = {0, 1, 2, 3, 4, 5, 6, 7};
    CHECK(trl_topo_subset(&world, same, 8, &sub) == TRL_OK && sub.world_order, "identity");
    trl_topo_free(&sub);
    static const int reversed[] = {7, 6, 5, 4, 3, 2, 1, 0};
    CHECK(trl_topo_subset(&world, reversed, 8, &sub) == TRL_OK && !sub.world_order, "reversed");
    trl_topo_free(&sub);
    trl_topo_free(&world);
    CHECK(trl_topo_single_host(3, &sub) == TRL_OK && sub.nhosts == 1 && !sub.described, "one host");
    char line[256];
    trl_topo_format(&sub, line, sizeof line);
    CHECK_STR(line, "layout: 3 ranks on 1 host (discovered): host 0: 0-2");
    trl_topo_free(&sub);
}

static void cuts_long_lines(void)
{
    trl_topo t;
    trl_topo_error err;
    CHECK(trl_topo_parse("hosts=64 ranks_per_host=1", "t", true, &t, &err) == TRL_OK, "parse");
    char line[64];
    trl_topo_format(&t, line, sizeof line);
    CHECK(strlen(line) < sizeof line && !strcmp(line + strlen(line) - 3, "..."), "cut: %s", line);
    trl_topo_free(&t);
}

static void reads_the_environment(void)
{
    trl_topo t;
    trl_topo_error err;
    bool set = true;
    unsetenv("TRELLIS_TOPOLOGY");
    CHECK(trl_topo_load_env(&t, &set, &err) == TRL_OK && !set, "unset");
    setenv("TRELLIS_TOPOLOGY", "   ", 1);
    CHECK(trl_topo_load_env(&t, &set, &err) == TRL_OK && !set, "blank");
    setenv("TRELLIS_TOPOLOGY", " hosts=2 ranks_per_host=1 ", 1);
    CHECK(trl_topo_load_env(&t, &set, &err) == TRL_OK && set && t.size == 2, "inline");
    trl_topo_free(&t);

    char path[] = "/tmp/trellis-layout-XXXXXX";
    int fd = mkstemp(path);
    const char text[] = "# a file\nhosts=2\nranks_per_host=3\nplacement=round-robin\n";
    CHECK(fd >= 0 && write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1), "write");
    close(fd);
    setenv("TRELLIS_TOPOLOGY", path, 1);
    CHECK(trl_topo_load_env(&t, &set, &err) == TRL_OK && set && t.size == 6 && t.host[1] == 1,
          "file: %s", err.message);
    trl_topo_free(&t);
    FILE *f = fopen(path, "w");
    fputs("hosts=2\nranks_per_host=3\nsockets=2\n", f);
    fclose(f);
    CHECK(trl_topo_load_env(&t, &set, &err) != TRL_OK, "a bad file");
    char got[800], want[900];
    trl_topo_error_format(&err, got, sizeof got);
    snprintf(want, sizeof want, "%s:3:1: unknown key 'sockets' (expected hosts, ranks_per_host, "
             "placement, sockets_per_host, numa_per_socket, host, socket or numa)", path);
    CHECK_STR(got, want);
    unlink(path);
    CHECK(trl_topo_load_env(&t, &set, &err) != TRL_OK, "a missing file");
    trl_topo_error_format(&err, got, sizeof got);
    snprintf(want, sizeof want, "%s: cannot read the layout file: No such file or directory", path);
    CHECK_STR(got, want);
    unsetenv("TRELLIS_TOPOLOGY");
}

int main(void)
{
    RUN(reads_every_form);
    RUN(reports_every_error_with_its_position);
    RUN(gives_a_communicator_its_view);
    RUN(cuts_long_lines);
    RUN(reads_the_environment);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
