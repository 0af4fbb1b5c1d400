/* Non-blocking and persistent collectives as a program uses them, beyond
 * one call at a time (the checkers in mixed mode do those): many
 * outstanding at once on one and on several communicators, completed in
 * reverse and random order; mixed with the program's own point-to-point
 * requests in one array; a blocking collective while non-blocking ones are
 * outstanding; persistent requests started 100 times with new contents,
 * next to persistent point-to-point ones in MPI_Startall; the calls MPI
 * calls erroneous; a communicator freed right after its collective
 * completed, and freed before (a persistent request outliving it); a rank blocked in MPI_Recv while its part of a
 * non-blocking barrier is still needed (MPI's progress rule). Values are
 * computed independently; run with and without Trellis.
 *
 *   test_nonblocking [--init single|multiple] [--only NAME]
 */
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
#define ALLREDUCE_INIT MPIX_Allreduce_init
#define BCAST_INIT     MPIX_Bcast_init
#define ALLGATHER_INIT MPIX_Allgather_init
#elif MPI_VERSION >= 4
#define ALLREDUCE_INIT MPI_Allreduce_init
#define BCAST_INIT     MPI_Bcast_init
#define ALLGATHER_INIT MPI_Allgather_init
#endif

static int rank, size, failures, checks;
static const char *only;

/* Whether a test of a communicator freed with collectives still pending
 * can run: Open MPI 4.1's own non-blocking and persistent collectives
 * (coll/libnbc) do not keep their communicator, and crash or hang once it
 * is freed; MPI says they complete normally. So under Open MPI only where
 * Trellis serves the calls (its library loaded, more than one rank: it
 * hands an allreduce on one rank to the MPI library). */
static bool pending_free_runs(const char *name)
{
#if defined(OPEN_MPI) && OPEN_MPI
    if (!dlsym(RTLD_DEFAULT, "trellis_version") || size == 1) {
        if (rank == 0)
            printf("%s: skipped (Open MPI's own collectives fail it)\n", name);
        return false;
    }
#endif
    (void)name;
    return true;
}

/* Sum over ranks of (r + k) for r in 0..p-1. */
static int sum_ranks_plus(int p, int k)
{
    return p * (p - 1) / 2 + p * k;
}

/* Many outstanding on one communicator and a reordered split of it,
 * completed in reverse order, then in an order random but the same on no
 * two rounds. */
static void outstanding(void)
{
    enum { K = 12, N = 37 };
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &sub); /* reversed ranks */
    int srank;
    MPI_Comm_rank(sub, &srank);
    unsigned seed = 7;
    for (int round = 0; round < 4; round++) {
        int in[K][N], out[K][N], bc[N], gat[N * 64];
        MPI_Request reqs[K + 3];
        for (int k = 0; k < K; k++) {
            for (int i = 0; i < N; i++)
                in[k][i] = rank + k * 100 + i + round;
            MPI_Comm c = k % 2 ? sub : MPI_COMM_WORLD;
            MPI_Iallreduce(in[k], out[k], N, MPI_INT, MPI_SUM, c, &reqs[k]);
        }
        for (int i = 0; i < N; i++)
            bc[i] = rank == size - 1 ? i * 3 + round : -1;
        MPI_Ibcast(bc, N, MPI_INT, size - 1, MPI_COMM_WORLD, &reqs[K]);
        int mine = srank * 10 + round;
        MPI_Iallgather(&mine, 1, MPI_INT, gat, 1, MPI_INT, sub, &reqs[K + 1]);
        MPI_Ibarrier(sub, &reqs[K + 2]);
        if (round % 2 == 0) {
            for (int k = K + 2; k >= 0; k--)
                MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
        } else {
            int left = K + 3;
            while (left > 0) {
                int idx, j = (int)(lcg(&seed) % (unsigned)(K + 3));
                if (reqs[j] == MPI_REQUEST_NULL) {
                    MPI_Waitany(K + 3, reqs, &idx, MPI_STATUS_IGNORE);
                } else {
                    MPI_Wait(&reqs[j], MPI_STATUS_IGNORE);
                    idx = j;
                }
                left--;
                CHECK(idx >= 0 && idx < K + 3, "Waitany index %d", idx);
            }
        }
        for (int k = 0; k < K; k++)
            for (int i = 0; i < N; i++)
                CHECK(out[k][i] == sum_ranks_plus(size, k * 100 + i + round),
                      "round %d call %d element %d: %d", round, k, i, out[k][i]);
        for (int i = 0; i < N; i++)
            CHECK(bc[i] == i * 3 + round, "bcast element %d: %d", i, bc[i]);
        for (int r = 0; r < size; r++)
            CHECK(gat[r] == r * 10 + round, "allgather block %d: %d", r, gat[r]);
    }
    MPI_Comm_free(&sub);
}

/* A collective among the program's own sends and receives in one array,
 * completed with Waitall, Waitany and Testsome. */
static void mixed_arrays(void)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int how = 0; how < 3; how++) {
        int in = rank + how, sum = -1, sent = rank * 7 + how, got = -1, all[64];
        MPI_Request r[4];
        MPI_Irecv(&got, 1, MPI_INT, left, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Iallreduce(&in, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
        MPI_Isend(&sent, 1, MPI_INT, right, 5, MPI_COMM_WORLD, &r[2]);
        MPI_Iallgather(&in, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &r[3]);
        if (how == 0) {
            MPI_Status st[4];
            CHECK(MPI_Waitall(4, r, st) == MPI_SUCCESS, "Waitall");
            CHECK(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 5, "status of the receive: %d %d",
                  st[0].MPI_SOURCE, st[0].MPI_TAG);
        } else if (how == 1) {
            for (int n = 0; n < 4; n++) {
                int idx;
                MPI_Status st;
                MPI_Waitany(4, r, &idx, &st);
                CHECK(idx >= 0 && idx < 4, "Waitany index %d", idx);
                if (idx == 0)
                    CHECK(st.MPI_SOURCE == left, "status source %d", st.MPI_SOURCE);
            }
            int idx;
            MPI_Waitany(4, r, &idx, MPI_STATUS_IGNORE);
            CHECK(idx == MPI_UNDEFINED, "Waitany on nothing active gave %d", idx);
        } else {
            int done = 0;
            while (done < 4) {
                int out, idx[4];
                MPI_Testsome(4, r, &out, idx, MPI_STATUSES_IGNORE);
                CHECK(out != MPI_UNDEFINED, "Testsome: nothing active with %d done", done);
                if (out == MPI_UNDEFINED)
                    break;
                done += out;
            }
        }
        for (int k = 0; k < 4; k++)
            CHECK(r[k] == MPI_REQUEST_NULL, "request %d not freed", k);
        CHECK(got == left * 7 + how, "received %d", got);
        CHECK(sum == sum_ranks_plus(size, how), "allreduce %d", sum);
        for (int q = 0; q < size; q++)
            CHECK(all[q] == q + how, "allgather %d: %d", q, all[q]);
    }
}

/* Blocking collectives on a communicator with non-blocking ones
 * outstanding on it. */
static void blocking_among(void)
{
    enum { N = 1000 };
    int *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), x = rank, y = -1, z;
    for (int i = 0; i < N; i++)
        a[i] = rank * i;
    MPI_Request r[2];
    MPI_Iallreduce(a, b, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    z = rank == 0 ? 42 : 0;
    MPI_Bcast(&z, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    CHECK(y == size - 1, "blocking allreduce %d", y);
    CHECK(z == 42, "blocking bcast %d", z);
    for (int i = 0; i < N; i++)
        CHECK(b[i] == i * (size * (size - 1) / 2), "element %d: %d", i, b[i]);
    free(a);
    free(b);
}

/* A communicator freed right after its non-blocking collective completed,
 * some ranks by MPI_Wait ignoring the status, the others by MPI_Test: freeing
 * is collective (Trellis' state of a communicator holds a shared-memory
 * window), so what the completion leaves behind must not delay the free on
 * some ranks only. Then a new communicator and a collective on it. */
static void free_after_wait(void)
{
    for (int round = 0; round < 3; round++) {
        MPI_Comm dup, split;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        int x = rank + round, y = -1, flag = 0;
        MPI_Request r;
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup, &r);
        if (rank % 2 == 0)
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        else
            while (!flag)
                MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
        CHECK(r == MPI_REQUEST_NULL, "round %d: request not freed", round);
        CHECK(y == sum_ranks_plus(size, round), "round %d: %d", round, y);
        MPI_Comm_free(&dup);
        MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &split);
        int z = -1;
        MPI_Allreduce(&x, &z, 1, MPI_INT, MPI_MAX, split);
        CHECK(z == size - 1 + round, "round %d: split allreduce %d", round, z);
        MPI_Comm_free(&split);
    }
}

/* A communicator freed while its non-blocking collective is still to be
 * completed, and then rank 0 completes it before it sends to the others,
 * who wait for that message first: MPI lets the collective finish
 * normally, and nothing of the freeing may wait for the others' completion
 * calls (Trellis' state holds a shared-memory window, whose freeing is
 * collective). */
static void free_before_wait(void)
{
    if (!pending_free_runs(__func__))
        return;
    for (int round = 0; round < 3; round++) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        int x = rank + round, y = -1, token = -1;
        MPI_Request r[2];
        MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, dup, &r[0]);
        MPI_Ibarrier(dup, &r[1]);
        MPI_Comm_free(&dup);
        if (rank == 0) {
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
            for (int q = 1; q < size; q++)
                MPI_Send(&round, 1, MPI_INT, q, 77, MPI_COMM_WORLD);
            token = round;
        } else {
            MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r[1], MPI_STATUS_IGNORE);
            MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        }
        CHECK(token == round, "round %d: token %d", round, token);
        CHECK(y == sum_ranks_plus(size, round), "round %d: %d", round, y);
    }
}

#ifdef ALLREDUCE_INIT
/* Persistent collectives started 100 times, the buffers' contents changed
 * between starts, with persistent point-to-point requests in the same
 * MPI_Startall and MPI_Waitall. */
static void persistent(void)
{
    enum { N = 33, STARTS = 100 };
    int in[N] = {0}, out[N] = {0}, bc[N] = {0}, mine = 0, all[64] = {0}, to_right = 0,
        from_left = 0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request r[5];
    ALLREDUCE_INIT(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    BCAST_INIT(bc, N, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    MPI_Send_init(&to_right, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &r[2]);
    MPI_Recv_init(&from_left, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r[3]);
    ALLGATHER_INIT(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r[4]);
    int flag;
    MPI_Status st;
    MPI_Request_get_status(r[0], &flag, &st);
    CHECK(flag, "an inactive persistent request is not complete");
    MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
    CHECK(flag && r[0] != MPI_REQUEST_NULL, "Test on an inactive persistent request");
    for (int s = 0; s < STARTS; s++) {
        for (int i = 0; i < N; i++) {
            in[i] = rank * s + i;
            bc[i] = rank == 0 ? s * N + i : -1;
        }
        mine = rank + s;
        to_right = rank * 1000 + s;
        if (s % 2)
            MPI_Startall(5, r);
        else
            for (int k = 4; k >= 0; k--)
                MPI_Start(&r[k]);
        if (s % 3 == 0) {
            MPI_Waitall(5, r, MPI_STATUSES_IGNORE);
        } else {
            int done = 0;
            while (done < 5) {
                int out_n, idx[5];
                MPI_Testsome(5, r, &out_n, idx, MPI_STATUSES_IGNORE);
                if (out_n == MPI_UNDEFINED)
                    break;
                done += out_n;
            }
            CHECK(done == 5, "start %d: Testsome completed %d of 5", s, done);
        }
        for (int k = 0; k < 5; k++)
            CHECK(r[k] != MPI_REQUEST_NULL, "start %d: persistent request %d freed", s, k);
        for (int i = 0; i < N; i++) {
            CHECK(out[i] == s * (size * (size - 1) / 2) + size * i, "start %d element %d: %d", s, i,
                  out[i]);
            CHECK(bc[i] == s * N + i, "start %d bcast %d: %d", s, i, bc[i]);
        }
        for (int q = 0; q < size; q++)
            CHECK(all[q] == q + s, "start %d allgather %d: %d", s, q, all[q]);
        CHECK(from_left == left * 1000 + s, "start %d received %d", s, from_left);
    }
    for (int k = 0; k < 5; k++) {
        CHECK(MPI_Request_free(&r[k]) == MPI_SUCCESS, "free %d", k);
        CHECK(r[k] == MPI_REQUEST_NULL, "freed request %d not null", k);
    }
}

/* A persistent collective whose communicator was freed: started again
 * after the free (MPI keeps the communicator for it), then freed by rank 0
 * before it sends to the others, who free theirs only after that message:
 * MPI_Request_free is local, so it must not wait for the other ranks. */
static void persistent_outlives_comm(void)
{
    if (!pending_free_runs(__func__))
        return;
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int x = 0, y = -1, token = -1;
    MPI_Request r;
    ALLREDUCE_INIT(&x, &y, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &r);
    for (int s = 0; s < 4; s++) {
        if (s == 2)
            MPI_Comm_free(&dup);
        x = rank + s;
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(y == sum_ranks_plus(size, s), "start %d: %d", s, y);
    }
    if (rank == 0) {
        CHECK(MPI_Request_free(&r) == MPI_SUCCESS, "free");
        for (int q = 1; q < size; q++)
            MPI_Send(&x, 1, MPI_INT, q, 78, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(token == 3, "token %d", token);
        CHECK(MPI_Request_free(&r) == MPI_SUCCESS, "free");
    }
}
#endif

/* The error class of freeing, then of cancelling, an active non-blocking
 * barrier: the others enter it only once this rank is done trying, so it
 * is active on this rank. */
static void free_and_cancel(int classes[2], int native)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    for (int what = 0; what < 2; what++) {
        int go = 0;
        MPI_Request r;
        if (rank != 0)
            MPI_Recv(&go, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int rc = native ? PMPI_Ibarrier(c, &r) : MPI_Ibarrier(c, &r);
        if (rank == 0) {
            rc = what == 0 ? (native ? PMPI_Request_free(&r) : MPI_Request_free(&r))
                           : (native ? PMPI_Cancel(&r) : MPI_Cancel(&r));
            MPI_Error_class(rc, &classes[what]);
            for (int q = 1; q < size; q++)
                MPI_Send(&go, 1, MPI_INT, q, 3, MPI_COMM_WORLD);
        }
        if (r != MPI_REQUEST_NULL)
            native ? PMPI_Wait(&r, MPI_STATUS_IGNORE) : MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&c);
}

/* Trellis' error class for an erroneous request call against the MPI
 * library's: the same, or under MPICH, whose classes for these are
 * MPI_ERR_OTHER and MPI_ERR_INTERN, MPI_ERR_REQUEST where it errs too. */
static int same_error(int trellis, int native)
{
#ifdef MPICH_VERSION
    if (native != MPI_SUCCESS && trellis == MPI_ERR_REQUEST)
        return 1;
#endif
    return trellis == native;
}

static void errors(void)
{
    if (size < 2)
        return;
    int trellis[2] = {0, 0}, native[2] = {0, 0};
    /* Which handler the MPI library calls for a request's error is its
     * own choice: let every one return. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    free_and_cancel(native, 1);
    free_and_cancel(trellis, 0);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL);
    if (rank == 0) {
        CHECK(same_error(trellis[0], native[0]),
              "MPI_Request_free of an active Ibarrier: "
              "class %d, the MPI library's %d",
              trellis[0], native[0]);
        CHECK(same_error(trellis[1], native[1]),
              "MPI_Cancel of an active Ibarrier: class %d, "
              "the MPI library's %d",
              trellis[1], native[1]);
    }
}

/* MPI's progress rule: rank 0 is blocked in MPI_Recv while rank 1 waits on
 * a barrier that needs rank 0's part; rank 1 sends only after. */
static void progress_rule(void)
{
    if (size < 2)
        return;
    for (int round = 0; round < 3; round++) {
        MPI_Request r;
        int token = -1;
        MPI_Ibarrier(MPI_COMM_WORLD, &r);
        if (rank == 0) {
            MPI_Recv(&token, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(token == round, "token %d", token);
        } else {
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (rank == 1) {
                token = round;
                MPI_Send(&token, 1, MPI_INT, 0, 11, MPI_COMM_WORLD);
            }
        }
    }
}

typedef struct {
    const char *name;
    void (*run)(void);
} test;

int main(int argc, char **argv)
{
    int want = MPI_THREAD_SINGLE, provided;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--init"))
            want = !strcmp(argv[i + 1], "multiple") ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE;
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
    }
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    test tests[] = {
        {"outstanding", outstanding},
        {"mixed_arrays", mixed_arrays},
        {"blocking_among", blocking_among},
        {"free_after_wait", free_after_wait},
        {"free_before_wait", free_before_wait},
#ifdef ALLREDUCE_INIT
        {"persistent", persistent},
        {"persistent_outlives_comm", persistent_outlives_comm},
#endif
        {"errors", errors},
        {"progress_rule", progress_rule},
    };
    for (size_t t = 0; t < sizeof tests / sizeof *tests; t++)
        if (!only || !strcmp(only, tests[t].name))
            tests[t].run();
    int status = check_summary("test_nonblocking", "", failures, checks);
    MPI_Finalize();
    return status;
}
