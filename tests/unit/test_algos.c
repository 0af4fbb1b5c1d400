/* The threads tier: every algorithm in one process with ranks as threads,
 * over rank counts x counts x roots x element types x parameter variants,
 * checked against values computed independently (plain loops).
 *
 *   test_algos <collective> <algorithm> [--quick] [--seed S]
 *   test_algos --check-list <collective:algorithm>...
 *
 * --seed S (ctest passes TRELLIS_TEST_SEED, tests/CMakeLists.txt) runs the
 * core of the sweep and an eighth of the rest, which S picks (check_picked,
 * algo_check.h): 8 consecutive seeds run every case. Without it every case
 * runs. The core: every parameter variant, size, layout and count at the
 * first root, not in place, on the int64 sum and (reductions) the
 * non-commutative product; the largest count on the int64 sum up to 9 ranks.
 * A failure prints the case, and the summary the seed: `test_algos <coll>
 * <algo> --seed S` runs the same cases again, with the same data as any run
 * that includes them (none: the whole sweep).
 *
 * The second form fails if the table holds an algorithm the list (the
 * ctests CMake registers, listed from the registry when it configures)
 * leaves out, or the list one the table lacks: a build whose tests were
 * configured from another registry.
 *
 * The case functions live in check_<family>.c; element types and helpers
 * in algo_check.c. */
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo_check.h"
#include "check_layouts.h"
#include "algo/usable.h"
#include "core/status.h"

static const int all_sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16};
static const size_t all_counts[] = {0, 1, 7, 1000, 100003};

/* Parameter variants per algorithm, and the largest count each is tried
 * with (tiny segments make very many messages). */
typedef struct {
    const char *params;
    size_t max_count;
} variant;

static int variants_for(const trl_algo *algo, variant *out)
{
    int n = 0;
    out[n++] = (variant){"", SIZE_MAX};
    if (trl_algo_param(algo, "radix", 5)) {
        const trl_param_spec *spec = trl_algo_param(algo, "radix", 5);
        for (int r = (int)spec->min; r <= 8; r++) {
            static char text[16][32];
            snprintf(text[r], sizeof text[r], "radix=%d", r);
            out[n++] = (variant){text[r], SIZE_MAX};
        }
    }
    if (trl_algo_param(algo, "segment", 7)) {
        out[n++] = (variant){"segment=24", 1000}; /* a few elements, not dividing counts */
        /* More than a tag period (256) of messages between a pair: the
         * chained messages (trl_sched_finish) must not deadlock here, where a
         * send completes only when taken. */
        out[n++] = (variant){"segment=8", 1000};
        out[n++] = (variant){"segment=1K", SIZE_MAX};
    }
    if (trl_algo_param(algo, "reduce", 6)) {
        static const char *reds[] = {"linear", "binomial", "knomial",
                                     "kary",   "chain",    "rabenseifner"};
        static const char *bcs[] = {"linear", "binomial", "knomial",
                                    "kary",   "chain",    "scatter_allgather"};
        static char text[12][64];
        for (int i = 0; i < 6; i++) {
            snprintf(text[i], sizeof text[i], "reduce=%s bcast=binomial", reds[i]);
            out[n++] = (variant){text[i], SIZE_MAX};
            snprintf(text[6 + i], sizeof text[6 + i], "reduce=binomial bcast=%s segment=512",
                     bcs[i]);
            out[n++] = (variant){text[6 + i], SIZE_MAX};
        }
    }
    return n;
}

static check_case_fn case_fn(trl_coll c)
{
    switch (c) {
    case TRL_COLL_BCAST:
    case TRL_COLL_REDUCE:
    case TRL_COLL_ALLREDUCE:
    case TRL_COLL_BARRIER: return check_classic_case;
    case TRL_COLL_GATHER:
    case TRL_COLL_GATHERV:
    case TRL_COLL_SCATTER:
    case TRL_COLL_SCATTERV: return check_gather_case;
    case TRL_COLL_ALLGATHER:
    case TRL_COLL_ALLGATHERV: return check_allgather_case;
    case TRL_COLL_ALLTOALL:
    case TRL_COLL_ALLTOALLV:
    case TRL_COLL_ALLTOALLW: return check_alltoall_case;
    case TRL_COLL_REDUCE_SCATTER:
    case TRL_COLL_REDUCE_SCATTER_BLOCK: return check_reduce_scatter_case;
    case TRL_COLL_SCAN:
    case TRL_COLL_EXSCAN: return check_scan_case;
    case TRL_COLL_NEIGHBOR_ALLGATHER:
    case TRL_COLL_NEIGHBOR_ALLGATHERV:
    case TRL_COLL_NEIGHBOR_ALLTOALL:
    case TRL_COLL_NEIGHBOR_ALLTOALLV:
    case TRL_COLL_NEIGHBOR_ALLTOALLW: return check_neighbor_case;
    case TRL_COLL_COUNT: break;
    }
    return NULL;
}

/* Where MPI_IN_PLACE exists (alltoall's is the runtime's copy, not the
 * builders'). */
static bool has_in_place(trl_coll c)
{
    return c != TRL_COLL_BCAST && c != TRL_COLL_BARRIER && c != TRL_COLL_ALLTOALL &&
           c != TRL_COLL_ALLTOALLV && c != TRL_COLL_ALLTOALLW && !trl_coll_is_neighbor(c);
}

static int check_list(int argc, char **argv)
{
    int missing = 0;
    for (const trl_algo *a = trl_algorithms; a->name; a++) {
        if (!a->build)
            continue;
        char want[128];
        snprintf(want, sizeof want, "%s:%s", trl_coll_name(a->coll), a->name);
        bool found = false;
        for (int i = 0; i < argc && !found; i++)
            found = strcmp(argv[i], want) == 0;
        if (!found) {
            fprintf(stderr, "%s is in the table but has no ctest: configure again (cmake)\n", want);
            missing++;
        }
    }
    for (int i = 0; i < argc; i++) {
        const char *colon = strchr(argv[i], ':');
        int coll = colon ? trl_coll_from_name(argv[i], (size_t)(colon - argv[i])) : -1;
        const trl_algo *a = coll < 0 ? NULL
                                     : trl_algo_find((trl_coll)coll, colon + 1, strlen(colon + 1));
        if (!a || !a->build) {
            fprintf(stderr, "%s has a ctest but is not in the table: configure again (cmake)\n",
                    argv[i]);
            missing++;
        }
    }
    return missing ? 1 : 0;
}

void sweep_size(sweep *w, const char *text, const trl_params *params, size_t max_count, int p,
                const char *layout, const trl_topo *topo)
{
    trl_coll coll = w->algo->coll;
    bool rooted = trl_coll_is_rooted(coll);
    /* Data-movement collectives move bytes whatever the type: one type
     * (values unique per rank and index) is enough. */
    bool reduction = trl_coll_is_reduction(coll);
    for (size_t ci = 0; ci < sizeof all_counts / sizeof *all_counts; ci++) {
        size_t count = all_counts[ci];
        if (coll == TRL_COLL_BARRIER && count > 0)
            continue;
        if (count > max_count || (w->t.quick && count > 1000))
            continue;
        /* The big count once per variant and size, not per root and type. */
        bool big = count > 1000;
        int roots[4] = {0, p - 1, p / 2, 1 % p}, nroots = rooted ? 4 : 1;
        for (int ri = 0; ri < nroots; ri++) {
            int root = roots[ri];
            bool dup = false;
            for (int k = 0; k < ri; k++)
                dup |= roots[k] == root;
            if (dup || (big && ri > 1))
                continue;
            size_t ntypes = coll == TRL_COLL_BARRIER || !reduction ? 1 : check_ntypes;
            for (size_t ti = 0; ti < ntypes; ti++) {
                const elem_type *ty = &check_types[ti];
                trl_coll_args probe = {.coll = coll,
                                       .size = p,
                                       .root = root,
                                       .commutative = ty->commutative,
                                       .params = params,
                                       .algo = w->algo,
                                       .topo = topo};
                if (trl_algo_unusable(w->algo, &probe))
                    continue;
                if (big && ti == 1)
                    continue;
                for (int ip = 0; ip <= (has_in_place(coll) ? 1 : 0); ip++) {
                    /* The core (check_picked): the first root, not in place, the
                     * int64 sum and the non-commutative product; the big count
                     * (most of the time) on the first type only, up to 9 ranks. */
                    bool core = ri == 0 && ip == 0 &&
                                (big ? ti == 0 && p <= 9 : ti == 0 || ti + 1 == ntypes);
                    unsigned key = w->seed++;
                    if (!check_picked(&w->t, core, key))
                        continue;
                    check_case c = {w->algo, text,    params, ty,     p,   count,
                                    root,    ip != 0, key,    layout, topo};
                    w->t.cases++;
                    w->run_case(&w->t, &c);
                }
            }
        }
    }
}

bool with_params(const trl_algo *algo, const char *text, trl_params *params)
{
    const char *why;
    if (trl_params_from_string(algo, text, params, &why) == TRL_OK)
        return true;
    fprintf(stderr, "bad test parameters '%s': %s\n", text, why);
    return false;
}

/* Every algorithm but the hierarchical ones (hier*, multileader) and
 * tree: the parameter variants on every size. */
static int sweep_plain(sweep *w)
{
    variant vars[64];
    int nvars = variants_for(w->algo, vars);
    for (int v = 0; v < nvars; v++) {
        trl_params params;
        if (!with_params(w->algo, vars[v].params, &params))
            return 2;
        for (size_t si = 0; si < sizeof all_sizes / sizeof *all_sizes; si++)
            sweep_size(w, vars[v].params, &params, vars[v].max_count, all_sizes[si], NULL, NULL);
        trl_params_free(&params);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--check-list") == 0)
        return check_list(argc - 2, argv + 2);
    /* Every case allocates and frees buffers of up to a few MB per rank:
     * kept in the heap instead of mapped and unmapped each time, they are
     * not faulted in and zeroed again by the kernel case after case (half
     * of this tier's time went there). */
    mallopt(M_MMAP_THRESHOLD, 32 << 20); /* glibc's most on 64 bits */
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    sweep w = {.seed = 1};
    bool bad = argc < 3;
    for (int i = 3; i < argc && !bad; i++) {
        char *end = NULL;
        if (!strcmp(argv[i], "--quick")) {
            w.t.quick = true;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            w.t.seed = (unsigned)strtoul(argv[++i], &end, 10);
            w.t.rotate = true;
            bad = !*argv[i] || *end;
        } else {
            bad = true;
        }
    }
    if (bad) {
        fprintf(stderr, "usage: %s <collective> <algorithm> [--quick] [--seed S]\n", argv[0]);
        return 2;
    }
    int coll = trl_coll_from_name(argv[1], strlen(argv[1]));
    const trl_algo *algo = coll < 0 ? NULL
                                    : trl_algo_find((trl_coll)coll, argv[2], strlen(argv[2]));
    if (!algo || !algo->build) {
        fprintf(stderr, "no such algorithm: %s %s\n", argv[1], argv[2]);
        return 2;
    }
    w.algo = algo;
    w.run_case = case_fn((trl_coll)coll);
    bool layouts = !strncmp(algo->name, "hier", 4) || !strcmp(algo->name, "multileader") ||
                   !strcmp(algo->name, "locality");
    int rc = algo->needs & TRL_NEEDS_INTER ? check_inter_sweep(&w.t, algo)
             : layouts                     ? sweep_hier(&w)
             : !strcmp(algo->name, "tree") ? sweep_tree(&w)
                                           : sweep_plain(&w);
    if (rc)
        return rc;
    if (w.t.rotate)
        printf("%s %s: seed %u: the core and slice %u of %d, %d cases of the sweep's %d "
               "(the other slices: other seeds; rerun: --seed %u)\n",
               argv[1], argv[2], w.t.seed, w.t.seed % CHECK_SLICES, CHECK_SLICES, w.t.cases,
               w.t.cases + w.t.left, w.t.seed);
    printf("%s %s: %d cases, %d failed\n", argv[1], argv[2], w.t.cases, w.t.failures);
    if (w.t.cases == 0) /* every case refused or skipped: nothing was checked */
        fprintf(stderr, "FAIL %s %s: no case ran\n", argv[1], argv[2]);
    return w.t.failures || w.t.cases == 0 ? 1 : 0;
}
