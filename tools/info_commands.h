/* The commands of trellis-info, one file each (info_main.c runs them):
 * each takes the arguments after its name and returns the exit status. */
#ifndef TRELLIS_INFO_COMMANDS_H
#define TRELLIS_INFO_COMMANDS_H

int cmd_algorithms(int argc, char **argv);    /* info_algorithms.c */
int cmd_builtin_rules(int argc, char **argv); /* info_builtin.c */
int cmd_tuned_rules(int argc, char **argv);   /* info_builtin.c */
int cmd_explain(int argc, char **argv);       /* info_explain.c */
int cmd_simulate(int argc, char **argv);      /* info_simulate.c */
int cmd_layout(int argc, char **argv);        /* info_layout.c */

#endif
