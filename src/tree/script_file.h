/* Inside the tree-file reader: a script file's rank lines. */
#ifndef TRL_SCRIPT_FILE_H
#define TRL_SCRIPT_FILE_H

#include "tree/tree_read.h"

/* "rank R: cmd, cmd, ..." after "rank R". */
int trl__script_line(trl__reader *rd, trl__cursor *c, int r);

#endif
