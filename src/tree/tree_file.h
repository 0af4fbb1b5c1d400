/* Reading tree and script files (docs/trees.md) into a trl_tree_file
 * (tree/tree.h), checked, once when the rules that name the file are
 * loaded. Pure C. */
#ifndef TRL_TREE_FILE_H
#define TRL_TREE_FILE_H

#include "tree/tree.h"

/* Reads and checks a whole file's text; source names it in messages and
 * becomes out->path. Returns TRL_OK, or TRL_ERR_PARSE (a bad file) or
 * TRL_ERR_NOMEM with err filled in; on failure out holds nothing (freeing
 * it is harmless). Files of up to 1<<20 ranks. */
int trl_tree_file_parse(const char *text, const char *source, trl_tree_file *out,
                        trl_file_error *err);
/* Reads the file, then as parse. A file that cannot be read gives
 * TRL_ERR_IO and "cannot read the tree file: <reason>" with line 0; one
 * holding a NUL byte, TRL_ERR_PARSE. */
int trl_tree_file_load(const char *path, trl_tree_file *out, trl_file_error *err);

#endif
