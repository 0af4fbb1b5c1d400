/* Messages to the user. Everything Trellis prints starts with "trellis: "
 * so it can be told apart from the program's own output. */
#ifndef TRL_LOG_H
#define TRL_LOG_H

#include <stdbool.h>
#include <stddef.h>

void trl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* TRELLIS_VERBOSE as an integer level (0 when unset or empty). */
int trl_verbose_level(void);

#endif
