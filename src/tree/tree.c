/* A loaded tree file: freeing it, its errors' messages, and the properties
 * of one direction of its (checked) tree. No recursion: a file may hold a
 * chain of 1<<20 ranks. */
#include "tree/tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void links_free(trl_tree_links *l)
{
    free(l->parent);
    free(l->child_first);
    free(l->child);
}

void trl_tree_file_free(trl_tree_file *f)
{
    free(f->path);
    links_free(&f->reduce);
    links_free(&f->bcast);
    memset(f, 0, sizeof *f);
}

void trl_file_error_format(const trl_file_error *err, char *buf, size_t len)
{
    if (err->line > 0)
        snprintf(buf, len, "%s:%d: %s", err->source, err->line, err->message);
    else
        snprintf(buf, len, "%s: %s", err->source, err->message);
}

/* ---- properties of the links --------------------------------------------------- */

/* In rank order exactly when a pre-order walk (children in file order)
 * meets ranks 0, 1, 2, ... in turn: a subtree's ranks then follow its top
 * without a gap, and each child's run follows its elder sibling's. */
bool trl_tree_links_ordered(const trl_tree_links *l, int size, int root)
{
    if (root != 0)
        return false;
    int *stack = malloc((size_t)size * sizeof *stack);
    if (!stack)
        return false; /* cannot tell: the caller then does not rely on order */
    int top = 0, next = 0;
    bool ok = true;
    stack[top++] = root;
    while (ok && top > 0) {
        int v = stack[--top];
        ok = v == next++;
        for (int i = l->child_first[v + 1] - 1; ok && i >= l->child_first[v]; i--) {
            ok = top < size; /* only a tree that is not one could overflow */
            if (ok)
                stack[top++] = l->child[i];
        }
    }
    free(stack);
    return ok && next == size;
}

/* Levels from the root down: each rank's depth is its parent's plus one. */
int trl_tree_links_depth(const trl_tree_links *l, int size, int root)
{
    int *queue = malloc((size_t)size * sizeof *queue);
    int *depth = malloc((size_t)size * sizeof *depth);
    int deepest = -1;
    if (queue && depth) {
        int head = 0, tail = 0;
        queue[tail++] = root;
        depth[root] = 0;
        while (head < tail) {
            int v = queue[head++];
            deepest = depth[v];
            for (int i = l->child_first[v]; i < l->child_first[v + 1] && tail < size; i++) {
                depth[l->child[i]] = depth[v] + 1;
                queue[tail++] = l->child[i];
            }
        }
    }
    free(queue);
    free(depth);
    return deepest;
}

int trl_tree_links_max_children(const trl_tree_links *l, int size)
{
    int most = 0;
    for (int r = 0; r < size; r++) {
        int n = l->child_first[r + 1] - l->child_first[r];
        most = n > most ? n : most;
    }
    return most;
}
