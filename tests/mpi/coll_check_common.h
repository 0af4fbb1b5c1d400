/* Shared by coll_check_move.c and coll_check_scan.c: plain MPI programs
 * that check collectives against values they compute themselves, with no
 * knowledge of Trellis. Everything here is static inline so each program
 * takes only what it uses.
 *
 * The programs take:
 *   --quick              counts up to 1000 only
 *   --only <collective>  run the checks of that collective only
 * and end with rank 0 printing "<prog> ranks=P: N checks, F failed" (the
 * test suite greps ", 0 failed$").
 */
#ifndef COLL_CHECK_COMMON_H
#define COLL_CHECK_COMMON_H

#include <mpi.h>

#include "call_mode.h" /* collectives in the form TRELLIS_TEST_MODE says */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks, world_rank;
static int quick;        /* --quick: counts up to 1000 */
static int sub;          /* on a sub-communicator: a representative subset */
static const char *only; /* --only: one collective's checks */

/* One line per failure, written at once so ranks' lines do not interleave. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            if (failures <= 20) {                                                                  \
                char msg_[512];                                                                    \
                int at_ = snprintf(msg_, sizeof msg_, "rank %d FAIL %s:%d: ", world_rank,          \
                                   __FILE__, __LINE__);                                            \
                snprintf(msg_ + at_, sizeof msg_ - (size_t)at_, __VA_ARGS__);                      \
                fprintf(stderr, "%s\n", msg_);                                                     \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static const int all_counts[] = {0, 1, 7, 1000, 100003};
#define NCOUNTS (int)(sizeof all_counts / sizeof *all_counts)

/* Whether count n is run now: --quick stops at 1000, a check may set its
 * own limit, and sub-communicators run 0, 7 and 1000 only. */
static inline int count_on(int n, int limit)
{
    if (n > limit || (quick && n > 1000))
        return 0;
    return !sub || n == 0 || n == 7 || n == 1000;
}

static inline int want(const char *coll)
{
    return !only || strcmp(only, coll) == 0;
}

static inline void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "rank %d: out of memory (%zu bytes)\n", world_rank, bytes);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return p;
}

/* Irregular per-rank block counts around n: zeros among them, and for
 * three or more ranks rank 1 has zero everywhere. */
static inline int vcount(int i, int p, int n, int salt)
{
    if ((p >= 3 && i == 1) || n == 0)
        return 0;
    switch ((i + salt) % 4) {
    case 0: return n;
    case 1: return n / 2 + 1;
    case 2: return 0;
    default: return 2 * n - 1;
    }
}

/* Where p blocks go in one buffer: block i needs len[i] units and starts
 * at off[i]; the order is reversed and rotated (non-monotone) with gaps of
 * one or two units before, between and after. Returns the units needed. */
static inline size_t place_blocks(int p, const size_t *len, int salt, size_t *off)
{
    size_t at = 1 + (size_t)(salt % 2);
    for (int k = 0; k < p; k++) {
        int i = (p - 1 - k + salt) % p;
        off[i] = at;
        at += len[i] + 1 + (size_t)(k % 2);
    }
    return at + 1;
}

/* The sub-communicators every check also runs on: all ranks reversed
 * (key -rank); and a split into the first three ranks in rotated order
 * (an odd size) and the rest reversed. */
static inline void run_everywhere(void (*run)(MPI_Comm, const char *))
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    sub = 0;
    run(MPI_COMM_WORLD, "world");
    sub = 1;
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &c);
    run(c, "reversed");
    MPI_Comm_free(&c);
    int first = world_rank < 3;
    MPI_Comm_split(MPI_COMM_WORLD, first, first ? (world_rank + 1) % 3 : -world_rank, &c);
    run(c, first ? "split3-rotated" : "split-rest-reversed");
    MPI_Comm_free(&c);
    sub = 0;
}

/* Parses the options; returns 0, or 2 after rank 0 said why (unknown
 * option, or --only naming a collective not among colls). */
static inline int parse_args(int argc, char **argv, const char *const *colls, int ncolls)
{
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[a], "--only") == 0 && a + 1 < argc) {
            only = argv[++a];
            int known = 0;
            for (int c = 0; c < ncolls; c++)
                known |= strcmp(colls[c], only) == 0;
            if (!known) {
                if (world_rank == 0) {
                    fprintf(stderr, "%s: --only %s: not checked here; one of:", argv[0], only);
                    for (int c = 0; c < ncolls; c++)
                        fprintf(stderr, " %s", colls[c]);
                    fputc('\n', stderr);
                }
                return 2;
            }
        } else {
            if (world_rank == 0)
                fprintf(stderr, "usage: %s [--quick] [--only <collective>]\n", argv[0]);
            return 2;
        }
    }
    return 0;
}

/* The summary line (through PMPI, so it does not depend on what is
 * checked); returns the exit status. */
static inline int summary(const char *prog)
{
    int p, total_fail = 0, total_checks = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    PMPI_Reduce(&failures, &total_fail, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    PMPI_Reduce(&checks, &total_checks, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("%s ranks=%d%s%s: %d checks, %d failed\n", prog, p, only ? " only=" : "",
               only ? only : "", total_checks, total_fail);
    return failures ? 1 : 0;
}

#endif
