/* trellis_set_rules (include/trellis.h, docs/rules.md "Replacing the rules
 * at run time"): a program switching among rules texts while it runs.
 *
 *   before MPI_Init, after MPI_Finalize   refused, with a message saying so;
 *   switches                              allreduce ring / recursive_doubling /
 *                                         mpi, bcast knomial radix=3 / binomial,
 *                                         each call's result checked, and the
 *                                         new choice seen in verbose mode;
 *   whole replacement                     rules not in the new text fall back
 *                                         to the built-in ones;
 *   parse errors                          non-zero, the message located at the
 *                                         line and word, the rules unchanged;
 *   requests                              a persistent allreduce initialized
 *                                         before a switch, started after it,
 *                                         and a non-blocking one in flight
 *                                         across a switch, stay right;
 *   repeats and fixed choices             an allgather repeated before and after
 *                                         a switch (the repeat memo), gatherv
 *                                         (chosen once per communicator);
 *   empty text, NULL                      the built-in choice again.
 *
 * Whether a switch took effect is read from Trellis' own verbose lines
 * (TRELLIS_VERBOSE=1, which tests/mpi/run_forced.sh sets): rank 0 sends its
 * stderr to a file while it runs and looks for the line each choice must
 * give, then copies the file back to its stderr. One rank: Trellis hands
 * every call to the MPI library, so only the results and the function's
 * answers are checked. */
#define _GNU_SOURCE
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define PINIT(Name) MPI_##Name##_init
#endif

static int rank, size, failures, checks;

typedef int (*set_rules_fn)(const char *text, char *err, size_t errlen);
static set_rules_fn set_rules;

/* ---- verbose lines -------------------------------------------------------- */

static bool watching; /* rank 0 with verbose mode on, more than one rank */
static int saved_fd = -1;
static char log_path[] = "/tmp/test_set_rules.XXXXXX";

static void watch_start(void)
{
    const char *v = getenv("TRELLIS_VERBOSE");
    if (rank != 0 || size == 1 || !v || !*v || !strcmp(v, "0"))
        return;
    int fd = mkstemp(log_path);
    if (fd < 0)
        return;
    fflush(stderr);
    saved_fd = dup(2);
    dup2(fd, 2);
    close(fd);
    watching = true;
}

/* The log so far (malloc'd). */
static char *log_text(void)
{
    fflush(stderr);
    FILE *f = fopen(log_path, "r");
    if (!f)
        return strdup("");
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; (got = fread(buf + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Rank 0 (watching): a verbose line "trellis: <head>" must have been said,
 * and its rest hold `rule`. The last such line counts. */
static void said(const char *head, const char *rule, const char *why)
{
    if (!watching)
        return;
    char *text = log_text();
    char want[256];
    snprintf(want, sizeof want, "trellis: %s", head);
    const char *line = NULL;
    for (const char *p = text; (p = strstr(p, want)); p++)
        if (p == text || p[-1] == '\n')
            line = p;
    char got[512] = "(none)";
    if (line)
        snprintf(got, sizeof got, "%.*s", (int)strcspn(line, "\n"), line);
    CHECK(line && strstr(got, rule), "%s: wanted a verbose line '%s...%s', got %s", why, want, rule,
          got);
    free(text);
}

static void watch_stop(void)
{
    if (!watching)
        return;
    char *text = log_text();
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    fputs(text, stderr);
    free(text);
    unlink(log_path);
    watching = false;
}

/* "allreduce ranks=4 bytes=20: " */
static const char *head(const char *coll, long bytes)
{
    static char buf[128];
    if (bytes < 0)
        snprintf(buf, sizeof buf, "%s ranks=%d: ", coll, size);
    else
        snprintf(buf, sizeof buf, "%s ranks=%d bytes=%ld: ", coll, size, bytes);
    return buf;
}

/* ---- collectives, each result checked ----------------------------------- */

static int value(int r, int i, int k)
{
    return r * 1000 + i * 7 + k;
}

/* An allreduce's buffers for round k, and the first element of its
 * result that is not the sum over n ranks (-1: none). */
static void sum_fill(int *in, int *out, int count, int k)
{
    for (int i = 0; i < count; i++) {
        in[i] = value(rank, i, k);
        out[i] = -1;
    }
}

static int sum_wrong(const int *out, int count, int n, int k)
{
    for (int i = 0; i < count; i++) {
        long want = 0;
        for (int r = 0; r < n; r++)
            want += value(r, i, k);
        if (out[i] != want)
            return i;
    }
    return -1;
}

static void allreduce(MPI_Comm comm, int count, int k, const char *why)
{
    int n;
    MPI_Comm_size(comm, &n);
    int *in = malloc(sizeof(int) * (size_t)count), *out = malloc(sizeof(int) * (size_t)count);
    sum_fill(in, out, count, k);
    MPI_Allreduce(in, out, count, MPI_INT, MPI_SUM, comm);
    int bad = sum_wrong(out, count, n, k);
    CHECK(bad < 0, "%s: allreduce of %d ints wrong at %d", why, count, bad);
    free(in);
    free(out);
}

static void bcast(int count, int root, int k, const char *why)
{
    int *buf = malloc(sizeof(int) * (size_t)count);
    for (int i = 0; i < count; i++)
        buf[i] = rank == root ? value(root, i, k) : -1;
    MPI_Bcast(buf, count, MPI_INT, root, MPI_COMM_WORLD);
    int bad = -1;
    for (int i = 0; i < count && bad < 0; i++)
        if (buf[i] != value(root, i, k))
            bad = i;
    CHECK(bad < 0, "%s: bcast of %d ints from %d wrong at %d", why, count, root, bad);
    free(buf);
}

static void allgather(int count, int k, const char *why)
{
    int *in = malloc(sizeof(int) * (size_t)count);
    int *out = malloc(sizeof(int) * (size_t)count * (size_t)size);
    for (int i = 0; i < count; i++)
        in[i] = value(rank, i, k);
    for (int i = 0; i < count * size; i++)
        out[i] = -1;
    MPI_Allgather(in, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD);
    int bad = -1;
    for (int i = 0; i < count * size && bad < 0; i++)
        if (out[i] != value(i / count, i % count, k))
            bad = i;
    CHECK(bad < 0, "%s: allgather of %d ints wrong at %d", why, count, bad);
    free(in);
    free(out);
}

static void gatherv(int k, const char *why)
{
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int total = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = r + 1;
        displs[r] = total;
        total += r + 1;
    }
    int *in = malloc(sizeof(int) * (size_t)(rank + 1)), *out = malloc(sizeof(int) * (size_t)total);
    for (int i = 0; i <= rank; i++)
        in[i] = value(rank, i, k);
    for (int i = 0; i < total; i++)
        out[i] = -1;
    MPI_Gatherv(in, rank + 1, MPI_INT, out, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    int bad = -1;
    for (int r = 0; r < size && rank == 0; r++)
        for (int i = 0; i <= r && bad < 0; i++)
            if (out[displs[r] + i] != value(r, i, k))
                bad = displs[r] + i;
    CHECK(bad < 0, "%s: gatherv wrong at %d", why, bad);
    free(counts);
    free(displs);
    free(in);
    free(out);
}

/* ---- the function ------------------------------------------------------- */

/* Installs text; it must succeed. */
static void install(const char *text)
{
    char err[1024] = "";
    int rc = set_rules(text, err, sizeof err);
    CHECK(rc == 0 && err[0] == '\0', "trellis_set_rules(\"%s\") returned %d: %s",
          text ? text : "(null)", rc, err);
}

/* Installing text must fail with a message starting with `want`. */
static void refused(const char *text, const char *want)
{
    char err[1024] = "";
    int rc = set_rules(text, err, sizeof err);
    CHECK(rc != 0 && strncmp(err, want, strlen(want)) == 0,
          "trellis_set_rules(\"%s\"): wanted an error starting '%s', got %d '%s'", text, want, rc,
          err);
}

static void switches(MPI_Comm dup)
{
    /* At start, TRELLIS_RULES empty: the built-in rules. */
    allreduce(MPI_COMM_WORLD, 5, 1, "built-in");
    said(head("allreduce", 20), "(built-in:", "the built-in rules at start");

    const char *algos[] = {"ring", "recursive_doubling", "mpi"};
    for (int a = 0; a < 3; a++) {
        char text[64], rule[96];
        snprintf(text, sizeof text, "allreduce %s", algos[a]);
        install(text);
        snprintf(rule, sizeof rule, "%s (trellis_set_rules:1: %s)", algos[a], text);
        for (int k = 0; k < 3; k++)
            allreduce(MPI_COMM_WORLD, 5, 10 * a + k, text);
        said(head("allreduce", 20), rule, text);
        allreduce(dup, 5, 10 * a + 5, text); /* another communicator, set up before */
        allreduce(MPI_COMM_WORLD, 3000, a, text);
        said(head("allreduce", 12000), rule, text);
    }

    install("bcast knomial radix=3; allreduce ring");
    bcast(100, 1 % size, 1, "bcast knomial radix=3");
    said(head("bcast", 400), "knomial (trellis_set_rules:1: bcast knomial radix=3)",
         "bcast knomial");
    allreduce(MPI_COMM_WORLD, 5, 40, "allreduce ring, second rule");
    said(head("allreduce", 20), "ring (trellis_set_rules:2: allreduce ring)", "second rule");

    /* The new text replaces the old whole: allreduce goes back to the built-in rules. */
    install("bcast binomial");
    bcast(100, 0, 2, "bcast binomial");
    said(head("bcast", 400), "binomial (trellis_set_rules:1: bcast binomial)", "bcast binomial");
    allreduce(MPI_COMM_WORLD, 5, 50, "allreduce built-in again");
    said(head("allreduce", 20), "(built-in:", "allreduce not in the new rules");
}

static void parse_errors(void)
{
    refused("allreduce ring\nbcast ringg",
            "trellis_set_rules:2:7: unknown algorithm 'ringg' for bcast");
    refused("allreduce ring; bcast ringg",
            "trellis_set_rules:2:8: unknown algorithm 'ringg' for bcast");
    refused("barrier ranks=9-3 linear", "trellis_set_rules:1:9: range '9-3' is empty");
    refused("allreduc ring", "trellis_set_rules:1:1: unknown collective 'allreduc'");
    /* A short buffer: cut, still a string; none: only the status. */
    char small[10];
    memset(small, 'x', sizeof small);
    CHECK(set_rules("bcast ringg", small, sizeof small) != 0 && strlen(small) == 9,
          "a short error buffer: '%.10s'", small);
    CHECK(set_rules("bcast ringg", NULL, 0) != 0, "no error buffer");
    /* The rules in force are still "bcast binomial": a size not seen yet. */
    bcast(101, size - 1, 3, "after errors");
    said(head("bcast", 404), "binomial (trellis_set_rules:1: bcast binomial)",
         "the rules unchanged by errors");
}

static void requests(void)
{
#ifdef PINIT
    enum { N = 1000 };
    int in[N], out[N];
    install("allreduce ring");
    MPI_Request r;
    PINIT(Allreduce)(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    said(head("allreduce_init", 4000), "ring (trellis_set_rules:1: allreduce ring)",
         "persistent init");
    const char *after[] = {"allreduce recursive_doubling", "allreduce mpi", ""};
    for (int round = 0; round < 3; round++) {
        install(after[round]);
        sum_fill(in, out, N, round);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        int bad = sum_wrong(out, N, size, round);
        CHECK(bad < 0, "persistent allreduce started under '%s': wrong at %d", after[round], bad);
        allreduce(MPI_COMM_WORLD, N, round, "a blocking one beside the persistent");
    }
    MPI_Request_free(&r);
#endif
    /* A non-blocking call in flight across a switch. */
    install("allreduce recursive_doubling");
    enum { M = 777 };
    int a[M], b[M];
    sum_fill(a, b, M, 9);
    MPI_Request q;
    MPI_Iallreduce(a, b, M, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    install("allreduce ring");
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    int bad = sum_wrong(b, M, size, 9);
    CHECK(bad < 0, "iallreduce across a switch: wrong at %d", bad);
}

static void memos(void)
{
    /* A repeated allgather skips its lookup (trl_move_repeat): after a
     * switch the repeat must not run the old rules' schedule. */
    install("allgather ring");
    for (int k = 0; k < 3; k++)
        allgather(3, k, "allgather ring");
    said(head("allgather", 12), "ring (trellis_set_rules:1: allgather ring)", "allgather ring");
    install("allgather bruck");
    for (int k = 0; k < 3; k++)
        allgather(3, 10 + k, "allgather bruck");
    said(head("allgather", 12), "bruck (trellis_set_rules:1: allgather bruck)",
         "allgather repeated after a switch");
    /* gatherv's choice is kept per communicator (no size to key it by). */
    install("gatherv linear");
    gatherv(1, "gatherv linear");
    said(head("gatherv", -1), "linear (trellis_set_rules:1: gatherv linear)", "gatherv linear");
    install("gatherv binomial");
    gatherv(2, "gatherv binomial");
    said(head("gatherv", -1), "binomial (trellis_set_rules:1: gatherv binomial)",
         "gatherv after a switch");
}

static void empty_text(void)
{
    install("allreduce ring");
    install("");
    allreduce(MPI_COMM_WORLD, 7, 1, "empty text");
    said(head("allreduce", 28), "(built-in:", "the empty text");
    install("allreduce ring");
    install(NULL);
    allreduce(MPI_COMM_WORLD, 9, 2, "NULL text");
    said(head("allreduce", 36), "(built-in:", "NULL");
}

int main(int argc, char **argv)
{
    void *sym = dlsym(RTLD_DEFAULT, "trellis_set_rules");
    memcpy(&set_rules, &sym, sizeof set_rules);
    int early = 1;
    char early_err[256] = "";
    if (set_rules)
        early = set_rules("allreduce ring", early_err, sizeof early_err);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(set_rules != NULL, "trellis_set_rules not found: is libtrellis.so preloaded?");
    if (set_rules) {
        CHECK(early != 0 && strstr(early_err, "before MPI_Init"),
              "before MPI_Init: wanted an error, got %d '%s'", early, early_err);
        watch_start();
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        allreduce(dup, 5, 0, "dup set up");
        switches(dup);
        parse_errors();
        requests();
        memos();
        empty_text();
        MPI_Comm_free(&dup);
        watch_stop();
    }
    int status = check_summary("test_set_rules", "", failures, checks);
    MPI_Finalize();
    if (set_rules) {
        char err[256] = "";
        int rc = set_rules("allreduce ring", err, sizeof err);
        if (rc == 0 || !strstr(err, "after MPI_Finalize")) {
            fprintf(stderr, "rank %d: after MPI_Finalize: wanted an error, got %d '%s'\n", rank, rc,
                    err);
            return 1;
        }
    }
    return status;
}
