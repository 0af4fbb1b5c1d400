/* What every command of trellis-info shares: exit statuses, the report of
 * a bad command line, JSON strings, counts on the command line. */
#ifndef TRELLIS_INFO_COMMON_H
#define TRELLIS_INFO_COMMON_H

#include <stdbool.h>
#include <stdio.h>

/* EXIT_NO_SCHEDULE: simulate's call goes to the MPI library's own
 * collective (the rules chose mpi): there is nothing to simulate. */
enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NO_SCHEDULE = 3 };

/* Large enough for any machine an MPI job runs on today, small enough that
 * a typo (an extra zero or two) fails at once instead of building schedules
 * for minutes. */
#define MAX_RANKS (1 << 20)

/* "trellis: <message>" on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* s as a JSON string, or null. */
void json_string(FILE *out, const char *s);
/* A decimal number from lo to hi, the whole text. */
bool parse_count(const char *text, long long lo, long long hi, long long *out);

#endif
