#include "core/env_value.h"

#include <string.h>

enum { PATH_BYTES_MAX = 4095, NAME_BYTES_MAX = 255 };

bool trl_could_be_path(const char *value)
{
    if (strchr(value, '\n') || strlen(value) > PATH_BYTES_MAX)
        return false;
    for (const char *part = value;; part++) {
        size_t len = strcspn(part, "/");
        if (len > NAME_BYTES_MAX)
            return false;
        part += len;
        if (!*part)
            return true;
    }
}
