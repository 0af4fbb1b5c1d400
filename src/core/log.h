/* Messages to the user. Everything Trellis prints starts with "trellis: "
 * so it can be told apart from the program's own output. */
#ifndef TRL_LOG_H
#define TRL_LOG_H

#include <stdbool.h>
#include <stddef.h>

void trl_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error's place and message as people read it: "source:line:column:
 * message", "source:line: message" or "source: message", as much of the
 * position as is known (0: not known). */
void trl_format_where(char *buf, size_t len, const char *source, int line, int column,
                      const char *message);

/* TRELLIS_VERBOSE as an integer level (0 when unset or empty). */
int trl_verbose_level(void);

#endif
