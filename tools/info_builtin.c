/* trellis-info builtin-rules, tuned-rules: the built-in rules written by
 * hand and those `trellis tune` wrote (src/select/tuned.rules), each as
 * its source cites its lines. */
#include <stdio.h>

#include "info_commands.h"
#include "info_common.h"

#include "select/rules.h"

int cmd_builtin_rules(int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return usage_error("builtin-rules takes no arguments");
    fputs(trl_builtin_rules_text, stdout);
    return 0;
}

int cmd_tuned_rules(int argc, char **argv)
{
    (void)argv;
    if (argc > 0)
        return usage_error("tuned-rules takes no arguments");
    fputs(trl_tuned_rules_text, stdout);
    return 0;
}
