/* Small messages between ranks that share memory, without the MPI library.
 *
 * Why: a collective's small messages within a host cost little on the wire
 * but a lot in waiting. Through MPI, a rank waiting for one must keep
 * polling; with more ranks than cores, the pollers take the cores the
 * senders need. Here a rank with nothing but shared-memory messages to wait
 * for sleeps on a futex, and the sender wakes it.
 *
 * One segment per communicator, among the ranks of one node (found with
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), allocated with
 * MPI_Win_allocate_shared). Every ordered pair of those ranks has a FIFO
 * ring of TRL_SHM_SLOTS slots of at most max_bytes bytes: as large as a
 * segment of TRL_SHM_SEGMENT allows for the node's ranks, from
 * TRL_SHM_BYTES_MAX (up to 5 ranks: 8192; 6-7: 4096; 8-11: 2048; 12-15:
 * 1024; 16-21: 512) down to TRL_SHM_BYTES_MIN (22-32 ranks, whose segment
 * is then up to 1.4 MB; 1.2 MB when slots were 256 bytes and not
 * line-aligned). A message
 * carries its schedule tag; the receiver matches by (sender, tag), keeping
 * messages that arrive before their receive is ready in a stash, in arrival
 * order (a later call's message from a fast sender may wait there too: the
 * ring is FIFO, so it cannot overtake one of the current call).
 *
 * Which messages go here depends only on the peer and the byte count, which
 * both ends of a message know alike.
 */
#ifndef TRL_SHM_H
#define TRL_SHM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
    TRL_SHM_BYTES_MIN = 256,   /* largest message sent this way, at least */
    TRL_SHM_BYTES_MAX = 8192,  /* ... and at most: 512 B-8 KiB measured faster
                                 this way than through the library; 16 KiB
                                 slower on 2 ranks (two copies against
                                 its single one,
                                 docs/notebook/small-messages.md) */
    TRL_SHM_SEGMENT = 1 << 20, /* the rings of a node's pairs, about: a
                                  segment per communicator, all of it
                                  touched at attach */
    TRL_SHM_SLOTS = 4,         /* messages in flight per ordered pair */
    TRL_SHM_MAX_RANKS = 32,    /* per node: the segment grows with the square */
};

typedef struct trl_shm_stashed trl_shm_stashed;

typedef struct {
    int n;              /* ranks of this node in the communicator; 0: off */
    int me;             /* this rank's index among them */
    uint32_t max_bytes; /* largest message sent this way (the slots' size) */
    int *node_of;       /* communicator rank -> index on this node, or -1 */
    char *base;         /* the segment */
    MPI_Win win;
    bool has_win;           /* win must be freed (collective over the node) */
    uint32_t *sent, *taken; /* per node index: messages sent to, taken from */
    uint32_t *acked_seen;   /* per node index: its `acked` when last read */
    bool watching;          /* this rank relies on its door (trl_shm_watch) */
    int spin;               /* polls before sleeping (TRELLIS_SHM_SPIN) */
    bool yield;             /* more ranks than cores: yield the core between polls */
    /* Messages that arrived before their receive: a hash table keyed by
     * (sender, tag), each bucket a FIFO list, so finding one costs the
     * same however many wait (a sender may run thousands ahead). */
    trl_shm_stashed **stash;
    size_t stash_buckets, stashed;
} trl_shm;

/* Collective over comm. Leaves s->n == 0 (off) when TRELLIS_SHM=0, when
 * this node has one rank of comm or more than TRL_SHM_MAX_RANKS, or when
 * the segment cannot be made; the ranks of one node always agree. */
void trl_shm_attach(trl_shm *s, MPI_Comm comm);
void trl_shm_detach(trl_shm *s);

static inline bool trl_shm_carries(const trl_shm *s, int peer, size_t bytes)
{
    return s && s->n > 0 && bytes <= s->max_bytes && s->node_of[peer] >= 0;
}

/* Send count elements of dtype at buf (packed) to peer. *done is false
 * when the pair's ring is full: try again later. Returns an MPI error
 * code (MPI_SUCCESS). */
int trl_shm_send(trl_shm *s, int peer, int tag, const void *buf, int count, MPI_Datatype dtype,
                 MPI_Comm comm, bool *done);

/* Receive the message (peer, tag) into count elements of dtype at buf.
 * *done is false when it has not arrived yet. Returns an MPI error code;
 * MPI_ERR_TRUNCATE when its size is not count elements of dtype. */
int trl_shm_recv(trl_shm *s, int peer, int tag, void *buf, int count, MPI_Datatype dtype,
                 MPI_Comm comm, bool *done);

/* Move every message waiting in this rank's rings into the stash. A rank
 * that waits long does this now and then: a sender facing a full ring may
 * be what it waits for, through a third rank, and only the receiver can
 * free the ring (MPI's eager sends never block; these could). */
int trl_shm_drain(trl_shm *s, bool *moved);

/* The door: senders ring it only for a rank that asked. A rank waiting on
 * many messages calls trl_shm_watch once (from then on every message to it
 * rings it), then may skip its look at the rings while trl_shm_doorbell
 * has not moved. A full ring never rings its sender: a sender waiting for a
 * slot must look at it itself. */
void trl_shm_watch(trl_shm *s);
uint32_t trl_shm_doorbell(const trl_shm *s);

/* Sleeping: seen = trl_shm_sleep_begin, look for work once more, then
 * either trl_shm_sleep_end (work found) or trl_shm_sleep(seen), which
 * sleeps until a message to this rank rings, or at most a millisecond. */
uint32_t trl_shm_sleep_begin(trl_shm *s);
void trl_shm_sleep_end(trl_shm *s);
void trl_shm_sleep(trl_shm *s, uint32_t seen);

#endif
