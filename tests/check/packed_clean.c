/* A correct program whose ranks describe the same data differently: one
 * side in MPI_PACKED (which matches any signature of its size), the other
 * in MPI_INT, in every collective whose blocks are one size all round and
 * in every v and w form. Under TRELLIS_CHECK=1 it must run to the end with
 * the right data and no report: the check's quick words cannot vouch for
 * a packed block, so these calls take its exact path (docs/check.md).
 * Any number of ranks; exits non-zero on a wrong value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { K = 3 }; /* ints a block */

static int rank, size, errors, checks;

static int value(int from, int to, int i)
{
    return 1000 * from + 10 * to + i;
}

static void expect(const char *what, const int *got, int from, int to)
{
    checks++;
    for (int i = 0; i < K; i++)
        if (got[i] != value(from, to, i)) {
            fprintf(stderr, "rank %d: %s: block from %d, int %d is %d, not %d\n", rank, what, from,
                    i, got[i], value(from, to, i));
            errors++;
            return;
        }
}

/* The K ints from `from` to `to`, packed into out (K * 4 bytes on the
 * homogeneous machines MPI_PACKED's size is taken from here). */
static int pack(int from, int to, char *out, int cap)
{
    int v[K], pos = 0;
    for (int i = 0; i < K; i++)
        v[i] = value(from, to, i);
    MPI_Pack(v, K, MPI_INT, out, cap, &pos, MPI_COMM_WORLD);
    return pos;
}

static void one_block(void)
{
    char packed[64];
    int ints[K], bytes = pack(0, 0, packed, sizeof packed);
    /* bcast: the root's block packed, the others' ints */
    if (rank == 0)
        MPI_Bcast(packed, bytes, MPI_PACKED, 0, MPI_COMM_WORLD);
    else {
        MPI_Bcast(ints, K, MPI_INT, 0, MPI_COMM_WORLD);
        expect("MPI_Bcast", ints, 0, 0);
    }
    /* gather: every rank sends packed, the root receives ints */
    int *all = malloc(sizeof(int) * K * (size_t)size);
    bytes = pack(rank, 0, packed, sizeof packed);
    MPI_Gather(packed, bytes, MPI_PACKED, all, K, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < size; r++)
        expect("MPI_Gather", all + K * r, r, 0);
    free(all);
}

static void per_peer(void)
{
    int n = size;
    char *sendp = malloc(64 * (size_t)n);
    int *recv = malloc(sizeof(int) * K * (size_t)n), *counts = malloc(sizeof(int) * (size_t)n);
    int *displs = malloc(sizeof(int) * (size_t)n), *pcounts = malloc(sizeof(int) * (size_t)n);
    int *pdispls = malloc(sizeof(int) * (size_t)n);
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype *rtypes = malloc(sizeof(MPI_Datatype) * (size_t)n);
    int *wrdispls = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) {
        counts[r] = K;
        displs[r] = K * r;
        pdispls[r] = 64 * r;
        pcounts[r] = pack(rank, r, sendp + 64 * r, 64);
    }
    /* alltoallv: packed out, ints in */
    MPI_Alltoallv(sendp, pcounts, pdispls, MPI_PACKED, recv, counts, displs, MPI_INT,
                  MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        expect("MPI_Alltoallv", recv + K * r, r, rank);
    /* alltoallw: packed out to even ranks, ints to odd ones (w's displacements are bytes
     * into one buffer); ints in */
    char *wsend = malloc((size_t)(64 + sizeof(int) * K) * (size_t)n);
    int *wcounts = malloc(sizeof(int) * (size_t)n), *sdispls = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) {
        char *at = wsend + (size_t)(64 + sizeof(int) * K) * (size_t)r;
        sdispls[r] = (int)(at - wsend);
        stypes[r] = r % 2 ? MPI_INT : MPI_PACKED;
        rtypes[r] = MPI_INT;
        wrdispls[r] = (int)sizeof(int) * K * r;
        if (r % 2) {
            for (int i = 0; i < K; i++)
                ((int *)(void *)at)[i] = value(rank, r, i);
            wcounts[r] = K;
        } else {
            wcounts[r] = pack(rank, r, at, 64);
        }
    }
    MPI_Alltoallw(wsend, wcounts, sdispls, stypes, recv, counts, wrdispls, rtypes, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        expect("MPI_Alltoallw", recv + K * r, r, rank);
    /* gatherv to the last rank: packed out, ints in */
    int root = n - 1;
    MPI_Gatherv(sendp + 64 * root, pcounts[root], MPI_PACKED, recv, counts, displs, MPI_INT, root,
                MPI_COMM_WORLD);
    for (int r = 0; rank == root && r < n; r++)
        expect("MPI_Gatherv", recv + K * r, r, root);
    /* allgatherv: packed out (each rank's block for rank 0), ints in */
    MPI_Allgatherv(sendp, pcounts[0], MPI_PACKED, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        expect("MPI_Allgatherv", recv + K * r, r, 0);
    /* scatterv from rank 0: ints out, packed in, unpacked here */
    char inp[64];
    int bytes = pack(0, rank, inp, sizeof inp), got[K], pos = 0;
    int *sendi = malloc(sizeof(int) * K * (size_t)n);
    for (int r = 0; r < n; r++)
        for (int i = 0; i < K; i++)
            sendi[K * r + i] = value(0, r, i);
    MPI_Scatterv(sendi, counts, displs, MPI_INT, inp, bytes, MPI_PACKED, 0, MPI_COMM_WORLD);
    MPI_Unpack(inp, bytes, &pos, got, K, MPI_INT, MPI_COMM_WORLD);
    expect("MPI_Scatterv", got, 0, rank);
    free(sendp), free(recv), free(counts), free(displs), free(pcounts), free(pdispls);
    free(stypes), free(rtypes), free(wrdispls), free(sendi), free(sdispls), free(wsend);
    free(wcounts);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int round = 0; round < 3; round++) {
        one_block();
        per_peer();
    }
    int mine[2] = {checks, errors}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("packed_clean: %d ranks, %d blocks checked, %d failed\n", size, all[0], all[1]);
    MPI_Finalize();
    return all[1] ? 1 : 0;
}
