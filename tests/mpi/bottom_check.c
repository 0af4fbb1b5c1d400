/* MPI_BOTTOM as the buffer of the data movers, with datatypes of absolute
 * addresses (MPI_Get_address and MPI_Type_create_struct), checked against
 * values computed here. Trellis stages such buffers through MPI_Pack and
 * MPI_Unpack, which MPICH refuses for a NULL buffer unless the call is
 * rewritten. A plain MPI program; rank 0 ends with
 * "bottom_check ranks=P: N checks, F failed". */
#include "coll_check_common.h"

enum { N = 5 };

/* count ints at `at`, as a type of absolute addresses (one block of a
 * collective). */
static MPI_Datatype absolute(const int *at, int count)
{
    MPI_Aint address;
    MPI_Get_address(at, &address);
    MPI_Datatype type, base = MPI_INT;
    MPI_Type_create_struct(1, &count, &address, &base, &type);
    MPI_Type_commit(&type);
    return type;
}

static int value(int from, int to, int i)
{
    return 1000 * from + 10 * to + i;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int p, r;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    world_rank = r;
    int root = p - 1, *mine = xmalloc(N * sizeof *mine),
        *all = xmalloc((size_t)p * N * sizeof *all);
    MPI_Datatype one = absolute(mine, N), block = absolute(all, N);

    /* bcast: the root's N ints, from and into MPI_BOTTOM. */
    for (int i = 0; i < N; i++)
        mine[i] = r == root ? value(root, 0, i) : -1;
    MPI_Bcast(MPI_BOTTOM, 1, one, root, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == value(root, 0, i), "bcast [%d] = %d", i, mine[i]);

    /* gather and allgather: block q of `all` is rank q's, each block's type
     * addressing `all` from its start, blocks an extent (N ints) apart. */
    for (int i = 0; i < N; i++)
        mine[i] = value(r, 0, i);
    for (int i = 0; i < p * N; i++)
        all[i] = -1;
    MPI_Gather(MPI_BOTTOM, 1, one, MPI_BOTTOM, 1, block, root, MPI_COMM_WORLD);
    for (int i = 0; r == root && i < p * N; i++)
        CHECK(all[i] == value(i / N, 0, i % N), "gather [%d] = %d", i, all[i]);
    for (int i = 0; i < p * N; i++)
        all[i] = -1;
    MPI_Allgather(MPI_BOTTOM, 1, one, MPI_BOTTOM, 1, block, MPI_COMM_WORLD);
    for (int i = 0; i < p * N; i++)
        CHECK(all[i] == value(i / N, 0, i % N), "allgather [%d] = %d", i, all[i]);

    /* scatter: block q of the root's `all` to rank q. */
    for (int i = 0; i < p * N; i++)
        all[i] = value(root, i / N, i % N);
    for (int i = 0; i < N; i++)
        mine[i] = -1;
    MPI_Scatter(MPI_BOTTOM, 1, block, MPI_BOTTOM, 1, one, root, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        CHECK(mine[i] == value(root, r, i), "scatter [%d] = %d", i, mine[i]);

    /* alltoall and alltoallw: block q goes to rank q. */
    int *sent = xmalloc((size_t)p * N * sizeof *sent);
    MPI_Datatype out = absolute(sent, N);
    for (int i = 0; i < p * N; i++) {
        sent[i] = value(r, i / N, i % N);
        all[i] = -1;
    }
    MPI_Alltoall(MPI_BOTTOM, 1, out, MPI_BOTTOM, 1, block, MPI_COMM_WORLD);
    for (int i = 0; i < p * N; i++)
        CHECK(all[i] == value(i / N, r, i % N), "alltoall [%d] = %d", i, all[i]);
    int *counts = xmalloc((size_t)p * sizeof *counts),
        *send_at = xmalloc((size_t)p * sizeof *send_at),
        *recv_at = xmalloc((size_t)p * sizeof *recv_at);
    MPI_Datatype *outs = xmalloc((size_t)p * sizeof *outs), *ins = xmalloc((size_t)p * sizeof *ins);
    for (int q = 0; q < p; q++) {
        counts[q] = 1;
        send_at[q] = recv_at[q] = q * N * (int)sizeof(int);
        outs[q] = out;
        ins[q] = block;
    }
    for (int i = 0; i < p * N; i++)
        all[i] = -1;
    MPI_Alltoallw(MPI_BOTTOM, counts, send_at, outs, MPI_BOTTOM, counts, recv_at, ins,
                  MPI_COMM_WORLD);
    for (int i = 0; i < p * N; i++)
        CHECK(all[i] == value(i / N, r, i % N), "alltoallw [%d] = %d", i, all[i]);

    MPI_Type_free(&one);
    MPI_Type_free(&block);
    MPI_Type_free(&out);
    free(mine);
    free(all);
    free(sent);
    free(counts);
    free(send_at);
    free(recv_at);
    free(outs);
    free(ins);
    int mine_counts[2] = {checks, failures}, total[2];
    MPI_Reduce(mine_counts, total, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (r == 0)
        printf("bottom_check ranks=%d: %d checks, %d failed\n", p, total[0], total[1]);
    MPI_Finalize();
    return failures ? 1 : 0;
}
