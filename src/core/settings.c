#include "core/settings.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/status.h"

typedef enum { ON_OFF, LEVEL, COUNT, WORD } kind;

/* The settings and their grammar. Counts: their bounds; words: the words
 * besides the off spellings (PROGRESS) or instead of them (ON_ERROR). */
static const struct setting {
    const char *name;
    kind kind;
    long long min, max;
    const char *const *words;
    bool off_too; /* a WORD setting that takes the off spellings as well */
} settings[] = {
    {"TRELLIS_SHM", ON_OFF, 0, 0, NULL, false},
    {"TRELLIS_TUNED", ON_OFF, 0, 0, NULL, false},
    {"TRELLIS_CHECK", ON_OFF, 0, 0, NULL, false},
    {"TRELLIS_CHECK_TIMEOUT", COUNT, 1, 86400, NULL, false},
    {"TRELLIS_VERBOSE", LEVEL, 0, INT_MAX, NULL, false},
    {"TRELLIS_CACHE_SIZE", COUNT, 1, 4096, NULL, false},
    {"TRELLIS_SHM_SPIN", COUNT, 0, INT_MAX, NULL, false},
    {"TRELLIS_EXEC_WINDOW", COUNT, 1, 1 << 20, NULL, false},
    {"TRELLIS_TRACE_CALLS", COUNT, 1, LLONG_MAX, NULL, false},
    {"TRELLIS_TRACE_STEPS", COUNT, 1, LLONG_MAX, NULL, false},
    {"TRELLIS_PROGRESS", WORD, 0, 0, (const char *const[]){"thread", NULL}, true},
    {"TRELLIS_ON_ERROR", WORD, 0, 0, (const char *const[]){"stop", "warn", NULL}, false},
};
enum { NSETTINGS = sizeof settings / sizeof *settings };

static const char *const on_words[] = {"1", "on", "yes", "true", NULL};
static const char *const off_words[] = {"0", "off", "no", "false", NULL};
static const char ON_OFF_WORDS[] = "1, on, yes, true; 0, off, no, false";

static const struct setting *find(const char *name)
{
    for (size_t i = 0; i < NSETTINGS; i++)
        if (strcmp(settings[i].name, name) == 0)
            return &settings[i];
    return NULL;
}

/* The value (without the blanks around it, unless exact): its start, its
 * length in *len and its column. NULL when unset or empty. */
static const char *trimmed(const char *name, bool exact, size_t *len, int *column)
{
    const char *v = getenv(name);
    if (!v)
        return NULL;
    const char *b = v;
    while (!exact && isspace((unsigned char)*b))
        b++;
    size_t n = strlen(b);
    while (!exact && n && isspace((unsigned char)b[n - 1]))
        n--;
    *len = n;
    *column = (int)(b - v) + 1;
    return n ? b : NULL;
}

/* The index of v among words, -1 if none; case counts only where exact
 * (a setting its reader compares as it is: TRELLIS_PROGRESS=thread). */
static int word_in(const char *const *words, const char *v, size_t len, bool exact)
{
    for (int i = 0; words && words[i]; i++)
        if (strlen(words[i]) == len &&
            (exact ? strncmp(words[i], v, len) : strncasecmp(words[i], v, len)) == 0)
            return i;
    return -1;
}

/* Parses the setting; 0 unset, 1 a good value in *out, -1 bad (msg says
 * why, when given). ON_OFF and LEVEL give 0 or 1 or the level; COUNT the
 * count; WORD the word's index (the off spellings: -1 in *out). */
static int parse(const struct setting *s, long long *out, char *msg, size_t len)
{
    size_t n;
    int column;
    const char *v = trimmed(s->name, s->kind == WORD, &n, &column);
    if (!v)
        return 0;
    char why[200];
    if (s->kind == ON_OFF || s->kind == LEVEL || (s->kind == WORD && s->off_too)) {
        if (word_in(off_words, v, n, false) >= 0) {
            *out = s->kind == WORD ? -1 : 0;
            return 1;
        }
        if (s->kind != WORD && word_in(on_words, v, n, false) >= 0) {
            *out = 1;
            return 1;
        }
    }
    if (s->kind == WORD) {
        int w = word_in(s->words, v, n, true);
        if (w >= 0) {
            *out = w;
            return 1;
        }
        size_t at = 0;
        char list[120] = "";
        for (int i = 0; s->words[i]; i++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", s->words[i]);
        snprintf(why, sizeof why, "unknown value '%.*s' (expected %s%s%s)", (int)(n < 40 ? n : 40),
                 v, list, s->off_too ? ", or off: " : "", s->off_too ? "0, off, no, false" : "");
    } else if (s->kind == ON_OFF) {
        snprintf(why, sizeof why, "'%.*s' is neither on nor off (expected %s)",
                 (int)(n < 40 ? n : 40), v, ON_OFF_WORDS);
    } else {
        /* COUNT, or a LEVEL that is not an on/off word: digits. */
        size_t digits = 0;
        long long value = 0;
        bool overflow = false;
        while (digits < n && isdigit((unsigned char)v[digits])) {
            int d = v[digits] - '0';
            overflow = overflow || value > (LLONG_MAX - d) / 10;
            value = overflow ? value : value * 10 + d;
            digits++;
        }
        if (digits == n && !overflow && value >= s->min && value <= s->max) {
            *out = value;
            return 1;
        }
        if (digits == n || overflow) {
            if (s->max == LLONG_MAX || s->max == INT_MAX)
                snprintf(why, sizeof why, "%.*s is out of range (at least %lld)",
                         (int)(n < 40 ? n : 40), v, s->min);
            else
                snprintf(why, sizeof why, "%.*s is out of range (%lld..%lld)",
                         (int)(n < 40 ? n : 40), v, s->min, s->max);
        } else {
            column += (int)digits;
            if (s->kind == LEVEL)
                snprintf(why, sizeof why,
                         "'%.*s' is neither on nor off nor a level (expected %s, "
                         "or a number)",
                         (int)(n < 40 ? n : 40), v, ON_OFF_WORDS);
            else
                snprintf(why, sizeof why,
                         "'%.*s' is not a count (expected digits: a whole number "
                         "of at least %lld)",
                         (int)(n < 40 ? n : 40), v, s->min);
        }
    }
    if (msg)
        trl_format_where(msg, len, s->name, 1, column, why);
    return -1;
}

bool trl_setting_on(const char *name, bool fallback)
{
    const struct setting *s = find(name);
    long long v;
    return s && parse(s, &v, NULL, 0) == 1 ? v != 0 : fallback;
}

long long trl_setting_count(const char *name, long long fallback)
{
    const struct setting *s = find(name);
    long long v;
    return s && parse(s, &v, NULL, 0) == 1 ? v : fallback;
}

int trl_setting_verbose(void)
{
    long long v = trl_setting_count("TRELLIS_VERBOSE", 0);
    return v > INT_MAX ? INT_MAX : (int)v;
}

bool trl_setting_warn(void)
{
    const struct setting *s = find("TRELLIS_ON_ERROR");
    long long v;
    return parse(s, &v, NULL, 0) == 1 && v == 1;
}

bool trl_settings_check(char *msg, size_t len)
{
    for (size_t i = 0; i < NSETTINGS; i++) {
        long long v;
        if (parse(&settings[i], &v, msg, len) < 0)
            return false;
    }
    return true;
}
