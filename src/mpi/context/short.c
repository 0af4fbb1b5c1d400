#include "mpi/context/short.h"

TRL_SHORT_TLS const char *trl_memory_short;
