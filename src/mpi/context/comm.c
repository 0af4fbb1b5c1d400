#include "mpi/context/comm.h"

#include <stdlib.h>

#include "core/log.h"
#include "core/status.h"
#include "mpi/context/nbhd_mpi.h"
#include "mpi/context/recent.h"
#include "mpi/context/topo_mpi.h"
#include "mpi/context/verbose.h"

static void detach_and_release(trl_comm *c);

static struct {
    bool ready;     /* Trellis serves collectives */
    trl_topo world; /* MPI_COMM_WORLD's layout: described or discovered */
    int keyval;
    int cache_cap;
    int world_rank;
    trl_comm_freed_fn *freed;
} reg = {.keyval = MPI_KEYVAL_INVALID, .freed = detach_and_release};

bool trl_runtime_ready(void)
{
    return reg.ready;
}

const trl_topo *trl_comm_world_topo(void)
{
    return &reg.world;
}

void trl_comm_on_free(trl_comm_freed_fn *fn)
{
    reg.freed = fn;
}

static void free_comm(trl_comm *c)
{
    trl_cache_free(&c->cache);
    trl_cache_free(&c->planned);
    free(c->vec);
    trl_tags_free(&c->tags);
    trl_topo_free(&c->topo);
    trl_nbhd_free(&c->nbhd);
    free(c->nbvec);
    if (c->sizes_run.entry) /* no op pins it: ops hold c */
        trl_cache_drop(c->sizes_run.entry);
    trl_exec_mem_free(&c->mem);
    trl_shm_detach(&c->shm);
    if (c->dup != MPI_COMM_NULL)
        PMPI_Comm_free(&c->dup);
    free(c);
}

void trl_comm_hold(trl_comm *c)
{
    c->refs++;
}

void trl_comm_release(trl_comm *c)
{
    if (--c->refs == 0)
        free_comm(c);
}

/* Freeing the shared-memory window is collective: do it here, where every
 * rank is, even if an op lives on (a request not yet completed, a
 * persistent one): its last release comes at different calls on different
 * ranks. Later runs of a persistent op then go by point-to-point on every
 * rank alike. */
static void detach_and_release(trl_comm *c)
{
    trl_shm_detach(&c->shm);
    trl_comm_release(c);
}

/* The intracommunicator state of comm if this thread looked it up lately
 * (recent.h); *inter true when comm is a known intercommunicator. */
static inline trl_comm *cached(MPI_Comm comm, bool *inter)
{
    return trl_recent_find(comm, TRL_RECENT_INTRA, inter);
}

static inline trl_comm *remember(MPI_Comm comm, trl_comm *c)
{
    trl_recent_add(comm, TRL_RECENT_INTRA, c);
    return c;
}

static int delete_attr(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    trl_recent_forget_all();
    reg.freed(value);
    return MPI_SUCCESS;
}

bool trl_comm_registry_open(trl_topo *world, int cache_cap)
{
    reg.world = *world;
    reg.cache_cap = cache_cap;
    PMPI_Comm_rank(MPI_COMM_WORLD, &reg.world_rank);
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &reg.keyval, NULL) !=
        MPI_SUCCESS)
        return false;
    reg.ready = true;
    return true;
}

void trl_comm_registry_close(void)
{
    /* Free our duplicates while the MPI library still runs, not from its own
     * attribute clean-up during finalize. */
    MPI_Comm predefined[] = {MPI_COMM_WORLD, MPI_COMM_SELF};
    for (int i = 0; i < 2; i++) {
        void *value;
        int found;
        PMPI_Comm_get_attr(predefined[i], reg.keyval, &value, &found);
        if (found)
            PMPI_Comm_delete_attr(predefined[i], reg.keyval);
    }
    PMPI_Comm_free_keyval(&reg.keyval);
    /* Whatever was deleted above: no thread may find a state after this,
     * with the rules gone (a communicator whose attribute outlives us). */
    trl_recent_forget_all();
    trl_topo_free(&reg.world);
    reg.ready = false;
}

trl_comm *trl_comm_find(MPI_Comm comm)
{
    bool inter;
    trl_comm *hit = cached(comm, &inter);
    if (hit || inter)
        return hit;
    void *value;
    int found;
    if (!reg.ready || comm == MPI_COMM_NULL ||
        PMPI_Comm_get_attr(comm, reg.keyval, &value, &found) != MPI_SUCCESS || !found)
        return NULL;
    return remember(comm, value);
}

void trl_not_set_up(MPI_Comm comm)
{
    static bool said;
    int inter = 1, rank = 0;
    if (said || !reg.ready || trl_verbose_level() == 0 || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return;
    PMPI_Comm_rank(comm, &rank);
    if (rank != 0)
        return;
    said = true;
    trl_log("a non-blocking or persistent collective on a communicator that Trellis has not set "
            "up (made by a constructor it does not intercept) goes to the MPI library; a "
            "blocking collective on it sets it up (said once)");
}

trl_comm *trl_comm_get(MPI_Comm comm)
{
    bool known_inter;
    trl_comm *hit = cached(comm, &known_inter);
    if (hit || known_inter)
        return hit;
    if (!reg.ready || comm == MPI_COMM_NULL)
        return NULL;
    void *value;
    int found, inter;
    if (PMPI_Comm_get_attr(comm, reg.keyval, &value, &found) != MPI_SUCCESS)
        return NULL;
    if (found)
        return remember(comm, value);
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return NULL;

    trl_comm *c = calloc(1, sizeof *c);
    bool cache_ok = c && trl_cache_init(&c->cache, reg.cache_cap);
    /* Dup is collective: every rank takes part whatever happened here, and
     * all agree on the outcome. */
    MPI_Comm dup = MPI_COMM_NULL;
    int me;
    PMPI_Comm_rank(comm, &me);
    /* With the outcome, rank 0's name for the communicator: {ok, id}. */
    static int64_t set_up;
    int64_t mine[2] = {cache_ok, me == 0 ? (int64_t)reg.world_rank << 24 | set_up++ : INT64_MAX},
            all[2];
    if (PMPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
        mine[0] = 0;
    PMPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_MIN, comm);
    int all_ok = (int)all[0];
    if (all_ok)
        trl_shm_attach(&c->shm, dup); /* collective over dup */
    if (c) {
        c->dup = dup;
        c->refs = 1;
        c->trace_id = all[1];
        PMPI_Comm_rank(comm, &c->rank);
        PMPI_Comm_size(comm, &c->size);
        /* MPI_TAG_UB is an attribute of MPI_COMM_WORLD only (a split
         * communicator may lack it), and holds for every communicator. */
        int *ub, has_ub;
        PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &has_ub);
        trl_tags_init(&c->tags, has_ub && *ub > 0 ? *ub : 32767); /* MPI guarantees 32767 */
        if (trl_topo_for_comm(&reg.world, comm, &c->topo) != TRL_OK)
            trl_topo_single_host(c->size, &c->topo);
    }
    /* Collective over comm where it has a graph: every rank, whatever
     * happened above (all_ok is the same everywhere). */
    if (all_ok)
        trl_nbhd_read(comm, c ? &c->nbhd : NULL);
    if (!all_ok || PMPI_Comm_set_attr(comm, reg.keyval, c) != MPI_SUCCESS) {
        /* The MPI library serves this call; the next one tries again. */
        if (c)
            free_comm(c);
        else if (dup != MPI_COMM_NULL)
            PMPI_Comm_free(&dup);
        return NULL;
    }
    if (trl_verbose_level() > 0 && c->rank == 0)
        trl_say_comm(c->size, &c->topo, &c->shm);
    return c;
}

size_t *trl_comm_vec(trl_comm *c)
{
    if (!c->vec)
        c->vec = malloc(6 * (size_t)c->size * sizeof *c->vec);
    return c->vec;
}
