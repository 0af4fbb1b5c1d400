/* TRELLIS_CHECK's watchdog. */
#ifndef TRL_CHECK_WATCH_H
#define TRL_CHECK_WATCH_H

#include "mpi/engine/check_row.h"

/* The watchdog (check_watch.c): a call entered (its row copied) and
 * left; it reports the calls a rank stays in past the timeout. */
void trl_check_watch_start(double timeout_s);
int trl_check_watch_enter(const trl_check_call_info *call); /* a slot, or -1 */
/* A blocking call's (the calling thread's record): cheaper, no lock. */
void trl_check_watch_blocking(const trl_check_call_info *call);
void trl_check_watch_blocking_done(void);
void trl_check_watch_leave(int slot);
double trl_check_now(void);

#endif
