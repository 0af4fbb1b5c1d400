/* The measuring side of `trellis tune` (issue 31): one MPI job that times
 * candidate rules one after the other, switching between them in-process
 * with trellis_set_rules (include/trellis.h) instead of one mpirun per
 * candidate. It is an ordinary MPI program started with libtrellis.so
 * preloaded:
 *
 *   trellis run -np N [mpirun options] build/bench/tune_worker [--max-size BYTES]
 *
 * Rank 0 reads commands from its standard input (mpirun forwards its own
 * standard input to rank 0, Open MPI's and MPICH's alike), one a line, and
 * passes each to every rank; every rank carries it out; rank 0 answers on
 * its standard output, one line per reply, flushed at once. The program's
 * own communication (passing commands, agreeing, collecting times) is
 * PMPI_* only, never through Trellis.
 *
 *   at start       ready ranks=P hosts=H ranks_per_host=Q
 *                  (H: distinct MPI_Get_processor_name; Q: the most ranks on
 *                  one of them)
 *   rules ID TEXT  stores candidate ID's rules (ID 0..65535; TEXT the rest of
 *                  the line, rules as TRELLIS_RULES takes them inline, ';'
 *                  between rules; empty: the built-in rules alone), checked
 *                  by installing them once on every rank and putting back
 *                  the rules installed before:
 *                    ok ID | error ID MESSAGE
 *   measure COLL SIZE ITERS ID [ID ...]
 *                  COLL a blocking collective as bench/latency names it
 *                  (bcast ... exscan), SIZE its nominal size in bytes (as
 *                  latency's rows: 4, 65536, or 64K), ITERS 1..1000000. For
 *                  each ID in turn: its rules installed; one call prepared
 *                  and checked (also the warm-up); ITERS calls, each after a
 *                  PMPI_Barrier, timed with MPI_Wtime on every rank, an
 *                  iteration's time the slowest rank's; one more prepared
 *                  and checked call. Then, per ID:
 *                    time ID COLL SIZE BYTES ITERS MEDIAN_US P10_US P90_US MIN_US
 *                    wrong ID COLL SIZE        (a rank saw a wrong result or
 *                                               an error; details on stderr)
 *                    error ID MESSAGE          (no rules stored for ID, or
 *                                               they could not be installed)
 *                  and after the last ID: end
 *   quit           (or the end of the input) finalizes and exits 0
 *
 * SIZE in replies is the nominal size in bytes as a decimal number, BYTES
 * the size as Trellis's rules mean `bytes` (bench/latency_colls.h); times
 * are microseconds (%.3f). A command that is not understood, or a measure
 * that cannot run at all (an unknown collective, a size too large for the
 * ranks, no memory for its buffers), is answered with the one line
 *   error - MESSAGE
 * and nothing else; the worker goes on with the next command. The root of
 * the rooted collectives is rank 0; the data are latency's ints, summed.
 *
 * --max-size BYTES allocates the buffers for every collective up to that
 * nominal size at start; otherwise they are allocated (and grown) by the
 * first measure that needs them, outside the timed calls.
 *
 * --spoil ID is for the worker's test (tests/mpi/tune_worker_check.py): the
 * last rank counts candidate ID's checked calls as wrong, so that one rank's
 * wrong result is seen to reach rank 0's `wrong` reply.
 *
 * Without Trellis (no trellis_set_rules in the process) it says so on
 * stderr and exits 2. */
#define _GNU_SOURCE /* getline, RTLD_DEFAULT */
#include <mpi.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "latency_colls.h"

/* IDs: an exhaustive search on 16 ranks gives one job some 22,000 candidates. */
enum { MAX_IDS = 65536, MAX_ITERS = 1000000 };

typedef int (*set_rules_fn)(const char *text, char *err, size_t errlen);

static set_rules_fn set_rules;
static bench b;
static size_t buffer_cap;         /* bytes in each of b.sbuf and b.rbuf */
static char *candidates[MAX_IDS]; /* each ID's rules text; NULL: none given */
static char *installed;           /* a copy of the text in force; NULL: none installed */
static int spoil = -1;            /* --spoil ID */

/* ---- replies (rank 0) ----------------------------------------------------- */

static void __attribute__((format(printf, 1, 2))) reply(const char *fmt, ...)
{
    if (b.rank != 0)
        return;
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* One reply, one line, whatever a message holds. */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    fputs(line, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

/* ---- commands ----------------------------------------------------------- */

/* Rank 0 reads the next line (without its line end) and every rank gets
 * it; NULL at the end of the input. */
static char *next_command(void)
{
    static char *line;
    static size_t cap;
    long long len = -1;
    if (b.rank == 0) {
        ssize_t n = getline(&line, &cap, stdin);
        if (n >= 0) {
            while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
                line[--n] = '\0';
            len = n;
        }
    }
    PMPI_Bcast(&len, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (len < 0)
        return NULL;
    if (b.rank != 0 && (size_t)len + 1 > cap) {
        char *grown = realloc(line, (size_t)len + 1);
        if (!grown) {
            fprintf(stderr, "tune_worker: rank %d: out of memory for a command\n", b.rank);
            PMPI_Abort(MPI_COMM_WORLD, 2);
        }
        line = grown;
        cap = (size_t)len + 1;
    }
    /* MPI counts are ints: a longer line goes in pieces. */
    for (long long at = 0; at < len; at += 1 << 30) {
        long long piece = len - at < (1 << 30) ? len - at : (1 << 30);
        PMPI_Bcast(line + at, (int)piece, MPI_CHAR, 0, MPI_COMM_WORLD);
    }
    line[len] = '\0';
    return line;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* The next blank-separated word of *p, NUL-terminated in place; NULL when
 * none is left. *p moves past it (and one blank after it). */
static char *next_word(char **p)
{
    char *s = *p;
    while (is_blank(*s))
        s++;
    if (!*s)
        return NULL;
    char *w = s;
    while (*s && !is_blank(*s))
        s++;
    if (*s)
        *s++ = '\0';
    *p = s;
    return w;
}

/* A candidate ID: decimal digits, 0..MAX_IDS-1. */
static bool parse_id(const char *w, int *id)
{
    if (!w || !*w || strlen(w) > 5)
        return false;
    for (const char *p = w; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    *id = atoi(w);
    return *id < MAX_IDS;
}

/* Every rank's flag; true when all are set. *first gets the lowest rank
 * whose flag is not (or -1). */
static bool all_agree(bool mine, int *first)
{
    int me = mine ? b.size : b.rank, lowest;
    PMPI_Allreduce(&me, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first)
        *first = lowest < b.size ? lowest : -1;
    return lowest == b.size;
}

/* Installs text on every rank. false (with the message in err, rank 0's,
 * or which rank refused) when any rank refused it. */
static bool install(const char *text, char *err, size_t errlen)
{
    err[0] = '\0';
    bool ok = set_rules(text, err, errlen) == 0;
    int first;
    if (all_agree(ok, &first)) {
        char *copy = strdup(text);
        free(installed);
        installed = copy; /* NULL when out of memory: then nothing to put back */
        return true;
    }
    if (ok || b.rank != 0)
        snprintf(err, errlen, "the rules were refused on rank %d", first);
    return false;
}

static void cmd_rules(char *args)
{
    int id;
    char *w = next_word(&args);
    if (!parse_id(w, &id)) {
        reply("error - rules: expected 'rules ID TEXT' with ID 0..%d, got '%s'", MAX_IDS - 1,
              w ? w : "");
        return;
    }
    while (is_blank(*args))
        args++;
    char *text = strdup(args);
    if (!text) {
        reply("error %d out of memory", id);
        return;
    }
    /* The rules installed before (the last candidate measured, or none: the
     * built-in rules) come back after the check. */
    char *before = installed;
    installed = NULL;
    char err[1024];
    bool ok = install(text, err, sizeof err);
    if (ok) {
        char ignored[1024];
        (void)install(before ? before : "", ignored, sizeof ignored);
        free(before);
    } else {
        installed = before;
    }
    free(candidates[id]);
    candidates[id] = text;
    if (ok)
        reply("ok %d", id);
    else
        reply("error %d %s", id, err);
}

/* Buffers for collective c at the nominal size, on every rank; false when
 * any rank has no memory for them. */
static bool buffers_for(size_t need)
{
    bool ok = true;
    if (need > buffer_cap) {
        void *s = NULL, *r = NULL;
        if (posix_memalign(&s, 64, need) != 0 || posix_memalign(&r, 64, need) != 0) {
            free(s);
            s = r = NULL;
            ok = false;
        } else {
            /* Touched now, so page faults stay out of the timed calls. */
            memset(s, 0, need);
            memset(r, 0, need);
            free(b.sbuf);
            free(b.rbuf);
            b.sbuf = s;
            b.rbuf = r;
            buffer_cap = need;
        }
    }
    return all_agree(ok, NULL);
}

/* One prepared and checked call; 1 when this rank saw it go wrong. */
static int checked_call(enum coll c, int count, int id, const char *when)
{
    long call = b.call_id++;
    coll_prepare(&b, c, count, call);
    int rc = coll_call(&b, c, VAR_TRELLIS, count, 0);
    int wrong = rc != MPI_SUCCESS;
    if (wrong)
        fprintf(stderr, "tune_worker: rank %d: candidate %d: %s %s count=%d returned error %d\n",
                b.rank, id, when, coll_names[c], count, rc);
    else if (coll_verify(&b, c, VAR_TRELLIS, count, call)) {
        fprintf(stderr, "tune_worker: rank %d: candidate %d: %s %s count=%d: wrong result\n",
                b.rank, id, when, coll_names[c], count);
        wrong = 1;
    } else if (id == spoil && b.rank == b.size - 1) {
        fprintf(stderr, "tune_worker: rank %d: candidate %d: %s %s: spoiled (--spoil)\n", b.rank,
                id, when, coll_names[c]);
        wrong = 1;
    }
    return wrong;
}

/* Times candidate id; times holds iters + 1 doubles. */
static void measure_one(enum coll c, size_t nominal, size_t bytes, int count, int iters, int id,
                        double *times)
{
    if (!candidates[id]) {
        reply("error %d no rules stored for candidate %d (send 'rules %d TEXT' first)", id, id, id);
        return;
    }
    char err[1024];
    if (!install(candidates[id], err, sizeof err)) {
        reply("error %d %s", id, err);
        return;
    }
    int wrong = checked_call(c, count, id, "warm-up");
    int failed_calls = 0;
    for (int i = 0; i < iters; i++) {
        PMPI_Barrier(b.comm);
        double t0 = MPI_Wtime();
        int rc = coll_call(&b, c, VAR_TRELLIS, count, 0);
        double t1 = MPI_Wtime();
        times[i] = t1 - t0;
        if (rc != MPI_SUCCESS && failed_calls++ == 0)
            fprintf(stderr,
                    "tune_worker: rank %d: candidate %d: timed %s count=%d returned "
                    "error %d\n",
                    b.rank, id, coll_names[c], count, rc);
    }
    wrong |= failed_calls > 0;
    wrong |= checked_call(c, count, id, "after the timed calls");
    /* The slowest rank's time of each iteration, and whether any rank saw
     * a wrong result, in one reduction. */
    times[iters] = wrong ? 1.0 : 0.0;
    PMPI_Reduce(b.rank == 0 ? MPI_IN_PLACE : times, times, iters + 1, MPI_DOUBLE, MPI_MAX, 0,
                b.comm);
    if (b.rank != 0)
        return;
    if (times[iters] > 0.0) {
        reply("wrong %d %s %zu", id, coll_names[c], nominal);
        return;
    }
    bench_stats s = bench_summarize(times, iters);
    reply("time %d %s %zu %zu %d %.3f %.3f %.3f %.3f", id, coll_names[c], nominal, bytes, iters,
          s.median, s.p10, s.p90, s.min);
}

static void cmd_measure(char *args)
{
    char *name = next_word(&args), *size_w = next_word(&args), *iters_w = next_word(&args);
    int c = 0;
    while (name && c < NCOLL && strcmp(name, coll_names[c]) != 0)
        c++;
    if (!name || c == NCOLL) {
        reply("error - measure: unknown collective '%s' (expected a blocking one: bcast, reduce, "
              "allreduce, barrier, gather, gatherv, scatter, scatterv, allgather, allgatherv, "
              "alltoall, alltoallv, alltoallw, reduce_scatter, reduce_scatter_block, scan, "
              "exscan)",
              name ? name : "");
        return;
    }
    size_t nominal;
    /* Counts are ints of 4-byte elements. */
    if (!size_w || bench_parse_bytes(size_w, &nominal) != 0 || nominal > (size_t)INT_MAX) {
        reply("error - measure: SIZE '%s' is not a size in bytes up to %d (4, 65536, 64K)",
              size_w ? size_w : "", INT_MAX);
        return;
    }
    int iters;
    if (!iters_w || bench_parse_int(iters_w, 1, &iters) != 0 || iters > MAX_ITERS) {
        reply("error - measure: ITERS '%s' is not a count 1..%d", iters_w ? iters_w : "",
              MAX_ITERS);
        return;
    }
    static int ids[MAX_IDS]; /* not on the stack: 256 KiB */
    int nids = 0;
    for (char *w; (w = next_word(&args));) {
        if (nids == MAX_IDS || !parse_id(w, &ids[nids])) {
            reply("error - measure: '%s' is not a candidate ID 0..%d (or more than %d IDs)", w,
                  MAX_IDS - 1, MAX_IDS);
            return;
        }
        nids++;
    }
    if (nids == 0) {
        reply("error - measure: no candidate IDs (measure COLL SIZE ITERS ID [ID ...])");
        return;
    }
    size_t bytes;
    int count = coll_row((enum coll)c, nominal, b.size, &bytes);
    bool per_rank = c >= COLL_GATHER && c <= COLL_REDUCE_SCATTER_BLOCK;
    if (coll_set_counts(&b, count) != 0 && per_rank) {
        reply("error - measure: %s of %zu bytes is too large for %d ranks (the displacements "
              "would not fit an int)",
              coll_names[c], nominal, b.size);
        return;
    }
    size_t need = coll_buffer_bytes((enum coll)c, nominal, b.size);
    double *times = malloc(sizeof(double) * ((size_t)iters + 1));
    bool ok = all_agree(times != NULL, NULL) && buffers_for(need < 64 ? 64 : need);
    if (!ok) {
        free(times);
        reply("error - measure: out of memory for %s of %zu bytes on %d ranks (2 x %zu bytes, "
              "%d times)",
              coll_names[c], nominal, b.size, need, iters);
        return;
    }
    for (int i = 0; i < nids; i++)
        measure_one((enum coll)c, nominal, bytes, count, iters, ids[i], times);
    free(times);
    reply("end");
}

/* ---- start -------------------------------------------------------------- */

/* Hosts (distinct processor names) and the most ranks on one. */
static void count_hosts(int *hosts, int *per_host)
{
    char mine[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0;
    MPI_Get_processor_name(mine, &len);
    char *all = b.rank == 0 ? calloc((size_t)b.size, sizeof mine) : NULL;
    if (b.rank == 0 && !all) {
        fprintf(stderr, "tune_worker: out of memory\n");
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    PMPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, b.comm);
    *hosts = *per_host = 0;
    for (int r = 0; b.rank == 0 && r < b.size; r++) {
        int seen = 0, same = 0;
        for (int q = 0; q < b.size; q++) {
            bool eq = strcmp(all + (size_t)r * sizeof mine, all + (size_t)q * sizeof mine) == 0;
            seen += eq && q < r;
            same += eq;
        }
        *hosts += seen == 0;
        *per_host = same > *per_host ? same : *per_host;
    }
    free(all);
}

static void usage(FILE *f)
{
    fputs("usage: tune_worker [--max-size BYTES]\n"
          "  Reads commands on rank 0's standard input (rules ID TEXT; measure COLL SIZE ITERS\n"
          "  ID [ID ...]; quit) and answers on its standard output: see bench/tune_worker.c.\n"
          "  Runs under mpirun with libtrellis.so preloaded (trellis run ...).\n",
          f);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    b.comm = MPI_COMM_WORLD;
    PMPI_Comm_rank(b.comm, &b.rank);
    PMPI_Comm_size(b.comm, &b.size);
    b.root = 0;
    b.dtype = MPI_INT;

    size_t max_size = 0;
    int bad_args = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc &&
            bench_parse_bytes(argv[i + 1], &max_size) == 0 && max_size <= (size_t)INT_MAX) {
            i++;
        } else if (strcmp(argv[i], "--spoil") == 0 && i + 1 < argc &&
                   bench_parse_int(argv[i + 1], 0, &spoil) == 0) {
            i++;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            bad_args = 1;
        } else {
            if (b.rank == 0)
                fprintf(stderr, "tune_worker: unknown or incomplete option '%s'\n", argv[i]);
            bad_args = 2;
        }
    }
    if (bad_args) {
        if (b.rank == 0)
            usage(bad_args == 1 ? stdout : stderr);
        MPI_Finalize();
        return bad_args == 1 ? 0 : 2;
    }

    void *sym = dlsym(RTLD_DEFAULT, "trellis_set_rules");
    memcpy(&set_rules, &sym, sizeof set_rules);
    int first;
    if (!all_agree(set_rules != NULL, &first)) {
        if (b.rank == 0)
            fprintf(stderr,
                    "tune_worker: Trellis is not loaded on rank %d (no trellis_set_rules "
                    "in the process): start it with `trellis run` or with libtrellis.so "
                    "preloaded (LD_PRELOAD), a build that has trellis_set_rules\n",
                    first);
        MPI_Finalize();
        return 2;
    }

    size_t upfront = 64;
    for (int c = 0; c < NCOLL && max_size > 0; c++) {
        size_t need = coll_buffer_bytes((enum coll)c, max_size, b.size);
        upfront = need > upfront ? need : upfront;
    }
    if (!all_agree(coll_alloc_counts(&b) == 0, NULL) || !buffers_for(upfront)) {
        if (b.rank == 0)
            fprintf(stderr, "tune_worker: out of memory (buffers of %zu bytes)\n", upfront);
        MPI_Finalize();
        return 2;
    }

    int hosts, per_host;
    count_hosts(&hosts, &per_host);
    reply("ready ranks=%d hosts=%d ranks_per_host=%d", b.size, hosts, per_host);

    for (char *line; (line = next_command());) {
        char *args = line;
        char *cmd = next_word(&args);
        if (!cmd)
            reply("error - empty command (expected rules, measure or quit)");
        else if (strcmp(cmd, "quit") == 0)
            break;
        else if (strcmp(cmd, "rules") == 0)
            cmd_rules(args);
        else if (strcmp(cmd, "measure") == 0)
            cmd_measure(args);
        else
            reply("error - unknown command '%s' (expected rules, measure or quit)", cmd);
    }
    for (int i = 0; i < MAX_IDS; i++)
        free(candidates[i]);
    free(installed);
    coll_free(&b);
    MPI_Finalize();
    return 0;
}
