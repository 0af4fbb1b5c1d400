/* MPI_Init, MPI_Init_thread and MPI_Finalize: start and stop Trellis around
 * the MPI library. */
#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "exec/mpi_impl.h"
#include "mpi/context/inter.h"
#include "mpi/context/runtime.h"
#include "mpi/engine/engine.h"
#include "mpi/engine/holds.h"

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

int MPI_Init(int *argc, char ***argv)
{
    refuse_foreign_mpi();
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) {
        trl_runtime_init();
        int provided = MPI_THREAD_SINGLE;
        PMPI_Query_thread(&provided);
        trl_engine_init(provided);
    }
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    refuse_foreign_mpi();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) {
        trl_runtime_init();
        trl_engine_init(*provided);
    }
    return rc;
}

int MPI_Finalize(void)
{
    trl_engine_finalize();
    trl_holds_finalize();
    trl_inter_finalize();
    trl_runtime_finalize();
    return PMPI_Finalize();
}
