/* TRELLIS_CHECK's watchdog. */
#ifndef TRL_CHECK_WATCH_H
#define TRL_CHECK_WATCH_H

#include <stdbool.h>

#include "mpi/engine/check_row.h"

/* The watchdog (check_watch.c): a call entered (its row copied) and
 * left; it reports the calls a rank stays in past the timeout. */
void trl_check_watch_start(double timeout_s);
/* A non-blocking call's check, or (op) a collective in flight, its check
 * passed, from a run's start to its end (comm_name: its communicator's,
 * copied). A slot, or -1. */
int trl_check_watch_enter(const trl_check_call_info *call, const char *comm_name, bool op);
/* A blocking call's (the calling thread's record): cheaper, no lock; call
 * stays where it is, the thread's, described there call after call. */
void trl_check_watch_blocking(const trl_check_call_info *call);
void trl_check_watch_blocking_done(void);
void trl_check_watch_leave(int slot);

#endif
