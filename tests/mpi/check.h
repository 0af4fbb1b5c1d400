/* What the request programs (test_nonblocking.c, test_request_rules.c)
 * share: CHECK counts a check and reports a failed one with the rank and
 * the line (the program defines rank, failures and checks), and a small
 * generator of pseudo-random numbers. */
#ifndef TRL_TEST_CHECK_H
#define TRL_TEST_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: %s:%d: ", rank, __func__, __LINE__);                         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static inline unsigned lcg(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 16;
}

#endif
