/* An intercommunicator from MPI_Comm_spawn: the parents (MPI_COMM_WORLD
 * of the job) spawn CHILDREN copies of this program and both sides run
 * collectives over the intercommunicator spawn returns, checked against
 * values computed here. Trellis sets such an intercommunicator up at its
 * first blocking collective (the constructor cannot know the children run
 * Trellis), so the first call below is a blocking one. A plain MPI program:
 * the test suite runs it with algorithms forced and checks Trellis ran them.
 *
 * Covered: bcast with the root on either side (MPI_ROOT, MPI_PROC_NULL),
 * allreduce with MPI_SUM (each side gets the other's sum) and with a
 * non-commutative user operation, barrier, allgather, alltoall; counts 1
 * and 1000. Parent rank 0 prints "inter_spawn ranks=P+C: N checks, F
 * failed" (the children's failures sent to it).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHILDREN 2

static int checks, failures;

static void check(int cond, const char *what, int rank, int side)
{
    checks++;
    if (!cond) {
        failures++;
        if (failures <= 10)
            fprintf(stderr, "%s rank %d FAIL: %s\n", side ? "child" : "parent", rank, what);
    }
}

/* The j-th int that rank `r` of side `side` contributes to `to`. */
static int val(int side, int r, int to, int j)
{
    return side * 100000 + r * 1000 + to * 10 + j % 7;
}

/* 2x2 integer matrix product: b = a x b (not commutative). */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int *a = in;
    int *b = inout;
    for (int i = 0; i < *len / 4; i++, a += 4, b += 4) {
        int r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                    a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

static void matrix_of(int side, int r, int *m)
{
    m[0] = 1 + side;
    m[1] = r + 1;
    m[2] = 2 * r;
    m[3] = 1;
}

static void bcasts(MPI_Comm ic, int side, int me, int n)
{
    int *buf = malloc((size_t)n * sizeof *buf);
    for (int from = 0; from < 2; from++) {
        /* Root: rank nl-1 of side `from`. */
        int nl, nr;
        MPI_Comm_size(ic, &nl);
        MPI_Comm_remote_size(ic, &nr);
        int root_rank = (from == side ? nl : nr) - 1, root;
        for (int j = 0; j < n; j++)
            buf[j] = from == side && me == root_rank ? val(from, root_rank, 0, j) : -1;
        root = from == side ? (me == root_rank ? MPI_ROOT : MPI_PROC_NULL) : root_rank;
        MPI_Bcast(buf, n, MPI_INT, root, ic);
        if (from != side) {
            int ok = 1;
            for (int j = 0; j < n; j++)
                ok &= buf[j] == val(from, root_rank, 0, j);
            check(ok, "bcast", me, side);
        }
    }
    free(buf);
}

static void allreduces(MPI_Comm ic, MPI_Op op_mat, int side, int me, int n)
{
    int nr;
    MPI_Comm_remote_size(ic, &nr);
    int *in = malloc((size_t)n * sizeof *in), *out = malloc((size_t)n * sizeof *out);
    for (int j = 0; j < n; j++)
        in[j] = val(side, me, 0, j);
    MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, ic);
    int ok = 1;
    for (int j = 0; j < n; j++) {
        int want = 0;
        for (int r = 0; r < nr; r++)
            want += val(1 - side, r, 0, j);
        ok &= out[j] == want;
    }
    check(ok, "allreduce sum", me, side);
    /* The other side's matrices multiplied in its rank order. */
    int mine[4], want[4], next[4];
    matrix_of(side, me, mine);
    matrix_of(1 - side, 0, want);
    for (int r = 1; r < nr; r++) {
        matrix_of(1 - side, r, next);
        int n4 = 4;
        MPI_Datatype t = MPI_INT;
        int copy[4];
        memcpy(copy, want, sizeof copy);
        matmul(copy, next, &n4, &t);
        memcpy(want, next, sizeof want);
    }
    int got[4];
    MPI_Allreduce(mine, got, 4, MPI_INT, op_mat, ic);
    check(!memcmp(got, want, sizeof got), "allreduce non-commutative", me, side);
    free(in);
    free(out);
}

static void movers(MPI_Comm ic, int side, int me, int n)
{
    int nr;
    MPI_Comm_remote_size(ic, &nr);
    int *send = malloc((size_t)n * (size_t)nr * sizeof *send);
    int *recv = malloc((size_t)n * (size_t)nr * sizeof *recv);
    for (int j = 0; j < n; j++)
        send[j] = val(side, me, 0, j);
    MPI_Allgather(send, n, MPI_INT, recv, n, MPI_INT, ic);
    int ok = 1;
    for (int r = 0; r < nr; r++)
        for (int j = 0; j < n; j++)
            ok &= recv[r * n + j] == val(1 - side, r, 0, j);
    check(ok, "allgather", me, side);
    for (int r = 0; r < nr; r++)
        for (int j = 0; j < n; j++)
            send[r * n + j] = val(side, me, r, j);
    MPI_Alltoall(send, n, MPI_INT, recv, n, MPI_INT, ic);
    ok = 1;
    for (int r = 0; r < nr; r++)
        for (int j = 0; j < n; j++)
            ok &= recv[r * n + j] == val(1 - side, r, me, j);
    check(ok, "alltoall", me, side);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm parent, ic;
    MPI_Comm_get_parent(&parent);
    int side = parent != MPI_COMM_NULL, me, nl;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nl);
    if (side)
        ic = parent;
    else
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, CHILDREN, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                       MPI_ERRCODES_IGNORE);
    MPI_Op op_mat;
    MPI_Op_create(matmul, 0, &op_mat);
    const int counts[] = {1, 1000};
    for (int i = 0; i < 2; i++) {
        allreduces(ic, op_mat, side, me, counts[i] * 4);
        bcasts(ic, side, me, counts[i]);
        movers(ic, side, me, counts[i]);
        MPI_Barrier(ic);
    }
    /* The children's results to parent rank 0, by point-to-point. */
    int mine[2] = {checks, failures}, theirs[2];
    if (side && me == 0) {
        int sum[2];
        MPI_Reduce(mine, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Send(sum, 2, MPI_INT, 0, 7, ic);
    } else if (side) {
        MPI_Reduce(mine, NULL, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else {
        int sum[2];
        MPI_Reduce(mine, sum, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        if (me == 0) {
            MPI_Recv(theirs, 2, MPI_INT, 0, 7, ic, MPI_STATUS_IGNORE);
            printf("inter_spawn ranks=%d+%d: %d checks, %d failed\n", nl, CHILDREN,
                   sum[0] + theirs[0], sum[1] + theirs[1]);
        }
    }
    MPI_Op_free(&op_mat);
    MPI_Comm_disconnect(&ic);
    MPI_Finalize();
    return 0;
}
