#include "core/status.h"

#include <stdio.h>

const char *trl_status_str(int status)
{
    switch (status) {
#define TRL_STATUS_CASE(name, value, msg)                                                          \
    case value: return msg;
        TRL_STATUS_MAP(TRL_STATUS_CASE)
#undef TRL_STATUS_CASE
    }
    return "unknown status";
}

void trl_format_where(char *buf, size_t len, const char *source, int line, int column,
                      const char *message)
{
    if (line > 0 && column > 0)
        snprintf(buf, len, "%s:%d:%d: %s", source, line, column, message);
    else if (line > 0)
        snprintf(buf, len, "%s:%d: %s", source, line, message);
    else
        snprintf(buf, len, "%s: %s", source, message);
}
