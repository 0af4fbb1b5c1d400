/* The TRELLIS_* settings other than rules and layouts (which have their own
 * languages): one grammar for all of them, and one check that refuses a
 * value that means nothing with the located error a bad rule gets
 * ("TRELLIS_SHM:1:1: ..."), instead of ignoring it.
 *
 *   on/off    1, on, yes, true / 0, off, no, false (any case, blanks
 *             around allowed): TRELLIS_SHM, TRELLIS_TUNED, TRELLIS_CHECK, and TRELLIS_VERBOSE (which also
 *             takes a level: a number, 0 off)
 *   counts    digits, within the setting's bounds: TRELLIS_CACHE_SIZE, TRELLIS_CHECK_TIMEOUT,
 *             TRELLIS_SHM_SPIN, TRELLIS_EXEC_WINDOW, TRELLIS_TRACE_CALLS,
 *             TRELLIS_TRACE_STEPS
 *   words     TRELLIS_PROGRESS (thread, or an off spelling), TRELLIS_ON_ERROR
 *             (stop or warn)
 *
 * Unset or empty: the default. The readers take a bad value as unset (the
 * check has stopped the job already, or TRELLIS_ON_ERROR=warn said so). */
#ifndef TRL_SETTINGS_H
#define TRL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

/* An on/off setting's value; fallback when unset, empty or bad. */
bool trl_setting_on(const char *name, bool fallback);

/* A count setting's value; fallback when unset, empty, bad or out of its
 * bounds. */
long long trl_setting_count(const char *name, long long fallback);

/* TRELLIS_VERBOSE as a level: on is 1, off 0. */
int trl_setting_verbose(void);

/* Whether TRELLIS_ON_ERROR says warn (stop, the default, otherwise). */
bool trl_setting_warn(void);

/* Checks every setting of the environment; on the first bad one writes
 * "NAME:1:COLUMN: what is wrong (what it takes)" into msg and returns
 * false. */
bool trl_settings_check(char *msg, size_t len);

#endif
