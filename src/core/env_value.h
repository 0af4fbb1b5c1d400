/* TRELLIS_RULES and TRELLIS_TOPOLOGY each hold a file name or the text
 * itself. What both decide before they look at the file system. */
#ifndef TRL_ENV_VALUE_H
#define TRL_ENV_VALUE_H

#include <stdbool.h>

/* Whether `value` could name a file at all: no newline, shorter than
 * PATH_MAX (4096 bytes) and no '/'-separated part longer than NAME_MAX
 * (255 bytes). Text that could not is never looked up: the file system
 * would only answer "File name too long". The Python side
 * (trellis.native.could_be_path) applies the same test. */
bool trl_could_be_path(const char *value);

#endif
