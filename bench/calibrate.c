/* Calibration: what one link and one core cost, for `trellis calibrate`
 * (python/trellis/cmd_calibrate.py, docs/simulate.md), which fits the
 * simulator's model to it.
 *
 * Two ranks; where they sit (one socket, one host, two hosts) is mpirun's
 * doing. Rank 0 prints one JSON object per line:
 *
 *   {"what": "pair", "hosts": [NAME0, NAME1], "same_host": BOOL}
 *   {"what": "pingpong", "bytes": S, "ns": T, "reps": R}
 *       half the round trip of S bytes there and back (MPI_Send/MPI_Recv),
 *       the median over R repetitions: latency + 2 overhead + S per_byte;
 *   {"what": "overhead", "send_ns": A, "recv_ns": B}
 *       the time a 1-byte MPI_Send takes to return (eager: the sender's
 *       overhead), and an MPI_Recv of a 1-byte message that has already
 *       arrived (the receiver's), medians per call over trains of them;
 *   {"what": "train", "bytes": S, "count": N, "ns": G}
 *       N messages of S bytes posted at once (MPI_Isend) to receives posted
 *       before: the time per message beyond the first, the median over
 *       repetitions: max(gap, S per_byte);
 *   {"what": "reduce", "bytes": S, "ns": T, "dtype": "int"}
 *       MPI_Reduce_local(MPI_SUM) of S bytes on rank 0, the median;
 *   {"what": "copy", "bytes": S, "ns": T}
 *       memcpy of S bytes on rank 0, the median.
 *
 *   calibrate [--max BYTES] [--seconds S] [--dtype int|double]
 *
 * --max: the largest message (default 4M); --seconds: about how long each
 * size is repeated for (default 0.5; at least 9 and at most 1000 times,
 * after 3 untimed rounds whose fastest sets the count). Medians, because
 * a shared machine preempts now and then.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MIN_REPS = 9, MAX_REPS = 1000, TRAIN = 16, WARMUP = 3 };

typedef struct {
    size_t max_bytes;
    double seconds;
    MPI_Datatype dtype;
    const char *dtype_name;
} options;

static int by_value(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* How many repetitions of something that took `once` seconds: enough for
 * the time budget, within [MIN_REPS, MAX_REPS]; rank 0 decides for both. */
static int reps_for(const options *o, double once)
{
    int n = once > 0 ? (int)(o->seconds / once) : MAX_REPS;
    n = n < MIN_REPS ? MIN_REPS : n > MAX_REPS ? MAX_REPS : n;
    MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return n;
}

/* One round trip of n bytes, 0 -> 1 -> 0; its time (rank 0's, or rank 1's). */
static double round_trip(int rank, char *buf, int n)
{
    double t0 = MPI_Wtime();
    if (rank == 0) {
        MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static void pingpong(const options *o, int rank, char *buf)
{
    double times[MAX_REPS];
    for (size_t s = 0; s <= o->max_bytes; s = s ? s * 2 : 1) {
        /* Untimed round trips first; the fastest sets how many are timed. */
        double fastest = 1e30;
        for (int i = 0; i < WARMUP; i++) {
            double t = round_trip(rank, buf, (int)s);
            fastest = t < fastest ? t : fastest;
        }
        int reps = reps_for(o, fastest);
        for (int i = 0; i < reps; i++)
            times[i] = round_trip(rank, buf, (int)s) / 2;
        if (rank == 0)
            printf("{\"what\": \"pingpong\", \"bytes\": %zu, \"ns\": %.1f, \"reps\": %d}\n", s,
                   1e9 * median(times, reps), reps);
    }
}

/* Sender: time per 1-byte MPI_Send over trains of TRAIN; receiver: time per
 * MPI_Recv of messages already in (a probe for a last message, which comes
 * after them, says they are). */
static void overhead(const options *o, int rank, char *buf)
{
    double send[MAX_REPS], recv[MAX_REPS];
    int reps = reps_for(o, 2e-4);
    for (int i = 0; i < reps; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            double t0 = MPI_Wtime();
            for (int k = 0; k < TRAIN; k++)
                MPI_Send(buf + k, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            send[i] = (MPI_Wtime() - t0) / TRAIN;
            MPI_Send(buf, 1, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
        } else {
            MPI_Probe(0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t0 = MPI_Wtime();
            for (int k = 0; k < TRAIN; k++)
                MPI_Recv(buf + k, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            recv[i] = (MPI_Wtime() - t0) / TRAIN;
            MPI_Recv(buf, 1, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    double r = 0;
    if (rank == 1) {
        r = median(recv, reps);
        MPI_Send(&r, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&r, 1, MPI_DOUBLE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("{\"what\": \"overhead\", \"send_ns\": %.1f, \"recv_ns\": %.1f}\n",
               1e9 * median(send, reps), 1e9 * r);
    }
}

/* count messages of s bytes from rank 0 to rank 1, posted at once against
 * receives posted before; returns the time until rank 1 has them all and
 * rank 0 heard so (on rank 0). */
static double one_train(int rank, char *buf, size_t s, int count, MPI_Request *req)
{
    char ack = 0;
    if (rank == 1)
        for (int k = 0; k < count; k++)
            MPI_Irecv(buf + (size_t)k * s, (int)s, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &req[k]);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        for (int k = 0; k < count; k++)
            MPI_Isend(buf + (size_t)k * s, (int)s, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &req[k]);
        MPI_Waitall(count, req, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Waitall(count, req, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static void trains(const options *o, int rank, char *buf)
{
    MPI_Request req[TRAIN];
    double per[MAX_REPS];
    for (size_t s = 1; s <= o->max_bytes; s *= 8) {
        int count = s * TRAIN <= o->max_bytes * 4 ? TRAIN : 4;
        double fastest = 1e30;
        for (int i = 0; i < WARMUP; i++) {
            double t = one_train(rank, buf, s, count, req);
            fastest = t < fastest ? t : fastest;
        }
        int reps = reps_for(o, 2 * fastest);
        for (int i = 0; i < reps; i++) {
            double one = one_train(rank, buf, s, 1, req);
            double all = one_train(rank, buf, s, count, req);
            per[i] = (all - one) / (count - 1);
        }
        if (rank == 0)
            printf("{\"what\": \"train\", \"bytes\": %zu, \"count\": %d, \"ns\": %.1f}\n", s, count,
                   1e9 * median(per, reps));
    }
}

/* Local work on rank 0: a reduction and a copy per size. */
static void local_work(const options *o, int rank)
{
    if (rank != 0)
        return;
    int elem;
    MPI_Type_size(o->dtype, &elem);
    char *a = calloc(o->max_bytes + 64, 1), *b = calloc(o->max_bytes + 64, 1);
    double t[MAX_REPS];
    for (size_t s = 4096; s <= o->max_bytes && a && b; s *= 4) {
        for (int what = 0; what < 2; what++) {
            int reps = 0;
            double start = MPI_Wtime();
            while (reps < MAX_REPS && (reps < MIN_REPS || MPI_Wtime() - start < o->seconds / 4)) {
                double t0 = MPI_Wtime();
                if (what == 0)
                    MPI_Reduce_local(a, b, (int)(s / (size_t)elem), o->dtype, MPI_SUM);
                else
                    memcpy(b, a, s);
                t[reps++] = MPI_Wtime() - t0;
            }
            if (what == 0)
                printf("{\"what\": \"reduce\", \"bytes\": %zu, \"ns\": %.1f, \"dtype\": \"%s\"}\n",
                       s, 1e9 * median(t, reps), o->dtype_name);
            else
                printf("{\"what\": \"copy\", \"bytes\": %zu, \"ns\": %.1f}\n", s,
                       1e9 * median(t, reps));
        }
    }
    free(a);
    free(b);
}

static int parse(int argc, char **argv, options *o)
{
    *o = (options){.max_bytes = 4u << 20, .seconds = 0.5, .dtype = MPI_INT, .dtype_name = "int"};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--max") && v) {
            char *end;
            unsigned long long x = strtoull(v, &end, 10);
            x <<= *end == 'K' ? 10 : *end == 'M' ? 20 : 0;
            if (x < 1 || (*end && end[1]))
                return -1;
            o->max_bytes = (size_t)x;
        } else if (!strcmp(argv[i], "--seconds") && v) {
            o->seconds = atof(v);
            if (o->seconds <= 0)
                return -1;
        } else if (!strcmp(argv[i], "--dtype") && v) {
            if (!strcmp(v, "int"))
                o->dtype = MPI_INT;
            else if (!strcmp(v, "double"))
                o->dtype = MPI_DOUBLE;
            else
                return -1;
            o->dtype_name = v;
        } else {
            return -1;
        }
        i++;
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    options o;
    if (parse(argc, argv, &o) || size != 2) {
        if (rank == 0)
            fprintf(stderr,
                    "usage: mpirun -np 2 %s [--max BYTES] [--seconds S] "
                    "[--dtype int|double]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    char name[2][MPI_MAX_PROCESSOR_NAME] = {{0}};
    int len;
    MPI_Get_processor_name(name[rank], &len);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                  MPI_COMM_WORLD);
    if (rank == 0)
        printf("{\"what\": \"pair\", \"hosts\": [\"%s\", \"%s\"], \"same_host\": %s}\n", name[0],
               name[1], strcmp(name[0], name[1]) ? "false" : "true");
    char *buf = calloc(o.max_bytes * TRAIN + 64, 1);
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 1);
    pingpong(&o, rank, buf);
    overhead(&o, rank, buf);
    trains(&o, rank, buf);
    local_work(&o, rank);
    free(buf);
    MPI_Finalize();
    return 0;
}
