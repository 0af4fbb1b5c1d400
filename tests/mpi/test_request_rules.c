/* The rules MPI sets for non-blocking and persistent collectives beyond
 * one call at a time, each a case that failed under Trellis once (issue 30):
 *
 *   freed_early      operations, datatypes and communicators freed right
 *                    after MPI_Ixxx / MPI_Xxx_init and before the wait (or
 *                    between the starts): MPI keeps them until the calls
 *                    that use them complete;
 *   start_orders     persistent collectives started in a different order on
 *                    every rank: MPI matches them by the order of their
 *                    initialisation calls;
 *   many_alive       more persistent requests alive than a communicator had
 *                    tag ranges for them, all started at once;
 *   inactive         a persistent request never started, or completed, is
 *                    inactive: every completion call returns at once for it
 *                    with an empty status;
 *   polled           a persistent request restarted as soon as a poll finds
 *                    it complete, its result checked every time (a progress
 *                    thread finishing it meanwhile);
 *   crossing         a blocking and a non-blocking (or persistent)
 *                    collective outstanding on one communicator, called in
 *                    different orders on different ranks: erroneous in the
 *                    standard, but the MPI libraries keep the two apart and
 *                    programs rely on it (mpi4py's Comm.Iagree fallback).
 *
 * Values are computed independently of any MPI call; the program runs with
 * and without Trellis.
 *
 *   test_request_rules [--only NAME] [--seed N] [--init single|multiple]
 *
 * --seed varies the start orders; with TRR_DEBUG=1 in the environment each
 * rank names every case of freed_early as it starts it (a crash prints no
 * check). */
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

#include "check.h"

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PINIT(Name) MPIX_##Name##_init
#elif MPI_VERSION >= 4
#define PINIT(Name) MPI_##Name##_init
#endif

static int rank, size, failures, checks;
static unsigned seed = 1;

static bool under_trellis(void)
{
    return dlsym(RTLD_DEFAULT, "trellis_version") != NULL;
}

/* ---- freed_early ---- */

/* A pair of ints, the element of the reductions below: a derived datatype
 * with a user-defined operation that adds pairs. */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < 2 * *len; i++)
        b[i] += a[i];
}

/* What rank r contributes as int i in round k. */
static int value(int r, int i, int k)
{
    return r * 1000 + i * 7 + k;
}

/* The sum of value(r, i, k) over ranks lo..hi-1. */
static int value_sum(int lo, int hi, int i, int k)
{
    int s = 0;
    for (int r = lo; r < hi; r++)
        s += value(r, i, k);
    return s;
}

#ifdef PINIT
enum { NB, PERSISTENT, FORMS };
#define CALL(Name, name, ...)                                                                      \
    (form == NB ? MPI_I##name(__VA_ARGS__, &req) : PINIT(Name)(__VA_ARGS__, MPI_INFO_NULL, &req))
#else
enum { NB, FORMS };
#define CALL(Name, name, ...) MPI_I##name(__VA_ARGS__, &req)
#endif
static const char *form_name[] = {"nonblocking", "persistent"};
enum { STARTS = 3 }; /* of a persistent request, its objects freed */

/* A reduction, in either form, with its datatype and operation freed as
 * soon as the call returned. coll: 0 allreduce, 1 reduce, 2
 * reduce_scatter_block, 3 reduce_scatter, 4 scan, 5 exscan. */
static void reduction_freed(int coll, int form)
{
    static const char *names[] = {"allreduce",      "reduce", "reduce_scatter_block",
                                  "reduce_scatter", "scan",   "exscan"};
    enum { PER = 5 };   /* pairs per rank's block */
    int n = PER * size; /* pairs in a send buffer */
    int *in = malloc(sizeof(int) * 2 * (size_t)n), *out = malloc(sizeof(int) * 2 * (size_t)n);
    int *counts = malloc(sizeof(int) * (size_t)size);
    for (int q = 0; q < size; q++)
        counts[q] = PER;
    int root = size - 1;
    MPI_Datatype pair;
    MPI_Op op;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op_create(pair_sum, 1, &op);
    MPI_Request req = MPI_REQUEST_NULL;
    int starts = form == NB ? 1 : STARTS;
    if (getenv("TRR_DEBUG"))
        fprintf(stderr, "rank %d: %s %s\n", rank, form_name[form], names[coll]);
    for (int k = 0; k < starts; k++) {
        for (int i = 0; i < 2 * n; i++) {
            in[i] = value(rank, i, k);
            out[i] = -1;
        }
        if (k == 0) {
            switch (coll) {
            case 0: CALL(Allreduce, allreduce, in, out, n, pair, op, MPI_COMM_WORLD); break;
            case 1: CALL(Reduce, reduce, in, out, n, pair, op, root, MPI_COMM_WORLD); break;
            case 2:
                CALL(Reduce_scatter_block, reduce_scatter_block, in, out, PER, pair, op,
                     MPI_COMM_WORLD);
                break;
            case 3:
                CALL(Reduce_scatter, reduce_scatter, in, out, counts, pair, op, MPI_COMM_WORLD);
                break;
            case 4: CALL(Scan, scan, in, out, n, pair, op, MPI_COMM_WORLD); break;
            default: CALL(Exscan, exscan, in, out, n, pair, op, MPI_COMM_WORLD); break;
            }
            MPI_Type_free(&pair);
            MPI_Op_free(&op);
            CHECK(pair == MPI_DATATYPE_NULL && op == MPI_OP_NULL, "%s: handles not nulled",
                  names[coll]);
        }
        if (form != NB)
            MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        int bad = 0, first = -1;
        for (int i = 0; i < 2 * n; i++) {
            int want;
            switch (coll) {
            case 0: want = value_sum(0, size, i, k); break;
            case 1: want = rank == root ? value_sum(0, size, i, k) : -1; break;
            case 2: /* fall through */
            case 3: want = i < 2 * PER ? value_sum(0, size, rank * 2 * PER + i, k) : -1; break;
            case 4: want = value_sum(0, rank + 1, i, k); break;
            default: want = rank == 0 ? out[i] : value_sum(0, rank, i, k); break;
            }
            if (out[i] != want && bad++ == 0)
                first = i;
        }
        CHECK(bad == 0, "%s %s start %d: %d ints wrong, first %d: %d", form_name[form], names[coll],
              k, bad, first, first >= 0 ? out[first] : 0);
    }
    if (form != NB && req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
    free(in);
    free(out);
    free(counts);
}

/* A block of B ints two apart (a strided datatype, so Trellis must stage
 * it), resized so that blocks tile: block j's ints are at 2 B j + 2 i. */
enum { B = 3 };

static MPI_Datatype strided_block(void)
{
    MPI_Datatype v, t;
    MPI_Type_vector(B, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(2 * B * sizeof(int)), &t);
    MPI_Type_free(&v);
    MPI_Type_commit(&t);
    return t;
}

/* Int i of block `blk` of a strided buffer. */
static int *at(int *buf, int blk, int i)
{
    return buf + 2 * B * blk + 2 * i;
}

/* What rank `from` sends rank `to` (or everyone, to = -1) as int i, round k. */
static int moved(int from, int to, int i, int k)
{
    return from * 100000 + (to + 1) * 100 + i * 11 + k;
}

/* A data-movement collective, in either form, over strided blocks, its
 * datatypes freed as soon as the call returned. coll: 0 bcast, 1 gather, 2
 * gatherv, 3 scatter, 4 scatterv, 5 allgather, 6 allgatherv, 7 alltoall, 8
 * alltoallv, 9 alltoallw. */
static void movement_freed(int coll, int form)
{
    static const char *names[] = {"bcast",     "gather",     "gatherv",  "scatter",   "scatterv",
                                  "allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"};
    int p = size, root = p > 1 ? 1 : 0;
    size_t ints = (size_t)2 * B * (size_t)p;
    int *sb = malloc(ints * sizeof(int)), *rb = malloc(ints * sizeof(int));
    int *ones = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *wdispls = malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *wtypes = malloc(sizeof(MPI_Datatype) * (size_t)p);
    MPI_Datatype st = strided_block(), rt = strided_block();
    for (int q = 0; q < p; q++) {
        ones[q] = 1;
        displs[q] = q;
        wdispls[q] = (int)(q * 2 * B * sizeof(int));
        wtypes[q] = st;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    int starts = form == NB ? 1 : STARTS;
    if (getenv("TRR_DEBUG"))
        fprintf(stderr, "rank %d: %s %s\n", rank, form_name[form], names[coll]);
    for (int k = 0; k < starts; k++) {
        /* Send block j: what this rank sends rank j (or all, for the
         * one-block calls); gaps between the ints hold -7, untouched. */
        for (size_t i = 0; i < ints; i++)
            sb[i] = rb[i] = -7;
        bool one_block = coll == 0 || coll == 1 || coll == 2 || coll == 5 || coll == 6;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < B; i++)
                *at(sb, j, i) = moved(coll == 0 || coll == 3 || coll == 4 ? root : rank,
                                      one_block ? -1 : j, i, k);
        if (coll == 0 && rank != root)
            for (int i = 0; i < B; i++)
                *at(sb, 0, i) = -1;
        if (k == 0) {
            switch (coll) {
            case 0: CALL(Bcast, bcast, sb, 1, st, root, MPI_COMM_WORLD); break;
            case 1: CALL(Gather, gather, sb, 1, st, rb, 1, rt, root, MPI_COMM_WORLD); break;
            case 2:
                CALL(Gatherv, gatherv, sb, 1, st, rb, ones, displs, rt, root, MPI_COMM_WORLD);
                break;
            case 3: CALL(Scatter, scatter, sb, 1, st, rb, 1, rt, root, MPI_COMM_WORLD); break;
            case 4:
                CALL(Scatterv, scatterv, sb, ones, displs, st, rb, 1, rt, root, MPI_COMM_WORLD);
                break;
            case 5: CALL(Allgather, allgather, sb, 1, st, rb, 1, rt, MPI_COMM_WORLD); break;
            case 6:
                CALL(Allgatherv, allgatherv, sb, 1, st, rb, ones, displs, rt, MPI_COMM_WORLD);
                break;
            case 7: CALL(Alltoall, alltoall, sb, 1, st, rb, 1, rt, MPI_COMM_WORLD); break;
            case 8:
                CALL(Alltoallv, alltoallv, sb, ones, displs, st, rb, ones, displs, rt,
                     MPI_COMM_WORLD);
                break;
            default:
                CALL(Alltoallw, alltoallw, sb, ones, wdispls, wtypes, rb, ones, wdispls, wtypes,
                     MPI_COMM_WORLD);
                break;
            }
            MPI_Type_free(&st);
            MPI_Type_free(&rt);
        }
        if (form != NB)
            MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int j = 0; j < p; j++) {
            for (int i = 0; i < B; i++) {
                int got = coll == 0 ? *at(sb, 0, i) : *at(rb, j, i), want;
                switch (coll) {
                case 0: want = j == 0 ? moved(root, -1, i, k) : *at(sb, j, i); break;
                case 1: /* fall through */
                case 2: want = rank == root ? moved(j, -1, i, k) : -7; break;
                case 3: /* fall through */
                case 4: want = j == 0 ? moved(root, rank, i, k) : -7; break;
                case 5: /* fall through */
                case 6: want = moved(j, -1, i, k); break;
                default: want = moved(j, rank, i, k); break;
                }
                bad += got != want;
            }
            /* The gaps stay untouched. */
            for (int i = 0; i < B; i++)
                bad += coll != 0 && rb[2 * B * j + 2 * i + 1] != -7;
        }
        CHECK(bad == 0, "%s %s start %d: %d ints wrong", form_name[form], names[coll], k, bad);
    }
    if (form != NB && req != MPI_REQUEST_NULL)
        MPI_Request_free(&req);
    if (st != MPI_DATATYPE_NULL)
        MPI_Type_free(&st);
    if (rt != MPI_DATATYPE_NULL)
        MPI_Type_free(&rt);
    free(sb);
    free(rb);
    free(ones);
    free(displs);
    free(wdispls);
    free(wtypes);
}

/* A communicator freed while a non-blocking collective on it is pending,
 * and one freed between a persistent request's starts. Open MPI 4.1's own
 * collectives do not keep their communicator (test_nonblocking.c says
 * more): only under Trellis there. */
static void comm_freed(void)
{
#if defined(OPEN_MPI) && OPEN_MPI
    if (!under_trellis() || size == 1)
        return;
#endif
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int x = rank + 1, y = -1;
    MPI_Request r;
    MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup, &r);
    MPI_Comm_free(&dup);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(y == size * (size + 1) / 2, "iallreduce on a freed communicator: %d", y);
#ifdef PINIT
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    PINIT(Allreduce)(&x, &y, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &r);
    MPI_Comm_free(&dup);
    for (int k = 0; k < STARTS; k++) {
        x = rank + k;
        y = -1;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(y == size * (size - 1) / 2 + size * k, "start %d on a freed communicator: %d", k, y);
    }
    MPI_Request_free(&r);
#endif
}

static void freed_early(void)
{
    for (int form = 0; form < FORMS; form++) {
#if defined(OPEN_MPI) && OPEN_MPI
        /* Open MPI 4.1's own persistent collectives (coll/libnbc) crash on
         * an operation or datatype freed after the init: only under Trellis
         * there, which hands the calls of one rank to the library. */
        if (form != NB && (!under_trellis() || size == 1))
            continue;
#endif
        for (int coll = 0; coll < 6; coll++)
            reduction_freed(coll, form);
        for (int coll = 0; coll < 10; coll++)
            movement_freed(coll, form);
    }
    comm_freed();
}

/* ---- start_orders ---- */

#ifdef PINIT
/* R persistent collectives of different kinds, initialised in one order on
 * every rank, started in an order of each rank's own, over several rounds;
 * R runs over 3..5: with 3 every order on every rank, with 4 and 5 seeded
 * random ones. */
static void start_orders(void)
{
    enum { R = 5, N = 9, ROUNDS = 6 };
    int bc[N], red_in[N], red_out[N], ag_in, ag_out[64], all_in[N], all_out[N];
    for (int nreq = 3; nreq <= R; nreq++) {
        MPI_Request r[R];
        int root = (nreq - 1) % size;
        PINIT(Bcast)(bc, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
        PINIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
        PINIT(Allreduce)
        (all_in, all_out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[2]);
        if (nreq > 3)
            PINIT(Allgather)
        (&ag_in, 1, MPI_INT, ag_out, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[3]);
        if (nreq > 4)
            PINIT(Reduce)
        (red_in, red_out, N, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
        unsigned s = seed * 31u + (unsigned)rank * 7919u + (unsigned)nreq;
        for (int round = 0; round < ROUNDS; round++) {
            for (int i = 0; i < N; i++) {
                bc[i] = rank == root ? round * 100 + i : -1;
                all_in[i] = rank + i + round;
                red_in[i] = rank * round + i;
            }
            ag_in = rank * 3 + round;
            int order[R];
            for (int i = 0; i < nreq; i++)
                order[i] = i;
            if (nreq == 3) {
                /* Every one of the 6 orders on every rank over the rounds,
                 * each rank a different one in a round. */
                static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                                {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
                memcpy(order, perms[(round + rank) % 6], sizeof perms[0]);
            } else {
                for (int i = nreq - 1; i > 0; i--) { /* this rank's own order */
                    int j = (int)(lcg(&s) % (unsigned)(i + 1)), t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
            }
            for (int i = 0; i < nreq; i++)
                MPI_Start(&r[order[i]]);
            if (round % 2)
                MPI_Waitall(nreq, r, MPI_STATUSES_IGNORE);
            else
                for (int i = nreq - 1; i >= 0; i--)
                    MPI_Wait(&r[order[i]], MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++) {
                CHECK(bc[i] == round * 100 + i, "%d requests round %d: bcast %d: %d", nreq, round,
                      i, bc[i]);
                CHECK(all_out[i] == size * (size - 1) / 2 + size * (i + round),
                      "%d requests round %d: allreduce %d: %d", nreq, round, i, all_out[i]);
                if (nreq > 4 && rank == 0)
                    CHECK(red_out[i] == (size - 1) * round + i,
                          "%d requests round %d: reduce %d: %d", nreq, round, i, red_out[i]);
            }
            for (int q = 0; nreq > 3 && q < size; q++)
                CHECK(ag_out[q] == q * 3 + round, "%d requests round %d: allgather %d: %d", nreq,
                      round, q, ag_out[q]);
        }
        for (int i = 0; i < nreq; i++)
            MPI_Request_free(&r[i]);
    }
}

/* More persistent requests alive at once than a communicator has tag
 * ranges of its own kind (10922 under Open MPI before each one took a
 * range of one tag period): all started together, in an order of each
 * rank's own, every result checked. On up to 4 ranks: 11000 at once take
 * 90 s on 9 ranks sharing 2 cores. */
static void many_alive(void)
{
    enum { N = 11000 };
    if (size > 4)
        return;
    MPI_Request *r = malloc(sizeof *r * N);
    int *in = malloc(sizeof(int) * N), *out = malloc(sizeof(int) * N);
    int *order = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) {
        PINIT(Allreduce)
        (&in[i], &out[i], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[i]);
        in[i] = rank + i;
        out[i] = -1;
        order[i] = i;
    }
    unsigned s = seed * 17u + (unsigned)rank;
    for (int i = N - 1; i > 0; i--) {
        int j = (int)(lcg(&s) % (unsigned)(i + 1)), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < N; i++)
        MPI_Start(&r[order[i]]);
    MPI_Waitall(N, r, MPI_STATUSES_IGNORE);
    int bad = 0, first = -1;
    for (int i = 0; i < N; i++)
        if (out[i] != size * (size - 1) / 2 + size * i && bad++ == 0)
            first = i;
    CHECK(bad == 0, "%d of %d persistent allreduces wrong, first %d: %d", bad, N, first,
          first >= 0 ? out[first] : 0);
    for (int i = 0; i < N; i++)
        MPI_Request_free(&r[i]);
    free(r);
    free(in);
    free(out);
    free(order);
}
#endif

/* ---- inactive ---- */

/* Whether st is the empty status MPI returns for an inactive request. The
 * calls that return one status need not set its error field (MPI 4.0,
 * 3.2.5; Open MPI does not): only Trellis is held to it there, where it
 * serves the call (not on one rank, whose reductions go to the library). */
static bool single_status;

#ifdef PINIT
/* ---- polled ---- */

/* Persistent allgathers over strided blocks, started together again as
 * soon as a poll finds them complete: by MPI_Waitall, MPI_Testall, and
 * MPI_Test on each, in turn. A progress thread that finished one while
 * the program polled once let the poll see it neither running nor
 * finished: taken for inactive before its blocks were all unpacked, and
 * its next MPI_Start refused (it was finished). */
static void polled(void)
{
    enum { ROUNDS = 60, REQS = 3, N = 200 };
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Datatype t = strided_block();
    int *send[REQS], *recv[REQS];
    MPI_Request req[REQS];
    for (int q = 0; q < REQS; q++) {
        send[q] = calloc((size_t)N * 2 * B, sizeof(int));
        recv[q] = calloc((size_t)size * N * 2 * B, sizeof(int));
        PINIT(Allgather)(send[q], N, t, recv[q], N, t, comm, MPI_INFO_NULL, &req[q]);
    }
    int wrong = 0, k = 0, rc = MPI_SUCCESS;
    for (; k < ROUNDS; k++) {
        for (int q = 0; q < REQS; q++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < B; i++)
                    *at(send[q], j, i) = moved(rank, q, j * B + i, k);
        rc = MPI_Startall(REQS, req);
        if (rc != MPI_SUCCESS)
            break;
        if (k % 3 == 0) {
            rc = MPI_Waitall(REQS, req, MPI_STATUSES_IGNORE);
        } else if (k % 3 == 1) {
            for (int flag = 0; rc == MPI_SUCCESS && !flag;)
                rc = MPI_Testall(REQS, req, &flag, MPI_STATUSES_IGNORE);
        } else {
            for (int q = 0; q < REQS; q++)
                for (int flag = 0; rc == MPI_SUCCESS && !flag;)
                    rc = MPI_Test(&req[q], &flag, MPI_STATUS_IGNORE);
        }
        if (rc != MPI_SUCCESS)
            break;
        for (int q = 0; q < REQS; q++)
            for (int r = 0; r < size; r++)
                for (int j = 0; j < N; j++)
                    for (int i = 0; i < B; i++)
                        wrong += *at(recv[q], r * N + j, i) != moved(r, q, j * B + i, k);
    }
    CHECK(wrong == 0, "%d ints wrong over %d rounds", wrong, k);
    if (rc != MPI_SUCCESS) {
        /* the other ranks would wait for this one's next start */
        fprintf(stderr, "rank %d: polled: round %d of %d: error %d\n", rank, k, ROUNDS, rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int q = 0; q < REQS; q++) {
        MPI_Request_free(&req[q]);
        free(send[q]);
        free(recv[q]);
    }
    MPI_Type_free(&t);
    MPI_Comm_free(&comm);
}
#endif

static bool empty(const MPI_Status *st, const char *what)
{
    int count = -1, cancelled = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    MPI_Test_cancelled(st, &cancelled);
    bool ok = st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG &&
              (st->MPI_ERROR == MPI_SUCCESS ||
               (single_status && (!under_trellis() || size == 1))) &&
              count == 0 && !cancelled;
    CHECK(ok, "%s: status source %d tag %d error %d count %d cancelled %d", what, st->MPI_SOURCE,
          st->MPI_TAG, st->MPI_ERROR, count, cancelled);
    return ok;
}

static void garble(MPI_Status *st, int n)
{
    memset(st, 0x5a, sizeof *st * (size_t)n);
}

#ifdef PINIT
static void inactive(void)
{
    int x = rank, y = -1, flag = -1, index = -2, outcount = -2, indices[4];
    MPI_Request r[3];
    MPI_Status st[3];
    PINIT(Allreduce)(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    PINIT(Barrier)(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    /* Never started, and then again once completed. */
    for (int pass = 0; pass < 2; pass++) {
        const char *when = pass ? "completed" : "never started";
        char what[96];
        single_status = true;
        garble(st, 1);
        MPI_Wait(&r[0], &st[0]);
        snprintf(what, sizeof what, "Wait, %s", when);
        empty(&st[0], what);
        garble(st, 1);
        MPI_Test(&r[0], &flag, &st[0]);
        snprintf(what, sizeof what, "Test, %s", when);
        CHECK(flag == 1, "%s: flag %d", what, flag);
        empty(&st[0], what);
        garble(st, 1);
        MPI_Request_get_status(r[0], &flag, &st[0]);
        snprintf(what, sizeof what, "Request_get_status, %s", when);
        CHECK(flag == 1, "%s: flag %d", what, flag);
        empty(&st[0], what);
        /* Only inactive requests in the arrays. */
        single_status = false;
        garble(st, 2);
        MPI_Waitall(2, r, st);
        snprintf(what, sizeof what, "Waitall, %s", when);
        empty(&st[0], what);
        empty(&st[1], what);
        garble(st, 2);
        flag = -1;
        MPI_Testall(2, r, &flag, st);
        snprintf(what, sizeof what, "Testall, %s", when);
        CHECK(flag == 1, "%s: flag %d", what, flag);
        empty(&st[0], what);
        empty(&st[1], what);
        single_status = true;
        garble(st, 1);
        MPI_Waitany(2, r, &index, &st[0]);
        snprintf(what, sizeof what, "Waitany, %s", when);
        CHECK(index == MPI_UNDEFINED, "%s: index %d", what, index);
        empty(&st[0], what);
        garble(st, 1);
        flag = -1;
        MPI_Testany(2, r, &index, &flag, &st[0]);
        snprintf(what, sizeof what, "Testany, %s", when);
        CHECK(flag == 1 && index == MPI_UNDEFINED, "%s: flag %d index %d", what, flag, index);
        empty(&st[0], what);
        single_status = false;
        MPI_Waitsome(2, r, &outcount, indices, st);
        CHECK(outcount == MPI_UNDEFINED, "Waitsome, %s: outcount %d", when, outcount);
        MPI_Testsome(2, r, &outcount, indices, st);
        CHECK(outcount == MPI_UNDEFINED, "Testsome, %s: outcount %d", when, outcount);
        MPI_Start(&r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        CHECK(y == size * (size - 1) / 2, "%s: allreduce %d", when, y);
    }
    /* Inactive among active: an active allreduce and a self message. */
    for (int call = 0; call < 6; call++) {
        static const char *names[] = {"Waitall", "Testall",  "Waitany",
                                      "Testany", "Waitsome", "Testsome"};
        int self_in = 40 + call, self_out = -1;
        MPI_Request a[4];
        x = rank + call;
        y = -1;
        a[0] = r[1]; /* the barrier, inactive */
        a[1] = r[0];
        MPI_Start(&a[1]);
        MPI_Irecv(&self_out, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &a[2]);
        MPI_Isend(&self_in, 1, MPI_INT, rank, 5, MPI_COMM_WORLD, &a[3]);
        garble(st, 1);
        int left = 3, guard = 0;
        MPI_Status sts[4];
        while (left > 0 && guard++ < 1000000) {
            switch (call) {
            case 0:
                MPI_Waitall(4, a, sts);
                empty(&sts[0], "Waitall, an inactive one among active");
                left = 0;
                break;
            case 1:
                flag = 0;
                MPI_Testall(4, a, &flag, sts);
                if (flag) {
                    empty(&sts[0], "Testall, an inactive one among active");
                    left = 0;
                }
                break;
            case 2:
            case 3:
                flag = 1;
                if (call == 2)
                    MPI_Waitany(4, a, &index, &st[0]);
                else
                    MPI_Testany(4, a, &index, &flag, &st[0]);
                CHECK(!flag || index != 0, "%s returned the inactive request", names[call]);
                if (flag && index != MPI_UNDEFINED)
                    left--;
                if (flag && index == MPI_UNDEFINED) {
                    CHECK(left == 0, "%s: nothing active with %d left", names[call], left);
                    left = 0;
                }
                if (index == 1)
                    a[1] = MPI_REQUEST_NULL; /* done with: a Waitany would see it inactive */
                break;
            default:
                if (call == 4)
                    MPI_Waitsome(4, a, &outcount, indices, sts);
                else
                    MPI_Testsome(4, a, &outcount, indices, sts);
                CHECK(outcount != MPI_UNDEFINED || left == 0, "%s: undefined with %d left",
                      names[call], left);
                for (int i = 0; outcount != MPI_UNDEFINED && i < outcount; i++) {
                    CHECK(indices[i] != 0, "%s returned the inactive request", names[call]);
                    if (indices[i] == 1)
                        a[1] = MPI_REQUEST_NULL;
                    left--;
                }
                if (outcount == MPI_UNDEFINED)
                    left = 0;
                break;
            }
        }
        CHECK(left == 0, "%s: %d requests never completed", names[call], left);
        CHECK(y == size * (size - 1) / 2 + size * call, "%s: allreduce %d", names[call], y);
        CHECK(self_out == 40 + call, "%s: self message %d", names[call], self_out);
    }
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
}
#endif

/* ---- crossing ---- */

/* Rank 0 calls the non-blocking collective first and the blocking one
 * second; every other rank the other way round (as mpi4py's test of
 * Comm.Iagree does with MPI_Iallreduce and MPI_Barrier). Then the same
 * with data in both (an ibcast and a bcast of different sizes), and with a
 * persistent request. */
/* An allreduce of x with op on comm, started on rank 0 before a barrier
 * and on every other rank after it; its result. */
static int crossed_iallreduce(int x, MPI_Op op, MPI_Comm comm)
{
    int y = -1;
    MPI_Request r;
    if (rank == 0) {
        MPI_Iallreduce(&x, &y, 1, MPI_INT, op, comm, &r);
        MPI_Barrier(comm);
    } else {
        MPI_Barrier(comm);
        MPI_Iallreduce(&x, &y, 1, MPI_INT, op, comm, &r);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    return y;
}

static void crossing(void)
{
    /* First on a communicator whose first collective is this crossing: a
     * ring as a distributed graph (Trellis sets it up in its constructor,
     * so the non-blocking call that comes first on rank 0 is served as the
     * others'). */
    MPI_Comm ring;
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, weight = 1;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &prev, &weight, 1, &next, &weight,
                                   MPI_INFO_NULL, 0, &ring);
    int gy = crossed_iallreduce(rank + 1, MPI_SUM, ring);
    CHECK(gy == size * (size + 1) / 2, "graph communicator's first calls crossing: %d", gy);
    MPI_Comm_free(&ring);
    for (int round = 0; round < 4; round++) {
        int y = crossed_iallreduce(rank + round, MPI_BAND, MPI_COMM_WORLD);
        MPI_Request r;
        int want = round;
        for (int q = 1; q < size; q++)
            want &= q + round;
        CHECK(y == want, "round %d: iallreduce %d, want %d", round, y, want);

        enum { NB_N = 17, BL_N = 40 };
        int nb[NB_N], bl[BL_N];
        for (int i = 0; i < NB_N; i++)
            nb[i] = rank == 0 ? i + round : -1;
        for (int i = 0; i < BL_N; i++)
            bl[i] = rank == 0 ? 1000 + i * round : -1;
        if (rank == 0) {
            MPI_Ibcast(nb, NB_N, MPI_INT, 0, MPI_COMM_WORLD, &r);
            MPI_Bcast(bl, BL_N, MPI_INT, 0, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(bl, BL_N, MPI_INT, 0, MPI_COMM_WORLD);
            MPI_Ibcast(nb, NB_N, MPI_INT, 0, MPI_COMM_WORLD, &r);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < NB_N; i++)
            bad += nb[i] != i + round;
        for (int i = 0; i < BL_N; i++)
            bad += bl[i] != 1000 + i * round;
        CHECK(bad == 0, "round %d: bcasts %d ints wrong", round, bad);
    }
#ifdef PINIT
    int x = 0, y = -1;
    MPI_Request r;
    PINIT(Allreduce)(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
    for (int round = 0; round < 4; round++) {
        x = rank * round;
        int z = -1, one = 1;
        if (rank == size - 1) {
            MPI_Start(&r);
            MPI_Allreduce(&one, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(&one, &z, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            MPI_Start(&r);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(y == round * size * (size - 1) / 2 && z == size,
              "round %d: persistent %d, blocking %d", round, y, z);
    }
    MPI_Request_free(&r);
#endif
}

typedef struct {
    const char *name;
    void (*run)(void);
} test;

int main(int argc, char **argv)
{
    const char *only = NULL;
    int want = MPI_THREAD_SINGLE, provided;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--init"))
            want = !strcmp(argv[i + 1], "multiple") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
        else if (!strcmp(argv[i], "--seed"))
            seed = (unsigned)strtoul(argv[i + 1], NULL, 10);
    }
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test tests[] = {
        {"freed_early", freed_early},
#ifdef PINIT
        {"start_orders", start_orders}, {"many_alive", many_alive},
        {"inactive", inactive},         {"polled", polled},
#endif
        {"crossing", crossing},
    };
    for (size_t t = 0; t < sizeof tests / sizeof *tests; t++)
        if (!only || !strcmp(only, tests[t].name))
            tests[t].run();
    char extra[32];
    snprintf(extra, sizeof extra, " seed=%u", seed);
    int status = check_summary("test_request_rules", extra, failures, checks);
    MPI_Finalize();
    return status;
}
