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
 *       The same call simulated under the model (tools/info_simulate.c,
 *       docs/simulate.md): a JSON summary, and with --out the timeline.
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
 * Links trellis_core only: no MPI here.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trellis_info.h"

#include "algo/inter/inter.h"
#include "core/status.h"
#include "sched/sched.h"

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

/* A bad command line: the message alone, since it reaches users through
 * the `trellis` command, whose options are not this tool's (the usage
 * text only where the command itself is missing or unknown). */
int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("trellis: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* ---- JSON output -------------------------------------------------------- */

void json_string(FILE *out, const char *s)
{
    if (!s) {
        fputs("null", out);
        return;
    }
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"':
            fputs("\\\"", out);
            break;
        case '\\':
            fputs("\\\\", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            if (*p < 0x20)
                fprintf(out, "\\u%04x", *p);
            else
                fputc(*p, out);
        }
    }
    fputc('"', out);
}

static const char *param_kind_name(trl_param_kind kind)
{
    switch (kind) {
    case TRL_PARAM_INT:
        return "int";
    case TRL_PARAM_SIZE:
        return "size";
    case TRL_PARAM_ALGO:
        return "algorithm";
    case TRL_PARAM_CHOICE:
        return "choice";
    case TRL_PARAM_LEVELS:
        return "levels";
    case TRL_PARAM_LEVEL:
        return "level algorithm";
    case TRL_PARAM_FILE:
        return "file";
    }
    return "?";
}

/* ---- trellis-info algorithms ------------------------------------------- */

static void print_param_spec_json(const trl_param_spec *p, FILE *out)
{
    fputs("{\"name\": ", out);
    json_string(out, p->name);
    fputs(", \"kind\": ", out);
    json_string(out, param_kind_name(p->kind));
    fputs(", \"default\": ", out);
    json_string(out, p->default_text);
    if (p->kind == TRL_PARAM_INT || p->kind == TRL_PARAM_SIZE)
        fprintf(out, ", \"min\": %lld, \"max\": %lld", p->min, p->max);
    else
        fputs(", \"min\": null, \"max\": null", out);
    fputs(", \"help\": ", out);
    json_string(out, p->help);
    fputs(", \"of\": ", out);
    bool names_algo = p->kind == TRL_PARAM_ALGO || p->kind == TRL_PARAM_LEVEL;
    json_string(out, names_algo ? trl_coll_name(p->of) : NULL);
    fputs(", \"choices\": ", out);
    json_string(out, p->choices);
    fprintf(out, ", \"required\": %s", p->flags & TRL_PARAM_REQUIRED ? "true" : "false");
    /* What an ALGO or LEVEL parameter may name, in table order (the tuner's
     * candidates come from here). */
    fputs(", \"runs\": ", out);
    if (names_algo) {
        fputc('[', out);
        bool listed = false;
        for (const trl_algo *a = trl_algorithms; a->name; a++) {
            if (!trl_param_runs(p, a))
                continue;
            fputs(listed ? ", " : "", out);
            json_string(out, a->name);
            listed = true;
        }
        fputc(']', out);
    } else {
        fputs("null", out);
    }
    fputc('}', out);
}

static int cmd_algorithms(void)
{
    fputs("[\n", stdout);
    for (const trl_algo *a = trl_algorithms; a->name; a++) {
        fputs("  {\"collective\": ", stdout);
        json_string(stdout, trl_coll_name(a->coll));
        fputs(", \"name\": ", stdout);
        json_string(stdout, a->name);
        fputs(", \"description\": ", stdout);
        json_string(stdout, a->description);
        fputs(", \"cost\": ", stdout);
        json_string(stdout, a->cost);
        fputs(", \"restrictions\": [", stdout);
        /* What a call needs for the algorithm to serve it. */
        static const struct {
            unsigned flag;
            const char *name;
        } restrictions[] = {{TRL_NEEDS_COMMUTATIVE, "commutative"},
                            {TRL_NEEDS_BLOCK_PLACEMENT, "placement=block"},
                            {TRL_NEEDS_INTER, "intercommunicator"}};
        bool listed = false;
        for (size_t i = 0; i < sizeof restrictions / sizeof *restrictions; i++) {
            if (!(a->needs & restrictions[i].flag))
                continue;
            fputs(listed ? ", " : "", stdout);
            json_string(stdout, restrictions[i].name);
            listed = true;
        }
        fputs("], \"params\": [", stdout);
        for (const trl_param_spec *p = a->params; p && p->name; p++) {
            if (p != a->params)
                fputs(", ", stdout);
            print_param_spec_json(p, stdout);
        }
        fprintf(stdout, "], \"mpi\": %s}%s\n", a->build ? "false" : "true",
                a[1].name ? "," : "");
    }
    fputs("]\n", stdout);
    return 0;
}

/* ---- trellis-info explain ---------------------------------------------- */


bool parse_count(const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (end == text || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_bytes(const char *text, unsigned long long *out)
{
    size_t len = strlen(text);
    return len > 0 && trl_parse_size(text, len, out) == len;
}

static void coll_list(char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = 0;
    for (int c = 0; c < TRL_COLL_COUNT && at < len; c++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", c ? ", " : "", trl_coll_name((trl_coll)c));
}

/* Options take their value as the next argument or after '='. simulate
 * takes --model, --delay and --out instead of --rank and the output forms. */
int parse_call_args(int argc, char **argv, explain_opts *o, bool simulate)
{
    *o = (explain_opts){.root = 0, .elem_size = 1, .commutative = true, .only_rank = -1,
                        .simulate = simulate};
    const char *cmd = simulate ? "simulate" : "explain";
    char names[512];
    coll_list(names, sizeof names);
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("%s: which collective? one of %s", cmd, names);
    int c = trl_coll_from_name(argv[0], strlen(argv[0]));
    if (c < 0)
        return usage_error("%s: unknown collective '%s' (one of %s)", cmd, argv[0], names);
    o->coll = (trl_coll)c;
    bool ranks_given = false, mode_given = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        size_t name_len = strcspn(arg, "=");
        const char *value = arg[name_len] == '=' ? arg + name_len + 1 : NULL;
        char name[64];
        if (name_len >= sizeof name)
            return usage_error("%s: unknown option '%s'", cmd, arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';

        bool is_form = !strcmp(name, "--steps") || !strcmp(name, "--goal") ||
                       !strcmp(name, "--json");
        bool is_flag = !strcmp(name, "--noncommutative") || !strcmp(name, "--nonblocking") ||
                       (is_form && !simulate);
        if (is_flag) {
            if (value)
                return usage_error("%s: %s takes no value", cmd, name);
            if (!strcmp(name, "--noncommutative")) {
                o->commutative = false;
                continue;
            }
            if (!strcmp(name, "--nonblocking")) {
                o->nonblocking = true;
                continue;
            }
            if (mode_given)
                return usage_error("%s: use only one of --steps, --goal and --json", cmd);
            mode_given = true;
            o->mode = !strcmp(name, "--steps") ? OUT_STEPS
                      : !strcmp(name, "--goal") ? OUT_GOAL
                                                : OUT_JSON;
            continue;
        }
        bool sim_only = !strcmp(name, "--model") || !strcmp(name, "--delay") ||
                        !strcmp(name, "--out");
        bool takes_value = !strcmp(name, "--ranks") || !strcmp(name, "--bytes") ||
                           !strcmp(name, "--root") || !strcmp(name, "--elem-size") ||
                           !strcmp(name, "--rules") || !strcmp(name, "--topology") ||
                           (!strcmp(name, "--rank") && !simulate) || (sim_only && simulate) ||
                           (!strcmp(name, "--remote-ranks") && !simulate);
        if (simulate && !strcmp(name, "--remote-ranks"))
            return usage_error("%s: --remote-ranks: intercommunicator calls cannot be simulated "
                               "(explain shows their schedules)",
                               cmd);
        if (!takes_value)
            return usage_error("%s: unknown option '%s'", cmd, arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("%s: %s needs a value", cmd, name);
            value = argv[++i];
        }

        if (!strcmp(name, "--ranks")) {
            if (!parse_count(value, 1, MAX_RANKS, &o->ranks))
                return usage_error("%s: --ranks: expected a number of ranks from 1 to %d, "
                                   "got '%s'",
                                   cmd, MAX_RANKS, value);
            ranks_given = true;
        } else if (!strcmp(name, "--remote-ranks")) {
            if (!parse_count(value, 1, MAX_RANKS, &o->remote))
                return usage_error("%s: --remote-ranks: expected a number of ranks from 1 to "
                                   "%d, got '%s'",
                                   cmd, MAX_RANKS, value);
        } else if (!strcmp(name, "--bytes")) {
            if (!parse_bytes(value, &o->bytes))
                return usage_error("%s: --bytes: expected a size such as 4096, 64K or 1M, "
                                   "got '%s'",
                                   cmd, value);
            o->bytes_given = true;
        } else if (!strcmp(name, "--root")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->root))
                return usage_error("%s: --root: expected a rank, got '%s'", cmd, value);
            o->root_given = true;
        } else if (!strcmp(name, "--elem-size")) {
            if (!parse_bytes(value, &o->elem_size) || o->elem_size == 0)
                return usage_error("%s: --elem-size: expected a positive number of bytes, "
                                   "got '%s'",
                                   cmd, value);
        } else if (!strcmp(name, "--rules")) {
            o->rules = value;
        } else if (!strcmp(name, "--topology")) {
            o->topology = value;
        } else if (!strcmp(name, "--rank")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->only_rank))
                return usage_error("%s: --rank: expected a rank, got '%s'", cmd, value);
        } else if (!strcmp(name, "--model")) {
            o->model = value;
        } else if (!strcmp(name, "--out")) {
            o->out_dir = value;
        } else if (!strcmp(name, "--delay")) {
            if (o->ndelays == MAX_DELAYS)
                return usage_error("%s: at most %d --delay options", cmd, MAX_DELAYS);
            o->delay[o->ndelays++] = value; /* checked against --ranks below */
        }
    }

    if (!ranks_given)
        return usage_error("%s: --ranks N is required", cmd);
    if (simulate && !o->model)
        return usage_error("%s: --model FILE is required", cmd);
    if (o->coll != TRL_COLL_BARRIER && !o->bytes_given)
        return usage_error("%s: --bytes B is required for %s", cmd, trl_coll_name(o->coll));
    if (o->coll == TRL_COLL_BARRIER) {
        if (o->bytes_given && o->bytes != 0)
            return usage_error("%s: a barrier carries no data; leave out --bytes", cmd);
        o->bytes = 0;
    }
    if (o->root_given && !trl_coll_is_rooted(o->coll))
        return usage_error("%s: --root applies to rooted collectives only (%s has no root)", cmd,
                           trl_coll_name(o->coll));
    if (o->root >= o->ranks)
        return usage_error("%s: --root %lld is not a rank of %lld", cmd, o->root, o->ranks);
    if (o->remote && (o->coll == TRL_COLL_SCAN || o->coll == TRL_COLL_EXSCAN))
        return usage_error("%s: MPI defines no %s on intercommunicators (--remote-ranks)", cmd,
                           trl_coll_name(o->coll));
    if (o->remote && o->ranks + o->remote > MAX_RANKS)
        return usage_error("%s: --ranks and --remote-ranks: more than %d ranks together", cmd,
                           MAX_RANKS);
    if (o->only_rank >= o->ranks + o->remote)
        return usage_error("%s: --rank %lld is not a rank of %lld", cmd, o->only_rank,
                           o->ranks + o->remote);
    if (o->bytes % o->elem_size)
        return usage_error("%s: --bytes %llu is not a whole number of %llu-byte elements", cmd,
                           o->bytes, o->elem_size);
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK &&
        (o->bytes / o->elem_size) % (unsigned long long)o->ranks)
        return usage_error("%s: --bytes %llu (the whole vector) does not split into %lld "
                           "equal blocks of %llu-byte elements",
                           cmd, o->bytes, o->ranks, o->elem_size);
    /* On an intercommunicator each group splits the same vector in its own blocks. */
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK && o->remote &&
        (o->bytes / o->elem_size) % (unsigned long long)o->remote)
        return usage_error("%s: --bytes %llu (the whole vector) does not split into %lld "
                           "equal blocks of %llu-byte elements (--remote-ranks)",
                           cmd, o->bytes, o->remote, o->elem_size);
    if (!o->commutative && !trl_coll_is_reduction(o->coll))
        return usage_error("%s: --noncommutative applies to reductions only (%s has no "
                           "operation)", cmd, trl_coll_name(o->coll));
    return 0;
}

static const trl_param_value *given_param(const trl_params *p, const trl_param_spec *spec)
{
    for (int i = 0; p && i < p->n; i++)
        if (p->v[i].spec == spec || !strcmp(p->v[i].spec->name, spec->name))
            return &p->v[i];
    return NULL;
}

/* The value of one parameter as text: the rule's, or the default. */
static bool param_text(const trl_param_spec *spec, const trl_params *params, char *buf,
                       size_t len)
{
    const trl_param_value *v = given_param(params, spec);
    if (!v) {
        snprintf(buf, len, "%s", spec->default_text ? spec->default_text : "(none)");
        return false;
    }
    trl_param_format(v, buf, len);
    return true;
}

/* The reason written above rule r (trl_rules_reason): in the built-in
 * rules and rules files; inline rules carry no comments. */
static void rule_reason(const resolved_call *c, const trl_rule *r, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!r)
        return;
    if (r >= c->builtin.rules && r < c->builtin.rules + c->builtin.n)
        trl_rules_reason(trl_builtin_text_of(r), r->line, buf, len);
    else if (strcmp(r->source, "TRELLIS_RULES") && c->text)
        trl_rules_reason(c->text, r->line, buf, len);
}

static void print_passed_over_text(const trl_rule *r, const char *why, void *out);

static void print_choice_text(const explain_opts *o, const resolved_call *c, FILE *out)
{
    const trl_choice *ch = &c->choice;
    const trl_algo *algo = ch->algo;
    if (o->remote) {
        /* Where each group's ranks are in the schedules below. */
        char first[32] = "0", second[48];
        if (o->ranks > 1)
            snprintf(first, sizeof first, "0-%lld", o->ranks - 1);
        if (o->remote > 1)
            snprintf(second, sizeof second, "%lld-%lld", o->ranks, o->ranks + o->remote - 1);
        else
            snprintf(second, sizeof second, "%lld", o->ranks);
        fprintf(out, "%s, intercommunicator of %lld + %lld ranks (ranks %s and %s below)",
                trl_coll_name(o->coll), o->ranks, o->remote, first, second);
    } else
        fprintf(out, "%s, %lld ranks", trl_coll_name(o->coll), o->ranks);
    if (o->coll != TRL_COLL_BARRIER)
        fprintf(out, ", %llu bytes (%llu elements of %llu byte%s)", o->bytes,
                o->bytes / o->elem_size, o->elem_size, o->elem_size == 1 ? "" : "s");
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", root %lld%s", o->root, o->remote ? " (of the first group)" : "");
    if (trl_coll_is_reduction(o->coll))
        fprintf(out, ", %s operation", o->commutative ? "commutative" : "non-commutative");
    if (o->nonblocking)
        fputs(", non-blocking call", out);
    fputc('\n', out);

    fprintf(out, "algorithm: %s: %s\n", algo->name, algo->description);
    if (algo->params && algo->params->name) {
        fputs("parameters:", out);
        for (const trl_param_spec *p = algo->params; p->name; p++) {
            char value[600];
            bool given = param_text(p, ch->params, value, sizeof value);
            fprintf(out, " %s=%s%s", p->name, value, given ? "" : " (default)");
        }
        fputc('\n', out);
    }
    if (ch->rule) {
        char why[2000];
        fprintf(out, "chosen by: %s:%d: %s\n", ch->rule->source, ch->rule->line, ch->rule->text);
        rule_reason(c, ch->rule, why, sizeof why);
        if (why[0])
            fprintf(out, "reason: %s\n", why);
    }
    trl_select_passed_over(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args),
                           print_passed_over_text, out);
}

static void print_passed_over_text(const trl_rule *r, const char *why, void *out)
{
    fprintf(out, "passed over: %s:%d: %s: %s\n", r->source, r->line, r->text, why);
}

static void print_rule_json(const trl_rule *r, const char *why, FILE *out)
{
    if (!r) {
        fputs("null", out);
        return;
    }
    fputs("{\"source\": ", out);
    json_string(out, r->source);
    fprintf(out, ", \"line\": %d, \"text\": ", r->line);
    json_string(out, r->text);
    if (why) {
        fputs(", \"why\": ", out);
        json_string(out, why);
    }
    fputc('}', out);
}

typedef struct {
    FILE *out;
    int n;
} json_list;

static void print_passed_over_json(const trl_rule *r, const char *why, void *ctx)
{
    json_list *list = ctx;
    fputs(list->n++ ? ", " : "", list->out);
    print_rule_json(r, why, list->out);
}

void print_choice_json(const explain_opts *o, const resolved_call *c, FILE *out)
{
    const trl_choice *ch = &c->choice;
    fputs("{\"collective\": ", out);
    json_string(out, trl_coll_name(o->coll));
    fprintf(out, ", \"ranks\": %lld, \"bytes\": %llu, \"count\": %llu, \"elem_size\": %llu", o->ranks,
            o->bytes, o->bytes / o->elem_size, o->elem_size);
    if (o->remote)
        fprintf(out, ", \"remote_ranks\": %lld", o->remote);
    else
        fputs(", \"remote_ranks\": null", out);
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", \"root\": %lld", o->root);
    else
        fputs(", \"root\": null", out);
    fprintf(out, ", \"commutative\": %s", o->commutative ? "true" : "false");
    fprintf(out, ", \"nonblocking\": %s", o->nonblocking ? "true" : "false");
    fputs(",\n \"algorithm\": ", out);
    json_string(out, ch->algo->name);
    fputs(", \"description\": ", out);
    json_string(out, ch->algo->description);
    fputs(", \"params\": [", out);
    for (const trl_param_spec *p = ch->algo->params; p && p->name; p++) {
        char value[600];
        bool given = param_text(p, ch->params, value, sizeof value);
        fprintf(out, "%s{\"name\": ", p == ch->algo->params ? "" : ", ");
        json_string(out, p->name);
        fputs(", \"value\": ", out);
        json_string(out, value);
        fprintf(out, ", \"default\": %s}", given ? "false" : "true");
    }
    fputs("],\n \"rule\": ", out);
    print_rule_json(ch->rule, NULL, out);
    char why[2000];
    rule_reason(c, ch->rule, why, sizeof why);
    fputs(",\n \"reason\": ", out);
    json_string(out, why[0] ? why : NULL);
    fputs(",\n \"rejected\": ", out);
    print_rule_json(ch->rejected, ch->rejected ? (ch->why ? ch->why : "") : NULL, out);
    fputs(",\n \"passed_over\": [", out);
    json_list list = {out, 0};
    trl_select_passed_over(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args),
                           print_passed_over_json, &list);
    fputc(']', out);
    fprintf(out, ",\n \"mpi\": %s", ch->algo->build ? "false" : "true");
}

/* The call that --bytes describes, as the rules see it (docs/rules.md):
 * the message, one rank's block, the whole vector reduced, or for the
 * v-variants every rank's block alike. On an intercommunicator the same
 * for both groups (reduce_scatter: the vector split in each group's own
 * blocks). The arrays live in *v. */

/* The vector of n elements split as evenly as it goes into p counts. */
static void split_evenly(size_t n, size_t p, size_t *counts)
{
    for (size_t i = 0; i < p; i++)
        counts[i] = n / p + (i < n % p);
}

/* An intercommunicator's groups: ranks 0..ranks-1 and the rest. */
static int make_inter(const explain_opts *o, call_vectors *v)
{
    int n0 = (int)o->ranks, n1 = (int)o->remote;
    int *members = malloc((size_t)(n0 + n1) * sizeof *members);
    if (!members)
        return -1;
    for (int r = 0; r < n0 + n1; r++)
        members[r] = r;
    int rc = trl_inter_init(&v->inter, members, n0, members + n0, n1);
    free(members);
    if (rc == 0)
        v->has_inter = true;
    return rc;
}

static int call_shape(const explain_opts *o, trl_coll_args *a, call_vectors *v)
{
    size_t p = (size_t)(o->ranks + o->remote), n = (size_t)(o->bytes / o->elem_size);
    *a = (trl_coll_args){.coll = o->coll, .size = (int)p, .root = (int)o->root, .count = n,
                         .elem_size = (size_t)o->elem_size, .commutative = o->commutative,
                         .call = o->nonblocking ? TRL_CALL_NONBLOCKING : TRL_CALL_BLOCKING};
    v->counts = calloc(p, sizeof *v->counts);
    v->displs = calloc(p, sizeof *v->displs);
    if (!v->counts || !v->displs)
        return -1;
    /* reduce_scatter: the vector split as evenly as it goes. */
    if (o->coll == TRL_COLL_REDUCE_SCATTER)
        split_evenly(n, p, v->counts);
    for (size_t i = 0; i < p; i++) {
        if (o->coll != TRL_COLL_REDUCE_SCATTER)
            v->counts[i] = n;
        v->displs[i] = i ? v->displs[i - 1] + v->counts[i - 1] : 0;
    }
    if (o->remote) {
        size_t n_of[2] = {(size_t)o->ranks, (size_t)o->remote};
        for (int g = 0; g < 2; g++) {
            v->split[g] = calloc(p, sizeof *v->split[g]);
            if (!v->split[g])
                return -1;
            split_evenly(n, n_of[g], v->split[g]);
        }
        if (make_inter(o, v))
            return -1;
        a->inter = &v->inter;
    }
    switch (o->coll) {
    case TRL_COLL_REDUCE_SCATTER_BLOCK:
        a->count = n / (size_t)o->ranks;
        break;
    case TRL_COLL_REDUCE_SCATTER:
        a->count = 0;
        a->counts = v->counts;
        break;
    case TRL_COLL_GATHERV:
    case TRL_COLL_SCATTERV:
    case TRL_COLL_ALLGATHERV:
        a->count = 0;
        a->counts = v->counts;
        a->displs = v->displs;
        break;
    case TRL_COLL_ALLTOALLV:
    case TRL_COLL_ALLTOALLW:
        a->count = 0;
        a->send_counts = a->recv_counts = v->counts;
        a->send_displs = a->recv_displs = v->displs;
        /* The matrix of all counts, as the runtime gathers it for an
         * algorithm that needs it (the others never read it). */
        v->matrix = malloc(p * p * sizeof *v->matrix);
        if (!v->matrix)
            return -1;
        for (size_t i = 0; i < p * p; i++)
            v->matrix[i] = n;
        a->counts = v->matrix;
        break;
    case TRL_COLL_ALLGATHER: /* an intercommunicator's: one block from each remote rank */
        if (o->remote) {
            a->counts = v->counts;
            a->displs = v->displs;
        }
        break;
    case TRL_COLL_ALLTOALL:
        if (o->remote) {
            a->send_counts = a->recv_counts = v->counts;
            a->send_displs = a->recv_displs = v->displs;
        }
        break;
    default:
        break;
    }
    /* allgatherv on an intercommunicator: every rank sends its block. */
    if (o->remote && o->coll == TRL_COLL_ALLGATHERV)
        a->count = n;
    return 0;
}

/* a as rank r calls: on an intercommunicator the root's group's other
 * ranks pass MPI_PROC_NULL (root -1), and the reductions that scatter
 * split the vector in their own group's blocks. */
static void shape_for_rank(const explain_opts *o, const call_vectors *v, trl_coll_args *a, int r)
{
    a->rank = r;
    if (!o->remote)
        return;
    int g = r < o->ranks ? 0 : 1;
    size_t n = (size_t)(o->bytes / o->elem_size), ng = (size_t)(g ? o->remote : o->ranks);
    if (trl_coll_is_rooted(o->coll))
        a->root = g == 0 && r != o->root ? -1 : (int)o->root;
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK)
        a->count = n / ng;
    if (o->coll == TRL_COLL_REDUCE_SCATTER)
        a->counts = v->split[g];
}

/* Build and print every rank's schedule (or the one asked for). */
static int print_schedules(const explain_opts *o, const trl_choice *ch, trl_coll_args a,
                           const call_vectors *shape, FILE *out)
{
    trl_build_memo *memo = trl_build_memo_new();
    if (!memo) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    a.memo = memo;
    int status = 0;
    long long all = o->ranks + o->remote;
    int first = o->only_rank >= 0 ? (int)o->only_rank : 0;
    int last = o->only_rank >= 0 ? (int)o->only_rank : (int)all - 1;

    if (o->mode == OUT_JSON)
        fputs(",\n \"schedules\": [", out);
    else if (o->mode != OUT_STEPS)
        fprintf(out, "num_ranks %lld\n", all);

    for (int r = first; r <= last; r++) {
        trl_sched s;
        shape_for_rank(o, shape, &a, r);
        int rc = trl_algo_build(ch->algo, &a, &s);
        if (rc) {
            fflush(out);
            fprintf(stderr, "trellis: %s %s cannot build the schedule of rank %d of %lld: %s\n",
                    trl_coll_name(o->coll), ch->algo->name, r, all, trl_status_str(rc));
            status = EXIT_FAIL;
            break;
        }
        if (o->mode == OUT_JSON) {
            char *goal = NULL, *steps = NULL;
            size_t goal_len = 0, steps_len = 0;
            FILE *g = open_memstream(&goal, &goal_len);
            FILE *t = open_memstream(&steps, &steps_len);
            if (g)
                trl_sched_print_goal(&s, a.elem_size, g);
            if (t)
                trl_sched_print_steps(&s, t);
            if (g)
                fclose(g);
            if (t)
                fclose(t);
            fprintf(out, "%s\n  {\"rank\": %d, \"nsteps\": %zu, \"scratch\": %zu, \"goal\": ",
                    r == first ? "" : ",", r, s.nsteps, s.scratch);
            json_string(out, goal ? goal : "");
            fputs(", \"steps\": ", out);
            json_string(out, steps ? steps : "");
            fputs(", \"phases\": [", out); /* each step's phase */
            for (size_t i = 0; i < s.nsteps; i++) {
                fputs(i ? ", " : "", out);
                json_string(out, trl_sched_phase_name(&s, s.steps[i].phase));
            }
            fputs("]}", out);
            free(goal);
            free(steps);
            if (!g || !t) {
                trl_sched_free(&s);
                fprintf(stderr, "trellis: out of memory\n");
                status = EXIT_FAIL;
                break;
            }
        } else if (o->mode == OUT_STEPS) {
            trl_sched_print_steps(&s, out);
        } else {
            trl_sched_print_goal(&s, a.elem_size, out);
        }
        trl_sched_free(&s);
    }
    trl_build_memo_free(memo);
    if (status == 0 && o->mode == OUT_JSON)
        fputs("]", out);
    return status;
}

int resolve_call(const explain_opts *o, resolved_call *c)
{
    memset(c, 0, sizeof *c);
    trl_rules_error err = {0};
    char msg[900];

    /* The runtime's own loader, so a file name or inline text is told apart
     * exactly as in a run. */
    if (o->rules && setenv("TRELLIS_RULES", o->rules, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_RULES\n");
        return EXIT_FAIL;
    }
    if (trl_rules_load_env(&c->user, &c->text, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        return EXIT_USAGE;
    }
    if (trl_builtin_rules_load(&c->builtin, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: the built-in rules do not parse: %s\n", msg);
        return EXIT_FAIL;
    }
    if (call_shape(o, &c->args, &c->shape)) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    /* Where the ranks sit, as a run would see it: --topology, else
     * TRELLIS_TOPOLOGY, else one host. */
    if (o->topology && setenv("TRELLIS_TOPOLOGY", o->topology, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_TOPOLOGY\n");
        return EXIT_FAIL;
    }
    bool described = false;
    trl_topo_error terr = {0};
    if (trl_topo_load_env(&c->topo, &described, &terr)) {
        trl_topo_error_format(&terr, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        return EXIT_USAGE;
    }
    long long all = o->ranks + o->remote; /* both groups of an intercommunicator */
    if (described && c->topo.size != all) {
        fprintf(stderr, "trellis: the layout describes %d ranks; --ranks%s is %lld\n",
                c->topo.size, o->remote ? " with --remote-ranks" : "", all);
        return EXIT_USAGE;
    }
    if (!described && trl_topo_single_host((int)all, &c->topo)) {
        fprintf(stderr, "trellis: out of memory\n");
        return EXIT_FAIL;
    }
    c->args.topo = &c->topo;
    /* The rules as the root sees the call (on an intercommunicator every
     * rank that takes part sees the same). */
    shape_for_rank(o, &c->shape, &c->args, trl_coll_is_rooted(o->coll) ? (int)o->root : 0);
    if (trl_select(&c->user, &c->builtin, &c->args, trl_coll_rule_bytes(&c->args), &c->choice) ||
        !c->choice.algo) {
        fprintf(stderr, "trellis: no rule chooses an algorithm for this %s\n",
                trl_coll_name(o->coll));
        return EXIT_FAIL;
    }
    c->args.params = c->choice.params;
    trl_topo_format(&c->topo, c->layout, sizeof c->layout);
    return 0;
}

void release_call(resolved_call *c)
{
    free(c->shape.counts);
    free(c->shape.displs);
    free(c->shape.matrix);
    free(c->shape.split[0]);
    free(c->shape.split[1]);
    if (c->shape.has_inter)
        trl_inter_free(&c->shape.inter);
    trl_topo_free(&c->topo);
    free(c->text);
    trl_rules_free(&c->user);
    trl_rules_free(&c->builtin);
}

static int cmd_explain(int argc, char **argv)
{
    explain_opts o;
    int status = parse_call_args(argc, argv, &o, false);
    if (status)
        return status;
    resolved_call c;
    status = resolve_call(&o, &c);
    if (status)
        goto out;
    const trl_choice *ch = &c.choice;
    /* What the layout filters saw, so a rule's hosts=, ranks_per_host= and
     * placement= can be checked against it. */
    trl_layout_stats seen = trl_topo_stats(&c.topo, (int)(o.ranks + o.remote));
    const char *placement = seen.block ? "block" : "other";
    if (o.mode == OUT_JSON) {
        print_choice_json(&o, &c, stdout);
        fputs(", \"layout\": ", stdout);
        json_string(stdout, c.layout);
        fprintf(stdout, ",\n \"hosts\": %d, \"ranks_per_host\": %d, \"placement\": \"%s\"",
                seen.hosts, seen.ranks_per_host, placement);
    } else if (o.mode != OUT_GOAL) {
        print_choice_text(&o, &c, stdout);
        printf("%s\n", c.layout);
        printf("the rules saw: hosts=%d ranks_per_host=%d placement=%s\n", seen.hosts,
               seen.ranks_per_host, placement);
    }

    if (!ch->algo->build) {
        /* The MPI library's own collective: nothing of Trellis runs. */
        if (o.mode == OUT_JSON)
            fputs(",\n \"schedules\": null}\n", stdout);
        else if (o.mode == OUT_GOAL)
            fprintf(stderr, "trellis: no schedule: the MPI library's own %s runs\n",
                    trl_coll_mpi_name(o.coll));
        else
            printf("no schedule: the MPI library's own %s runs\n", trl_coll_mpi_name(o.coll));
        goto out;
    }

    if (o.mode == OUT_TEXT)
        printf("\nschedule of %s (GOAL, LogGOPSim's format):\n",
               o.only_rank >= 0 ? "one rank" : "every rank");
    else if (o.mode == OUT_STEPS)
        printf("\nschedule of %s:\n", o.only_rank >= 0 ? "one rank" : "every rank");
    status = print_schedules(&o, ch, c.args, &c.shape, stdout);
    if (status == 0 && o.mode == OUT_JSON)
        fputs("}\n", stdout);

out:
    release_call(&c);
    return status;
}

/* ---- trellis-info layout ------------------------------------------------ */

static void json_ints(FILE *out, const char *name, const int *v, int n)
{
    fprintf(out, ", \"%s\": [", name);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s%d", i ? ", " : "", v[i]);
    fputc(']', out);
}

/* "hosts": each host's ranks, in rank order. */
static int json_hosts(FILE *out, const trl_topo *t)
{
    int *first = malloc((size_t)t->nhosts * sizeof *first);
    int *next = malloc((size_t)t->size * sizeof *next);
    if (!first || !next) {
        free(first);
        free(next);
        return EXIT_FAIL;
    }
    for (int h = 0; h < t->nhosts; h++)
        first[h] = -1;
    for (int r = t->size - 1; r >= 0; r--) { /* lists built backwards read forwards */
        next[r] = first[t->host[r]];
        first[t->host[r]] = r;
    }
    fputs(", \"hosts\": [", out);
    for (int h = 0; h < t->nhosts; h++) {
        fputs(h ? ", [" : "[", out);
        for (int r = first[h]; r >= 0; r = next[r])
            fprintf(out, "%s%d", r == first[h] ? "" : ", ", r);
        fputc(']', out);
    }
    fputc(']', out);
    free(first);
    free(next);
    return 0;
}

static int print_layout(const trl_topo *t, bool json)
{
    /* Room for the whole line: a rank takes at most 11 characters
     * ("1048575," and a socket's "[] "), a host 22 (" | host N: ", "[?: "). */
    size_t len = 128 + 32 * (size_t)t->size;
    char *text = malloc(len);
    if (!text) {
        fprintf(stderr, "trellis: layout: out of memory\n");
        return EXIT_FAIL;
    }
    trl_topo_format(t, text, len);
    int status = 0;
    if (json) {
        printf("{\"ranks\": %d, \"described\": %s, \"nhosts\": %d", t->size,
               t->described ? "true" : "false", t->nhosts);
        json_ints(stdout, "host", t->host, t->size);
        json_ints(stdout, "socket", t->socket, t->size);
        json_ints(stdout, "numa", t->numa, t->size);
        status = json_hosts(stdout, t);
        if (status)
            fprintf(stderr, "trellis: layout: out of memory\n");
        fputs(", \"text\": ", stdout);
        json_string(stdout, text);
        fputs("}\n", stdout);
    } else {
        printf("%s\n", text);
    }
    free(text);
    return status;
}

static bool option_is(const char *arg, size_t name_len, const char *name)
{
    return strlen(name) == name_len && !strncmp(arg, name, name_len);
}

/* The layout a run of N ranks would see: --topology (set as
 * TRELLIS_TOPOLOGY and read by the runtime's own loader), else
 * TRELLIS_TOPOLOGY, else every rank on one host. Without --ranks, a
 * described layout is printed at its own size. Options take their value
 * as the next argument or after '=', as explain's do. */
static int cmd_layout(int argc, char **argv)
{
    long long ranks = 0;
    bool json = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        size_t name_len = strcspn(arg, "=");
        const char *value = arg[name_len] == '=' ? arg + name_len + 1 : NULL;
        bool is_ranks = option_is(arg, name_len, "--ranks");
        bool is_topology = option_is(arg, name_len, "--topology");
        if (option_is(arg, name_len, "--json")) {
            if (value)
                return usage_error("layout: --json takes no value");
            json = true;
            continue;
        }
        if (!is_ranks && !is_topology)
            return usage_error("layout: unknown option '%s'", arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("layout: %.*s needs a value", (int)name_len, arg);
            value = argv[++i];
        }
        if (is_ranks && !parse_count(value, 1, MAX_RANKS, &ranks))
            return usage_error("layout: --ranks: expected a number of ranks from 1 to %d, got '%s'",
                               MAX_RANKS, value);
        if (is_topology && setenv("TRELLIS_TOPOLOGY", value, 1))
            return usage_error("layout: cannot set TRELLIS_TOPOLOGY");
    }
    trl_topo topo;
    trl_topo_error err;
    bool described;
    if (trl_topo_load_env(&topo, &described, &err)) {
        char msg[900];
        trl_topo_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: layout: %s\n", msg);
        return EXIT_USAGE;
    }
    if (!described && ranks == 0)
        return usage_error("layout: give --ranks N, a layout (--topology), or both");
    if (described && ranks && topo.size != ranks) {
        fprintf(stderr, "trellis: layout: the layout describes %d rank%s, but --ranks is %lld\n",
                topo.size, topo.size == 1 ? "" : "s", ranks);
        trl_topo_free(&topo);
        return EXIT_USAGE;
    }
    if (!described && trl_topo_single_host((int)ranks, &topo)) {
        fprintf(stderr, "trellis: layout: out of memory\n");
        return EXIT_FAIL;
    }
    int status = print_layout(&topo, json);
    trl_topo_free(&topo);
    return status;
}

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
    if (!strcmp(cmd, "algorithms")) {
        if (argc > 2)
            return usage_error("algorithms takes no arguments");
        return cmd_algorithms();
    }
    if (!strcmp(cmd, "builtin-rules")) {
        if (argc > 2)
            return usage_error("builtin-rules takes no arguments");
        fputs(trl_builtin_rules_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "tuned-rules")) {
        if (argc > 2)
            return usage_error("tuned-rules takes no arguments");
        fputs(trl_tuned_rules_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "explain"))
        return cmd_explain(argc - 2, argv + 2);
    if (!strcmp(cmd, "simulate"))
        return cmd_simulate(argc - 2, argv + 2);
    if (!strcmp(cmd, "layout"))
        return cmd_layout(argc - 2, argv + 2);
    usage_error("unknown command '%s'", cmd);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}
