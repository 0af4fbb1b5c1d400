#include "core/status.h"

const char *trl_status_str(int status)
{
    switch (status) {
#define TRL_STATUS_CASE(name, value, msg) \
    case value:                           \
        return msg;
        TRL_STATUS_MAP(TRL_STATUS_CASE)
#undef TRL_STATUS_CASE
    }
    return "unknown status";
}
