/* Inside the simulator (not part of the API): its state (sim_state.c), shared
 * by the ranks' CPUs (sim_cpu.c) and the run (sim.c). */
#ifndef TRL_SIM_STATE_H
#define TRL_SIM_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/model.h"
#include "sim/sim_call.h"

/* ---- events ---------------------------------------------------------- */

typedef enum {
    EV_ENTER,  /* rank enters the call */
    EV_CPU,    /* rank's CPU ends the work it was busy with */
    EV_WIRE,   /* a message's first byte reaches the receiving host (across hosts) */
    EV_ARRIVE, /* a message is all in at its receiver: rank, a = sender, b = tag */
    EV_SENT,   /* a send's last byte has left: rank, a = step */
    EV_RTS,    /* rendezvous: the receiver hears of a send: rank, a = sender, b = tag, c = step */
    EV_CTS,    /* rendezvous: the sender hears the receive is posted: rank, a = step */
    EV_WAKE,   /* a port the rank's CPU waits for is free: rank */
} ev_type;

typedef struct {
    double t;
    uint64_t seq; /* ties in time go in the order the events were made */
    int32_t type, rank, a, b, c;
} event;

typedef struct {
    event *v;
    size_t n, cap;
    uint64_t seq;
} heap;

/* Add e as it is (its seq kept). */
int trl__sim_heap_insert(heap *h, event e);
/* Add e after every event added before it at its time. */
int trl__sim_heap_push(heap *h, event e);
/* The earliest event, taken out. */
event trl__sim_heap_pop(heap *h);

/* ---- ranks ----------------------------------------------------------- */

enum { ST_WAITING, ST_READY, ST_POSTED, ST_DONE };
enum { WORK_SEND, WORK_LOCAL, WORK_RECV };

typedef struct {
    double arrived;      /* recv: when its message was all in (< 0: not yet); under
                          * style=loggopsim, when it was taken in */
    uint32_t waiting;    /* dependencies not done */
    uint32_t succ_first; /* its successors: succ[succ_first .. next's succ_first) */
    int32_t rts_step;    /* recv by rendezvous: the sender's step, once heard of (-1) */
    uint8_t state;
} step_state;

/* A rank holding its schedule, all in one allocation. */
typedef struct {
    int rank;
    bool entered, finished;
    double t_enter;
    double cpu_until;                 /* when its CPU ends the current work */
    double port_free[TRL_LINK_COUNT]; /* when each of its ports may start a message */
    double recv_free[TRL_LINK_COUNT]; /* when each may start taking one in */
    double wake_at;                   /* a wake-up (EV_WAKE) is due then; < 0: none */
    int32_t busy;                     /* the step whose work the CPU is doing, -1: idle */
    int busy_work;                    /* WORK_* */
    uint32_t nsteps, ndone, nroots, nsucc;
    trl_sim_step *rec;
    step_state *st;
    uint32_t *succ, *roots;
    /* The executor's two FIFO queues (src/exec/exec_mpi.c): receives from
     * the top down, the rest from the bottom up; a step is queued once. */
    uint32_t *ready;
    uint32_t recv_head, recv_tail, other_head, other_tail;
    uint32_t *in; /* receives whose message is in, waiting for the CPU: a FIFO; under
                   * style=loggopsim, messages not yet taken in, a heap by stamp */
    uint32_t in_head, in_tail;
    /* style=loggopsim only (else NULL): when each step became ready or its
     * message was sent, as a stamp (the events' sequence: smaller, sooner),
     * and the local steps' own FIFO (sends keep the bottom of `ready`). */
    uint64_t *stamp;
    uint32_t *local;
    uint32_t local_head, local_tail;
    uint64_t ready_stamp; /* the stamp of steps made ready now */
    uint64_t busy_stamp;  /* the stamp the CPU's current work started at */
    int32_t *recv_at;     /* receive steps by (peer, tag): open addressing */
    uint32_t recv_mask;
    size_t bytes;
} sim_rank;

/* A rank whose schedule starts with receives only is dormant after it
 * enters: it holds nothing, and is built again (and its entry replayed,
 * which only posts those receives) when its first message comes. In a
 * broadcast over a million ranks that keeps only the ranks in the thick of
 * it in memory. */
enum { RANK_UNBUILT, RANK_ALIVE, RANK_DORMANT, RANK_FINISHED };

typedef struct {
    const trl_sim_call *c;
    const trl_model *m;
    const trl_topo *topo;
    int p;
    sim_rank **rank;
    uint8_t *rank_state;
    double *host_out, *host_in; /* when each host's link is free, out and in */
    heap events;
    bool lgs;        /* style=loggopsim */
    double entry_at; /* the entries stamped with entry_stamp were at this time */
    uint64_t entry_stamp;
    int *dirty;        /* style=loggopsim: ranks whose CPU must choose once this */
    uint8_t *is_dirty; /* instant's events are all in */
    int ndirty;
    heap choices; /* style=loggopsim: those ranks by their choice's stamp (as t) */
    trl_build_memo *memo;
    trl_sim_result *res;
    size_t alive, alive_bytes;
    /* Phase names of every rank, interned: open addressing over names. */
    char **names;
    int nnames;
    int32_t *name_at;
    uint32_t name_mask;
    int status;
} sim;

/* The first failure is kept (status, and res->why); returns status. */
int trl__sim_fail(sim *S, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The global index of a phase name, added if new. */
int trl__sim_intern(sim *S, const char *name);
/* Rank r's schedule, built and kept compact; NULL after a failure. */
sim_rank *trl__sim_build(sim *S, int r);
/* R's receive step from `peer` with `tag`, or -1. */
int32_t trl__sim_find_recv(const sim_rank *R, int peer, int tag);
/* R freed, its rank left in `state` (RANK_DORMANT, RANK_FINISHED). */
void trl__sim_drop(sim *S, sim_rank *R, uint8_t state);

#endif
