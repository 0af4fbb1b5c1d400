#include "core/log.h"

#include "core/settings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void trl_log(const char *fmt, ...)
{
    /* Format into one buffer and write it with a single call, so lines from
     * different ranks sharing a terminal do not interleave mid-line. */
    static const char prefix[] = "trellis: ";
    enum { PREFIX = sizeof prefix - 1 };
    char line[1024 + PREFIX];
    memcpy(line, prefix, PREFIX);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line + PREFIX, sizeof line - PREFIX - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    n += PREFIX;
    if ((size_t)n > sizeof line - 2)
        n = sizeof line - 2;
    line[n] = '\n';
    line[n + 1] = '\0';
    fputs(line, stderr);
    fflush(stderr);
}

int trl_verbose_level(void)
{
    static int level = -1;
    if (level < 0)
        level = trl_setting_verbose();
    return level;
}
