/* Prints the registry's algorithms (src/algo/registry.h), "collective:name" a
 * line, in the table's order. tests/CMakeLists.txt compiles and runs it each
 * time CMake configures (which it does again whenever the registry changes),
 * and makes a ctest of every line. */
#include <stdio.h>

#include "algo/algo.h"
#include "algo/registry.h"

static const char *const coll_names[] = {
#define COLL_NAME(id, name, mpi) [TRL_COLL_##id] = name,
    TRL_COLL_MAP(COLL_NAME)
#undef COLL_NAME
};

#define PRINT(coll, name, ...) printf("%s:%s\n", coll_names[TRL_COLL_##coll], name);

int main(void)
{
    TRL_ALGORITHMS(PRINT, PRINT)
    return 0;
}
