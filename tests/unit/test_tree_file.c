/* Tree and script files (docs/trees.md): good files of both kinds read
 * back into the parents and children written out here by hand, every
 * error message with its line, files that cannot be read, damaged and
 * huge input, the rank-order property, depth and children. No MPI.
 * Prints "N passed, M failed" last. The only message not exercised is
 * "out of memory". */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/status.h"
#include "tree/tree_file.h"
#include "unit_harness.h"

/* ---- helpers ---------------------------------------------------------------- */

static bool parse_ok(int line, const char *text, trl_tree_file *f)
{
    trl_file_error err;
    int rc = trl_tree_file_parse(text, "t", f, &err);
    if (rc) {
        char msg[900];
        trl_file_error_format(&err, msg, sizeof msg);
        check_at(line, "parse failed: %s", msg);
    }
    return rc == TRL_OK;
}
#define PARSE_OK(text, f) parse_ok(__LINE__, text, f)

/* Parents and children ("1 2 4", "" for none) of every rank. */
static void expect_links(int line, const trl_tree_links *l, int size, const int *parent,
                         const char *const *kids)
{
    for (int r = 0; r < size; r++) {
        char got[256] = "";
        for (int i = l->child_first[r]; i < l->child_first[r + 1]; i++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", got[0] ? " " : "",
                     l->child[i]);
        if (l->parent[r] != parent[r] || strcmp(got, kids[r]))
            check_at(line, "rank %d: parent %d children \"%s\", want parent %d children \"%s\"", r,
                     l->parent[r], got, parent[r], kids[r]);
    }
}
#define EXPECT_LINKS(l, size, parent, kids) expect_links(__LINE__, l, size, parent, kids)

static bool same_links(const trl_tree_links *a, const trl_tree_links *b, int size)
{
    int n = a->child_first[size];
    return !memcmp(a->parent, b->parent, (size_t)size * sizeof(int)) &&
           !memcmp(a->child_first, b->child_first, (size_t)(size + 1) * sizeof(int)) &&
           n == b->child_first[size] && !memcmp(a->child, b->child, (size_t)n * sizeof(int));
}

/* ---- LAM-MPI's binomial trees: reduce clears the lowest bit, bcast the highest ---- */

static const char lam8_tree[] = "trellis tree\n"
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

static const char lam8_script[] = "trellis script\nranks 8\nroot 0\n"
                                  "reduce\n"
                                  "rank 0: recv 1, recv 2, recv 4\n"
                                  "rank 1: send 0\n"
                                  "rank 2: recv 3, send 0\n"
                                  "rank 3: send 2\n"
                                  "rank 4: recv 5, recv 6, send 0\n"
                                  "rank 5: send 4\n"
                                  "rank 6: recv 7, send 4\n"
                                  "rank 7: send 6\n"
                                  "bcast\n"
                                  "rank 0: send 1, send 2, send 4\n"
                                  "rank 1: recv 0, send 3, send 5\n"
                                  "rank 2: recv 0, send 6\n"
                                  "rank 3: recv 1, send 7\n"
                                  "rank 4: recv 0\n"
                                  "rank 5: recv 1\n"
                                  "rank 6: recv 2\n"
                                  "rank 7: recv 3\n";

static const int lam8_up[] = {-1, 0, 0, 2, 0, 4, 4, 6};
static const char *const lam8_up_kids[] = {"1 2 4", "", "3", "", "5 6", "", "7", ""};
static const int lam8_down[] = {-1, 0, 0, 1, 0, 1, 2, 3};
static const char *const lam8_down_kids[] = {"1 2 4", "3 5", "6", "7", "", "", "", ""};

static const char lam16_tree[] = "trellis tree\nranks 16\nroot 0\n"
                                 "reduce\n"
                                 "rank 0 parent none children 1 2 4 8\n"
                                 "rank 1 parent 0\n"
                                 "rank 2 parent 0 children 3\n"
                                 "rank 3 parent 2\n"
                                 "rank 4 parent 0 children 5 6\n"
                                 "rank 5 parent 4\n"
                                 "rank 6 parent 4 children 7\n"
                                 "rank 7 parent 6\n"
                                 "rank 8 parent 0 children 9 10 12\n"
                                 "rank 9 parent 8\n"
                                 "rank 10 parent 8 children 11\n"
                                 "rank 11 parent 10\n"
                                 "rank 12 parent 8 children 13 14\n"
                                 "rank 13 parent 12\n"
                                 "rank 14 parent 12 children 15\n"
                                 "rank 15 parent 14\n"
                                 "bcast\n"
                                 "rank 0 parent none children 1 2 4 8\n"
                                 "rank 1 parent 0 children 3 5 9\n"
                                 "rank 2 parent 0 children 6 10\n"
                                 "rank 3 parent 1 children 7 11\n"
                                 "rank 4 parent 0 children 12\n"
                                 "rank 5 parent 1 children 13\n"
                                 "rank 6 parent 2 children 14\n"
                                 "rank 7 parent 3 children 15\n"
                                 "rank 8 parent 0\nrank 9 parent 1\nrank 10 parent 2\n"
                                 "rank 11 parent 3\nrank 12 parent 4\nrank 13 parent 5\n"
                                 "rank 14 parent 6\nrank 15 parent 7\n";

/* Seed 000's example line "rank 12: recv 13, recv 14, send 8" is here. */
static const char lam16_script[] = "trellis script\nranks 16\nroot 0\n"
                                   "reduce\n"
                                   "rank 0: recv 1, recv 2, recv 4, recv 8\n"
                                   "rank 1: send 0\n"
                                   "rank 2: recv 3, send 0\n"
                                   "rank 3: send 2\n"
                                   "rank 4: recv 5, recv 6, send 0\n"
                                   "rank 5: send 4\n"
                                   "rank 6: recv 7, send 4\n"
                                   "rank 7: send 6\n"
                                   "rank 8: recv 9, recv 10, recv 12, send 0\n"
                                   "rank 9: send 8\n"
                                   "rank 10: recv 11, send 8\n"
                                   "rank 11: send 10\n"
                                   "rank 12: recv 13, recv 14, send 8\n"
                                   "rank 13: send 12\n"
                                   "rank 14: recv 15, send 12\n"
                                   "rank 15: send 14\n"
                                   "bcast\n"
                                   "rank 0: send 1, send 2, send 4, send 8\n"
                                   "rank 1: recv 0, send 3, send 5, send 9\n"
                                   "rank 2: recv 0, send 6, send 10\n"
                                   "rank 3: recv 1, send 7, send 11\n"
                                   "rank 4: recv 0, send 12\n"
                                   "rank 5: recv 1, send 13\n"
                                   "rank 6: recv 2, send 14\n"
                                   "rank 7: recv 3, send 15\n"
                                   "rank 8: recv 0\nrank 9: recv 1\nrank 10: recv 2\n"
                                   "rank 11: recv 3\nrank 12: recv 4\nrank 13: recv 5\n"
                                   "rank 14: recv 6\nrank 15: recv 7\n";

static const int lam16_up[] = {-1, 0, 0, 2, 0, 4, 4, 6, 0, 8, 8, 10, 8, 12, 12, 14};
static const char *const lam16_up_kids[] = {"1 2 4 8", "", "3",  "", "5 6",   "", "7",  "",
                                            "9 10 12", "", "11", "", "13 14", "", "15", ""};
static const int lam16_down[] = {-1, 0, 0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 6, 7};
static const char *const lam16_down_kids[] = {
    "1 2 4 8", "3 5 9", "6 10", "7 11", "12", "13", "14", "15", "", "", "", "", "", "", "", ""};

static void reads_lam8_in_both_formats(void)
{
    trl_tree_file t, s;
    if (!PARSE_OK(lam8_tree, &t))
        return;
    CHECK(t.size == 8 && t.root == 0 && !t.script && t.has_reduce && t.has_bcast, "header");
    CHECK_STR(t.path, "t");
    EXPECT_LINKS(&t.reduce, 8, lam8_up, lam8_up_kids);
    EXPECT_LINKS(&t.bcast, 8, lam8_down, lam8_down_kids);
    if (PARSE_OK(lam8_script, &s)) {
        CHECK(s.script && s.size == 8 && s.has_reduce && s.has_bcast, "script header");
        EXPECT_LINKS(&s.reduce, 8, lam8_up, lam8_up_kids);
        EXPECT_LINKS(&s.bcast, 8, lam8_down, lam8_down_kids);
        trl_tree_file_free(&s);
    }
    CHECK(trl_tree_links_depth(&t.reduce, 8, 0) == 3 && trl_tree_links_depth(&t.bcast, 8, 0) == 3,
          "depth 3 both ways");
    CHECK(trl_tree_links_max_children(&t.reduce, 8) == 3, "most children 3");
    trl_tree_file_free(&t);
    CHECK(t.path == NULL && t.reduce.parent == NULL && !t.has_reduce, "free leaves zeros");
}

static void reads_lam16_in_both_formats(void)
{
    trl_tree_file t, s;
    if (!PARSE_OK(lam16_tree, &t))
        return;
    EXPECT_LINKS(&t.reduce, 16, lam16_up, lam16_up_kids);
    EXPECT_LINKS(&t.bcast, 16, lam16_down, lam16_down_kids);
    if (PARSE_OK(lam16_script, &s)) {
        CHECK(same_links(&s.reduce, &t.reduce, 16), "script and tree: the same reduce tree");
        CHECK(same_links(&s.bcast, &t.bcast, 16), "script and tree: the same bcast tree");
        int first = s.reduce.child_first[12];
        CHECK(s.reduce.parent[12] == 8 && s.reduce.child_first[13] - first == 2 &&
                  s.reduce.child[first] == 13 && s.reduce.child[first + 1] == 14,
              "rank 12: recv 13, recv 14, send 8");
        trl_tree_file_free(&s);
    }
    CHECK(trl_tree_links_depth(&t.reduce, 16, 0) == 4, "reduce depth 4");
    CHECK(trl_tree_links_depth(&t.bcast, 16, 0) == 4, "bcast depth 4");
    CHECK(trl_tree_links_max_children(&t.reduce, 16) == 4, "reduce: 4 children at most");
    CHECK(trl_tree_links_max_children(&t.bcast, 16) == 4, "bcast: 4 children at most");
    CHECK(trl_tree_links_ordered(&t.reduce, 16, 0), "the lowest-bit tree keeps rank order");
    CHECK(!trl_tree_links_ordered(&t.bcast, 16, 0), "the highest-bit tree does not");
    trl_tree_file_free(&t);
}

/* ---- other good files ------------------------------------------------------------ */

static void reads_a_both_file_with_another_root(void)
{
    static const char text[] = "trellis tree\nranks 5\nroot 3\nboth\n"
                               "rank 0 parent 3 children 1 2\nrank 1 parent 0\nrank 2 parent 0\n"
                               "rank 3 parent none children 4 0\nrank 4 parent 3\n";
    static const int parent[] = {3, 0, 0, -1, 3};
    static const char *const kids[] = {"1 2", "", "", "4 0", ""};
    trl_tree_file f;
    if (!PARSE_OK(text, &f))
        return;
    CHECK(f.root == 3 && f.size == 5 && f.has_reduce && f.has_bcast, "both: two directions");
    EXPECT_LINKS(&f.reduce, 5, parent, kids);
    EXPECT_LINKS(&f.bcast, 5, parent, kids);
    CHECK(f.reduce.parent != f.bcast.parent && f.reduce.child != f.bcast.child,
          "each direction owns its arrays");
    CHECK(!trl_tree_links_ordered(&f.reduce, 5, 3), "rooted at 3: not in rank order");
    CHECK(trl_tree_links_depth(&f.reduce, 5, 3) == 2, "depth 2");
    CHECK(trl_tree_links_max_children(&f.reduce, 5) == 2, "2 children at most");
    trl_tree_file_free(&f);
}

static void reads_one_rank_and_single_directions(void)
{
    static const char tree1[] = "trellis tree\nranks 1\nroot 0\nboth\nrank 0 parent none";
    /* As `trellis plan` writes it: "rank 0: " with a blank after the colon. */
    static const char script1[] = "trellis script\nranks 1\nroot 0\n"
                                  "reduce\nrank 0: \nbcast\nrank 0:";
    static const char bcast_only[] = "trellis tree\nranks 2\nroot 1\nbcast\n"
                                     "rank 0 parent 1\nrank 1 parent none children 0\n";
    static const char reduce_last[] = "trellis script\nranks 2\nroot 0\nbcast\nrank 0: send 1\n"
                                      "rank 1: recv 0\nreduce\nrank 1: send 0\nrank 0: recv 1\n";
    static const int none[] = {-1};
    static const char *const no_kids[] = {""};
    trl_tree_file f;
    if (PARSE_OK(tree1, &f)) {
        CHECK(f.size == 1 && f.has_reduce && f.has_bcast, "one rank, both");
        EXPECT_LINKS(&f.bcast, 1, none, no_kids);
        CHECK(trl_tree_links_ordered(&f.reduce, 1, 0), "one rank is in order");
        CHECK(trl_tree_links_depth(&f.reduce, 1, 0) == 0, "depth 0");
        CHECK(trl_tree_links_max_children(&f.reduce, 1) == 0, "no children");
        trl_tree_file_free(&f);
    }
    if (PARSE_OK(script1, &f)) {
        EXPECT_LINKS(&f.reduce, 1, none, no_kids);
        trl_tree_file_free(&f);
    }
    if (PARSE_OK(bcast_only, &f)) {
        CHECK(!f.has_reduce && f.has_bcast && f.reduce.parent == NULL, "bcast only");
        CHECK(f.bcast.parent[0] == 1 && f.bcast.parent[1] == -1, "bcast from 1");
        trl_tree_file_free(&f);
    }
    if (PARSE_OK(reduce_last, &f)) {
        CHECK(f.has_reduce && f.has_bcast && f.reduce.parent[1] == 0, "sections in any order");
        trl_tree_file_free(&f);
    }
}

/* Comments, blank lines, CRLF, tabs, no spaces around ':' and ',', no
 * newline at the end, a comment before the first line, ranks out of order. */
static void reads_loose_layout(void)
{
    static const char tree[] = "\n# a comment first\r\n  trellis\ttree   # kind\r\n"
                               "\tranks\t3 \r\nroot 0\n\nboth # the section\n"
                               "rank 2 parent 0\r\nrank 0 parent none children\t1 2 # two\n"
                               "rank 1 parent 0";
    static const char script[] = "trellis script\nranks 3\nroot 0\nreduce\n"
                                 "rank 0:recv 1,recv 2\nrank 1 : send 0\r\nrank 2:send 0 ,\n";
    static const int parent[] = {-1, 0, 0};
    static const char *const kids[] = {"1 2", "", ""};
    trl_tree_file f;
    if (PARSE_OK(tree, &f)) {
        EXPECT_LINKS(&f.reduce, 3, parent, kids);
        trl_tree_file_free(&f);
    }
    /* The trailing ',' is a command missing: an error, not layout. */
    trl_file_error err;
    CHECK(trl_tree_file_parse(script, "s", &f, &err) == TRL_ERR_PARSE && err.line == 7,
          "a trailing ',' is refused at line 7 (got line %d)", err.line);
    char fixed[sizeof script];
    strcpy(fixed, script);
    *strrchr(fixed, ',') = ' ';
    if (PARSE_OK(fixed, &f)) {
        EXPECT_LINKS(&f.reduce, 3, parent, kids);
        trl_tree_file_free(&f);
    }
}

/* ---- rank order ----------------------------------------------------------------- */

/* Host-hierarchical trees: leaders serve their host's ranks, then the next
 * leaders. Under block placement (host h holds ranks 4h..4h+3) the ranks
 * come in order; under round-robin (host h holds h, h+2, ...) they do not. */

/* A valid tree whose reduce does not combine in rank order. */
static void expect_unordered(int line, const char *text, const char *what)
{
    trl_tree_file f;
    if (!parse_ok(line, text, &f))
        return;
    if (trl_tree_links_ordered(&f.reduce, f.size, f.root))
        check_at(line, "%s: reported in rank order", what);
    trl_tree_file_free(&f);
}

static void tells_rank_order(void)
{
    static const char block[] = "trellis tree\nranks 16\nroot 0\nboth\n"
                                "rank 0 parent none children 1 2 3 4 8\n"
                                "rank 1 parent 0\nrank 2 parent 0\nrank 3 parent 0\n"
                                "rank 4 parent 0 children 5 6 7\n"
                                "rank 5 parent 4\nrank 6 parent 4\nrank 7 parent 4\n"
                                "rank 8 parent 0 children 9 10 11 12\n"
                                "rank 9 parent 8\nrank 10 parent 8\nrank 11 parent 8\n"
                                "rank 12 parent 8 children 13 14 15\n"
                                "rank 13 parent 12\nrank 14 parent 12\nrank 15 parent 12\n";
    static const char rr[] = "trellis tree\nranks 8\nroot 0\nboth\n"
                             "rank 0 parent none children 2 4 6 1\nrank 1 parent 0 children 3 5 7\n"
                             "rank 2 parent 0\nrank 3 parent 1\nrank 4 parent 0\n"
                             "rank 5 parent 1\nrank 6 parent 0\nrank 7 parent 1\n";
    static const char root3[] = "trellis tree\nranks 4\nroot 3\nboth\n"
                                "rank 3 parent none children 0 1 2\n"
                                "rank 0 parent 3\nrank 1 parent 3\nrank 2 parent 3\n";
    /* The right runs in the wrong child order, and a run with a gap. */
    static const char swapped[] = "trellis tree\nranks 3\nroot 0\nboth\n"
                                  "rank 0 parent none children 2 1\n"
                                  "rank 1 parent 0\nrank 2 parent 0\n";
    static const char gap[] = "trellis tree\nranks 4\nroot 0\nboth\n"
                              "rank 0 parent none children 1 2\nrank 1 parent 0 children 3\n"
                              "rank 2 parent 0\nrank 3 parent 1\n";
    trl_tree_file f;
    if (PARSE_OK(block, &f)) {
        CHECK(trl_tree_links_ordered(&f.reduce, 16, 0), "block hierarchy: in rank order");
        CHECK(trl_tree_links_depth(&f.reduce, 16, 0) == 3, "block hierarchy: depth 3");
        CHECK(trl_tree_links_max_children(&f.reduce, 16) == 5, "block hierarchy: 5 at the root");
        trl_tree_file_free(&f);
    }
    expect_unordered(__LINE__, rr, "round-robin hierarchy");
    expect_unordered(__LINE__, root3, "rooted at 3");
    expect_unordered(__LINE__, swapped, "children 2 1");
    expect_unordered(__LINE__, gap, "subtree {1, 3}");
}

/* ---- every error, with its line ------------------------------------------------------ */

typedef struct {
    const char *text;
    const char *want; /* "source:line: message" */
} bad_case;

#define T      "trellis tree\nranks 3\nroot 0\n"
#define S      "trellis script\nranks 3\nroot 0\n"
#define T_BOTH T "both\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\n"
static const bad_case bad[] = {
    /* The first line, and the file as a whole. */
    {"", "x:1: empty file: expected 'trellis tree' or 'trellis script'"},
    {"# only a comment\n\n", "x:1: empty file: expected 'trellis tree' or 'trellis script'"},
    {"trellis forest\n", "x:1: expected 'trellis tree' or 'trellis script' as the first line"},
    {"\n# c\ntrellis tree extra\n",
     "x:3: expected 'trellis tree' or 'trellis script' as the first line"},
    {"ranks 3\n", "x:1: expected 'trellis tree' or 'trellis script' as the first line"},
    {T, "x:3: no section: expected reduce, bcast or both"},
    {"trellis tree\nranks 3\nroot 0", "x:3: no section: expected reduce, bcast or both"},
    /* ranks and root. */
    {"trellis tree\nranks x\n", "x:2: ranks: expected a number, got 'x'"},
    {"trellis tree\nranks -1\n", "x:2: ranks: expected a number, got '-1'"},
    {"trellis tree\nranks 0\n", "x:2: ranks must be at least 1"},
    {"trellis tree\nranks 1048577\n", "x:2: ranks 1048577 is too many (at most 1048576)"},
    {"trellis tree\nranks 99999999999999999999999999\n",
     "x:2: ranks 99999999999999999999999999 is too many (at most 1048576)"},
    {"trellis tree\nranks\n", "x:2: 'ranks' needs a number"},
    {"trellis tree\nranks 3\nranks 4\n", "x:3: 'ranks' given twice (first on line 2)"},
    {"trellis tree\nroot 0\n", "x:2: 'root' must come after 'ranks'"},
    {"trellis tree\nranks 3\nroot 3\n", "x:3: root 3 is out of range (the file has 3 ranks: 0..2)"},
    {"trellis tree\r\nranks 3\r\nroot 5\r\n",
     "x:3: root 5 is out of range (the file has 3 ranks: 0..2)"},
    {"trellis tree\nranks 1\nroot 1\n", "x:3: root 1 is out of range (the file has 1 rank: 0)"},
    {"trellis tree\nranks 3\nroot 0 1\n", "x:3: unexpected '1' after root"},
    {T "root 1\n", "x:4: 'root' given twice (first on line 3)"},
    {"trellis tree\nranks 3\nboth\n", "x:3: no 'root R' line before the first section"},
    {"trellis tree\nboth\n", "x:2: no 'ranks N' line before the first section"},
    {T_BOTH "ranks 4\n", "x:8: 'ranks' must come before the first section"},
    {T_BOTH "root 0\n", "x:8: 'root' must come before the first section"},
    /* Sections and keywords. */
    {T "rank 0 parent none\n", "x:4: a rank line before any section (reduce, bcast or both)"},
    {T "reduce\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\nreduce\n",
     "x:8: a second reduce section (the first is on line 4)"},
    {T "reduce\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\nboth\n",
     "x:8: 'both' cannot follow a reduce section (line 4): a file has both, or reduce and bcast"},
    {T_BOTH "bcast\n",
     "x:8: 'bcast' cannot follow the both section (line 4): a file has both, or reduce and bcast"},
    {T "both extra\n",
     "x:4: unexpected 'extra' after both (a section header stands alone on its line)"},
    {S "both\n",
     "x:4: a script has reduce and bcast sections, not both (its commands differ by direction)"},
    {T "leaves\n",
     "x:4: unknown keyword 'leaves' (expected ranks, root, reduce, bcast, both or rank)"},
    {T "Both\n", "x:4: unknown keyword 'Both' (expected ranks, root, reduce, bcast, both or rank)"},
    {T "\x01\xff\n", /* "?" "?" is no trigraph */
     "x:4: unknown keyword '?"
     "?' (expected ranks, root, reduce, bcast, both or rank)"},
    {T "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     "x:4: unknown keyword 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (expected ranks, root, "
     "reduce, bcast, both or rank)"},
    /* Tree rank lines, as they are read. */
    {T "both\nrank\n", "x:5: 'rank' needs a rank number"},
    {T "both\nrank x parent none\n", "x:5: rank: expected a number, got 'x'"},
    {T "both\nrank 3 parent 0\n", "x:5: rank 3 is out of range (the file has 3 ranks: 0..2)"},
    {T "both\nrank 123456789012345678901234567890 parent 0\n",
     "x:5: rank 123456789012345678901234567890 is out of range (the file has 3 ranks: 0..2)"},
    {T "both\nrank 0 parent none children 1 2\nrank 0 parent none\n",
     "x:6: rank 0 is listed twice in the both section (first on line 5)"},
    {T "both\nrank 0 child 1\n", "x:5: expected 'rank 0 parent P' (P a rank or none)"},
    {T "both\nrank 0 parent\n", "x:5: rank 0: parent needs a rank or none"},
    {T "both\nrank 1 parent x\n", "x:5: parent: expected a number, got 'x'"},
    {T "both\nrank 1 parent 7\n", "x:5: parent 7 is out of range (the file has 3 ranks: 0..2)"},
    {T "both\nrank 0 parent none kids 1\n",
     "x:5: unexpected 'kids' after the parent (expected children)"},
    {T "both\nrank 0 parent none children 1 x\n", "x:5: child: expected a number, got 'x'"},
    {T "both\nrank 0 parent none children 1, 2\n", "x:5: child: expected a number, got ','"},
    {T "both\nrank 0 parent none children 1 3\n",
     "x:5: child 3 is out of range (the file has 3 ranks: 0..2)"},
    {T "both\nrank 0 parent none children 1 1\n", "x:5: rank 0 lists child 1 twice"},
    {T "both\nrank 1 parent 0 children 1\n", "x:5: rank 1 lists itself as a child"},
    {T "both\nrank 1 parent 0 children 0\n",
     "x:5: rank 1 lists child 0, the root (the root has no parent)"},
    {T "both\nrank 0 parent 1 children 1 2\n",
     "x:5: the root 0 names parent 1 (the root has no parent)"},
    {T "both\nrank 0 parent none children 1\nrank 1 parent 0\nrank 2 parent none\n",
     "x:7: rank 2 names parent none, but only the root 0 has no parent"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 1\n", "x:6: rank 1 is its own parent"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0 children 2\n",
     "x:6: rank 1 lists child 2, as rank 0 already does (line 5); a rank has one parent"},
    /* Tree sections as a whole. */
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0\n",
     "x:4: rank 2 has no line in the both section"},
    {T "reduce\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 0\n"
       "bcast\nrank 0 parent none children 1 2\n",
     "x:8: rank 1 has no line in the bcast section"},
    {T "both\nrank 0 parent none children 1\nrank 1 parent 0\nrank 2 parent 0\n",
     "x:7: rank 2 names parent 0, but rank 0 does not list 2 (its line is 5)"},
    {T "both\nrank 0 parent none children 1 2\nrank 1 parent 0\nrank 2 parent 1\n",
     "x:7: rank 2 names parent 1, but rank 1 does not list 2 (its line is 6); rank 0 does "
     "(line 5)"},
    {"trellis tree\nranks 6\nroot 0\nboth\nrank 0 parent none children 1\n"
     "rank 1 parent 0 children 2\nrank 2 parent 1 children 3\nrank 3 parent 2\n"
     "rank 4 parent 5 children 5\nrank 5 parent 4 children 4\n",
     "x:9: ranks 4, 5 do not reach the root 0 (cycle 4 -> 5 -> 4)"},
    {"trellis tree\nranks 5\nroot 0\nboth\nrank 0 parent none\nrank 3 parent 2 children 1\n"
     "rank 2 parent 1 children 3 4\nrank 1 parent 3 children 2\nrank 4 parent 2\n",
     "x:8: ranks 1, 2, 3, 4 do not reach the root 0 (cycle 1 -> 3 -> 2 -> 1)"},
    /* Script rank lines. */
    {S "reduce\nrank 0 recv 1\n", "x:5: expected 'rank 0:' followed by commands"},
    {S "reduce\nrank 0: post 1\n", "x:5: unknown command 'post' (expected recv or send)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send\n", "x:6: send needs a rank"},
    {S "reduce\nrank 0: recv , recv 2\n", "x:5: recv needs a rank"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send x\n", "x:6: send: expected a number, got 'x'"},
    {S "reduce\nrank 0: recv 1, recv 5\n",
     "x:5: recv 5 is out of range (the file has 3 ranks: 0..2)"},
    {S "reduce\nrank 1: send 1\n", "x:5: rank 1 cannot send to itself"},
    {S "bcast\nrank 1: recv 1\n", "x:5: rank 1 cannot recv from itself"},
    {S "reduce\nrank 0: recv 1 recv 2\n", "x:5: expected ',' between commands, got 'recv'"},
    {S "reduce\nrank 0: recv 1,\n", "x:5: expected a command after ','"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0, send 0\n",
     "x:6: rank 1: a second send (a rank sends to one rank)"},
    {S "reduce\nrank 0: recv 1\nrank 1: send 0, recv 2\n",
     "x:6: rank 1: recv after its send (the send comes last)"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0, recv 0\n",
     "x:6: rank 1: a second recv (a rank receives from one rank)"},
    {S "bcast\nrank 0: send 1\nrank 1: send 2, recv 0\n",
     "x:6: rank 1: recv after a send (the recv comes first)"},
    {S "reduce\nrank 0: recv 1, recv 2, send 1\n",
     "x:5: the root 0 sends to 1 (the root sends nothing)"},
    {S "bcast\nrank 0: recv 1, send 2\n",
     "x:5: the root 0 receives from 1 (the root receives nothing)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2:\n",
     "x:7: rank 2 does not send, but only the root 0 sends nothing"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0\nrank 2: \n",
     "x:7: rank 2 does not receive, but only the root 0 receives nothing"},
    {S "reduce\nrank 0: recv 1, recv 1\n", "x:5: rank 0 receives from 1 twice"},
    {S "bcast\nrank 0: send 1, send 1\n", "x:5: rank 0 sends to 1 twice"},
    {S "reduce\nrank 1: recv 0\n",
     "x:5: rank 1 receives from 0, the root (the root sends nothing)"},
    {S "bcast\nrank 1: recv 0, send 0\n",
     "x:5: rank 1 sends to 0, the root (the root receives nothing)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: recv 2, send 0\n",
     "x:6: rank 1 receives from 2, as rank 0 already does (line 5); a rank sends to one rank"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0, send 2\n",
     "x:6: rank 1 sends to 2, as rank 0 already does (line 5); a rank receives from one rank"},
    /* Script sections as a whole: sends and receives that do not match. */
    {S "reduce\nrank 0: recv 1\nrank 1: send 0\n", "x:4: rank 2 has no line in the reduce section"},
    {S "reduce\nrank 0: recv 1\nrank 1: send 0\nrank 2: send 0\n",
     "x:7: rank 2 sends to 0, but rank 0 does not recv 2 (its line is 5)"},
    {S "reduce\nrank 0: recv 1, recv 2\nrank 1: send 0\nrank 2: send 1\n",
     "x:7: rank 2 sends to 1, but rank 1 does not recv 2 (its line is 6); rank 0 does (line 5)"},
    {S "bcast\nrank 0: send 1\nrank 1: recv 0\nrank 2: recv 0\n",
     "x:7: rank 2 receives from 0, but rank 0 does not send to 2 (its line is 5)"},
    {S "bcast\nrank 0: send 1, send 2\nrank 1: recv 0\nrank 2: recv 1\n",
     "x:7: rank 2 receives from 1, but rank 1 does not send to 2 (its line is 6); rank 0 does "
     "(line 5)"},
    {S "reduce\nrank 0:\nrank 1: recv 2, send 2\nrank 2: recv 1, send 1\n",
     "x:6: ranks 1, 2 do not reach the root 0 (cycle 1 -> 2 -> 1)"},
};
#undef T
#undef S
#undef T_BOTH

static void reports_every_error_with_its_line(void)
{
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        trl_tree_file f;
        trl_file_error err;
        int rc = trl_tree_file_parse(bad[i].text, "x", &f, &err);
        char got[900];
        trl_file_error_format(&err, got, sizeof got);
        CHECK(rc == TRL_ERR_PARSE, "case %zu (%s): rc %d, want TRL_ERR_PARSE", i, bad[i].want, rc);
        if (rc != TRL_OK && strcmp(got, bad[i].want))
            check_at(__LINE__, "case %zu:\n  got  %s\n  want %s", i, got, bad[i].want);
        CHECK(f.path == NULL && f.reduce.parent == NULL && f.bcast.parent == NULL && !f.has_reduce,
              "case %zu: a failed parse leaves out empty", i);
        trl_tree_file_free(&f); /* harmless after a failure */
    }
}

/* A cycle of 99 ranks: the message lists the first 8 and cuts the cycle. */
static void shortens_long_cycles(void)
{
    static char text[8192];
    int at = snprintf(text, sizeof text,
                      "trellis tree\nranks 100\nroot 0\nreduce\nrank 0 parent none\n");
    for (int r = 1; r < 100; r++) /* r's parent is r + 1, 99's is 1 */
        at += snprintf(text + at, sizeof text - (size_t)at, "rank %d parent %d children %d\n", r,
                       r < 99 ? r + 1 : 1, r > 1 ? r - 1 : 99);
    trl_tree_file f;
    trl_file_error err;
    CHECK(trl_tree_file_parse(text, "x", &f, &err) == TRL_ERR_PARSE, "a cycle is refused");
    const char *head = "ranks 1, 2, 3, 4, 5, 6, 7, 8, ... (99 in all) do not reach the root 0 "
                       "(cycle 1 -> 2 -> 3 -> ";
    CHECK(err.line == 6 && !strncmp(err.message, head, strlen(head)) && strlen(err.message) > 7 &&
              !strcmp(err.message + strlen(err.message) - 8, " -> ...)"),
          "line %d: %s", err.line, err.message);
}

/* ---- reading files --------------------------------------------------------------- */

static bool write_file(char *path, const void *data, size_t len)
{
    strcpy(path, "/tmp/trellis-tree-test-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return false;
    bool ok = write(fd, data, len) == (ssize_t)len;
    close(fd);
    return ok;
}

static void expect_load_error(int line, const char *path, int want_rc, const char *want)
{
    trl_tree_file f;
    trl_file_error err;
    int rc = trl_tree_file_load(path, &f, &err);
    char got[900];
    trl_file_error_format(&err, got, sizeof got);
    if (rc != want_rc || strcmp(got, want))
        check_at(line, "load %s: rc %d \"%s\", want rc %d \"%s\"", path, rc, got, want_rc, want);
    if (rc == TRL_OK)
        trl_tree_file_free(&f);
}
#define EXPECT_LOAD_ERROR(path, rc, ...)                                                           \
    do {                                                                                           \
        char want_[900];                                                                           \
        snprintf(want_, sizeof want_, __VA_ARGS__);                                                \
        expect_load_error(__LINE__, path, rc, want_);                                              \
    } while (0)

static void loads_files_and_reports_unreadable_ones(void)
{
    char path[64];
    trl_tree_file f;
    trl_file_error err;
    CHECK(write_file(path, lam8_tree, sizeof lam8_tree - 1), "write %s", path);
    if (trl_tree_file_load(path, &f, &err) == TRL_OK) {
        CHECK_STR(f.path, path);
        EXPECT_LINKS(&f.bcast, 8, lam8_down, lam8_down_kids);
        trl_tree_file_free(&f);
    } else {
        check_at(__LINE__, "load %s: %s", path, err.message);
    }
    unlink(path);
    EXPECT_LOAD_ERROR(path, TRL_ERR_IO, "%s: cannot read the tree file: No such file or directory",
                      path);
    EXPECT_LOAD_ERROR("/tmp", TRL_ERR_IO, "/tmp: cannot read the tree file: Is a directory");
    EXPECT_LOAD_ERROR("/dev/null", TRL_ERR_PARSE,
                      "/dev/null:1: empty file: expected 'trellis tree' or 'trellis script'");

    static const char nul[] = "trellis tree\nranks 2\0\1\2";
    CHECK(write_file(path, nul, sizeof nul - 1), "write %s", path);
    EXPECT_LOAD_ERROR(path, TRL_ERR_PARSE, "%s:2: not a text file (it holds a NUL byte)", path);
    unlink(path);

    static const unsigned char noise[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0xff, 0xfe};
    CHECK(write_file(path, noise, sizeof noise), "write %s", path);
    EXPECT_LOAD_ERROR(path, TRL_ERR_PARSE,
                      "%s:1: expected 'trellis tree' or 'trellis script' as the first line", path);
    unlink(path);

    /* A sparse file past the limit: refused before it is parsed. */
    CHECK(write_file(path, "", 0), "write %s", path);
    CHECK(truncate(path, (off_t)300 << 20) == 0, "truncate: %s", strerror(errno));
    EXPECT_LOAD_ERROR(path, TRL_ERR_IO, "%s: cannot read the tree file: larger than 256 MiB", path);
    unlink(path);
}

/* ---- damaged and huge input ----------------------------------------------------------- */

static int count_lines(const char *text)
{
    int n = 1;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

/* Parses text and checks the outcome is sane: success, or an error on a
 * line of the text with a message. Run under AddressSanitizer this also
 * finds reads past the end and leaks. */
static void parse_sane(const char *text, const char *what, size_t i)
{
    trl_tree_file f;
    trl_file_error err;
    int rc = trl_tree_file_parse(text, "x", &f, &err);
    if (rc == TRL_OK) {
        trl_tree_file_free(&f);
        return;
    }
    if (rc != TRL_ERR_PARSE || err.line < 1 || err.line > count_lines(text) || !err.message[0])
        check_at(__LINE__, "%s %zu: rc %d line %d \"%s\"", what, i, rc, err.line, err.message);
}

static void survives_truncated_and_damaged_files(void)
{
    const char *const good[] = {lam8_tree, lam8_script, lam16_tree, lam16_script};
    static char text[sizeof lam16_tree + sizeof lam16_script];
    for (int g = 0; g < 4; g++) {
        size_t len = strlen(good[g]);
        for (size_t cut = 0; cut <= len; cut++) { /* every prefix */
            memcpy(text, good[g], cut);
            text[cut] = '\0';
            parse_sane(text, "prefix", cut);
        }
        unsigned seed = 12345u + (unsigned)g;
        for (size_t i = 0; i < 3000; i++) { /* a few bytes changed at random */
            memcpy(text, good[g], len + 1);
            for (int k = 0; k < 1 + (int)(i % 3); k++) {
                seed = seed * 1103515245u + 12345u;
                size_t at = (seed >> 8) % len;
                seed = seed * 1103515245u + 12345u;
                static const char alphabet[] = "0123456789 ,:\n#-x\xff";
                text[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
            }
            parse_sane(text, "mutation", i);
        }
    }
}

/* A chain and a star of 1<<20 ranks: no deep recursion, nothing quadratic. */
static void reads_the_largest_files(void)
{
    enum { N = 1 << 20 };
    size_t cap = (size_t)N * 48 + 100;
    char *chain = malloc(cap), *star = malloc(cap);
    if (!chain || !star) {
        check_at(__LINE__, "out of memory for the test texts");
        free(chain);
        free(star);
        return;
    }
    size_t c = (size_t)sprintf(chain, "trellis tree\nranks %d\nroot 0\nboth\n", N);
    size_t s = (size_t)sprintf(star, "trellis script\nranks %d\nroot 0\nreduce\nrank 0:", N);
    for (int r = 0; r < N; r++) {
        if (r)
            c += (size_t)sprintf(chain + c, "rank %d parent %d", r, r - 1);
        else
            c += (size_t)sprintf(chain + c, "rank 0 parent none");
        if (r + 1 < N)
            c += (size_t)sprintf(chain + c, " children %d", r + 1);
        c += (size_t)sprintf(chain + c, "\n");
        if (r)
            s += (size_t)sprintf(star + s, "%s recv %d", r > 1 ? "," : "", r);
    }
    s += (size_t)sprintf(star + s, "\n");
    for (int r = 1; r < N; r++)
        s += (size_t)sprintf(star + s, "rank %d: send 0\n", r);
    trl_tree_file f;
    if (PARSE_OK(chain, &f)) {
        CHECK(trl_tree_links_ordered(&f.reduce, N, 0), "chain: in rank order");
        CHECK(trl_tree_links_depth(&f.bcast, N, 0) == N - 1, "chain: depth N-1");
        CHECK(trl_tree_links_max_children(&f.bcast, N) == 1, "chain: one child");
        trl_tree_file_free(&f);
    }
    if (PARSE_OK(star, &f)) {
        CHECK(trl_tree_links_ordered(&f.reduce, N, 0), "star: in rank order");
        CHECK(trl_tree_links_depth(&f.reduce, N, 0) == 1, "star: depth 1");
        CHECK(trl_tree_links_max_children(&f.reduce, N) == N - 1, "star: N-1 children");
        trl_tree_file_free(&f);
    }
    free(chain);
    free(star);
}

int main(void)
{
    RUN(reads_lam8_in_both_formats);
    RUN(reads_lam16_in_both_formats);
    RUN(reads_a_both_file_with_another_root);
    RUN(reads_one_rank_and_single_directions);
    RUN(reads_loose_layout);
    RUN(tells_rank_order);
    RUN(reports_every_error_with_its_line);
    RUN(shortens_long_cycles);
    RUN(loads_files_and_reports_unreadable_ones);
    RUN(survives_truncated_and_damaged_files);
    RUN(reads_the_largest_files);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
