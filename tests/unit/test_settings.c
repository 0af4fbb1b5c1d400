/* The TRELLIS_* settings' grammar (src/core/settings.c): the spellings of
 * on and off, counts and their bounds, words, and the located error of a
 * value that means nothing (issue 35: TRELLIS_SHM=off used to leave shared
 * memory on, TRELLIS_VERBOSE=yes and TRELLIS_CACHE_SIZE=abc were ignored). */
#include <stdlib.h>

#include "core/settings.h"
#include "unit_harness.h"

static const char *const NAMES[] = {
    "TRELLIS_SHM",      "TRELLIS_TUNED",       "TRELLIS_VERBOSE",     "TRELLIS_CACHE_SIZE",
    "TRELLIS_SHM_SPIN", "TRELLIS_EXEC_WINDOW", "TRELLIS_TRACE_CALLS", "TRELLIS_TRACE_STEPS",
    "TRELLIS_PROGRESS", "TRELLIS_ON_ERROR",    "TRELLIS_CHECK",       "TRELLIS_CHECK_TIMEOUT"};

static void clear(void)
{
    for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
        unsetenv(NAMES[i]);
}

/* The check's message for NAME=VALUE alone ("" when it passes). */
static const char *checked(const char *name, const char *value)
{
    static char msg[400];
    clear();
    setenv(name, value, 1);
    msg[0] = '\0';
    if (trl_settings_check(msg, sizeof msg))
        msg[0] = '\0';
    return msg;
}

static void on_and_off_spellings(void)
{
    const char *on[] = {"1", "on", "yes", "true", "ON", "Yes", "TRUE", " on "};
    const char *off[] = {"0", "off", "no", "false", "OFF", "No", "False", "off\n"};
    for (size_t i = 0; i < sizeof on / sizeof *on; i++) {
        CHECK_STR(checked("TRELLIS_SHM", on[i]), "");
        CHECK(trl_setting_on("TRELLIS_SHM", false), "TRELLIS_SHM=%s is on", on[i]);
        CHECK_STR(checked("TRELLIS_SHM", off[i]), "");
        CHECK(!trl_setting_on("TRELLIS_SHM", true), "TRELLIS_SHM=%s is off", off[i]);
    }
    clear();
    CHECK(trl_setting_on("TRELLIS_SHM", true), "unset: the default");
    setenv("TRELLIS_SHM", "", 1);
    CHECK(trl_setting_on("TRELLIS_SHM", true), "empty: the default");
}

static void verbose_takes_on_off_or_a_level(void)
{
    CHECK_STR(checked("TRELLIS_VERBOSE", "yes"), "");
    CHECK(trl_setting_verbose() == 1, "yes is level 1");
    CHECK_STR(checked("TRELLIS_VERBOSE", "off"), "");
    CHECK(trl_setting_verbose() == 0, "off is level 0");
    CHECK_STR(checked("TRELLIS_VERBOSE", "2"), "");
    CHECK(trl_setting_verbose() == 2, "a level");
    CHECK_STR(checked("TRELLIS_VERBOSE", "loud"),
              "TRELLIS_VERBOSE:1:1: 'loud' is neither on nor off nor a level (expected 1, on, "
              "yes, true; 0, off, no, false, or a number)");
}

/* NAME=VALUE and the check's message. */
static const struct {
    const char *name, *value, *message;
} BAD[] = {
    {"TRELLIS_SHM", "maybe",
     "TRELLIS_SHM:1:1: 'maybe' is neither on nor off (expected 1, on, yes, true; 0, off, no, "
     "false)"},
    {"TRELLIS_CHECK", "maybe",
     "TRELLIS_CHECK:1:1: 'maybe' is neither on nor off (expected 1, on, yes, true; 0, off, no, "
     "false)"},
    {"TRELLIS_CHECK_TIMEOUT", "0", "TRELLIS_CHECK_TIMEOUT:1:1: 0 is out of range (1..86400)"},
    {"TRELLIS_CHECK_TIMEOUT", "1.5",
     "TRELLIS_CHECK_TIMEOUT:1:2: '1.5' is not a count (expected digits: a whole number of at "
     "least 1)"},
    {"TRELLIS_CACHE_SIZE", "abc",
     "TRELLIS_CACHE_SIZE:1:1: 'abc' is not a count (expected digits: a whole number of at least "
     "1)"},
    {"TRELLIS_CACHE_SIZE", "64x",
     "TRELLIS_CACHE_SIZE:1:3: '64x' is not a count (expected digits: a whole number of at least "
     "1)"},
    {"TRELLIS_CACHE_SIZE", "  7z",
     "TRELLIS_CACHE_SIZE:1:4: '7z' is not a count (expected digits: a whole number of at least "
     "1)"},
    {"TRELLIS_CACHE_SIZE", "0", "TRELLIS_CACHE_SIZE:1:1: 0 is out of range (1..4096)"},
    {"TRELLIS_CACHE_SIZE", "4097", "TRELLIS_CACHE_SIZE:1:1: 4097 is out of range (1..4096)"},
    {"TRELLIS_SHM_SPIN", "-1",
     "TRELLIS_SHM_SPIN:1:1: '-1' is not a count (expected digits: a whole number of at least 0)"},
    {"TRELLIS_TRACE_STEPS", "99999999999999999999",
     "TRELLIS_TRACE_STEPS:1:1: 99999999999999999999 is out of range (at least 1)"},
    {"TRELLIS_PROGRESS", "Thread",
     "TRELLIS_PROGRESS:1:1: unknown value 'Thread' (expected thread, or off: 0, off, no, false)"},
    {"TRELLIS_ON_ERROR", "warning",
     "TRELLIS_ON_ERROR:1:1: unknown value 'warning' (expected stop, warn)"},
};

static void bad_values_are_located(void)
{
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++)
        CHECK_STR(checked(BAD[i].name, BAD[i].value), BAD[i].message);
    checked("TRELLIS_SHM", "maybe");
    CHECK(trl_setting_on("TRELLIS_SHM", true), "a bad value reads as the default");
    checked("TRELLIS_CACHE_SIZE", "abc");
    CHECK(trl_setting_count("TRELLIS_CACHE_SIZE", 64) == 64, "a bad count reads as the default");
}

static void counts_and_words(void)
{
    CHECK_STR(checked("TRELLIS_CACHE_SIZE", "4096"), "");
    CHECK(trl_setting_count("TRELLIS_CACHE_SIZE", 64) == 4096, "4096");
    CHECK_STR(checked("TRELLIS_SHM_SPIN", "0"), "");
    CHECK(trl_setting_count("TRELLIS_SHM_SPIN", 5) == 0, "spin 0");
    CHECK_STR(checked("TRELLIS_PROGRESS", "thread"), "");
    CHECK_STR(checked("TRELLIS_PROGRESS", "off"), "");
    CHECK_STR(checked("TRELLIS_ON_ERROR", "warn"), "");
    CHECK(trl_setting_warn(), "warn");
    CHECK_STR(checked("TRELLIS_ON_ERROR", "stop"), "");
    CHECK(!trl_setting_warn(), "stop");
    clear();
    CHECK(!trl_setting_warn(), "unset: stop");
}

int main(void)
{
    RUN(on_and_off_spellings);
    RUN(verbose_takes_on_off_or_a_level);
    RUN(bad_values_are_located);
    RUN(counts_and_words);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
