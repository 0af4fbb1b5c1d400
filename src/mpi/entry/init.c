/* MPI_Init, MPI_Init_thread and MPI_Finalize: start and stop Trellis around
 * the MPI library. Starting reads and checks the rules and the other
 * TRELLIS_* settings on every rank (collective over MPI_COMM_WORLD: ranks
 * that disagree would choose different schedules and hang, so the job stops
 * with a message instead), loads WORLD's layout, opens the registry of
 * communicators (context/comm.h) and starts the engine (engine/engine.h). */
#include <limits.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/settings.h"
#include "core/status.h"
#include "exec/mpi_impl.h"
#include "mpi/context/comm.h"
#include "mpi/context/inter.h"
#include "mpi/context/rules.h"
#include "mpi/context/topo_mpi.h"
#include "mpi/context/verbose.h"
#include "mpi/engine/check.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/holds.h"
#include "mpi/engine/progress.h"
#include "mpi/engine/trace.h"
#include "mpi/entry/check_calls.h"
#include "mpi/entry/validate.h"

/* The MPI libraries whose handles differ from each other's: a library built
 * for one, preloaded into a program of the other, would pass its own
 * MPI_COMM_WORLD to the other's functions (MPICH stops with "Invalid
 * communicator", Open MPI crashes). Which one serves the process is known
 * before MPI_Init: MPI_Get_library_version may be called first, and its
 * arguments are alike in both. (Its string is up to 8192 bytes in MPICH,
 * 256 in Open MPI: the buffer takes either.) */
static const struct {
    const char *name, *version_prefix, *build;
} known_mpis[] = {
    {"Open MPI", "Open MPI", "build/"},
    {"MPICH", "MPICH", "build-mpich/"},
};

/* Stops the process, with a message, when the MPI library serving it is a
 * known one other than the one Trellis was built for. */
static void refuse_foreign_mpi(void)
{
    static char version[16384];
    int len = 0;
    if (PMPI_Get_library_version(version, &len) != MPI_SUCCESS)
        return;
    version[sizeof version - 1] = '\0';
    size_t n = sizeof known_mpis / sizeof *known_mpis;
    size_t mine = n, theirs = n;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(known_mpis[i].name, TRL_MPI_NAME) == 0)
            mine = i;
        if (strncmp(version, known_mpis[i].version_prefix, strlen(known_mpis[i].version_prefix)) ==
            0)
            theirs = i;
    }
    if (mine == n || theirs == n || mine == theirs)
        return;
    /* Every rank stops; one says why (the launchers' rank variables, before
     * MPI can tell: any rank that cannot tell says it too). */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK");
    if (!rank)
        rank = getenv("PMI_RANK");
    if (!rank || strcmp(rank, "0") == 0) {
        /* The string's first line, blanks as spaces ("MPICH Version:\t4.0.2"). */
        char first[120];
        snprintf(first, sizeof first, "%.*s", (int)strcspn(version, "\n,"), version);
        for (char *c = first; *c; c++)
            if (*c == '\t')
                *c = ' ';
        trl_log("this libtrellis.so is built for %s, but the program runs under %s (%s): "
                "preload the library built for %s (in a source checkout: %slibtrellis.so; "
                "`trellis run` picks it by itself from the program's MPI); stopping",
                TRL_MPI_NAME, known_mpis[theirs].name, first, known_mpis[theirs].name,
                known_mpis[theirs].build);
    }
    exit(1);
}

/* Stop the job over a rules problem: every rank calls this together. */
static void stop_job(void)
{
    PMPI_Barrier(MPI_COMM_WORLD); /* let rank 0's message out first */
    PMPI_Finalize();
    exit(1);
}

/* The other TRELLIS_* settings (core/settings.h): a value that means
 * nothing stops the job as a bad rule does, or with TRELLIS_ON_ERROR=warn
 * is reported and its default used. Collective over WORLD. */
static void check_settings(int rank, int warn)
{
    char msg[400];
    int local[2] = {trl_settings_check(msg, sizeof msg) ? INT_MAX : rank, warn}, first[2];
    PMPI_Allreduce(local, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first[0] == INT_MAX)
        return;
    if (rank == first[0]) {
        if (rank > 0)
            trl_log("%s (on rank %d)", msg, rank);
        else
            trl_log("%s", msg);
        trl_log(first[1] ? "TRELLIS_ON_ERROR=warn: going on with its default"
                         : "stopping (set TRELLIS_ON_ERROR=warn to go on with its default)");
    }
    if (!first[1])
        stop_job();
}

/* WORLD's layout into *world: TRELLIS_TOPOLOGY where set (checked on every
 * rank, and the same on all), else discovered. Collective over WORLD. */
static int load_topology(int rank, int warn, trl_topo *world)
{
    int size;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    trl_topo_error err = {0};
    bool set = false;
    int rc = trl_topo_load_env(world, &set, &err);
    if (rc == TRL_OK && set && world->size != size) {
        snprintf(err.source, sizeof err.source, "TRELLIS_TOPOLOGY");
        err.line = err.column = 0;
        snprintf(err.message, sizeof err.message,
                 "the layout describes %d ranks; MPI_COMM_WORLD has %d", world->size, size);
        trl_topo_free(world);
        rc = TRL_ERR_INVALID;
    }
    /* Every rank must see the same layout: compare a hash of the ranks'
     * hosts, sockets and NUMA domains (set or not). */
    uint64_t h = trl_fnv1a(TRL_FNV_START, &set, sizeof set);
    if (rc == TRL_OK && set) {
        h = trl_fnv1a(h, world->host, (size_t)size * sizeof(int));
        h = trl_fnv1a(h, world->socket, (size_t)size * sizeof(int));
        h = trl_fnv1a(h, world->numa, (size_t)size * sizeof(int));
    }
    uint64_t h0 = h;
    PMPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    int local[2] = {rc != TRL_OK ? rank : INT_MAX, h0 != h ? rank : INT_MAX}, first[2];
    PMPI_Allreduce(local, first, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first[0] != INT_MAX) {
        if (rank == first[0]) {
            char msg[900];
            trl_topo_error_format(&err, msg, sizeof msg);
            trl_log("%s%s", msg,
                    warn ? "; TRELLIS_ON_ERROR=warn: using the discovered topology"
                         : "; stopping (set TRELLIS_ON_ERROR=warn to go on with "
                           "the discovered topology)");
        }
        if (!warn)
            stop_job();
        trl_topo_free(world);
        set = false;
    } else if (first[1] != INT_MAX) {
        if (rank == first[1])
            trl_log("rank %d sees a different TRELLIS_TOPOLOGY from rank 0: every rank must see "
                    "the same layout; stopping",
                    rank);
        stop_job();
    }
    if (set)
        return TRL_OK;
    rc = trl_topo_discover(MPI_COMM_WORLD, world);
    if (rc != TRL_OK && rank == 0)
        trl_log("could not discover the topology (%s); Trellis is off", trl_status_str(rc));
    return rc;
}

/* Trellis starts, after the MPI library did: on a rules error with the
 * default policy, it reports it and exits the process. */
static void start(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    trl_comm_on_free(trl_engine_comm_freed);

    /* Entries per communicator (1..4096: a bound keeps a value from asking
     * for gigabytes on every communicator; settings.c). */
    int cache_cap = (int)trl_setting_count("TRELLIS_CACHE_SIZE", 64);

    trl_rules_error err;
    if (!trl_rules_load_builtin(&err)) {
        /* The unit tests parse the built-in rules; this cannot happen in a
         * tested build, but never run on rules we could not read. */
        char msg[900];
        trl_rules_error_format(&err, msg, sizeof msg);
        if (rank == 0)
            trl_log("%s (built-in rules; Trellis is off)", msg);
        return;
    }

    char *text = NULL;
    trl_ruleset env_rules = {0};
    int rc = trl_rules_load_env(&env_rules, &text, &err);

    int warn = trl_setting_warn();
    check_settings(rank, warn);

    /* Every rank must choose alike, or the ranks of one collective would
     * run different schedules and hang: compare a hash of the rules text.
     * One reduction finds the first rank with a rules error, the first
     * whose rules differ from rank 0's, and whether all ranks say warn. */
    uint64_t h = trl_fnv1a(TRL_FNV_START, text ? text : "", text ? strlen(text) : 0);
    uint64_t h0 = h;
    PMPI_Bcast(&h0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    free(text);
    int local[3] = {rc != TRL_OK ? rank : INT_MAX, h0 != h ? rank : INT_MAX, warn}, first[3];
    PMPI_Allreduce(local, first, 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    int error_rank = first[0], differ_rank = first[1], all_warn = first[2];

    if (error_rank != INT_MAX) {
        /* Usually rank 0 reports, but a file that only some ranks cannot
         * read must not stop the job silently. */
        if (rank == error_rank) {
            char msg[900];
            trl_rules_error_format(&err, msg, sizeof msg);
            if (rank > 0)
                trl_log("%s (on rank %d)", msg, rank);
            else
                trl_log("%s", msg);
            trl_log(all_warn ? "TRELLIS_ON_ERROR=warn: running on the built-in rules"
                             : "stopping (set TRELLIS_ON_ERROR=warn to run on the built-in rules)");
        }
        if (!all_warn)
            stop_job();
        trl_rules_free(&env_rules); /* on every rank, so all run on the same rules */
    } else if (differ_rank != INT_MAX) {
        if (rank == differ_rank)
            trl_log("rank %d sees different TRELLIS_RULES from rank 0: every rank must see the "
                    "same rules (same variable, same file contents); stopping",
                    rank);
        stop_job();
    }
    if (!trl_rules_install_env(&env_rules, h)) {
        if (rank == 0)
            trl_log("out of memory for the rules; Trellis is off");
        return;
    }
    trl_topo world = {0};
    if (load_topology(rank, all_warn, &world) != TRL_OK ||
        !trl_comm_registry_open(&world, cache_cap))
        return;
    /* Set up now (collective over WORLD, as every rank is here): a first
     * collective that is non-blocking cannot (comm_setup.c). */
    trl_comm_get(MPI_COMM_WORLD);
    trl_trace_init(trl_comm_world_topo());
}

/* Trellis stops, before the MPI library does. */
static void stop(void)
{
    trl_validate_finalize();
    if (!trl_runtime_ready())
        return;
    trl_trace_finalize(); /* before the rules its records name are freed */
    trl_comm_registry_close();
    trl_rules_free_all();
    trl_verbose_finalize();
}

int MPI_Init(int *argc, char ***argv)
{
    refuse_foreign_mpi();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        start();
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        trl_engine_init(provided);
        trl_check_init();
        trl_entries_check_start();
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    refuse_foreign_mpi();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        start();
        trl_engine_init(*provided);
        trl_check_init();
        trl_entries_check_start();
    }
    return rc;
}

int MPI_Finalize(void)
{
    trl_check_finalize();
    trl_engine_finalize();
    trl_holds_finalize();
    trl_inter_finalize();
    stop();
    return PMPI_Finalize();
}
