/* Inside the tree-file reader: one section of a file, its ranks' parents
 * and children as the lines give them, and the checks on them. */
#ifndef TRL_TREE_SECTION_H
#define TRL_TREE_SECTION_H

#include <stdbool.h>

#include "tree/tree_read.h"

/* One section: started at its header, filled line by line, checked as a
 * whole and copied into rd->out at its end. */
int trl__section_start(trl__reader *rd, const char *name);
void trl__section_free(trl__section *s);
int trl__section_end(trl__reader *rd);
/* The start of rank r's line (r in range): a rank listed twice. */
int trl__rank_line(trl__reader *rd, int r);
/* Rank r's parent (-1: none) and its next child, as its line gives them. */
int trl__set_parent(trl__reader *rd, int r, int parent);
int trl__add_child(trl__reader *rd, int r, int child);
/* The section's bcast direction: a script's recv goes to the parent. */
bool trl__section_is_bcast(const trl__reader *rd);

#endif
