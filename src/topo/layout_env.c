/* TRELLIS_TOPOLOGY: a layout file's name, or a layout inline, told apart as
 * the `trellis` command tells them (trellis.native.names_file), and read;
 * layout_parse.c reads the layout. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/env_value.h"
#include "core/status.h"
#include "topo/topo.h"

#define SOURCE_INLINE "TRELLIS_TOPOLOGY"
enum { MAX_FILE = 64 << 20 };

static int io_error(trl_topo_error *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int io_error(trl_topo_error *err, int status, const char *fmt, ...)
{
    snprintf(err->source, sizeof err->source, SOURCE_INLINE);
    err->line = err->column = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

static int read_file(const char *name, char **text, trl_topo_error *err)
{
    struct stat st;
    if (stat(name, &st) == 0 && S_ISDIR(st.st_mode))
        return io_error(err, TRL_ERR_IO, "cannot read layout file '%s': %s", name,
                        strerror(EISDIR));
    FILE *f = fopen(name, "rb");
    if (!f)
        return io_error(err, TRL_ERR_IO, "cannot read layout file '%s': %s", name, strerror(errno));
    size_t len = 0, cap = 8192;
    char *buf = malloc(cap);
    int rc = TRL_OK;
    while (buf) {
        len += fread(buf + len, 1, cap - len - 1, f);
        if (len < cap - 1)
            break;
        char *grown = cap < MAX_FILE ? realloc(buf, 2 * cap) : NULL;
        if (!grown) {
            rc = cap < MAX_FILE ? io_error(err, TRL_ERR_NOMEM, "out of memory")
                                : io_error(err, TRL_ERR_IO,
                                           "layout file '%s' is larger than "
                                           "%d MiB",
                                           name, MAX_FILE >> 20);
            break;
        }
        buf = grown;
        cap *= 2;
    }
    if (!buf && rc == TRL_OK)
        rc = io_error(err, TRL_ERR_NOMEM, "out of memory");
    if (rc == TRL_OK && ferror(f))
        rc = io_error(err, TRL_ERR_IO, "cannot read layout file '%s': %s", name, strerror(errno));
    fclose(f);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *text = buf;
    return TRL_OK;
}

/* Every layout has a key=value word, so a value with neither a blank nor
 * '=' can only be a file name; an existing file is one too, which lets a
 * path with blanks or '=' in it through. Text that could not be a path
 * is not looked up (trellis.native.names_file: the same). */
static bool names_file(const char *name)
{
    struct stat st;
    return !name[strcspn(name, " \t\r\n\v\f=")] ||
           (trl_could_be_path(name) && stat(name, &st) == 0);
}

int trl_topo_load_env(trl_topo *out, bool *set, trl_topo_error *err)
{
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    *set = false;
    const char *value = getenv("TRELLIS_TOPOLOGY");
    if (!value)
        return TRL_OK;
    const char *begin = value, *end = value + strlen(value);
    while (begin < end && isspace((unsigned char)*begin))
        begin++;
    while (end > begin && isspace((unsigned char)end[-1]))
        end--;
    if (begin == end)
        return TRL_OK;
    *set = true;
    char *name = strndup(begin, (size_t)(end - begin));
    if (!name)
        return io_error(err, TRL_ERR_NOMEM, "out of memory");
    int rc;
    if (names_file(name)) {
        char *text = NULL;
        rc = read_file(name, &text, err);
        if (rc == TRL_OK)
            rc = trl_topo_parse(text, name, false, out, err);
        free(text);
    } else {
        /* The value as written, so columns are the user's. */
        rc = trl_topo_parse(value, SOURCE_INLINE, true, out, err);
    }
    free(name);
    return rc;
}
