/* TRELLIS_CHECK's description of a call (check.h): the fields of a row,
 * what they mean, and what the check's parts (check.c, check_report.c,
 * check_watch.c) share about a communicator and a call. */
#ifndef TRL_CHECK_ROW_H
#define TRL_CHECK_ROW_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "mpi/engine/check_sig.h"

enum {
    /* compared: equal wherever cared for */
    TRL_CK_COLL,
    TRL_CK_MODE,
    TRL_CK_SEQ,
    TRL_CK_ROOT,       /* the root's rank (intercommunicator: as each rank sees it) */
    TRL_CK_ROOT_GROUP, /* intercommunicator: 0 the first group holds the root, 1 the second */
    TRL_CK_OP,
    TRL_CK_XH, /* the data in one direction: signature hash, bytes */
    TRL_CK_XB,
    TRL_CK_YH, /* the other direction (allgather, alltoall: receive side) */
    TRL_CK_YB,
    TRL_CK_INPLACE,
    TRL_CK_COMPARED, /* the fields above */
    /* LOCAL: 0 everywhere; ISROOT: 1 somewhere */
    TRL_CK_LOCAL = TRL_CK_COMPARED,
    TRL_CK_ISROOT,
    /* shown in a report, not compared */
    TRL_CK_ROOT_ARG, /* the root argument as passed */
    TRL_CK_PEER,     /* LOCAL's peer (rank in the communicator, or its group) */
    TRL_CK_WANT,     /* bytes this rank's arguments say the peer's block holds */
    TRL_CK_GOT,      /* bytes the peer's arguments say */
    TRL_CK_GROUP,    /* intercommunicator: 0 first group, 1 second; else 0 */
    TRL_CK_RANK,     /* in its group */
    TRL_CK_SITE,     /* the call site, an offset in its object */
    /* intercommunicator v and w forms: this rank's per-peer digest
     * (trl_check_pre_digest_inter), which the rows' must cancel out, and
     * whether it vouches for it (not where a block is MPI_PACKED) */
    TRL_CK_DIGEST,
    TRL_CK_DIGESTED,
    TRL_CK_FIELDS
};

/* LOCAL's values: what a rank found wrong with its own call. */
enum {
    TRL_CK_LOCAL_OK,
    TRL_CK_LOCAL_PEER,      /* a peer's block differs (PEER, WANT, GOT) */
    TRL_CK_LOCAL_ROOT_SELF, /* the root's own send and receive blocks differ */
    TRL_CK_LOCAL_INPLACE,   /* MPI_IN_PLACE on a rank that may not pass it */
};

typedef struct {
    int64_t v[TRL_CK_FIELDS];
    uint32_t care; /* bit f: field f (< TRL_CK_ISROOT+1) is this rank's to compare */
} trl_check_desc;

static inline void trl_check_set(trl_check_desc *d, int f, int64_t v)
{
    d->v[f] = v;
    d->care |= 1u << f;
}

/* The data one way (X) or the other (Y): its bytes, and its signature
 * unless it is MPI_PACKED (which matches any of the same size). */
static inline void trl_check_x(trl_check_desc *d, trl_sig s)
{
    trl_check_set(d, TRL_CK_XB, s.bytes);
    if (s.hash != TRL_SIG_PACKED)
        trl_check_set(d, TRL_CK_XH, s.hash);
}

static inline void trl_check_y(trl_check_desc *d, trl_sig s)
{
    trl_check_set(d, TRL_CK_YB, s.bytes);
    if (s.hash != TRL_SIG_PACKED)
        trl_check_set(d, TRL_CK_YH, s.hash);
}


/* The names a report gives the X and Y fields and the LOCAL peer's side,
 * per collective ("send block", "receive block"...). */
typedef struct {
    const char *x, *y;
    /* LOCAL's two sides, printf formats given (peer, this rank):
     * "recvcounts[%1$d] at the root", "rank %1$d's sendcount" */
    const char *peer_want, *peer_got;
} trl_check_labels;

/* What a rank's call says about where it stands (filled by the check
 * from the communicator: GROUP, RANK, SEQ, MODE, SITE and the rest are the
 * caller's). */
typedef struct {
    bool inter;
    bool low;        /* intercommunicator: this rank is in the first group */
    int rank, size;  /* in its group */
    int remote_size; /* intercommunicator */
    void *state;     /* the check's state of the communicator (check.c) */
    MPI_Comm comm;   /* the program's */
} trl_check_where;

/* A row as exchanged: the fields, then the care bits. */
#define TRL_CK_ROW (TRL_CK_FIELDS + 1)

typedef struct {
    /* Private duplicates (an intercommunicator's: of its merge) for each
     * stream of calls, [0] blocking and [1] non-blocking and persistent,
     * which the MPI libraries match apart (check.c): the rows, and the
     * pre-exchanges. */
    MPI_Comm check[2], pre[2];
    MPI_Errhandler errhandler; /* the communicator's own, which check.c wraps */
    int64_t calls[2];          /* collectives called on the communicator so far, per stream */
    trl_check_where where;
    char name[80]; /* for reports: "MPI_COMM_WORLD", its name, or "communicator #3 (4 ranks)" */
    int refs;      /* the communicator's attribute, and each check in flight */
} trl_check_comm;

/* One call being compared, for the report and the watchdog. */
typedef struct {
    trl_check_comm *cc;
    int stream; /* 0 blocking, 1 non-blocking and persistent */
    const trl_check_labels *labels;
    int64_t row[TRL_CK_ROW];
} trl_check_call_info;

#endif
