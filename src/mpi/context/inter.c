/* Trellis' state of an intercommunicator (inter.h): the merged
 * communicator, its state, and the two groups within it; kept as an
 * attribute of the intercommunicator and freed with it. */
#include "mpi/context/inter.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/log.h"
#include "mpi/context/recent.h"
#include "mpi/context/rules.h"
#include "mpi/context/schedule.h"

static int keyval = MPI_KEYVAL_INVALID;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void free_state(trl_intercomm *ic)
{
    trl_inter_free(&ic->shape);
    /* The merged communicator's attribute holds its state: freeing it lets
     * go of the state (which lives on while an op still holds it). */
    if (ic->merged != MPI_COMM_NULL)
        PMPI_Comm_free(&ic->merged);
    free(ic);
}

static int delete_attr(MPI_Comm comm, int kv, void *value, void *extra)
{
    (void)comm;
    (void)kv;
    (void)extra;
    trl_recent_forget_all(); /* the handle may come back as another communicator */
    free_state(value);
    return MPI_SUCCESS;
}

static void create_keyval(void)
{
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_attr, &keyval, NULL);
}

void trl_inter_finalize(void)
{
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_free_keyval(&keyval);
}

/* Where the members of `group` sit in `merged`; ranks has n entries. */
static int translate(MPI_Group group, MPI_Group merged, int n, int *ranks)
{
    int *in = malloc((size_t)n * sizeof *in);
    if (!in)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        in[i] = i;
    int rc = PMPI_Group_translate_ranks(group, n, in, merged, ranks);
    free(in);
    return rc;
}

/* The two groups as merged ranks, numbered so that group 0 holds merged
 * rank 0: the same numbering on every rank. */
static int locate_groups(MPI_Comm comm, trl_intercomm *ic)
{
    MPI_Group local = MPI_GROUP_NULL, remote = MPI_GROUP_NULL, all = MPI_GROUP_NULL;
    int n = ic->local_n + ic->remote_n, rc = MPI_ERR_NO_MEM;
    int *ranks = malloc((size_t)n * sizeof *ranks);
    if (ranks && PMPI_Comm_group(comm, &local) == MPI_SUCCESS &&
        PMPI_Comm_remote_group(comm, &remote) == MPI_SUCCESS &&
        PMPI_Comm_group(ic->merged, &all) == MPI_SUCCESS) {
        rc = translate(local, all, ic->local_n, ranks);
        if (rc == MPI_SUCCESS)
            rc = translate(remote, all, ic->remote_n, ranks + ic->local_n);
    }
    if (rc == MPI_SUCCESS) {
        bool local_first = false;
        for (int i = 0; i < ic->local_n; i++)
            local_first |= ranks[i] == 0;
        int *mine = ranks, *theirs = ranks + ic->local_n;
        ic->group = local_first ? 0 : 1;
        rc = local_first ? trl_inter_init(&ic->shape, mine, ic->local_n, theirs, ic->remote_n)
                         : trl_inter_init(&ic->shape, theirs, ic->remote_n, mine, ic->local_n);
        rc = rc ? MPI_ERR_INTERN : MPI_SUCCESS;
    }
    MPI_Group *groups[] = {&local, &remote, &all};
    for (int i = 0; i < 3; i++)
        if (*groups[i] != MPI_GROUP_NULL)
            PMPI_Group_free(groups[i]);
    free(ranks);
    return rc;
}

/* Collective over both groups. The outcome, served or not, is the same on
 * every rank, and kept: the MPI library serves an intercommunicator
 * Trellis could not set up from then on, without trying again. */
static trl_intercomm *setup(MPI_Comm comm)
{
    pthread_once(&once, create_keyval);
    trl_intercomm *ic = calloc(1, sizeof *ic);
    if (!ic || keyval == MPI_KEYVAL_INVALID) {
        /* Nowhere to keep the outcome: the other ranks may have it, so take
         * part in nothing (they then find this rank's merge missing, as with
         * any failure of the MPI library). */
        free(ic);
        return NULL;
    }
    ic->merged = MPI_COMM_NULL;
    PMPI_Comm_size(comm, &ic->local_n);
    PMPI_Comm_remote_size(comm, &ic->remote_n);
    int ok = PMPI_Intercomm_merge(comm, 0, &ic->merged) == MPI_SUCCESS;
    ic->c = ok ? trl_comm_get(ic->merged) : NULL; /* collective over merged */
    ok = ic->c && locate_groups(comm, ic) == MPI_SUCCESS &&
         trl_tags_classes(&ic->c->tags, 1 + ic->c->size);
    /* Every rank must choose alike: the two groups may be two jobs
     * (MPI_Comm_spawn, connect) that read different TRELLIS_RULES. */
    uint64_t h = trl_rules_hash(), mine[3] = {!ok, h, ~h}, all[3] = {1, 0, 0};
    if (ic->merged != MPI_COMM_NULL)
        PMPI_Allreduce(mine, all, 3, MPI_UINT64_T, MPI_MAX, ic->merged);
    bool same_rules = all[1] == ~all[2];
    if (!all[0] && !same_rules && ic->c->rank == 0)
        trl_log("the two groups of an intercommunicator run with different rules "
                "(TRELLIS_RULES): its collectives go to the MPI library");
    if (all[0] || !same_rules) {
        trl_inter_free(&ic->shape);
        if (ic->merged != MPI_COMM_NULL)
            PMPI_Comm_free(&ic->merged);
        ic->c = NULL;
    }
    if (PMPI_Comm_set_attr(comm, keyval, ic) != MPI_SUCCESS) {
        free_state(ic);
        return NULL;
    }
    return ic->c ? ic : NULL;
}

static trl_intercomm *find(MPI_Comm comm, bool *found)
{
    bool intra;
    void *value = trl_recent_find(comm, TRL_RECENT_INTER, &intra);
    *found = value != NULL;
    if (value || intra)
        return value;
    int has = 0;
    if (keyval != MPI_KEYVAL_INVALID)
        PMPI_Comm_get_attr(comm, keyval, &value, &has);
    *found = has;
    if (!has)
        return NULL;
    trl_recent_add(comm, TRL_RECENT_INTER, value);
    return value;
}

static bool is_inter(MPI_Comm comm)
{
    int inter = 0;
    return comm != MPI_COMM_NULL && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter;
}

void trl_inter_setup(MPI_Comm comm)
{
    bool found;
    if (!trl_runtime_ready() || !is_inter(comm))
        return;
    find(comm, &found);
    if (!found)
        setup(comm);
}

/* Verbose mode's note, once. */
static void not_set_up(void)
{
    static bool said;
    if (said || trl_verbose_level() == 0)
        return;
    said = true;
    trl_log("a non-blocking or persistent collective on an intercommunicator that Trellis has "
            "not set up (from MPI_Comm_spawn, accept, connect or join) goes to the MPI library; "
            "a blocking collective on it sets it up (said once)");
}

trl_intercomm *trl_inter_for(MPI_Comm comm, trl_call_kind call)
{
    bool found;
    trl_intercomm *ic = find(comm, &found);
    if (found)
        return ic->c ? ic : NULL;
    if (!trl_runtime_ready() || !is_inter(comm))
        return NULL;
    if (call != TRL_CALL_BLOCKING) {
        not_set_up();
        return NULL;
    }
    return setup(comm);
}

/* Said once per collective (by the merged communicator's rank 0) when rules
 * that differ by size send such calls to the MPI library. */
static void mixed_rules(const trl_intercomm *ic, trl_coll coll)
{
    static bool said[TRL_COLL_COUNT];
    if (said[coll] || trl_verbose_level() == 0 || ic->c->rank != 0)
        return;
    said[coll] = true;
    trl_log("non-blocking and persistent %s calls on intercommunicators go to the MPI library: "
            "the rules give them Trellis at some sizes only, and the ranks passing MPI_PROC_NULL "
            "cannot know the size (said once)",
            trl_coll_name(coll));
}

static bool trellis_at_every_size(trl_intercomm *ic, trl_coll coll, trl_call_kind call)
{
    trl_coll_args a = {
        .coll = coll, .elem_size = 1, .commutative = true, .call = call, .inter = &ic->shape};
    trl_sizeless v = trl_comm_sizeless(ic->c, &a);
    if (v == TRL_SIZELESS_TRELLIS && coll == TRL_COLL_REDUCE) {
        a.commutative = false;
        v = trl_comm_sizeless(ic->c, &a);
    }
    if (v == TRL_SIZELESS_MIXED)
        mixed_rules(ic, coll);
    return v == TRL_SIZELESS_TRELLIS;
}

int trl_inter_root(trl_intercomm *ic, int root, trl_coll coll, trl_call_kind call)
{
    if (call != TRL_CALL_BLOCKING && !trellis_at_every_size(ic, coll, call))
        return -2;
    if (root == MPI_PROC_NULL)
        return -1;
    if (root == MPI_ROOT)
        return ic->c->rank;
    return root >= 0 && root < ic->remote_n ? ic->shape.ranks[1 - ic->group][root] : -2;
}
