#include "select/rules_error.h"

#include <stdio.h>

void trl_rules_error_format(const trl_rules_error *err, char *buf, size_t len)
{
    if (err->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s", err->source, err->line, err->column, err->message);
    else
        snprintf(buf, len, "%s: %s", err->source, err->message);
}
