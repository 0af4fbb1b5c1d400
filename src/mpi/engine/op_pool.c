#include "mpi/engine/op_pool.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static struct {
    trl_op *kept[4];
    int n;
} pool;

trl_op *trl_op_pool_take(void)
{
    if (pool.n == 0)
        return calloc(1, sizeof(trl_op));
    trl_op *op = pool.kept[--pool.n];
    memset(op, 0, offsetof(trl_op, call));
    op->x.done = 0;
    return op;
}

void trl_op_pool_put(trl_op *op)
{
    if (pool.n < (int)(sizeof pool.kept / sizeof pool.kept[0])) {
        pool.kept[pool.n++] = op;
        return;
    }
    trl_exec_mem_free(&op->mem);
    free(op);
}

void trl_op_pool_free(void)
{
    while (pool.n > 0) {
        trl_op *op = pool.kept[--pool.n];
        trl_exec_mem_free(&op->mem);
        free(op);
    }
}
