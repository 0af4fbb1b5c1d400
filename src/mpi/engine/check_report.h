/* TRELLIS_CHECK's report of a mismatch and the names it uses. */
#ifndef TRL_CHECK_REPORT_H
#define TRL_CHECK_REPORT_H

#include <stddef.h>

#include "mpi/engine/check_row.h"

/* Report the mismatch among rows (n of them, in the check communicator's
 * order) and stop the job: called on every rank that found it; the
 * check communicator's rank 0 reports, the others wait to be stopped (and
 * report themselves if that does not come). */
void trl_check_report(const trl_check_call_info *call, const int64_t *rows, int n);

/* Whether rows differ where they must not. */
bool trl_check_rows_differ(const int64_t *rows, int n, bool inter);
/* An intercommunicator v or w form's rows, all vouching for their per-peer
 * digests, which do not cancel out. */
bool trl_check_digests_differ(const int64_t *rows, int n);

/* "file.c:42 (function)" or "function+0x1f (object)" for a call site
 * (an offset in the object the program's call sites lie in). */
void trl_check_site_text(int64_t site, char *buf, size_t len);
/* The site of the call this thread is in, from its stack: the first frame
 * outside Trellis and the MPI library's Fortran bindings (which a call from
 * Fortran may pass through first); site where the stack says nothing. For
 * a report, not the call path: unwinding costs microseconds. */
int64_t trl_check_site_deep(int64_t site);
/* The offset a return address has in its object. */
int64_t trl_check_site_of(const void *addr);

/* The collective a row's call is, as the program named it: MPI_Bcast,
 * MPI_Ibcast, MPI_Bcast_init. */
void trl_check_call_name(const int64_t *row, char *buf, size_t len);

#endif
