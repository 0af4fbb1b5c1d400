/* Issue 13's small-message bar, measured so that the machine's slow and
 * quiet periods hit both sides alike: batches of 500 8-byte MPI_Iallreduce +
 * MPI_Wait, 500 blocking MPI_Allreduce and 500 blocking calls wrapped in a
 * bare generalized request (MPI_Grequest_start, the call, _complete,
 * MPI_Wait: what the library's request alone costs on the path between two
 * calls) alternate; per batch the time a call, per launch the medians and
 * the median of the per-batch ratios, and with SEGMENTS=1 the ratio of
 * every 50 batches (the machine's periods show as runs of them).
 *   mpicc -O2 -o batches batches.c
 *   mpirun -np 2 -x LD_PRELOAD=build/libtrellis.so ./batches [batches] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { PER = 500 };

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double *s = malloc((size_t)n * sizeof *s);
    for (int i = 0; i < n; i++)
        s[i] = v[i];
    qsort(s, (size_t)n, sizeof *s, cmp);
    double m = s[n / 2];
    free(s);
    return m;
}

static int query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int nofree(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int nocancel(void *extra, int done)
{
    (void)extra;
    (void)done;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 300;
    double a = 1, b, *nb = malloc(n * sizeof *nb), *blk = malloc(n * sizeof *blk);
    double *greq = malloc(n * sizeof *greq), *ratio = malloc(n * sizeof *ratio);
    for (int k = 0; k < n; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        for (int i = 0; i < PER; i++) {
            MPI_Request r;
            MPI_Iallreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        nb[k] = (MPI_Wtime() - t) / PER * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < PER; i++)
            MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        blk[k] = (MPI_Wtime() - t) / PER * 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int i = 0; i < PER; i++) {
            MPI_Request r;
            MPI_Grequest_start(query, nofree, nocancel, NULL, &r);
            MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Grequest_complete(r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        greq[k] = (MPI_Wtime() - t) / PER * 1e6;
        ratio[k] = nb[k] / blk[k];
    }
    if (rank == 0) {
        if (getenv("SEGMENTS")) {
            printf("nb/blocking every 50 batches:");
            for (int k = 0; k + 50 <= n; k += 50) {
                double s = 0, t = 0;
                for (int j = k; j < k + 50; j++)
                    s += nb[j], t += blk[j];
                printf(" %.2f", s / t);
            }
            printf("\n");
        }
        double mb = median(blk, n);
        printf("us a call: nb %.3f blocking %.3f blocking+grequest %.3f; nb/blocking %.3f "
               "(median of batches), blocking+grequest/blocking %.3f\n",
               median(nb, n), mb, median(greq, n), median(ratio, n), median(greq, n) / mb);
    }
    MPI_Finalize();
    return 0;
}
