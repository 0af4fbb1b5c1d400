/* trellis-info: the algorithm table, the built-in rules and the schedules
 * of the C library, printed for the `trellis` command (python/trellis/).
 * The Python side never re-implements any of them: it calls this tool.
 *
 *   trellis-info algorithms
 *       The table of algorithms as JSON.
 *   trellis-info builtin-rules | tuned-rules
 *       The built-in rules, in the rules language.
 *   trellis-info explain <collective> --ranks N [--remote-ranks M] [--bytes B]
 *                [--root R] [--elem-size S] [--noncommutative] [--nonblocking]
 *                [--rules TEXT-OR-FILE] [--topology LAYOUT] [--rank R]
 *                [--steps | --goal | --json]
 *       Which algorithm the rules choose for that call and why, then every
 *       rank's schedule: GOAL text (LogGOPSim's format) by default, the
 *       steps spelled out with --steps, only the GOAL file with --goal, or
 *       everything as JSON with --json. With --remote-ranks the call is on
 *       an intercommunicator of two groups: N ranks (ranks 0..N-1 of the
 *       schedules, the root's group: --root is its rank there) and M (ranks
 *       N..N+M-1), as the runtime runs it over the two groups merged.
 *   trellis-info simulate <collective> --ranks N [--bytes B] [--root R]
 *                [--elem-size S] [--noncommutative] [--rules TEXT-OR-FILE]
 *                [--topology LAYOUT] --model FILE [--delay R=NS ...] [--out DIR]
 *       The same call simulated under the model (docs/simulate.md): a JSON
 *       summary, and with --out the timeline.
 *   trellis-info layout [--ranks N] [--topology TEXT-OR-FILE] [--json]
 *       Where N ranks sit (docs/topology.md; N may be left out where a
 *       layout is described, which then says it): the "layout: ..." line, or
 *       with --json {"ranks", "described", "nhosts", "host": [...],
 *       "socket": [...], "numa": [...], "hosts": [[...], ...], "text"}.
 *
 * The rules are resolved exactly as the runtime resolves TRELLIS_RULES (a
 * file name, or rules inline): --rules sets that variable for this process
 * and the runtime's own loader reads it. Without --rules the environment's
 * TRELLIS_RULES applies, as it would in a run. --topology likewise sets
 * TRELLIS_TOPOLOGY (docs/topology.md); without either, all ranks are on
 * one host.
 *
 * Exit status: 0 success; 1 a schedule could not be built (or another
 * internal failure); 2 bad arguments or a rules error, reported on stderr
 * as "trellis: <source>:<line>:<column>: <message>".
 *
 * Each command is a file, tools/info_<command>.c (info_commands.h); what
 * explain and simulate share is in info_call.c (the call's options, shape
 * and resolution) and info_choice.c (the choice printed), what all share in
 * info_common.c.
 *
 * Links trellis_core and trellis_sim only: no MPI here.
 */
#include <stdio.h>
#include <string.h>

#include "info_commands.h"
#include "info_common.h"

static const char usage_text[] =
    "usage: trellis-info algorithms\n"
    "       trellis-info builtin-rules | tuned-rules\n"
    "       trellis-info explain <collective> --ranks N [--remote-ranks M] [--bytes B]\n"
    "                    [--root R] [--elem-size S] [--noncommutative] [--nonblocking]\n"
    "                    [--rules TEXT-OR-FILE] [--topology LAYOUT] [--rank R]\n"
    "                    [--steps | --goal | --json]\n"
    "       trellis-info simulate <collective> --ranks N [--bytes B] [--root R]\n"
    "                    [--elem-size S] [--noncommutative] [--rules TEXT-OR-FILE]\n"
    "                    [--topology LAYOUT] --model FILE [--delay R=NS ...] [--out DIR]\n"
    "       trellis-info layout [--ranks N] [--topology TEXT-OR-FILE] [--json]\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* the arguments after the name */
} commands[] = {
    {"algorithms", cmd_algorithms},   {"builtin-rules", cmd_builtin_rules},
    {"tuned-rules", cmd_tuned_rules}, {"explain", cmd_explain},
    {"simulate", cmd_simulate},       {"layout", cmd_layout},
};

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage_error("which command?");
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 2, argv + 2);
    usage_error("unknown command '%s'", cmd);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}
