/* The unit tests' tiny harness: RUN(case) runs a case function, CHECK and
 * CHECK_STR record failures with their line; main prints "N passed, M
 * failed" last. One translation unit per test program. */
#ifndef UNIT_HARNESS_H
#define UNIT_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;
static bool case_ok;
static const char *case_name;

static void __attribute__((format(printf, 3, 4)))
check_file_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s (%s:%d): ", case_name, file, line);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    case_ok = false;
}

#define check_at(line, ...) check_file_at(__FILE__, line, __VA_ARGS__)

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            check_at(__LINE__, __VA_ARGS__);                                                       \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        if (!g_ || strcmp(g_, w_) != 0)                                                            \
            check_at(__LINE__, "%s is \"%s\", want \"%s\"", #got, g_ ? g_ : "(null)", w_);         \
    } while (0)

#define RUN(fn)                                                                                    \
    do {                                                                                           \
        case_name = #fn;                                                                           \
        case_ok = true;                                                                            \
        fn();                                                                                      \
        if (case_ok)                                                                               \
            passed++;                                                                              \
        else                                                                                       \
            failed++;                                                                              \
    } while (0)

#endif
