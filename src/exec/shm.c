#define _GNU_SOURCE
#include "exec/shm.h"
#include "core/settings.h"
#include "exec/comm_ranks.h"
#include "exec/pack.h"
#include "exec/typeinfo.h"
#include "exec/mpi_impl.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sys/syscall.h>
#endif

/* The segment: a header per node rank, then a channel per ordered pair
 * (src * n + dst). Every field another process writes is atomic; a slot's
 * seq is written last by the sender and acked last by the receiver.
 *
 * A message costs one cache line crossing when nobody sleeps: the receiver
 * polls the slot itself, the sender rings the receiver's door only when the
 * receiver asked for it (sleeping, or watching the door because it waits on
 * many messages at once), and a sender reads `acked` only when its ring
 * looks full. Asking and ringing pair as in Dekker's algorithm: each side
 * stores its flag or message, then a full fence, then loads the other's, so
 * at least one of them sees the other (notify, trl_shm_watch,
 * trl_shm_sleep_begin). */
typedef struct {
    _Atomic uint32_t door;     /* bumped by senders that see a flag below */
    _Atomic uint32_t sleeping; /* set while it sleeps on door */
    _Atomic uint32_t watching; /* set once it relies on door to see messages */
    char pad[52];
} header;

/* A slot starts on a cache line, so a message of up to 48 bytes and its
 * sequence number share one. */
typedef struct {
    _Atomic uint32_t seq; /* message number + 1 once written */
    uint32_t tag, bytes, pad;
    char data[]; /* max_bytes */
} slot;

/* A pair's ring: this line, then TRL_SHM_SLOTS slots (slot_stride_for). */
typedef struct {
    _Atomic uint32_t acked; /* messages the receiver has taken */
    char pad[60];
} channel;

struct trl_shm_stashed {
    trl_shm_stashed *next;
    int from, tag; /* the sender's node rank, the schedule tag */
    uint32_t bytes;
    char data[];
};

static size_t slot_stride_for(uint32_t max_bytes)
{
    return (sizeof(slot) + max_bytes + 63) / 64 * 64;
}

static size_t chan_stride_for(uint32_t max_bytes)
{
    return sizeof(channel) + TRL_SHM_SLOTS * slot_stride_for(max_bytes);
}

/* The largest slot, by halves from TRL_SHM_BYTES_MAX, whose rings for all
 * n x n pairs fit TRL_SHM_SEGMENT; never below TRL_SHM_BYTES_MIN. */
static uint32_t max_bytes_for(int n)
{
    uint32_t b = TRL_SHM_BYTES_MAX;
    while (b > TRL_SHM_BYTES_MIN && (size_t)n * (size_t)n * chan_stride_for(b) > TRL_SHM_SEGMENT)
        b /= 2;
    return b;
}

static header *head_of(const trl_shm *s, int node)
{
    return (header *)(s->base + (size_t)node * sizeof(header));
}

static channel *chan(const trl_shm *s, int src, int dst)
{
    char *first = s->base + (size_t)s->n * sizeof(header);
    size_t pair = (size_t)src * (size_t)s->n + (size_t)dst;
    return (channel *)(first + pair * chan_stride_for(s->max_bytes));
}

static slot *slot_of(const trl_shm *s, channel *c, uint32_t k)
{
    size_t at = sizeof(channel) + (size_t)(k % TRL_SHM_SLOTS) * slot_stride_for(s->max_bytes);
    return (slot *)((char *)c + at);
}

/* A message to `node` was just published: ring its door if it sleeps or
 * watches. The fence orders the message before the look at the flags. */
static void notify(trl_shm *s, int node)
{
    header *h = head_of(s, node);
    atomic_thread_fence(memory_order_seq_cst);
    bool sleeping = atomic_load_explicit(&h->sleeping, memory_order_relaxed);
    if (!sleeping && !atomic_load_explicit(&h->watching, memory_order_relaxed))
        return;
    atomic_fetch_add(&h->door, 1);
#ifdef __linux__
    if (sleeping)
        syscall(SYS_futex, &h->door, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
#endif
}

uint32_t trl_shm_doorbell(const trl_shm *s)
{
    return atomic_load(&head_of(s, s->me)->door);
}

void trl_shm_watch(trl_shm *s)
{
    if (s->watching)
        return;
    atomic_store_explicit(&head_of(s, s->me)->watching, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    s->watching = true;
}

uint32_t trl_shm_sleep_begin(trl_shm *s)
{
    header *h = head_of(s, s->me);
    atomic_store_explicit(&h->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    return atomic_load(&h->door);
}

void trl_shm_sleep_end(trl_shm *s)
{
    atomic_store(&head_of(s, s->me)->sleeping, 0);
}

void trl_shm_sleep(trl_shm *s, uint32_t seen)
{
#ifdef __linux__
    /* At most a millisecond: the caller then lets MPI progress, which it
     * owes the program's own pending operations. Returns at once if the
     * door moved since `seen`: no lost wake-up. */
    struct timespec limit = {0, 1000000};
    syscall(SYS_futex, &head_of(s, s->me)->door, FUTEX_WAIT, seen, &limit, NULL, 0);
#else
    (void)seen;
    sched_yield();
#endif
    trl_shm_sleep_end(s);
}

/* Contiguous data (the usual case, and every data mover's bytes) is
 * copied as it is; any other goes through the MPI library's packing. */
static int pack(const void *buf, int count, MPI_Datatype dtype, void *out, uint32_t room,
                MPI_Comm comm, uint32_t *bytes)
{
    trl_type_info tmp;
    const trl_type_info *t = trl_type_info_of(dtype, &tmp);
    size_t n = (size_t)t->size * (size_t)count;
    if (t->contiguous && n <= room) {
        if (n > 0) /* buf may be NULL then, which memcpy must not get */
            memcpy(out, buf, n);
        *bytes = (uint32_t)n;
        return MPI_SUCCESS;
    }
    int pos = 0;
    int rc = trl_pack(buf, count, dtype, out, (int)room, &pos, comm);
    *bytes = (uint32_t)pos;
    return rc;
}

/* Schedules post every receive with the exact count of its send (the tags
 * pair them one to one), so a size that differs is an error, not a short
 * message. */
static int unpack(const void *in, uint32_t bytes, void *buf, int count, MPI_Datatype dtype,
                  MPI_Comm comm)
{
    trl_type_info tmp;
    const trl_type_info *t = trl_type_info_of(dtype, &tmp);
    if ((size_t)t->size * (size_t)count != bytes)
        return MPI_ERR_TRUNCATE; /* the schedules of the two ends disagree */
    if (t->contiguous) {
        if (bytes > 0) /* buf may be NULL then */
            memcpy(buf, in, bytes);
        return MPI_SUCCESS;
    }
    int pos = 0;
    return trl_unpack(in, (int)bytes, &pos, buf, count, dtype, comm);
}

int trl_shm_send(trl_shm *s, int peer, int tag, const void *buf, int count, MPI_Datatype dtype,
                 MPI_Comm comm, bool *done)
{
    int to = s->node_of[peer];
    channel *c = chan(s, s->me, to);
    uint32_t k = s->sent[to];
    *done = false;
    /* acked only grows, so an old reading is safe; read it anew only when
     * the ring looks full. */
    if (k - s->acked_seen[to] >= TRL_SHM_SLOTS) {
        s->acked_seen[to] = atomic_load_explicit(&c->acked, memory_order_acquire);
        if (k - s->acked_seen[to] >= TRL_SHM_SLOTS)
            return MPI_SUCCESS;
    }
    slot *sl = slot_of(s, c, k);
    int rc = pack(buf, count, dtype, sl->data, s->max_bytes, comm, &sl->bytes);
    if (rc != MPI_SUCCESS)
        return rc;
    sl->tag = (uint32_t)tag;
    atomic_store_explicit(&sl->seq, k + 1, memory_order_release);
    s->sent[to] = k + 1;
    notify(s, to);
    *done = true;
    return MPI_SUCCESS;
}

static size_t bucket_of(const trl_shm *s, int from, int tag)
{
    uint64_t h = ((uint64_t)(uint32_t)from << 32 | (uint32_t)tag) * 0x9e3779b97f4a7c15ULL;
    return (size_t)(h >> 32) & (s->stash_buckets - 1);
}

/* The oldest stashed message from node rank `from` with `tag`, unlinked;
 * NULL if none. */
static trl_shm_stashed *unstash(trl_shm *s, int from, int tag)
{
    if (s->stashed == 0)
        return NULL;
    trl_shm_stashed **link = &s->stash[bucket_of(s, from, tag)];
    for (trl_shm_stashed *m; (m = *link); link = &m->next) {
        if (m->from == from && m->tag == tag) {
            *link = m->next;
            s->stashed--;
            return m;
        }
    }
    return NULL;
}

/* Append m at the end of its bucket (FIFO among equal keys). */
static void stash_link(trl_shm *s, trl_shm_stashed *m)
{
    trl_shm_stashed **link = &s->stash[bucket_of(s, m->from, m->tag)];
    while (*link)
        link = &(*link)->next;
    m->next = NULL;
    *link = m;
    s->stashed++;
}

/* Keep the table's chains short: double it when it holds as many messages
 * as buckets. Relinking bucket by bucket in order keeps equal keys in
 * arrival order. */
static int stash_grow(trl_shm *s)
{
    if (s->stashed < s->stash_buckets)
        return MPI_SUCCESS;
    size_t old_n = s->stash_buckets, n = old_n ? 2 * old_n : 64;
    trl_shm_stashed **old = s->stash, **fresh = calloc(n, sizeof *fresh);
    if (!fresh)
        return old ? MPI_SUCCESS : MPI_ERR_NO_MEM; /* longer chains, still right */
    s->stash = fresh;
    s->stash_buckets = n;
    s->stashed = 0;
    for (size_t b = 0; b < old_n; b++) {
        for (trl_shm_stashed *m = old[b], *next; m; m = next) {
            next = m->next;
            stash_link(s, m);
        }
    }
    free(old);
    return MPI_SUCCESS;
}

/* from's next message, or NULL when its ring is empty. */
static slot *head(trl_shm *s, int from)
{
    uint32_t k = s->taken[from];
    slot *sl = slot_of(s, chan(s, from, s->me), k);
    return atomic_load_explicit(&sl->seq, memory_order_acquire) == k + 1 ? sl : NULL;
}

/* Done with from's head slot: free it. Its sender, if its ring was full,
 * looks at acked itself (it neither sleeps nor trusts its door then). */
static void pop(trl_shm *s, int from)
{
    s->taken[from]++;
    atomic_store_explicit(&chan(s, from, s->me)->acked, s->taken[from], memory_order_release);
}

/* Keep from's head message for a later receive (maybe of a later call). */
static int stash_head(trl_shm *s, int from, const slot *sl)
{
    int rc = stash_grow(s);
    trl_shm_stashed *m = rc == MPI_SUCCESS ? malloc(sizeof *m + sl->bytes) : NULL;
    if (!m)
        return MPI_ERR_NO_MEM;
    *m = (trl_shm_stashed){NULL, from, (int)sl->tag, sl->bytes};
    memcpy(m->data, sl->data, sl->bytes);
    stash_link(s, m);
    pop(s, from);
    return MPI_SUCCESS;
}

int trl_shm_recv(trl_shm *s, int peer, int tag, void *buf, int count, MPI_Datatype dtype,
                 MPI_Comm comm, bool *done)
{
    int from = s->node_of[peer];
    trl_shm_stashed *m = unstash(s, from, tag);
    *done = m != NULL;
    if (m) {
        int rc = unpack(m->data, m->bytes, buf, count, dtype, comm);
        free(m);
        return rc;
    }
    for (slot *sl; (sl = head(s, from));) {
        if (sl->tag == (uint32_t)tag) {
            int rc = unpack(sl->data, sl->bytes, buf, count, dtype, comm);
            pop(s, from);
            *done = true;
            return rc;
        }
        int rc = stash_head(s, from, sl);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int trl_shm_drain(trl_shm *s, bool *moved)
{
    *moved = false;
    for (int from = 0; from < s->n; from++) {
        if (from == s->me)
            continue;
        for (slot *sl; (sl = head(s, from));) {
            int rc = stash_head(s, from, sl);
            if (rc != MPI_SUCCESS)
                return rc;
            *moved = true;
        }
    }
    return MPI_SUCCESS;
}

/* Polls before a waiting rank sleeps. Measured on the emulated cluster
 * (docs/notebook/seed000.md): sleeping at once was slower than polling, even with
 * more ranks than cores, since every wake-up crosses to another core; so
 * poll long, and sleep only a rank that waits long (a late peer). */
static int spin_polls(void)
{
    return (int)trl_setting_count("TRELLIS_SHM_SPIN", 1 << 16);
}

/* Whether waiting ranks must give their core away between polls: when this
 * node has more of the communicator's ranks than cores, or when the MPI
 * library was told ranks share cores (TRL_MPI_YIELD_ENV: Open MPI's
 * mpi_yield_when_idle): the node's own count misses other jobs, and the
 * emulated hosts of trellis testbed, which all share this machine's cores.
 * A rank that polls without yielding there holds its core for a whole time
 * slice, milliseconds, while the ranks it waits for cannot run. */
static bool cores_shared(int node_ranks)
{
    const char *name = TRL_MPI_YIELD_ENV, *mpi = name ? getenv(name) : NULL;
    if (mpi && *mpi && strcmp(mpi, "0") != 0 && strcmp(mpi, "false") != 0)
        return true;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 && node_ranks > cores;
}

void trl_shm_attach(trl_shm *s, MPI_Comm comm)
{
    memset(s, 0, sizeof *s);
    int want = trl_setting_on("TRELLIS_SHM", true);
    MPI_Comm node;
    if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return;
    PMPI_Comm_set_errhandler(node, MPI_ERRORS_RETURN);
    int n, me, size;
    PMPI_Comm_size(node, &n);
    PMPI_Comm_rank(node, &me);
    PMPI_Comm_size(comm, &size);
    want = want && n >= 2 && n <= TRL_SHM_MAX_RANKS;
    s->node_of = malloc((size_t)size * sizeof *s->node_of);
    s->sent = calloc((size_t)n, sizeof *s->sent);
    s->taken = calloc((size_t)n, sizeof *s->taken);
    s->acked_seen = calloc((size_t)n, sizeof *s->acked_seen);
    want = want && s->node_of && s->sent && s->taken && s->acked_seen &&
           trl_comm_ranks_in(comm, node, s->node_of);
    int agreed = 0;
    PMPI_Allreduce(&want, &agreed, 1, MPI_INT, MPI_MIN, node);
    s->max_bytes = max_bytes_for(n);
    size_t bytes = (size_t)n * sizeof(header) +
                   (size_t)n * (size_t)n * chan_stride_for(s->max_bytes);
    void *mine = NULL;
    int ok = agreed && PMPI_Win_allocate_shared(me == 0 ? (MPI_Aint)bytes : 0, 1, MPI_INFO_NULL,
                                                node, &mine, &s->win) == MPI_SUCCESS;
    s->has_win = ok;
    if (ok) {
        MPI_Aint got;
        int unit;
        ok = PMPI_Win_shared_query(s->win, 0, &got, &unit, &s->base) == MPI_SUCCESS &&
             (size_t)got >= bytes;
        if (ok && me == 0)
            memset(s->base, 0, bytes);
    }
    /* All of the node succeed or none uses the segment. */
    int all_ok = 0;
    if (agreed)
        PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, node);
    if (all_ok) {
        for (int i = 0; i < size; i++)
            if (s->node_of[i] == MPI_UNDEFINED)
                s->node_of[i] = -1;
        s->n = n;
        s->me = me;
        s->spin = spin_polls();
        s->yield = cores_shared(n);
    }
    PMPI_Comm_free(&node);
    if (!all_ok)
        trl_shm_detach(s);
}

void trl_shm_detach(trl_shm *s)
{
    if (s->has_win)
        PMPI_Win_free(&s->win);
    for (size_t b = 0; b < s->stash_buckets; b++) {
        for (trl_shm_stashed *m = s->stash[b], *next; m; m = next) {
            next = m->next;
            free(m);
        }
    }
    free(s->stash);
    free(s->node_of);
    free(s->sent);
    free(s->taken);
    free(s->acked_seen);
    memset(s, 0, sizeof *s);
}
