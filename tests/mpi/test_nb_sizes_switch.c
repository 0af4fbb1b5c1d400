/* A blocking neighbourhood v call under `locality` keeps its exchange of
 * block sizes per communicator, made for the lanes= it ran with
 * (entry/neighbor_sizes.c): rules switched at run time (trellis_set_rules)
 * among lanes=1, lanes=2, linear and back must make every rank run the
 * exchange the new choice needs, or the lanes would wait for sizes never
 * sent (a hang: the test's timeout) or lay blocks out wrong (checked).
 *
 * A seeded graph with degrees 0 to 4, repeated edges and self edges; block
 * sizes that differ by edge; every received int checked against what its
 * sender wrote. Run under a described multi-host layout (TRELLIS_TOPOLOGY),
 * where the lanes carry the blocks between hosts; with --thread-multiple
 * and TRELLIS_PROGRESS=thread, through the progress thread. */
#define _GNU_SOURCE
#include <mpi.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, failures, checks;

typedef int (*set_rules_fn)(const char *text, char *err, size_t errlen);

/* The int at place i of the block rank s sends on its k-th edge. */
static int value(int s, int k, int i, int round)
{
    return s * 100000 + k * 1000 + i * 7 + round;
}

static int block_len(int s, int d, int round)
{
    return (s * 3 + d * 5 + round) % 6; /* 0 to 5 ints */
}

static void exchange(MPI_Comm g, const int *dst, int nout, const int *src, int nin, int round,
                     const char *rules)
{
    int *sc = malloc(sizeof(int) * (size_t)(nout + 1)),
        *sd = malloc(sizeof(int) * (size_t)(nout + 1));
    int *rc = malloc(sizeof(int) * (size_t)(nin + 1)),
        *rd = malloc(sizeof(int) * (size_t)(nin + 1));
    int ns = 0, nr = 0;
    for (int k = 0; k < nout; k++) {
        sc[k] = block_len(rank, dst[k], round);
        sd[k] = ns;
        ns += sc[k];
    }
    for (int k = 0; k < nin; k++) {
        rc[k] = block_len(src[k], rank, round);
        rd[k] = nr;
        nr += rc[k];
    }
    int *in = malloc(sizeof(int) * (size_t)(ns + 1)), *out = malloc(sizeof(int) * (size_t)(nr + 1));
    for (int k = 0; k < nout; k++)
        for (int i = 0; i < sc[k]; i++)
            in[sd[k] + i] = value(rank, dst[k], i, round);
    for (int i = 0; i < nr; i++)
        out[i] = -1;
    MPI_Neighbor_alltoallv(in, sc, sd, MPI_INT, out, rc, rd, MPI_INT, g);
    /* The k-th in-edge from s carries s's block for this rank (the blocks a
     * rank sends one destination are alike, so repeated edges need no
     * pairing here). */
    int bad = -1;
    for (int k = 0; k < nin && bad < 0; k++)
        for (int i = 0; i < rc[k] && bad < 0; i++)
            if (out[rd[k] + i] != value(src[k], rank, i, round))
                bad = rd[k] + i;
    CHECK(bad < 0, "round %d under '%s': received int %d wrong", round, rules, bad);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(in);
    free(out);
}

/* MPI_UNWEIGHTED is a small constant pointer, which GCC reads as an array of
 * size 0 (as coll_check_neighbor.c says). */
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Wstringop-overread"
int main(int argc, char **argv)
{
    /* --thread-multiple: under TRELLIS_PROGRESS=thread the exchange runs as an
     * op the progress thread runs, which pins the kept schedule. */
    bool threads = argc > 1 && strcmp(argv[1], "--thread-multiple") == 0;
    int provided = MPI_THREAD_SINGLE;
    if (threads)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    if (threads && provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "test_nb_sizes_switch: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    void *sym = dlsym(RTLD_DEFAULT, "trellis_set_rules");
    set_rules_fn set_rules;
    memcpy(&set_rules, &sym, sizeof set_rules);
    CHECK(set_rules != NULL, "trellis_set_rules not found: is libtrellis.so preloaded?");
    /* Out-edges: 0 to 4 of them, seeded alike on every rank (a self edge and
     * a repeated one among them where they fall). */
    unsigned seed = 12345;
    int *srcs = malloc(sizeof(int) * (size_t)size * 4),
        *dsts = malloc(sizeof(int) * (size_t)size * 4);
    int n = 0, mine = 0, mine_at = 0;
    for (int s = 0; s < size; s++) {
        int deg = (int)(lcg(&seed) % 5);
        if (s == rank) {
            mine = deg;
            mine_at = n;
        }
        for (int k = 0; k < deg; k++) {
            srcs[n] = s;
            dsts[n++] = (int)(lcg(&seed) % (unsigned)size);
        }
    }
    int nin = 0, *src = malloc(sizeof(int) * (size_t)(n + 1));
    for (int e = 0; e < n; e++)
        if (dsts[e] == rank)
            src[nin++] = srcs[e];
    MPI_Comm g;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, nin, src, MPI_UNWEIGHTED, mine, dsts + mine_at,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g);
    const char *texts[] = {"neighbor_alltoallv locality lanes=1",
                           "neighbor_alltoallv locality lanes=2", "neighbor_alltoallv linear",
                           "neighbor_alltoallv locality lanes=2",
                           "neighbor_alltoallv locality lanes=1 combine=8"};
    for (int round = 0; set_rules && round < 10; round++) {
        const char *rules = texts[round / 2];
        if (round % 2 == 0) {
            char err[512] = "";
            CHECK(set_rules(rules, err, sizeof err) == 0, "set_rules('%s'): %s", rules, err);
        }
        exchange(g, dsts + mine_at, mine, src, nin, round, rules);
    }
    MPI_Comm_free(&g);
    free(srcs);
    free(dsts);
    free(src);
    int status = check_summary("test_nb_sizes_switch", "", failures, checks);
    MPI_Finalize();
    return status;
}
