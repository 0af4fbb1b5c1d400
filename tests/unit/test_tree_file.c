/* Tree and script files (docs/trees.md): good files of both kinds read
 * back into the parents and children written out here by hand, every
 * error message with its line, the rank-order property, depth and
 * children. No MPI. Prints "N passed, M failed" last. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/status.h"
#include "tree/tree_file.h"
#include "unit_harness.h"

/* LAM-MPI's trees on 8 ranks: reduce clears the lowest bit, bcast the
 * highest; children in the order LAM serves them. */
static const char lam8[] =
    "trellis tree\n"
    "# LAM-MPI, 8 ranks\n"
    "ranks 8\nroot 0\n"
    "reduce\n"
    "rank 0 parent none children 1 2 4\n"
    "rank 1 parent 0\n"
    "rank 2 parent 0 children 3\n"
    "rank 3 parent 2\n"
    "rank 4 parent 0 children 5 6\n"
    "rank 5 parent 4\n"
    "rank 6 parent 4 children 7\n"
    "rank 7 parent 6\n"
    "bcast\n"
    "rank 0 parent none children 1 2 4\n"
    "rank 1 parent 0 children 3 5\n"
    "rank 2 parent 0 children 6\n"
    "rank 3 parent 1 children 7\n"
    "rank 4 parent 0\n"
    "rank 5 parent 1\n"
    "rank 6 parent 2\n"
    "rank 7 parent 3\n";

static void check_links(const trl_tree_links *l, int size, const int *parent,
                        const char *const *kids)
{
    for (int r = 0; r < size; r++) {
        CHECK(l->parent[r] == parent[r], "rank %d: parent %d, want %d", r, l->parent[r], parent[r]);
        char got[128] = "";
        for (int i = l->child_first[r]; i < l->child_first[r + 1]; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", got[0] ? " " : "",
                     l->child[i]);
        CHECK_STR(got, kids[r]);
    }
}

static void reads_lam_trees_both_directions(void)
{
    trl_tree_file f;
    trl_file_error err;
    int rc = trl_tree_file_parse(lam8, "lam8.tree", &f, &err);
    CHECK(rc == TRL_OK, "parse failed: line %d: %s", err.line, err.message);
    if (rc)
        return;
    CHECK(f.size == 8 && f.root == 0 && !f.script && f.has_reduce && f.has_bcast, "header");
    static const int up[] = {-1, 0, 0, 2, 0, 4, 4, 6}, down[] = {-1, 0, 0, 1, 0, 1, 2, 3};
    static const char *const up_kids[] = {"1 2 4", "", "3", "", "5 6", "", "7", ""};
    static const char *const down_kids[] = {"1 2 4", "3 5", "6", "7", "", "", "", ""};
    check_links(&f.reduce, 8, up, up_kids);
    check_links(&f.bcast, 8, down, down_kids);
    CHECK(trl_tree_links_ordered(&f.reduce, 8, 0), "LAM's reduce tree keeps rank order");
    CHECK(!trl_tree_links_ordered(&f.bcast, 8, 0), "LAM's bcast tree is not in rank order");
    CHECK(trl_tree_links_depth(&f.reduce, 8, 0) == 3, "reduce depth");
    CHECK(trl_tree_links_depth(&f.bcast, 8, 0) == 3, "bcast depth");
    CHECK(trl_tree_links_max_children(&f.reduce, 8) == 3, "most children");
    trl_tree_file_free(&f);
}

static void reads_scripts_as_the_same_trees(void)
{
    /* Seed 000's example (rank 12: recv 13, recv 14, send 8), 16 ranks. */
    char text[4096] = "trellis script\nranks 16\nroot 0\nreduce\n";
    for (int r = 0; r < 16; r++) {
        size_t at = strlen(text);
        at += (size_t)snprintf(text + at, sizeof text - at, "rank %d:", r);
        int cmds = 0;
        for (int bit = 1; bit < 16 && !(r & bit); bit <<= 1)
            if (r + bit < 16)
                at += (size_t)snprintf(text + at, sizeof text - at, "%s recv %d", cmds++ ? "," : "",
                                       r + bit);
        if (r)
            snprintf(text + at, sizeof text - at, "%s send %d", cmds ? "," : "", r & (r - 1));
        strcat(text, "\n");
    }
    trl_tree_file f;
    trl_file_error err;
    int rc = trl_tree_file_parse(text, "x.script", &f, &err);
    CHECK(rc == TRL_OK, "parse failed: line %d: %s", err.line, err.message);
    if (rc)
        return;
    CHECK(f.script && f.has_reduce && !f.has_bcast, "a script with a reduce section only");
    CHECK(f.reduce.parent[12] == 8, "rank 12 sends to 8");
    int first = f.reduce.child_first[12];
    CHECK(f.reduce.child_first[13] - first == 2 && f.reduce.child[first] == 13 &&
              f.reduce.child[first + 1] == 14, "rank 12 receives from 13, then 14");
    CHECK(trl_tree_links_depth(&f.reduce, 16, 0) == 4, "depth 4");
    trl_tree_file_free(&f);
}

static void reads_both_one_rank_and_other_roots(void)
{
    static const char both[] = "trellis tree\nranks 3\nroot 2\nboth\n"
                               "rank 2 parent none children 0\nrank 0 parent 2 children 1\n"
                               "rank 1 parent 0\n";
    static const char one[] = "trellis script\nranks 1\nroot 0\nreduce\nrank 0:\nbcast\nrank 0:";
    trl_tree_file f;
    trl_file_error err;
    CHECK(trl_tree_file_parse(both, "both.tree", &f, &err) == TRL_OK, "%s", err.message);
    CHECK(f.has_reduce && f.has_bcast && f.root == 2 && f.bcast.parent[1] == 0 &&
              f.reduce.parent[0] == 2, "both directions from one section");
    CHECK(!trl_tree_links_ordered(&f.reduce, 3, 2), "rooted at 2: not in rank order");
    trl_tree_file_free(&f);
    CHECK(trl_tree_file_parse(one, "one.script", &f, &err) == TRL_OK, "%s", err.message);
    CHECK(f.size == 1 && f.reduce.parent[0] == -1, "one rank");
    trl_tree_file_free(&f);
}

/* A host-hierarchical tree on 2 hosts x 4 keeps rank order under block
 * placement (0 1 2 3 | 4 5 6 7) and not under round-robin (0 2 4 6 |
 * 1 3 5 7, leader 1 serving 3 5 7). */
static void tells_rank_order(void)
{
    static const char block[] = "trellis tree\nranks 8\nroot 0\nboth\n"
                                "rank 0 parent none children 1 2 3 4\nrank 1 parent 0\n"
                                "rank 2 parent 0\nrank 3 parent 0\nrank 4 parent 0 children 5 6 7\n"
                                "rank 5 parent 4\nrank 6 parent 4\nrank 7 parent 4\n";
    static const char rr[] = "trellis tree\nranks 8\nroot 0\nboth\n"
                             "rank 0 parent none children 2 4 6 1\nrank 1 parent 0 children 3 5 7\n"
                             "rank 2 parent 0\nrank 3 parent 1\nrank 4 parent 0\n"
                             "rank 5 parent 1\nrank 6 parent 0\nrank 7 parent 1\n";
    trl_tree_file f;
    trl_file_error err;
    CHECK(trl_tree_file_parse(block, "b", &f, &err) == TRL_OK, "%s", err.message);
    CHECK(trl_tree_links_ordered(&f.reduce, 8, 0), "block: in rank order");
    CHECK(trl_tree_links_max_children(&f.reduce, 8) == 4, "block: 4 children at the root");
    trl_tree_file_free(&f);
    CHECK(trl_tree_file_parse(rr, "r", &f, &err) == TRL_OK, "%s", err.message);
    CHECK(!trl_tree_links_ordered(&f.reduce, 8, 0), "round-robin: not in rank order");
    trl_tree_file_free(&f);
}

typedef struct {
    const char *text;
    const char *want; /* "source:line: message" */
} bad_case;

#define T "trellis tree\nranks 3\nroot 0\n"
#define S "trellis script\nranks 3\nroot 0\n"
static const bad_case bad[] = {
    {"", "x:1: empty file: expected 'trellis tree' or 'trellis script'"},
    {"# only a comment\n", "x:1: empty file: expected 'trellis tree' or 'trellis script'"},
    {"trellis forest\n", "x:1: expected 'trellis tree' or 'trellis script' as the first line"},
    {"trellis tree\nranks 3\nroot 0\n", "x:3: no section: expected reduce, bcast or both"},
    {"trellis tree\nranks x\n", "x:2: ranks: expected a number, got 'x'"},
    {"trellis tree\nranks 0\n", "x:2: ranks must be at least 1"},
    {"trellis tree\nranks 3\nranks 4\n", "x:3: 'ranks' given twice"},
    {"trellis tree\nroot 0\n", "x:2: 'root' must come after 'ranks'"},
    {"trellis tree\nranks 3\nroot 3\n", "x:3: root 3 is out of range (the file has 3 ranks: 0..2)"},
    {"trellis tree\nranks 3\nroot 0 1\n", "x:3: unexpected '1' after root"},
    {"trellis tree\nranks 3\nboth\n", "x:3: 'ranks N' and 'root R' must come before the first section"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\nranks 4\n",
     "x:8: 'ranks' must come before the first section"},
    {T "rank 0 parent none\n", "x:4: a rank line before any section (reduce, bcast or both)"},
    {T "reduce\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\nreduce\n",
     "x:8: a second reduce section"},
    {T "reduce\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\nboth\n",
     "x:8: 'both' cannot be combined with other sections"},
    {T "both extra\n", "x:4: a section header stands alone on its line"},
    {T "leaves\n", "x:4: unknown keyword 'leaves' (expected ranks, root, reduce, bcast, both or rank)"},
    {T "both\nrank 3 parent 0\n", "x:5: rank 3 is out of range (the file has 3 ranks: 0..2)"},
    {T "both\nrank 0 parent none children 1 2\nrank 0 parent none\n",
     "x:6: rank 0 is listed twice in the both section (first on line 5)"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0\n",
     "x:4: rank 2 has no line in the both section"},
    {T "both\nrank 0 parent none children 1 1\n", "x:5: rank 0 lists 1 twice"},
    {T "both\nrank 0 parent none children 0\n", "x:5: rank 0 lists itself"},
    {T "both\nrank 0 child 1\n", "x:5: expected 'rank 0 parent P' (P a rank or none)"},
    {T "both\nrank 0 parent\n", "x:5: rank 0: parent needs a rank or none"},
    {T "both\nrank 0 parent none kids 1\n",
     "x:5: unexpected 'kids' after the parent (expected children)"},
    {T "both\nrank 0 parent 1 children 1 2\nrank 1 parent 0\nrank 2 parent 0\n",
     "x:5: the root 0 names parent 1 (the root has none)"},
    {T "both\nrank 0 parent none children 1\nrank 1 parent 0\nrank 2 parent none\n",
     "x:7: rank 2 has no parent but is not the root 0"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 1\nrank 2 parent 0\n",
     "x:6: rank 1 is its own parent"},
    {T "both\nrank 0 parent none children 1\nrank 1 parent 0\nrank 2 parent 0\n",
     "x:7: rank 2 names parent 0, but rank 0 does not list 2 (its line is 5)"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0 children 2\nrank 2 parent 0\n",
     "x:6: rank 1 lists child 2, but rank 2's parent is 0"},
    {"trellis tree\nranks 4\nroot 0\nboth\nrank 0 parent none children 1\nrank 1 parent 0\n"
     "rank 2 parent 3 children 3\nrank 3 parent 2 children 2\n",
     "x:7: rank 2 does not reach the root 0 (cycle 2 -> 3 -> 2)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2 send 0\n",
     "x:7: expected 'rank 2:' followed by commands"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2: post 0\n",
     "x:7: unknown command 'post' (expected recv or send)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send\n", "x:6: send needs a rank"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 1\n", "x:6: rank 1 cannot send itself"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0, send 0\n", "x:6: rank 1 sends more than once"},
    {S "reduce\nrank 0: recv 1\nrank 1: send 0, recv 2\n",
     "x:6: rank 1: recv after its send (the send comes last)"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: send 2, recv 0\n",
     "x:6: rank 1: recv must come before the sends"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0, recv 0\n",
     "x:6: rank 1: recv must come before the sends"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2: send 1\n",
     "x:7: rank 2 sends to 1, but rank 1 does not recv 2 (its line is 6)"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0\nrank 2: recv 1\n",
     "x:7: rank 2 receives from 1, but rank 1 does not send to 2 (its line is 6)"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0, send 2\nrank 2: recv 0\n",
     "x:6: rank 1 sends to 2, but rank 2's parent is 0"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2:\n",
     "x:7: rank 2 has no parent but is not the root 0"},
};

static void reports_every_error_with_its_line(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        trl_tree_file f;
        trl_file_error err;
        int rc = trl_tree_file_parse(bad[i].text, "x", &f, &err);
        char got[800];
        trl_file_error_format(&err, got, sizeof got);
        CHECK(rc != TRL_OK, "case %zu: accepted", i);
        if (rc != TRL_OK && strcmp(got, bad[i].want))
            check_at(__LINE__, "case %zu:\n  got  %s\n  want %s", i, got, bad[i].want);
        if (rc == TRL_OK)
            trl_tree_file_free(&f);
    }
}

static void loads_files_and_reports_unreadable_ones(void)
{
    char path[] = "/tmp/trellis-tree-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    CHECK(write(fd, lam8, sizeof lam8 - 1) == (ssize_t)(sizeof lam8 - 1), "write");
    close(fd);
    trl_tree_file f;
    trl_file_error err;
    CHECK(trl_tree_file_load(path, &f, &err) == TRL_OK, "%s", err.message);
    CHECK_STR(f.path, path);
    trl_tree_file_free(&f);
    unlink(path);
    CHECK(trl_tree_file_load(path, &f, &err) != TRL_OK, "a missing file");
    char got[800], want[900];
    trl_file_error_format(&err, got, sizeof got);
    snprintf(want, sizeof want, "%s: cannot read the tree file: No such file or directory", path);
    CHECK_STR(got, want);
    /* A binary file. */
    strcpy(path, "/tmp/trellis-tree-test-XXXXXX");
    fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "trellis tree\n\0\1\2", 16) == 16, "write");
    close(fd);
    CHECK(trl_tree_file_load(path, &f, &err) != TRL_OK, "a binary file");
    CHECK_STR(err.message, "not a text file (it holds a NUL byte)");
    unlink(path);
}

int main(void)
{
    RUN(reads_lam_trees_both_directions);
    RUN(reads_scripts_as_the_same_trees);
    RUN(reads_both_one_rank_and_other_roots);
    RUN(tells_rank_order);
    RUN(reports_every_error_with_its_line);
    RUN(loads_files_and_reports_unreadable_ones);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
