/* Runs the schedules of every rank in one process, one thread per rank.
 * For tests: no MPI at all; the element type and the reduction are the
 * caller's. It is deliberately stricter than MPI:
 *  - sends complete only when the receiver has copied the data
 *    (rendezvous), so a schedule that writes a buffer still being sent,
 *    or that needs buffering to avoid deadlock, fails;
 *  - among ready steps it picks one at random, and at random completes
 *    posted messages before or after local steps, so a missing dependency
 *    shows up as a wrong result;
 *  - every buffer access is bounds-checked, every message's length must
 *    match, and a schedule that stops making progress is reported as a
 *    deadlock instead of hanging. */
#ifndef TRL_EXEC_THREADS_H
#define TRL_EXEC_THREADS_H

#include <stddef.h>

#include "sched/sched.h"

typedef void (*trl_thread_reduce_fn)(const void *in, void *inout, size_t count);

typedef struct {
    int size;
    size_t elem_size;
    trl_thread_reduce_fn reduce;
    trl_sched *scheds;  /* one finished schedule per rank */
    void **sendbuf;     /* per rank; may equal recvbuf (in place) */
    void **recvbuf;     /* per rank; may be NULL where unused */
    size_t *send_elems; /* per rank: capacity of sendbuf in elements */
    size_t *recv_elems; /* per rank: capacity of recvbuf in elements */
    unsigned seed;      /* for the random choice among ready steps */
    double timeout_s;   /* no progress for this long: deadlock */
    char error[256];    /* set on failure */
} trl_thread_job;

/* Returns 0 on success, a negative status with job->error set otherwise. */
int trl_thread_run(trl_thread_job *job);

#endif
