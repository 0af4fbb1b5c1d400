/* TRELLIS_RULES: a rules file's name, or rules inline, told apart as the
 * `trellis` command tells them (trellis.native.names_file), and read. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/env_value.h"
#include "core/status.h"
#include "select/rules.h"
#include "select/rules_words.h"

/* The file's bytes, NUL-terminated, in *text; their number in *len. */
static int read_file(const char *name, char **text, size_t *text_len, trl_rules_error *err)
{
    struct stat st;
    FILE *f = NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = TRL_OK;
    if (stat(name, &st) == 0 && S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto io_error;
    }
    f = fopen(name, "rb");
    if (!f)
        goto io_error;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 8192;
            char *grown = realloc(buf, cap);
            if (!grown) {
                rc = trl__rules_fail_whole(err, "TRELLIS_RULES", TRL_ERR_NOMEM, "out of memory");
                goto done;
            }
            buf = grown;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        goto io_error;
    buf[len] = '\0';
    *text = buf;
    *text_len = len;
    buf = NULL;
    goto done;
io_error:
    rc = trl__rules_fail_whole(err, "TRELLIS_RULES", TRL_ERR_IO, "cannot read rules file '%s': %s",
                               name, strerror(errno));
done:
    if (f)
        fclose(f);
    free(buf);
    return rc;
}

/* A value that, trimmed, has no blank cannot be rules (a rule has at least
 * two words), so it is a file name; so is one that names an existing file,
 * which lets a path with blanks in it through. Text that could not be a
 * path is not looked up. (trellis.native.names_file: the same.) */
static bool names_file(const char *name)
{
    struct stat st;
    for (const char *c = name; *c; c++)
        if (trl__rules_is_blank(*c))
            return trl_could_be_path(name) && stat(name, &st) == 0;
    return true;
}

/* A NUL would end the text early, and what follows it would be neither
 * checked nor compared between ranks: refuse it, where it is. */
static int check_no_nul(const char *text, size_t len, const char *name, trl_rules_error *err)
{
    const char *nul = memchr(text, '\0', len);
    if (!nul)
        return TRL_OK;
    int line = 1;
    const char *line_start = text;
    for (const char *p = text; p < nul; p++)
        if (*p == '\n') {
            line++;
            line_start = p + 1;
        }
    snprintf(err->source, sizeof err->source, "%s", name);
    err->line = line;
    err->column = (int)(nul - line_start) + 1;
    snprintf(err->message, sizeof err->message, "not a text file (it holds a NUL byte)");
    return TRL_ERR_PARSE;
}

/* A value read as rules that fails at its first word, and looks like a file
 * name with a blank in it (a '.' or '/': 'my rules.txt'), may have been
 * meant as one that names nothing: say that too. */
static void not_a_file_either(const char *value, const char *name, trl_rules_error *err)
{
    int first = 1 + (int)(strspn(value, " \t\r\v\f\n"));
    bool persistent;
    struct stat st;
    if (err->line != 1 || err->column != first || strchr(name, ';') || !strpbrk(name, "./") ||
        !trl_could_be_path(name) ||
        trl__rules_call_name_coll(name, strcspn(name, " \t\r\v\f\n"), &persistent) >= 0 ||
        stat(name, &st) == 0)
        return;
    size_t used = strlen(err->message);
    snprintf(err->message + used, sizeof err->message - used, "; and as a file name, '%s': %s",
             name, strerror(errno));
}

int trl_rules_load_env(trl_ruleset *out, char **text, trl_rules_error *err)
{
    trl_ruleset empty = {0};
    *out = empty;
    *text = NULL;
    const char *value = getenv("TRELLIS_RULES");
    if (!value || !*value)
        return TRL_OK;
    char *name = trl__rules_trimmed_copy(value, value + strlen(value));
    int rc = TRL_OK;
    if (!name) {
        rc = trl__rules_fail_whole(err, "TRELLIS_RULES", TRL_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (*name && names_file(name)) {
        size_t len = 0;
        rc = read_file(name, text, &len, err);
        if (rc == TRL_OK)
            rc = check_no_nul(*text, len, name, err);
        if (rc == TRL_OK)
            rc = trl_rules_parse(*text, name, out, err);
        goto done;
    }
    *text = strdup(value);
    if (!*text)
        rc = trl__rules_fail_whole(err, "TRELLIS_RULES", TRL_ERR_NOMEM, "out of memory");
    else
        rc = trl_rules_parse_inline(*text, out, err);
    if (rc == TRL_ERR_PARSE)
        not_a_file_either(value, name, err);
done:
    free(name);
    return rc;
}
