/* One status type for the whole library: 0 is success, errors are negative.
 * Each code and its message come from the single table below. */
#ifndef TRL_STATUS_H
#define TRL_STATUS_H

#include <stddef.h>

#define TRL_STATUS_MAP(X)                                                                          \
    X(OK, 0, "success")                                                                            \
    X(ERR_NOMEM, -1, "out of memory")                                                              \
    X(ERR_INVALID, -2, "invalid argument")                                                         \
    X(ERR_PARSE, -3, "syntax error")                                                               \
    X(ERR_UNSUPPORTED, -4, "not supported by this algorithm")                                      \
    X(ERR_MPI, -5, "the MPI library returned an error")                                            \
    X(ERR_IO, -6, "cannot read file")                                                              \
    X(ERR_MISMATCH, -7, "ranks disagree")

typedef enum {
#define TRL_STATUS_ENUM(name, value, msg) TRL_##name = value,
    TRL_STATUS_MAP(TRL_STATUS_ENUM)
#undef TRL_STATUS_ENUM
} trl_status;

const char *trl_status_str(int status);

/* An error's place and message as people read it: "source:line:column:
 * message", "source:line: message" or "source: message", as much of the
 * position as is known (0: not known). */
void trl_format_where(char *buf, size_t len, const char *source, int line, int column,
                      const char *message);

#endif
