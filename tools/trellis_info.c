/* trellis-info: the algorithm table, the built-in rules and the schedules
 * of the C library, printed for the `trellis` command (python/trellis/).
 * The Python side never re-implements any of them: it calls this tool.
 *
 *   trellis-info algorithms
 *       The table of algorithms as JSON.
 *   trellis-info builtin-rules
 *       The built-in rules, in the rules language.
 *   trellis-info explain <collective> --ranks N [--bytes B] [--root R]
 *                [--elem-size S] [--noncommutative] [--rules TEXT-OR-FILE]
 *                [--topology LAYOUT] [--rank R] [--steps | --goal | --json]
 *       Which algorithm the rules choose for that call and why, then every
 *       rank's schedule: GOAL text (LogGOPSim's format) by default, the
 *       steps spelled out with --steps, only the GOAL file with --goal, or
 *       everything as JSON with --json.
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

#include "algo/algo.h"
#include "core/status.h"
#include "sched/sched.h"
#include "select/rules.h"
#include "topo/topo.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

/* Large enough for any machine an MPI job runs on today, small enough that
 * a typo (an extra zero or two) fails at once instead of building schedules
 * for minutes. */
#define MAX_RANKS (1 << 20)

static const char usage_text[] =
    "usage: trellis-info algorithms\n"
    "       trellis-info builtin-rules\n"
    "       trellis-info explain <collective> --ranks N [--bytes B] [--root R]\n"
    "                    [--elem-size S] [--noncommutative] [--rules TEXT-OR-FILE]\n"
    "                    [--topology LAYOUT] [--rank R] [--steps | --goal | --json]\n"
    "       trellis-info layout [--ranks N] [--topology TEXT-OR-FILE] [--json]\n";

/* A bad command line: the message alone, since it reaches users through
 * the `trellis` command, whose options are not this tool's (the usage
 * text only where the command itself is missing or unknown). */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
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

static void json_string(FILE *out, const char *s)
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
        if (a->needs & TRL_NEEDS_COMMUTATIVE)
            json_string(stdout, "commutative");
        if (a->needs & TRL_NEEDS_BLOCK_PLACEMENT) {
            fputs(a->needs & TRL_NEEDS_COMMUTATIVE ? ", " : "", stdout);
            json_string(stdout, "placement=block");
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

typedef struct {
    trl_coll coll;
    long long ranks;
    unsigned long long bytes;
    bool bytes_given;
    long long root;
    bool root_given;
    unsigned long long elem_size;
    bool commutative;
    const char *rules;
    const char *topology; /* --topology, as TRELLIS_TOPOLOGY */
    long long only_rank; /* -1: every rank */
    enum { OUT_TEXT, OUT_STEPS, OUT_GOAL, OUT_JSON } mode;
} explain_opts;

static bool parse_count(const char *text, long long lo, long long hi, long long *out)
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

/* Options take their value as the next argument or after '='. */
static int parse_explain_args(int argc, char **argv, explain_opts *o)
{
    *o = (explain_opts){.root = 0, .elem_size = 1, .commutative = true, .only_rank = -1};
    char names[512];
    coll_list(names, sizeof names);
    if (argc < 1 || argv[0][0] == '-')
        return usage_error("explain: which collective? one of %s", names);
    int c = trl_coll_from_name(argv[0], strlen(argv[0]));
    if (c < 0)
        return usage_error("explain: unknown collective '%s' (one of %s)", argv[0], names);
    o->coll = (trl_coll)c;
    bool ranks_given = false, mode_given = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        size_t name_len = strcspn(arg, "=");
        const char *value = arg[name_len] == '=' ? arg + name_len + 1 : NULL;
        char name[64];
        if (name_len >= sizeof name)
            return usage_error("explain: unknown option '%s'", arg);
        memcpy(name, arg, name_len);
        name[name_len] = '\0';

        bool is_flag = !strcmp(name, "--noncommutative") || !strcmp(name, "--steps") ||
                       !strcmp(name, "--goal") || !strcmp(name, "--json");
        if (is_flag) {
            if (value)
                return usage_error("explain: %s takes no value", name);
            if (!strcmp(name, "--noncommutative")) {
                o->commutative = false;
                continue;
            }
            if (mode_given)
                return usage_error("explain: use only one of --steps, --goal and --json");
            mode_given = true;
            o->mode = !strcmp(name, "--steps") ? OUT_STEPS
                      : !strcmp(name, "--goal") ? OUT_GOAL
                                                : OUT_JSON;
            continue;
        }
        bool takes_value = !strcmp(name, "--ranks") || !strcmp(name, "--bytes") ||
                           !strcmp(name, "--root") || !strcmp(name, "--elem-size") ||
                           !strcmp(name, "--rules") || !strcmp(name, "--rank") ||
                           !strcmp(name, "--topology");
        if (!takes_value)
            return usage_error("explain: unknown option '%s'", arg);
        if (!value) {
            if (i + 1 >= argc)
                return usage_error("explain: %s needs a value", name);
            value = argv[++i];
        }

        if (!strcmp(name, "--ranks")) {
            if (!parse_count(value, 1, MAX_RANKS, &o->ranks))
                return usage_error("explain: --ranks: expected a number of ranks from 1 to %d, "
                                   "got '%s'",
                                   MAX_RANKS, value);
            ranks_given = true;
        } else if (!strcmp(name, "--bytes")) {
            if (!parse_bytes(value, &o->bytes))
                return usage_error("explain: --bytes: expected a size such as 4096, 64K or 1M, "
                                   "got '%s'",
                                   value);
            o->bytes_given = true;
        } else if (!strcmp(name, "--root")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->root))
                return usage_error("explain: --root: expected a rank, got '%s'", value);
            o->root_given = true;
        } else if (!strcmp(name, "--elem-size")) {
            if (!parse_bytes(value, &o->elem_size) || o->elem_size == 0)
                return usage_error("explain: --elem-size: expected a positive number of bytes, "
                                   "got '%s'",
                                   value);
        } else if (!strcmp(name, "--rules")) {
            o->rules = value;
        } else if (!strcmp(name, "--topology")) {
            o->topology = value;
        } else if (!strcmp(name, "--rank")) {
            if (!parse_count(value, 0, MAX_RANKS - 1, &o->only_rank))
                return usage_error("explain: --rank: expected a rank, got '%s'", value);
        }
    }

    if (!ranks_given)
        return usage_error("explain: --ranks N is required");
    if (o->coll != TRL_COLL_BARRIER && !o->bytes_given)
        return usage_error("explain: --bytes B is required for %s", trl_coll_name(o->coll));
    if (o->coll == TRL_COLL_BARRIER) {
        if (o->bytes_given && o->bytes != 0)
            return usage_error("explain: a barrier carries no data; leave out --bytes");
        o->bytes = 0;
    }
    if (o->root_given && !trl_coll_is_rooted(o->coll))
        return usage_error("explain: --root applies to rooted collectives only (%s has no root)",
                           trl_coll_name(o->coll));
    if (o->root >= o->ranks)
        return usage_error("explain: --root %lld is not a rank of %lld", o->root, o->ranks);
    if (o->only_rank >= o->ranks)
        return usage_error("explain: --rank %lld is not a rank of %lld", o->only_rank, o->ranks);
    if (o->bytes % o->elem_size)
        return usage_error("explain: --bytes %llu is not a whole number of %llu-byte elements",
                           o->bytes, o->elem_size);
    if (o->coll == TRL_COLL_REDUCE_SCATTER_BLOCK && (o->bytes / o->elem_size) % (unsigned long long)o->ranks)
        return usage_error("explain: --bytes %llu (the whole vector) does not split into %lld "
                           "equal blocks of %llu-byte elements", o->bytes, o->ranks, o->elem_size);
    if (!o->commutative && !trl_coll_is_reduction(o->coll))
        return usage_error("explain: --noncommutative applies to reductions only (%s has no "
                           "operation)", trl_coll_name(o->coll));
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

/* What selection saw, so that the reports can walk the rules again. */
typedef struct {
    const trl_ruleset *user, *builtin;
    const trl_coll_args *args;
    size_t bytes;
} selection;

static void print_passed_over_text(const trl_rule *r, const char *why, void *out);

static void print_choice_text(const explain_opts *o, const trl_choice *ch, const selection *sel,
                              FILE *out)
{
    const trl_algo *algo = ch->algo;
    fprintf(out, "%s, %lld ranks", trl_coll_name(o->coll), o->ranks);
    if (o->coll != TRL_COLL_BARRIER)
        fprintf(out, ", %llu bytes (%llu elements of %llu byte%s)", o->bytes,
                o->bytes / o->elem_size, o->elem_size, o->elem_size == 1 ? "" : "s");
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", root %lld", o->root);
    if (trl_coll_is_reduction(o->coll))
        fprintf(out, ", %s operation", o->commutative ? "commutative" : "non-commutative");
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
    if (ch->rule)
        fprintf(out, "chosen by: %s:%d: %s\n", ch->rule->source, ch->rule->line, ch->rule->text);
    trl_select_passed_over(sel->user, sel->builtin, sel->args, sel->bytes, print_passed_over_text,
                           out);
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

static void print_choice_json(const explain_opts *o, const trl_choice *ch, const selection *sel,
                              FILE *out)
{
    fputs("{\"collective\": ", out);
    json_string(out, trl_coll_name(o->coll));
    fprintf(out, ", \"ranks\": %lld, \"bytes\": %llu, \"count\": %llu, \"elem_size\": %llu", o->ranks,
            o->bytes, o->bytes / o->elem_size, o->elem_size);
    if (trl_coll_is_rooted(o->coll))
        fprintf(out, ", \"root\": %lld", o->root);
    else
        fputs(", \"root\": null", out);
    fprintf(out, ", \"commutative\": %s", o->commutative ? "true" : "false");
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
    fputs(",\n \"rejected\": ", out);
    print_rule_json(ch->rejected, ch->rejected ? (ch->why ? ch->why : "") : NULL, out);
    fputs(",\n \"passed_over\": [", out);
    json_list list = {out, 0};
    trl_select_passed_over(sel->user, sel->builtin, sel->args, sel->bytes, print_passed_over_json,
                           &list);
    fputc(']', out);
    fprintf(out, ",\n \"mpi\": %s", ch->algo->build ? "false" : "true");
}

/* The call that --bytes describes, as the rules see it (docs/rules.md):
 * the message, one rank's block, the whole vector reduced, or for the
 * v-variants every rank's block alike. The arrays live in *v. */
typedef struct {
    size_t *counts, *displs;
} vectors;

static int call_shape(const explain_opts *o, trl_coll_args *a, vectors *v)
{
    size_t p = (size_t)o->ranks, n = (size_t)(o->bytes / o->elem_size);
    *a = (trl_coll_args){.coll = o->coll, .size = (int)o->ranks, .root = (int)o->root, .count = n,
                         .elem_size = (size_t)o->elem_size, .commutative = o->commutative};
    v->counts = calloc(p, sizeof *v->counts);
    v->displs = calloc(p, sizeof *v->displs);
    if (!v->counts || !v->displs)
        return -1;
    for (size_t i = 0; i < p; i++) {
        /* reduce_scatter: the vector split as evenly as it goes. */
        v->counts[i] = o->coll == TRL_COLL_REDUCE_SCATTER ? n / p + (i < n % p) : n;
        v->displs[i] = i ? v->displs[i - 1] + v->counts[i - 1] : 0;
    }
    switch (o->coll) {
    case TRL_COLL_REDUCE_SCATTER_BLOCK:
        a->count = n / p;
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
        break;
    default:
        break;
    }
    return 0;
}

static void free_shape(vectors *v)
{
    free(v->counts);
    free(v->displs);
}

/* Build and print every rank's schedule (or the one asked for). */
static int print_schedules(const explain_opts *o, const trl_choice *ch, trl_coll_args a,
                           FILE *out)
{
    a.params = ch->params;
    int first = o->only_rank >= 0 ? (int)o->only_rank : 0;
    int last = o->only_rank >= 0 ? (int)o->only_rank : (int)o->ranks - 1;

    if (o->mode == OUT_JSON)
        fputs(",\n \"schedules\": [", out);
    else if (o->mode != OUT_STEPS)
        fprintf(out, "num_ranks %lld\n", o->ranks);

    for (int r = first; r <= last; r++) {
        trl_sched s;
        a.rank = r;
        int rc = trl_algo_build(ch->algo, &a, &s);
        if (rc) {
            fflush(out);
            fprintf(stderr, "trellis: %s %s cannot build the schedule of rank %d of %lld: %s\n",
                    trl_coll_name(o->coll), ch->algo->name, r, o->ranks, trl_status_str(rc));
            return EXIT_FAIL;
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
            fputc('}', out);
            free(goal);
            free(steps);
            if (!g || !t) {
                trl_sched_free(&s);
                fprintf(stderr, "trellis: out of memory\n");
                return EXIT_FAIL;
            }
        } else if (o->mode == OUT_STEPS) {
            trl_sched_print_steps(&s, out);
        } else {
            trl_sched_print_goal(&s, a.elem_size, out);
        }
        trl_sched_free(&s);
    }
    if (o->mode == OUT_JSON)
        fputs("]", out);
    return 0;
}

static int cmd_explain(int argc, char **argv)
{
    explain_opts o;
    int rc = parse_explain_args(argc, argv, &o);
    if (rc)
        return rc;

    trl_ruleset user = {0}, builtin = {0};
    trl_rules_error err = {0};
    trl_topo topo = {0};
    char *text = NULL, msg[900];
    int status = EXIT_FAIL;
    vectors shape = {0};

    /* The runtime's own loader, so a file name or inline text is told apart
     * exactly as in a run. */
    if (o.rules && setenv("TRELLIS_RULES", o.rules, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_RULES\n");
        goto out;
    }
    if (trl_rules_load_env(&user, &text, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        status = EXIT_USAGE;
        goto out;
    }
    if (trl_rules_parse(trl_builtin_rules_text, "built-in", &builtin, &err)) {
        trl_rules_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "trellis: the built-in rules do not parse: %s\n", msg);
        goto out;
    }

    trl_coll_args a;
    if (call_shape(&o, &a, &shape)) {
        fprintf(stderr, "trellis: out of memory\n");
        goto out;
    }
    /* Where the ranks sit, as a run would see it: --topology, else
     * TRELLIS_TOPOLOGY, else one host. */
    if (o.topology && setenv("TRELLIS_TOPOLOGY", o.topology, 1)) {
        fprintf(stderr, "trellis: cannot set TRELLIS_TOPOLOGY\n");
        goto out;
    }
    bool described = false;
    trl_topo_error terr = {0};
    if (trl_topo_load_env(&topo, &described, &terr)) {
        trl_topo_error_format(&terr, msg, sizeof msg);
        fprintf(stderr, "trellis: %s\n", msg);
        status = EXIT_USAGE;
        goto out;
    }
    if (described && topo.size != o.ranks) {
        fprintf(stderr, "trellis: the layout describes %d ranks; --ranks is %lld\n", topo.size,
                o.ranks);
        status = EXIT_USAGE;
        goto out;
    }
    if (!described && trl_topo_single_host((int)o.ranks, &topo)) {
        fprintf(stderr, "trellis: out of memory\n");
        goto out;
    }
    a.topo = &topo;
    trl_choice ch = {0};
    selection sel = {&user, &builtin, &a, trl_coll_rule_bytes(&a)};
    if (trl_select(&user, &builtin, &a, sel.bytes, &ch) || !ch.algo) {
        fprintf(stderr, "trellis: no rule chooses an algorithm for this %s\n",
                trl_coll_name(o.coll));
        goto out;
    }

    char layout[1024];
    trl_topo_format(&topo, layout, sizeof layout);
    /* What the layout filters saw, so a rule's hosts=, ranks_per_host= and
     * placement= can be checked against it. */
    trl_layout_stats seen = trl_topo_stats(&topo, (int)o.ranks);
    const char *placement = seen.block ? "block" : "other";
    if (o.mode == OUT_JSON) {
        print_choice_json(&o, &ch, &sel, stdout);
        fputs(", \"layout\": ", stdout);
        json_string(stdout, layout);
        fprintf(stdout, ",\n \"hosts\": %d, \"ranks_per_host\": %d, \"placement\": \"%s\"",
                seen.hosts, seen.ranks_per_host, placement);
    } else if (o.mode != OUT_GOAL) {
        print_choice_text(&o, &ch, &sel, stdout);
        printf("%s\n", layout);
        printf("the rules saw: hosts=%d ranks_per_host=%d placement=%s\n", seen.hosts,
               seen.ranks_per_host, placement);
    }

    if (!ch.algo->build) {
        /* The MPI library's own collective: nothing of Trellis runs. */
        if (o.mode == OUT_JSON)
            fputs(",\n \"schedules\": null}\n", stdout);
        else if (o.mode == OUT_GOAL)
            fprintf(stderr, "trellis: no schedule: the MPI library's own %s runs\n",
                    trl_coll_mpi_name(o.coll));
        else
            printf("no schedule: the MPI library's own %s runs\n", trl_coll_mpi_name(o.coll));
        status = 0;
        goto out;
    }

    if (o.mode == OUT_TEXT)
        printf("\nschedule of %s (GOAL, LogGOPSim's format):\n",
               o.only_rank >= 0 ? "one rank" : "every rank");
    else if (o.mode == OUT_STEPS)
        printf("\nschedule of %s:\n", o.only_rank >= 0 ? "one rank" : "every rank");
    status = print_schedules(&o, &ch, a, stdout);
    if (status == 0 && o.mode == OUT_JSON)
        fputs("}\n", stdout);

out:
    free_shape(&shape);
    trl_topo_free(&topo);
    free(text);
    trl_rules_free(&user);
    trl_rules_free(&builtin);
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
    if (!strcmp(cmd, "explain"))
        return cmd_explain(argc - 2, argv + 2);
    if (!strcmp(cmd, "layout"))
        return cmd_layout(argc - 2, argv + 2);
    usage_error("unknown command '%s'", cmd);
    fputs(usage_text, stderr);
    return EXIT_USAGE;
}
