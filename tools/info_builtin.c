/* trellis-info builtin-rules: the built-in rules, in the rules language. */
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
