/* A rule's reason: the comment its author wrote above it. In the built-in
 * rules (and in rules files written the same way) a comment block stands
 * above the rules it explains, which follow it without a blank line:
 *
 *   # Several hosts: ...      <- the reason of both rules below
 *   bcast hosts=2- ... hier_sharded
 *   bcast hosts=2- ... hier
 *
 * So walking up from the rule: other rules are passed, the first comment
 * block is the reason, and a blank line before any comment means none. */
#include <string.h>

#include "select/rules.h"

/* Line `n` (1-based) of text: its start and length, or NULL. */
static const char *line_at(const char *text, int n, size_t *len)
{
    const char *at = text;
    for (int i = 1; i < n && at; i++) {
        at = strchr(at, '\n');
        at = at ? at + 1 : NULL;
    }
    if (!at || !*at)
        return NULL;
    const char *end = strchr(at, '\n');
    *len = end ? (size_t)(end - at) : strlen(at);
    return at;
}

/* The line without leading blanks; *len shrinks with it. */
static const char *skip_blanks(const char *s, size_t *len)
{
    while (*len && (*s == ' ' || *s == '\t' || *s == '\r')) {
        s++;
        (*len)--;
    }
    return s;
}

size_t trl_rules_reason(const char *text, int line, char *buf, size_t cap)
{
    if (cap)
        buf[0] = '\0';
    int first = 0, last = 0; /* the comment block, lines first..last */
    for (int n = line - 1; n >= 1; n--) {
        size_t len = 0;
        const char *s = line_at(text, n, &len);
        if (!s)
            break;
        s = skip_blanks(s, &len);
        bool comment = len && *s == '#';
        if (comment) {
            first = n;
            last = last ? last : n;
        } else if (last || !len) {
            break; /* the block ended, or a blank line before any comment */
        }
    }
    size_t used = 0;
    for (int n = first; first && n <= last; n++) {
        size_t len = 0;
        const char *s = skip_blanks(line_at(text, n, &len), &len);
        s++; /* the '#' */
        len--;
        s = skip_blanks(s, &len);
        while (len && (s[len - 1] == ' ' || s[len - 1] == '\r'))
            len--;
        if (!len)
            continue;
        if (used && used + 1 < cap)
            buf[used++] = ' ';
        size_t room = used < cap ? cap - used - 1 : 0, take = len < room ? len : room;
        memcpy(buf + used, s, take);
        used += take;
        if (cap)
            buf[used < cap ? used : cap - 1] = '\0';
    }
    return used;
}
