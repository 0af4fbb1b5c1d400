/* The functions of include/trellis.h: trellis_version, and
 * trellis_set_rules, which replaces the user's rules while the program
 * runs (a local call; docs/rules.md). */
#include "trellis.h"

#include <mpi.h>
#include <stddef.h>

#include "exec/mpi_impl.h"
#include "mpi/context/comm.h"
#include "mpi/context/rules.h"

const char *trellis_version(void)
{
    return "trellis 0.1.0 (" TRL_MPI_NAME ")";
}

int trellis_set_rules(const char *text, char *err, size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    int initialized = 0, finalized = 0;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    if (finalized)
        return trl_rules_refused(err, errlen, "called after MPI_Finalize: Trellis has stopped");
    if (!initialized)
        return trl_rules_refused(err, errlen,
                                 "called before MPI_Init: rules can be replaced between "
                                 "MPI_Init and MPI_Finalize");
    if (!trl_runtime_ready())
        return trl_rules_refused(err, errlen,
                                 "Trellis is off in this process (see its messages at "
                                 "MPI_Init): the MPI library serves every collective");
    return trl_rules_use(text ? text : "", err, errlen);
}
