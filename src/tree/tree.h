/* A tree or script file (docs/trees.md) once read: for each rank its
 * parent and its ordered children, for the reduce and the bcast direction;
 * what a reader's error says; and what the links of a loaded (so checked)
 * file tell. tree_file.h reads files into these. Pure C. */
#ifndef TRL_TREE_H
#define TRL_TREE_H

#include <stdbool.h>
#include <stddef.h>

/* One direction of a tree: parent and ordered children of every rank. */
typedef struct {
    int *parent;      /* per rank; -1 at the root */
    int *child_first; /* size+1 entries: rank r's children are
                         child[child_first[r] .. child_first[r+1]) in file order */
    int *child;
} trl_tree_links;

typedef struct {
    char *path;  /* as given to load, or the source name */
    bool script; /* written as a script */
    int size, root;
    bool has_reduce, has_bcast;
    trl_tree_links reduce, bcast; /* "both": the same tree in each (own copies) */
} trl_tree_file;

typedef struct {
    char source[256];
    int line; /* 0: no line (a file that cannot be read, no memory) */
    char message[512];
} trl_file_error;

void trl_tree_file_free(trl_tree_file *f);
/* "source:line: message" (no ":line" when line is 0). */
void trl_file_error_format(const trl_file_error *err, char *buf, size_t len);

/* The functions below take links of a loaded (so checked) file. */

/* Whether a non-commutative reduction over these links combines in exact
 * rank order: every subtree is a contiguous run of ranks starting at its
 * own top, the children's runs following one another in child order (so
 * the root must be rank 0). False also when out of memory. */
bool trl_tree_links_ordered(const trl_tree_links *l, int size, int root);
/* Edges from the root to the deepest rank (-1 when out of memory), and
 * the most children of one rank: two of seed 000's three factors. */
int trl_tree_links_depth(const trl_tree_links *l, int size, int root);
int trl_tree_links_max_children(const trl_tree_links *l, int size);

#endif
