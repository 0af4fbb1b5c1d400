/* An error in rules text: where it is and what is wrong (rules.h includes
 * this; apart so that the reader's words, rules_words.c, can report one). */
#ifndef TRL_RULES_ERROR_H
#define TRL_RULES_ERROR_H

#include <stddef.h>

typedef struct {
    char source[256];
    int line, column; /* 1-based */
    char message[512];
} trl_rules_error;

/* "trellis: <source>:<line>:<column>: <message>" without the prefix; no
 * position where line is 0 (a file that cannot be read). */
void trl_rules_error_format(const trl_rules_error *err, char *buf, size_t len);

#endif
